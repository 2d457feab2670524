//! The rsync engine: one worker per cluster, fed from the database. A worker wakes on
//! new work, on session changes and on its backoff timer; it reads what the cluster
//! should receive (applies of active instances, deletes of terminated ones), sends it
//! through the agent session, and records each outcome. While the cluster is
//! unreachable its outstanding resources are Retrying and the worker backs off
//! exponentially with jitter. All state lives in SQL, so after a restart the workers
//! simply resume.
//!
//! Operations in flight are bounded over the whole fleet, not per cluster
//! ([`RsyncOptions::in_flight`]): each holds its resource until the agent answers, so a
//! rollout that wakes every cluster at once would otherwise hold a batch per cluster,
//! memory that grows with the fleet (half a million manifests at 1,000 clusters).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::connect_response::Message as Down;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::agent::{AgentHub, ClusterLink, Session};
use crate::app::status::{Outcome, StatusApp};
use crate::error::Result;
use crate::metrics::{GaugeHold, METRICS};
use crate::store::cluster::cluster_list_all;
use crate::store::group_commit::{GroupCommit, GroupWriter};
use crate::store::rsync_resource::ResourceKey;
use crate::store::status::{RsyncWork, rsync_work};
use crate::tasks::jittered;
use crate::wire::convert::json_into_struct;

/// Tuning of the workers.
#[derive(Debug, Clone)]
pub struct RsyncOptions {
    /// Operations sent before waiting for their results.
    pub batch: i64,
    /// Operations in flight over all clusters at most; workers beyond it wait their
    /// turn (first come, first served) before reading their next batch. A batch is
    /// never larger than this.
    pub in_flight: usize,
    /// First and largest backoff while a cluster is unreachable.
    pub backoff_min: Duration,
    pub backoff_max: Duration,
    /// How long to wait for an agent's results before treating the cluster as lost.
    pub result_timeout: Duration,
    /// How often an idle worker re-reads its work (a safety net for missed wake-ups).
    pub idle_recheck: Duration,
}

impl Default for RsyncOptions {
    fn default() -> Self {
        Self {
            batch: 500,
            // A full batch for each of 100 clusters at once: what 100 clusters always
            // had; a larger fleet takes turns.
            in_flight: 50_000,
            backoff_min: Duration::from_millis(200),
            backoff_max: Duration::from_secs(10),
            result_timeout: Duration::from_secs(30),
            idle_recheck: Duration::from_secs(10),
        }
    }
}

/// The workers of this server.
pub struct RsyncEngine {
    hub: Arc<AgentHub>,
    options: RsyncOptions,
    /// The workers' outcomes, recorded in groups: a rollout that wakes a hundred
    /// clusters brings a hundred batches back at once, which one at a time queued on
    /// the instance's totals and the group's conditions (about 5 ms each on
    /// PostgreSQL).
    outcomes: GroupCommit<Vec<(RsyncWork, Outcome)>>,
    /// Permits for operations in flight ([`RsyncOptions::in_flight`]).
    budget: Arc<Semaphore>,
    workers: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    shutdown: CancellationToken,
}

/// Outcomes per group transaction at most (a full batch of ten clusters).
const GROUP_OUTCOMES: usize = 5_000;

/// Writes a group of the workers' outcome batches.
struct Record<'s>(&'s StatusApp);

impl GroupWriter<Vec<(RsyncWork, Outcome)>> for Record<'_> {
    async fn write(&self, items: &[&Vec<(RsyncWork, Outcome)>]) -> Result<()> {
        let batches: Vec<&[(RsyncWork, Outcome)]> = items.iter().map(|b| b.as_slice()).collect();
        self.0.record_outcomes(&batches).await
    }
}

enum Pass {
    /// Nothing left to do.
    Done,
    /// Work is waiting but the cluster has no session.
    Unreachable,
}

impl RsyncEngine {
    pub fn new(
        hub: Arc<AgentHub>,
        options: RsyncOptions,
        shutdown: CancellationToken,
    ) -> Arc<RsyncEngine> {
        let outcomes = GroupCommit::writing_to(hub.status().store(), GROUP_OUTCOMES, Vec::len);
        let options = RsyncOptions {
            batch: options.batch.min(options.in_flight as i64).max(1),
            in_flight: options.in_flight.max(1),
            ..options
        };
        let budget = Arc::new(Semaphore::new(options.in_flight));
        Arc::new(RsyncEngine {
            hub,
            options,
            outcomes,
            budget,
            workers: Mutex::new(HashMap::new()),
            shutdown,
        })
    }

    /// Starts workers for every cluster in the database (at start-up).
    pub async fn start_all(self: &Arc<Self>) -> Result<()> {
        let mut conn = self.hub.status().store().read().await?;
        for (cluster, _) in cluster_list_all(&mut conn).await? {
            self.wake(&cluster);
        }
        Ok(())
    }

    /// Wakes the worker of `cluster`, starting it if needed: only for a cluster this
    /// replica runs (its owner's worker does the rest).
    pub fn wake(self: &Arc<Self>, cluster: &str) {
        if self.hub.ownership().owns(cluster).is_none() {
            return;
        }
        let link = self.hub.link(cluster);
        let mut workers = self.workers.lock().expect("workers lock");
        let running = workers.get(cluster).is_some_and(|w| !w.is_finished());
        if !running {
            let engine = self.clone();
            let worker_link = link.clone();
            workers.insert(
                cluster.to_string(),
                tokio::spawn(async move { engine.run(worker_link).await }),
            );
        }
        link.wake.notify_one();
    }

    /// Stops the worker of a deleted cluster (it has nothing left to send: a cluster is
    /// deleted only when nothing is placed on it).
    pub fn forget(&self, cluster: &str) {
        if let Some(worker) = self.workers.lock().expect("workers lock").remove(cluster) {
            worker.abort();
        }
    }

    /// Waits for every worker to stop (after the shutdown token fired).
    pub async fn join(&self) {
        let workers: Vec<_> = self
            .workers
            .lock()
            .expect("workers lock")
            .drain()
            .map(|(_, w)| w)
            .collect();
        for worker in workers {
            let _ = worker.await;
        }
    }

    async fn run(self: Arc<Self>, link: Arc<ClusterLink>) {
        let _worker = GaugeHold::new(&METRICS.rsync_workers, 1);
        let cluster = link.cluster.clone();
        let mut sessions = link.watch();
        let mut backoff = self.options.backoff_min;
        loop {
            let failing = match self.pass(&link).await {
                // The session was replaced mid-pass: go again with the new one.
                Ok(Pass::Unreachable) if link.current().is_some() => continue,
                Ok(pass) => {
                    if link.current().is_none() {
                        // Nothing can reach the cluster: what it should hold is Retrying.
                        match self.hub.mark_unreachable(&link).await {
                            Ok(moved) if moved > 0 => {
                                info!(%cluster, moved, "cluster unreachable; resources retrying")
                            }
                            Ok(_) => {}
                            Err(error) => warn!(%cluster, %error, "cannot mark resources retrying"),
                        }
                    }
                    match pass {
                        Pass::Done => {
                            backoff = self.options.backoff_min;
                            false
                        }
                        Pass::Unreachable => true,
                    }
                }
                Err(error) => {
                    warn!(%cluster, %error, "rsync pass failed");
                    true
                }
            };
            let wait = if failing {
                let wait = backoff + jittered(Duration::from_millis(25), 1.0); // + 0–50 ms
                backoff = (backoff * 2).min(self.options.backoff_max);
                METRICS.rsync_retries.inc();
                METRICS.rsync_backoff.observe(wait.as_secs_f64());
                wait
            } else {
                // Spread over ±25%: the workers of a fleet whose agents connected
                // together would otherwise re-read their work in the same instant every
                // period, a hundred passes in a burst that a busy server's other
                // requests queue behind.
                jittered(self.options.idle_recheck, 0.25)
            };
            let _backing_off = failing.then(|| GaugeHold::new(&METRICS.rsync_backing_off, 1));
            tokio::select! {
                () = self.shutdown.cancelled() => return,
                () = link.wake.notified() => {}
                changed = sessions.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    backoff = self.options.backoff_min;
                }
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Sends everything `link`'s cluster should receive, batch by batch.
    async fn pass(&self, link: &ClusterLink) -> Result<Pass> {
        let store = self.hub.status().store().clone();
        let mut after: Option<(String, ResourceKey)> = None;
        let batch = self.options.batch as u32;
        loop {
            // Held until the batch's outcomes are recorded; the surplus of a short
            // batch goes back at once.
            let mut permits = self
                .budget
                .clone()
                .acquire_many_owned(batch)
                .await
                .expect("the rsync budget is never closed");
            let work = {
                // Every cluster's pass reads at once after an instantiate: they take
                // turns (see `Store::read_background`).
                let mut conn = store.read_background().await?;
                rsync_work(&mut conn, &link.cluster, after.as_ref(), self.options.batch).await?
            };
            drop(permits.split((batch as usize).saturating_sub(work.len())));
            let Some(last) = work.last() else {
                return Ok(Pass::Done);
            };
            after = Some((last.instance.to_string(), last.key.clone()));
            let Some(session) = link.current() else {
                return Ok(Pass::Unreachable);
            };
            let outcomes = match self.send_batch(&session, work).await {
                Some(outcomes) => outcomes,
                None => return Ok(Pass::Unreachable),
            };
            debug!(cluster = %link.cluster, operations = outcomes.len(), "rsync batch done");
            let (_, recorded) = self
                .outcomes
                .submit(outcomes, &Record(self.hub.status()))
                .await;
            recorded?;
            drop(permits);
        }
    }

    /// Sends a batch and collects the results; None if the session ended meanwhile.
    async fn send_batch(
        &self,
        session: &Session,
        work: Vec<RsyncWork>,
    ) -> Option<Vec<(RsyncWork, Outcome)>> {
        let mut waiting = Vec::with_capacity(work.len());
        for mut item in work {
            let deployment_id = format!("{}-{}", item.instance, item.key.app);
            let receiver = if item.delete {
                let gvk = pb::GroupVersionKind {
                    group: item.key.group.clone(),
                    version: item.api_version.clone(),
                    kind: item.key.kind.clone(),
                };
                session
                    .operation(|operation_id| {
                        Down::Delete(pb::DeleteResource {
                            operation_id,
                            gvk: Some(gvk),
                            namespace: item.key.namespace.clone(),
                            name: item.key.name.clone(),
                        })
                    })
                    .await
            } else {
                // The outcome needs the key only: the manifest is not held while the
                // agent works.
                let manifest: serde_json::Value =
                    serde_json::from_str(&std::mem::take(&mut item.manifest)).unwrap_or_default();
                session
                    .operation(|operation_id| {
                        Down::Apply(pb::ApplyResource {
                            operation_id,
                            deployment_id,
                            manifest: Some(json_into_struct(manifest)),
                            generation: item.generation,
                        })
                    })
                    .await
            };
            waiting.push((item, receiver.ok()?));
        }
        let mut in_flight = GaugeHold::new(&METRICS.rsync_in_flight, waiting.len() as i64);
        let mut outcomes = Vec::with_capacity(waiting.len());
        for (item, receiver) in waiting {
            let result = tokio::select! {
                result = receiver => result.ok()?,
                () = tokio::time::sleep(self.options.result_timeout) => return None,
                () = session.closed.cancelled() => return None,
            };
            in_flight.release(1);
            let operation = if item.delete { "delete" } else { "apply" };
            let outcome = if result.success {
                "succeeded"
            } else {
                "rejected"
            };
            METRICS
                .rsync_operations
                .with_label_values(&[operation, outcome])
                .inc();
            let outcome = if result.success {
                Outcome::Succeeded
            } else {
                Outcome::Rejected(result.error)
            };
            outcomes.push((item, outcome));
        }
        Some(outcomes)
    }
}
