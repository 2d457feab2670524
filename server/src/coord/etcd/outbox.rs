//! Nudges on their way out: [`Coordinator::nudge`](super::Coordinator::nudge) queues, and
//! one task puts what is queued in etcd transactions of up to [`BATCH`] keys. The call
//! that nudged (an action's create, a rollout) does not wait for etcd, and a burst of
//! nudges (ten thousand action creates) is a few hundred transactions, not one etcd
//! write each. Nudges of one cluster keep their order: a key already in a transaction
//! starts the next one.

use std::collections::BTreeSet;
use std::sync::Arc;

use etcd_client::{PutOptions, Txn, TxnOp};
use tokio::sync::mpsc::UnboundedReceiver;
use tracing::warn;

use super::{EtcdCoordinator, Nudge, timed};

/// Keys per transaction (etcd allows 128 operations in one by default).
const BATCH: usize = 100;

impl EtcdCoordinator {
    /// Puts the queued nudges until resigned. Best effort, as nudges are: a batch etcd
    /// refuses is logged and dropped (the owners re-read their work on a timer).
    pub(super) async fn send_nudges(
        self: Arc<Self>,
        mut queued: UnboundedReceiver<(String, Nudge)>,
    ) {
        let mut next: Option<(String, Nudge)> = None;
        loop {
            let first = match next.take() {
                Some(first) => first,
                None => tokio::select! {
                    () = self.stop.cancelled() => return,
                    nudge = queued.recv() => match nudge {
                        Some(nudge) => nudge,
                        None => return,
                    },
                },
            };
            let mut keys = BTreeSet::from([first.0.clone()]);
            let mut batch = vec![first];
            while batch.len() < BATCH {
                let Ok(nudge) = queued.try_recv() else { break };
                if !keys.insert(nudge.0.clone()) {
                    next = Some(nudge);
                    break;
                }
                batch.push(nudge);
            }
            if let Err(error) = self.put_nudges(&batch).await {
                warn!(%error, nudges = batch.len(), "cannot nudge the owners of these clusters");
            }
        }
    }

    async fn put_nudges(&self, batch: &[(String, Nudge)]) -> anyhow::Result<()> {
        let Some(lease) = self.live_lease() else {
            anyhow::bail!("this replica holds no live lease");
        };
        let options = PutOptions::new().with_lease(lease);
        let mut puts = Vec::with_capacity(batch.len());
        for (cluster, nudge) in batch {
            let value = serde_json::to_vec(nudge)?;
            puts.push(TxnOp::put(
                self.key("nudges", cluster),
                value,
                Some(options.clone()),
            ));
        }
        timed(self.client.clone().txn(Txn::new().and_then(puts))).await?;
        Ok(())
    }
}
