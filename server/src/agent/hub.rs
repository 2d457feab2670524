//! The server side of agent sessions. Each cluster has a [`ClusterLink`] holding its
//! current [`Session`] (at most one: a new session replaces the old). The rsync worker
//! of the cluster sends operations through the session and awaits their results; the
//! session's reader completes operation results at once and queues bundle states for
//! the session's ingester, which keeps only the latest state per deployment id and
//! ingests what accumulated in one transaction (so results never wait behind a queue
//! of bundle ingests, and a burst of reports costs one write), together with what the
//! other sessions queued meanwhile (group commit). Opening and losing
//! sessions updates the cluster's connectivity.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::connect_response::Message as Down;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tonic::Status;
use tracing::{info, warn};

use crate::app::status::{Bundle, Reported, StatusApp, parse_deployment_id};
use crate::coord::ownership::{Ownership, Whereabouts};
use crate::domain::manifest::{Gvk, canonical_namespace};
use crate::domain::names::ClusterName;
use crate::domain::readiness::Connectivity;
use crate::error::{Error, Precondition, Result, precondition};
use crate::ids::TokenId;
use crate::metrics::METRICS;
use crate::store::Store;
use crate::store::group_commit::{GroupCommit, GroupWriter};
use crate::wire::convert::struct_to_json;

/// The link between the server and one cluster.
pub struct ClusterLink {
    pub cluster: ClusterName,
    session: watch::Sender<Option<Arc<Session>>>,
    /// Wakes the cluster's rsync worker (new work, new session).
    pub wake: Notify,
    /// Held while the cluster's bundles are ingested: an old session's last batch
    /// finishes before the next session's first.
    ingest: tokio::sync::Mutex<()>,
    /// Held while the cluster's connectivity is written. Each writer decides what to
    /// write from the session it sees under this lock, so a write that saw "no
    /// session" cannot land after the write of a session that opened meanwhile (the
    /// cluster would stay Retrying with a live agent).
    connectivity: tokio::sync::Mutex<()>,
    /// The backend the cluster's last agent reported in its hello ("" before one).
    backend: Mutex<String>,
}

impl ClusterLink {
    /// The current session, if the agent is connected.
    pub fn current(&self) -> Option<Arc<Session>> {
        self.session.borrow().clone()
    }

    /// Changes of the current session.
    pub fn watch(&self) -> watch::Receiver<Option<Arc<Session>>> {
        self.session.subscribe()
    }
}

/// One agent session.
pub struct Session {
    pub id: u64,
    pub cluster: ClusterName,
    /// The agent token the session was opened with.
    pub token: TokenId,
    /// Whether the agent executes actions (they are delivered through the session).
    pub executes_actions: bool,
    /// The agent's action reports, processed in order by the session's report task.
    pub(super) action_reports: mpsc::UnboundedSender<pb::UpdateActionStatusRequest>,
    outbound: mpsc::Sender<Result<pb::ConnectResponse, Status>>,
    pending: Mutex<HashMap<i64, oneshot::Sender<pb::ResourceResult>>>,
    next_operation: AtomicI64,
    /// Cancelled when the session ends, for whatever reason.
    pub closed: CancellationToken,
    /// Bundle states not ingested yet, the latest per deployment id.
    bundles: Mutex<BTreeMap<String, Bundle>>,
    bundles_ready: Notify,
    /// Counted in the open-sessions gauge (from its opening to its end).
    counted: AtomicBool,
}

impl Session {
    /// Takes the session out of the open-sessions gauge, once.
    fn uncount(&self) {
        if self.counted.swap(false, Ordering::AcqRel) {
            METRICS.agent_sessions.dec();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.uncount();
    }
}

/// Bundles per ingest transaction.
const INGEST_BATCH: usize = 64;

impl Session {
    /// Sends a message to the agent.
    pub async fn send(&self, message: Down) -> std::result::Result<(), ()> {
        self.outbound
            .send(Ok(pb::ConnectResponse {
                message: Some(message),
            }))
            .await
            .map_err(|_| ())
    }

    /// Sends an operation built around a fresh operation id; the receiver yields the
    /// agent's result, or fails if the session ends first.
    pub async fn operation(
        &self,
        build: impl FnOnce(i64) -> Down,
    ) -> std::result::Result<oneshot::Receiver<pb::ResourceResult>, ()> {
        let id = self.next_operation.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, tx);
        self.send(build(id)).await?;
        Ok(rx)
    }

    /// Delivers a result to the operation waiting for it.
    fn complete(&self, result: pb::ResourceResult) {
        if let Some(waiter) = self
            .pending
            .lock()
            .expect("pending lock")
            .remove(&result.operation_id)
        {
            let _ = waiter.send(result);
        }
    }

    fn fail_pending(&self) {
        self.pending.lock().expect("pending lock").clear();
    }

    /// Queues a bundle state for ingest, on top of an older one of its deployment id
    /// still queued (a full state replaces it, a partial one is merged into it).
    fn queue_bundle(&self, bundle: Bundle) {
        let mut queued = self.bundles.lock().expect("bundles lock");
        match queued.entry(bundle.deployment_id.clone()) {
            Entry::Occupied(mut older) => older.get_mut().absorb(bundle),
            Entry::Vacant(slot) => {
                slot.insert(bundle);
            }
        }
        drop(queued);
        self.bundles_ready.notify_one();
    }

    /// Puts back bundles whose ingest failed, beneath any newer state that arrived
    /// meanwhile.
    fn requeue_bundles(&self, bundles: Vec<Bundle>) {
        let mut queued = self.bundles.lock().expect("bundles lock");
        for mut bundle in bundles {
            if let Some(newer) = queued.remove(&bundle.deployment_id) {
                bundle.absorb(newer);
            }
            queued.insert(bundle.deployment_id.clone(), bundle);
        }
    }

    fn take_bundles(&self) -> Vec<Bundle> {
        let mut queued = self.bundles.lock().expect("bundles lock");
        let keys: Vec<String> = queued.keys().take(INGEST_BATCH).cloned().collect();
        keys.iter().filter_map(|k| queued.remove(k)).collect()
    }
}

/// Bundles per group transaction at most (each bundle is one app on one cluster).
const GROUP_BUNDLES: usize = 256;

/// Ingests that find fewer bundles queued than this are written one at a time (see
/// [`GroupCommit::light_below`]): the steady trickle of a running fleet (pods
/// restarting, readiness flapping), whose groups all write one intent group's totals
/// and conditions. A fleet converging queues more and writes side by side.
const LIGHT_BUNDLES: usize = GROUP_BUNDLES / 4;

/// Group commit of the sessions' bundle batches ([`GroupCommit`]): with a hundred
/// agents reporting at once, the database sees a few large transactions instead of a
/// hundred small ones queueing for the (SQLite: single) writer.
type IngestGroup = GroupCommit<(ClusterName, Vec<Bundle>)>;

fn ingest_group(store: &Store) -> IngestGroup {
    IngestGroup::writing_to(store, GROUP_BUNDLES, |(_, bundles)| bundles.len())
        .light_below(LIGHT_BUNDLES)
}

/// Writes a group of the sessions' bundle batches: (cluster, bundles).
struct Ingest<'s>(&'s StatusApp);

impl GroupWriter<(ClusterName, Vec<Bundle>)> for Ingest<'_> {
    async fn write(&self, items: &[&(ClusterName, Vec<Bundle>)]) -> Result<()> {
        let batches: Vec<(&ClusterName, &[Bundle])> = items
            .iter()
            .map(|(cluster, bundles)| (cluster, bundles.as_slice()))
            .collect();
        self.0.ingest_clusters(&batches).await
    }
}

/// Ingests `bundles` of `cluster` with whatever else is queued; returns them with the
/// result (to requeue them after a transient failure).
async fn ingest(
    group: &IngestGroup,
    status: &StatusApp,
    cluster: &ClusterName,
    bundles: Vec<Bundle>,
) -> (Vec<Bundle>, Result<()>) {
    let ((_, bundles), result) = group
        .submit((cluster.clone(), bundles), &Ingest(status))
        .await;
    (bundles, result)
}

/// Ingests the bundles `session` queues until it ends (then what it queued last, unless
/// a newer session of the cluster took over: that one re-reports everything).
async fn ingest_bundles(
    status: StatusApp,
    group: Arc<IngestGroup>,
    link: Arc<ClusterLink>,
    session: Arc<Session>,
) {
    let mut attempt = 0u32;
    loop {
        let batch = session.take_bundles();
        if batch.is_empty() {
            if session.closed.is_cancelled() {
                return;
            }
            tokio::select! {
                () = session.bundles_ready.notified() => {}
                () = session.closed.cancelled() => {}
            }
            continue;
        }
        let _turn = link.ingest.lock().await;
        if link
            .current()
            .is_some_and(|current| current.id != session.id)
        {
            return;
        }
        let (batch, result) = ingest(&group, &status, &session.cluster, batch).await;
        match result {
            Ok(()) => attempt = 0,
            // A transient failure (lost race, busy pool) must not drop the states, or
            // their resources stay stale: retry, with anything newer taking precedence.
            Err(error @ (Error::Aborted { .. } | Error::Unavailable(_))) if attempt < 8 => {
                attempt += 1;
                warn!(cluster = %session.cluster, %error, attempt, "bundle ingest failed; retrying");
                session.requeue_bundles(batch);
                tokio::time::sleep(Duration::from_millis(10 << attempt.min(6))).await;
            }
            Err(error) => {
                attempt = 0;
                warn!(cluster = %session.cluster, %error, bundles = batch.len(), "cannot ingest bundle states");
                // A partial state's changes are lost with it: its agent sends the
                // deployment whole again rather than only what changes next.
                let deployment_ids: Vec<String> = batch
                    .into_iter()
                    .filter(|b| b.partial)
                    .map(|b| b.deployment_id)
                    .collect();
                if !deployment_ids.is_empty() {
                    let _ = session
                        .send(Down::Report(pb::ReportRequest { deployment_ids }))
                        .await;
                }
            }
        }
    }
}

/// All agent sessions of this server.
pub struct AgentHub {
    status: StatusApp,
    heartbeat: Duration,
    /// Which clusters this replica runs: only their agents are taken.
    ownership: Arc<Ownership>,
    links: Mutex<HashMap<ClusterName, Arc<ClusterLink>>>,
    /// Clusters the simulator disconnected: their agents are refused until reconnected.
    blocked: Mutex<HashSet<String>>,
    next_session: AtomicU64,
    ingest: Arc<IngestGroup>,
    /// The action use cases, once attached (see `agent::actions`).
    pub(super) actions: std::sync::OnceLock<crate::app::actions::Actions>,
}

impl AgentHub {
    pub fn new(status: StatusApp, heartbeat: Duration, ownership: Arc<Ownership>) -> Arc<AgentHub> {
        let ingest = Arc::new(ingest_group(status.store()));
        Arc::new(AgentHub {
            status,
            heartbeat,
            ownership,
            links: Mutex::new(HashMap::new()),
            blocked: Mutex::new(HashSet::new()),
            next_session: AtomicU64::new(1),
            ingest,
            actions: std::sync::OnceLock::new(),
        })
    }

    pub fn heartbeat(&self) -> Duration {
        self.heartbeat
    }

    pub fn status(&self) -> &StatusApp {
        &self.status
    }

    /// Which clusters this replica runs.
    pub fn ownership(&self) -> &Arc<Ownership> {
        &self.ownership
    }

    /// The link of `cluster`, created on first use.
    pub fn link(&self, cluster: &str) -> Arc<ClusterLink> {
        self.links
            .lock()
            .expect("links lock")
            .entry(ClusterName::from(cluster))
            .or_insert_with(|| {
                Arc::new(ClusterLink {
                    cluster: ClusterName::from(cluster),
                    session: watch::channel(None).0,
                    wake: Notify::new(),
                    ingest: tokio::sync::Mutex::new(()),
                    connectivity: tokio::sync::Mutex::new(()),
                    backend: Mutex::new(String::new()),
                })
            })
            .clone()
    }

    /// The link of `cluster` if it has one (never creates one).
    pub(super) fn existing_link(&self, cluster: &str) -> Option<Arc<ClusterLink>> {
        self.links.lock().expect("links lock").get(cluster).cloned()
    }

    /// Opens a session for `cluster`, replacing any previous one.
    pub async fn open(
        &self,
        cluster: &str,
        token: TokenId,
        hello: &pb::AgentHello,
    ) -> Result<(
        Arc<Session>,
        mpsc::Receiver<Result<pb::ConnectResponse, Status>>,
    )> {
        if self.blocked.lock().expect("blocked lock").contains(cluster) {
            return Err(Error::Unavailable(format!(
                "cluster {cluster} is disconnected by the simulator"
            )));
        }
        match self.ownership.whereabouts(cluster) {
            Whereabouts::Here(_) => {}
            Whereabouts::Elsewhere { member, address } => {
                return Err(Error::Elsewhere {
                    cluster: cluster.to_owned(),
                    member: member.to_string(),
                    address,
                });
            }
            Whereabouts::Unknown => {
                return Err(Error::Unavailable(format!(
                    "no replica runs cluster {cluster} right now (it is changing hands); retry"
                )));
            }
        }
        let held = &hello.deployment_ids;
        let (outbound, receiver) = mpsc::channel(8192);
        let (action_reports, reports) = mpsc::unbounded_channel();
        let session = Arc::new(Session {
            id: self.next_session.fetch_add(1, Ordering::Relaxed),
            cluster: ClusterName::from(cluster),
            token,
            executes_actions: hello.executes_actions,
            action_reports,
            outbound,
            pending: Mutex::new(HashMap::new()),
            next_operation: AtomicI64::new(1),
            closed: CancellationToken::new(),
            bundles: Mutex::new(BTreeMap::new()),
            bundles_ready: Notify::new(),
            counted: AtomicBool::new(false),
        });
        // The agent must see the acceptance first: send it before the session is
        // published to the rsync worker, which may start sending at once.
        session
            .send(Down::Accepted(pb::SessionAccepted {
                heartbeat_interval_millis: self.heartbeat.as_millis() as i64,
                partial_bundles: true,
                replica: self.ownership.coordinator().me().id.as_str().to_owned(),
            }))
            .await
            .map_err(|_| Error::Unavailable("the agent went away".into()))?;
        let link = self.link(cluster);
        hello
            .backend
            .clone_into(&mut link.backend.lock().expect("backend lock"));
        tokio::spawn(ingest_bundles(
            self.status.clone(),
            self.ingest.clone(),
            link.clone(),
            session.clone(),
        ));
        let previous = link.session.send_replace(Some(session.clone()));
        session.counted.store(true, Ordering::Release);
        METRICS.agent_sessions.inc();
        METRICS.agent_sessions_opened.inc();
        if let Some(previous) = previous {
            previous.closed.cancel();
            previous.fail_pending();
            previous.uncount();
        }
        info!(%cluster, session = session.id, "agent session opened");
        if let Err(error) = self.status.reconcile_session(&session.cluster, held).await {
            warn!(%cluster, %error, "cannot reconcile the new session");
        }
        self.record_agent_facts(&session, hello).await;
        {
            let _connectivity = link.connectivity.lock().await;
            // A newer session (or a close) may have come meanwhile: it writes its own.
            if link.current().is_some_and(|c| c.id == session.id) {
                METRICS.connectivity(cluster, true);
                if let Err(error) = self
                    .status
                    .connectivity_changed(&session.cluster, Connectivity::Available)
                    .await
                {
                    warn!(%cluster, %error, "cannot record connectivity");
                }
            }
        }
        link.wake.notify_one();
        self.actions_session_opened(&session, reports).await;
        Ok((session, receiver))
    }

    /// Ends `session`; if it is still the cluster's current one, the cluster becomes
    /// unreachable (Retrying) and its rsync worker is woken.
    pub async fn close(&self, session: &Arc<Session>, reason: &str) {
        session.closed.cancel();
        session.fail_pending();
        session.uncount();
        // A deleted cluster's link is gone (see `forget`): nothing left to update.
        let Some(link) = self.existing_link(&session.cluster) else {
            return;
        };
        let was_current = link.session.send_if_modified(|current| {
            if current.as_ref().is_some_and(|c| c.id == session.id) {
                *current = None;
                true
            } else {
                false
            }
        });
        if was_current {
            info!(cluster = %session.cluster, session = session.id, %reason, "agent session closed");
            let _connectivity = link.connectivity.lock().await;
            // An agent that reconnected meanwhile keeps the cluster Available.
            if link.current().is_none() {
                METRICS.connectivity(&session.cluster, false);
                if let Err(error) = self
                    .status
                    .connectivity_changed(&session.cluster, Connectivity::Retrying)
                    .await
                {
                    warn!(cluster = %session.cluster, %error, "cannot record connectivity");
                }
            }
            link.wake.notify_one();
        }
    }

    /// Marks what rsync cannot deliver to `link`'s cluster as Retrying (and the cluster
    /// unreachable), unless an agent session is open by the time the connectivity lock
    /// is held. Returns how many resources moved.
    pub async fn mark_unreachable(&self, link: &ClusterLink) -> Result<i64> {
        let _connectivity = link.connectivity.lock().await;
        if link.current().is_some() {
            return Ok(0);
        }
        self.status.mark_unreachable(&link.cluster).await
    }

    /// Ends the sessions opened with any of these (revoked) tokens.
    pub async fn revoke(&self, tokens: &[TokenId]) {
        let sessions: Vec<Arc<Session>> = {
            let links = self.links.lock().expect("links lock");
            links
                .values()
                .filter_map(|link| link.current())
                .filter(|session| tokens.contains(&session.token))
                .collect()
        };
        for session in sessions {
            let _ = session
                .outbound
                .send(Err(crate::wire::status::refusal(
                    tonic::Code::Unauthenticated,
                    "TOKEN_REVOKED",
                    "the agent token was revoked or rotated",
                )))
                .await;
            self.close(&session, "agent token revoked").await;
        }
    }

    /// Cuts `cluster`'s session and refuses its agent until [`AgentHub::reconnect`].
    pub async fn disconnect(&self, cluster: &str) {
        self.blocked
            .lock()
            .expect("blocked lock")
            .insert(cluster.to_string());
        if let Some(session) = self.existing_link(cluster).and_then(|l| l.current()) {
            let _ = session
                .outbound
                .send(Err(Status::unavailable("disconnected by the simulator")))
                .await;
            self.close(&session, "disconnected by the simulator").await;
        }
    }

    /// Ends the session of a cluster this replica no longer runs, without marking the
    /// cluster unreachable: its agent reconnects, is sent to the new owner, and that
    /// owner records the connectivity.
    pub async fn hand_over(&self, cluster: &str) {
        let Some(link) = self.links.lock().expect("links lock").remove(cluster) else {
            return;
        };
        METRICS.cluster_gone(cluster);
        if let Some(session) = link.session.send_replace(None) {
            let _ = session
                .outbound
                .send(Err(Status::unavailable(format!(
                    "cluster {cluster} is moving to another replica; reconnect"
                ))))
                .await;
            session.closed.cancel();
            session.fail_pending();
            session.uncount();
            info!(%cluster, session = session.id, "agent session handed over");
        }
    }

    /// The backend the last agent of `cluster` reported (None before any session).
    pub fn agent_backend(&self, cluster: &str) -> Option<String> {
        let link = self.existing_link(cluster)?;
        let backend = link.backend.lock().expect("backend lock").clone();
        (!backend.is_empty()).then_some(backend)
    }

    /// Drops what the hub keeps for a deleted cluster (its link, its simulator block),
    /// so per-cluster state exists only for clusters that exist. Its session, if any,
    /// ends with the revocation of its token.
    pub fn forget(&self, cluster: &str) {
        self.links.lock().expect("links lock").remove(cluster);
        self.blocked.lock().expect("blocked lock").remove(cluster);
    }

    /// Lets a disconnected cluster's agent connect again.
    pub fn reconnect(&self, cluster: &str) {
        self.blocked.lock().expect("blocked lock").remove(cluster);
    }

    /// Asks `cluster`'s agent for the current state of `deployment_ids`; without a
    /// session nothing is sent (a new session reports everything anyway).
    pub async fn request_reports(&self, cluster: &str, deployment_ids: Vec<String>) {
        let Some(session) = self.existing_link(cluster).and_then(|l| l.current()) else {
            return;
        };
        let _ = session
            .send(Down::Report(pb::ReportRequest { deployment_ids }))
            .await;
    }

    /// Sends a fault to a sim cluster's agent through its session.
    pub async fn sim_command(&self, cluster: &str, command: pb::SimulatorCommand) -> Result<()> {
        let session = self
            .existing_link(cluster)
            .and_then(|l| l.current())
            .ok_or_else(|| {
                precondition!(
                    Precondition::ClusterNotConnected,
                    cluster.to_string(),
                    "cluster {cluster} has no agent session"
                )
            })?;
        session
            .send(Down::SimCommand(command))
            .await
            .map_err(|_| Error::Unavailable(format!("the session of {cluster} just ended")))
    }

    /// Handles one message from an agent. A malformed message is an error: the caller
    /// closes the session.
    pub async fn receive(&self, session: &Arc<Session>, message: pb::ConnectRequest) -> Result<()> {
        use pb::connect_request::Message as Up;
        match message.message {
            Some(Up::Result(result)) => {
                session.complete(result);
                Ok(())
            }
            Some(Up::BundleState(bundle)) => {
                let bundle = bundle_from_proto(bundle)?;
                parse_deployment_id(&bundle.deployment_id)?;
                METRICS
                    .agent_bundle_resources
                    .with_label_values(&[if bundle.partial { "partial" } else { "full" }])
                    .inc_by(bundle.resources.len() as u64);
                session.queue_bundle(bundle);
                Ok(())
            }
            Some(Up::Heartbeat(_)) => Ok(()),
            Some(Up::ActionStatus(report)) => {
                // Processed in order by the session's report task, off the reader.
                let _ = session.action_reports.send(report);
                Ok(())
            }
            Some(Up::Hello(_)) => Err(Error::invalid("hello", "sent twice in one session")),
            None => Err(Error::invalid("message", "is empty")),
        }
    }

    /// Ends every session (server shutdown): their streams finish once the session
    /// tasks let go of them.
    pub fn shutdown(&self) {
        self.blocked.lock().expect("blocked lock").clear();
        for link in self.links.lock().expect("links lock").values() {
            if let Some(session) = link.session.send_replace(None) {
                session.closed.cancel();
                session.fail_pending();
            }
        }
    }

    /// Sends `error` to the agent before its session is closed.
    pub async fn reject(&self, session: &Arc<Session>, error: Status) {
        let _ = session.outbound.send(Err(error)).await;
    }
}

/// Validates and converts a reported bundle state.
fn bundle_from_proto(bundle: pb::ResourceBundleState) -> Result<Bundle> {
    let mut resources = Vec::with_capacity(bundle.resources.len());
    for (index, r) in bundle.resources.into_iter().enumerate() {
        let gvk = r.gvk.unwrap_or_default();
        if gvk.kind.is_empty() || gvk.version.is_empty() || r.name.is_empty() {
            return Err(Error::invalid(
                format!("bundle_state.resources[{index}]"),
                "gvk.kind, gvk.version and name are required",
            ));
        }
        let json = |s: Option<prost_types::Struct>| {
            s.as_ref()
                .map(struct_to_json)
                .unwrap_or(serde_json::Value::Null)
        };
        resources.push(Reported::new(
            Gvk {
                group: gvk.group,
                version: gvk.version,
                kind: gvk.kind,
            },
            canonical_namespace(r.namespace),
            r.name,
            &json(r.metadata),
            &json(r.spec),
            &json(r.status),
        ));
    }
    Ok(Bundle {
        deployment_id: bundle.deployment_id,
        resources,
        partial: bundle.partial,
    })
}
