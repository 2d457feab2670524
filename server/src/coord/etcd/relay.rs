//! The signal relay: how a commit on one replica wakes the watches and invalidates the
//! caches of the others (DESIGN §4: wake-ups through etcd, events from the SQL log).
//!
//! After each commit, the store signals the targets it appended to or touched
//! ([`Signals`]). Here those targets go out as puts of `{prefix}/signals/{target}`
//! (value: this member's id), coalesced while a put is in flight and up to [`BATCH`]
//! to a transaction; every replica watches the prefix and signals the targets other
//! members put, so its feeds read the new events from the log and its caches drop
//! what they held. A put that fails is retried until etcd answers: the events are in
//! SQL already, so a delay loses nothing.
//!
//! While this replica's watch of the prefix is down, other replicas' signals may be
//! missed: the store's reach is [`Reach::Cut`], feeds poll the log and caches are not
//! used. When the watch is back, every target is signalled once, so nothing missed in
//! between stays unread.

use std::collections::BTreeSet;
use std::sync::Arc;

use etcd_client::{EventType, PutOptions, Txn, TxnOp, WatchOptions};
use tokio::sync::mpsc::UnboundedReceiver;
use tracing::{info, warn};

use super::{EtcdCoordinator, RETRY, timed};
use crate::store::{Reach, Signals};

/// Targets put per etcd transaction (etcd allows 128 operations in one by default).
const BATCH: usize = 100;

impl EtcdCoordinator {
    /// Relays `signals` to and from the other replicas until resigned.
    pub(super) fn start_relay(self: &Arc<Self>, signals: Arc<Signals>) {
        let outgoing = signals.relay_through();
        let send = tokio::spawn(self.clone().send_signals(outgoing));
        let follow = tokio::spawn(self.clone().follow_signals(signals));
        self.tasks.lock().expect("tasks").extend([send, follow]);
    }

    /// Puts the targets this replica signals; what could not be put is kept and put
    /// again. At resignation, what is pending is put once more before leaving.
    async fn send_signals(self: Arc<Self>, mut outgoing: UnboundedReceiver<String>) {
        let mut pending = BTreeSet::new();
        let mut failing = false;
        loop {
            if pending.is_empty() {
                tokio::select! {
                    () = self.stop.cancelled() => {}
                    target = outgoing.recv() => match target {
                        Some(target) => {
                            pending.insert(target);
                        }
                        None => return,
                    },
                }
            }
            while let Ok(target) = outgoing.try_recv() {
                pending.insert(target);
            }
            let stopping = self.stop.is_cancelled();
            match self.put_signals(&mut pending).await {
                Ok(()) if failing => {
                    failing = false;
                    info!("signals reach etcd again");
                }
                Ok(()) => {}
                Err(error) => {
                    if !failing {
                        warn!(%error, "cannot put signals for the other replicas; retrying (their watches of these targets wait)");
                    }
                    failing = true;
                    if !stopping {
                        self.pause(RETRY).await;
                    }
                }
            }
            if stopping {
                return;
            }
        }
    }

    /// Puts `pending`'s targets, removing each batch once it is in etcd.
    async fn put_signals(&self, pending: &mut BTreeSet<String>) -> anyhow::Result<()> {
        while !pending.is_empty() {
            let batch: Vec<String> = pending.iter().take(BATCH).cloned().collect();
            let options = self
                .live_lease()
                .map(|lease| PutOptions::new().with_lease(lease));
            let puts: Vec<TxnOp> = batch
                .iter()
                .map(|target| {
                    TxnOp::put(
                        self.key("signals", target),
                        self.me.id.as_str(),
                        options.clone(),
                    )
                })
                .collect();
            timed(self.client.clone().txn(Txn::new().and_then(puts))).await?;
            for target in &batch {
                pending.remove(target);
            }
        }
        Ok(())
    }

    /// Signals here the targets other replicas put, and keeps the store's reach up to
    /// date with the watch.
    async fn follow_signals(self: Arc<Self>, signals: Arc<Signals>) {
        let prefix = self.prefix("signals");
        while !self.stop.is_cancelled() {
            if let Err(error) = self.follow_signals_once(&prefix, &signals).await {
                warn!(%error, "lost the signals' watch: polling the event log until it is back");
            }
            signals.set_reach(Reach::Cut);
            self.pause(RETRY).await;
        }
    }

    async fn follow_signals_once(&self, prefix: &str, signals: &Signals) -> anyhow::Result<()> {
        let options = WatchOptions::new().with_prefix();
        let (_watcher, mut events) =
            timed(self.client.clone().watch(prefix, Some(options))).await?;
        // Established: from here on nothing is missed, and everything before is read
        // once (set_reach signals every target).
        signals.set_reach(Reach::Relayed);
        while let Some(answer) = self.next_events(&mut events).await? {
            for event in answer.events() {
                let Some(kv) = event.kv() else { continue };
                if event.event_type() != EventType::Put || kv.value() == self.me.id.as_bytes() {
                    continue;
                }
                if let Some(target) = kv.key_str()?.strip_prefix(prefix) {
                    signals.remote(target);
                }
            }
        }
        Ok(())
    }
}
