//! The ActionService use cases: create (the `pods/action` subresource and node
//! actions), query, cancel, delete, and the reports of executors (the cluster's agent
//! session or node agents). Every change is a compare-and-swap on the action's
//! generation, written in one transaction with its WatchActions event; after commit
//! the hooks deliver the action to its cluster's agent session and reschedule the
//! action timer. Changes are written in group transactions (see `write`).

mod cache;
mod decide;
mod targets;
mod write;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use self::cache::OpenActions;
use self::targets::TargetReads;
use self::write::{Change, Group, Step, apply_in};
use super::{RequestKey, check_etag, idempotent};
use crate::domain::action::{ActionState, Executor, Operation, Target, conditions_of};
use crate::domain::names::{ClusterName, Namespace, NodeName, PodName};
use crate::domain::readiness::Connectivity;
use crate::error::{Error, Precondition, Result, precondition};
use crate::ids::ActionId;
use crate::store::action::{
    ActionCluster, ActionFilter, ActionOutcome, ActionRecord, ActionSpec, action_cluster,
    action_delete, action_get, action_list, clusters_existing,
};
use crate::store::watch::{ActionChange, Body, NewEvent, Payload};
use crate::store::{RowLock, Store, Tx};

/// The label that marks a VM pod: KubeVirt puts it on every virt-launcher pod (its
/// value is the VirtualMachineInstance's name).
pub const VM_POD_LABEL: &str = "kubevirt.io/domain";

/// The target of action events in the event log: one for every cluster, so that a
/// group of changes across many clusters appends to one revision sequence (two
/// statements, not two per cluster). WatchActions streams select their cluster's
/// events; the feed wakes only the watchers of the clusters a transaction touched.
pub const ACTIONS_TARGET: &str = "actions";

/// Deadlines and retention.
#[derive(Debug, Clone)]
pub struct ActionOptions {
    /// An action no executor took within this time fails with DeadlineExceeded.
    pub pickup_timeout: Duration,
    /// A running action fails with DeadlineExceeded this long after it started (plus
    /// its reboot delay).
    pub run_timeout: Duration,
    /// Finished actions are deleted this long after they finished (0: at once).
    pub ttl_after_finished: Duration,
}

impl Default for ActionOptions {
    fn default() -> Self {
        Self {
            pickup_timeout: Duration::from_secs(300),
            run_timeout: Duration::from_secs(300),
            ttl_after_finished: Duration::from_secs(86_400),
        }
    }
}

/// What the rest of the server is told after a change commits.
#[tonic::async_trait]
pub trait ActionHooks: Send + Sync {
    /// An action was created or changed: deliver it to its cluster's agent session.
    async fn action_changed(&self, action: &ActionRecord);
    /// The action timer must run at `at` (microseconds) at the latest: an action's
    /// deadline or expiry.
    fn schedule(&self, at: i64);
}

/// What an action is asked for on.
#[derive(Debug, Clone)]
pub enum NewTarget {
    Pod { namespace: Namespace, pod: PodName },
    Node { node: NodeName },
}

/// A validated create request.
#[derive(Debug, Clone)]
pub struct NewAction {
    pub cluster: ClusterName,
    pub target: NewTarget,
    pub operation: Operation,
    /// Passed here by another replica because this one runs the cluster: committed
    /// only while it still does (fenced like a session's report), so a replica that
    /// lost the cluster while the pass waited cannot commit it after the passer gave
    /// up and created the action itself.
    pub passed: bool,
}

/// A report of an executor, as posted.
#[derive(Debug, Clone)]
pub struct Report {
    pub state: ActionState,
    pub reboot_successful: Option<bool>,
    pub snapshot_size_in_bytes: Option<i64>,
    pub snapshot_path: String,
    pub error: String,
    pub reason: String,
    pub start_time: Option<i64>,
}

/// The ActionService use cases.
#[derive(Clone)]
pub struct Actions {
    store: Store,
    options: ActionOptions,
    hooks: Option<Arc<dyn ActionHooks>>,
    /// Changes queued for the next group transaction.
    group: Arc<Group>,
    /// The open actions as this server last wrote them.
    open: Arc<OpenActions>,
    /// Creates' targets, read ahead of their write groups (PostgreSQL only).
    targets: Option<Arc<TargetReads>>,
    /// With replicas: the ownership that fences agent sessions' reports.
    fencing: Option<Arc<crate::coord::ownership::Ownership>>,
}

impl Actions {
    pub fn new(store: Store, options: ActionOptions, hooks: Option<Arc<dyn ActionHooks>>) -> Self {
        Self {
            group: Arc::new(Group::new()),
            open: Arc::default(),
            targets: store
                .reads_beside_writes()
                .then(|| Arc::new(TargetReads::new())),
            store,
            options,
            hooks,
            fencing: None,
        }
    }

    /// Fences the reports of agent sessions: a group holding one is written in a
    /// transaction that checks its cluster's ownership epoch (see
    /// [`crate::coord::ownership::Ownership::fenced_out`]), so a replica that lost a
    /// cluster grants no claim and records no outcome for it.
    pub fn with_fencing(mut self, ownership: Arc<crate::coord::ownership::Ownership>) -> Self {
        self.fencing = ownership.replicated().then_some(ownership);
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn options(&self) -> &ActionOptions {
        &self.options
    }

    /// Tells the hooks of a committed change: the action goes to its cluster's agent
    /// session unless `by_session` (the session's own report: its agent knows).
    pub(crate) async fn changed(&self, action: &ActionRecord, by_session: bool) {
        if let Some(hooks) = &self.hooks {
            if !by_session {
                hooks.action_changed(action).await;
            }
            if let Some(at) = action.deadline.or(action.expire_time) {
                hooks.schedule(at);
            }
        }
    }

    /// Validates the target against what the cluster's agent reported, then persists
    /// the action PENDING. A second open action on the same pod or node is ABORTED.
    /// Without a request id the target is read in one statement for a group of
    /// creates: on PostgreSQL ahead of the write group (see `targets`), on SQLite by
    /// the write group itself; with one, in the request's own transaction.
    pub async fn create(&self, new: NewAction, key: Option<&RequestKey>) -> Result<ActionRecord> {
        let (created, _) = match key {
            // A retry returns the first response: the request's own transaction.
            Some(key) => {
                let fence = match &self.fencing {
                    Some(ownership) if new.passed => Some((ownership.clone(), new.cluster.clone())),
                    _ => None,
                };
                let change = Change::Create(Box::new(new), None);
                let options = self.options.clone();
                let created = idempotent(&self.store, Some(key), async |tx: &mut Tx| {
                    if let Some((ownership, cluster)) = fence
                        && !ownership
                            .fenced_out(tx, &[cluster.as_str()])
                            .await?
                            .is_empty()
                    {
                        return Err(write::moved_away(cluster.as_str()));
                    }
                    apply_in(tx, change, &options).await
                })
                .await?;
                self.changed(&created.0, false).await;
                created
            }
            None => {
                let target = match &self.targets {
                    Some(targets) => Some(targets.read(&self.store, &new).await?),
                    None => None,
                };
                self.write(Change::Create(Box::new(new), target)).await?
            }
        };
        Ok(created)
    }

    /// NOT_FOUND (field `cluster`) unless `cluster` exists.
    pub async fn require_cluster(&self, cluster: &str) -> Result<()> {
        let mut conn = self.store.read().await?;
        if clusters_existing(&mut conn, &[cluster], RowLock::None)
            .await?
            .is_empty()
        {
            return Err(cluster_not_found(cluster));
        }
        Ok(())
    }

    /// Whether `cluster`'s agent reported the pod `namespace/pod` present (the pods the
    /// server knows are the ones agents report).
    pub async fn pod_reported(&self, cluster: &str, namespace: &str, pod: &str) -> Result<bool> {
        let mut conn = self.store.read().await?;
        let cluster = action_cluster(&mut conn, cluster, namespace, pod).await?;
        Ok(cluster.is_some_and(|c| c.pod.is_some()))
    }

    pub async fn get(&self, id: ActionId) -> Result<ActionRecord> {
        let mut conn = self.store.read().await?;
        action_get(&mut conn, id)
            .await?
            .ok_or_else(|| not_found(id))
    }

    /// A page of actions, newest first; `size + 1` are read to tell whether more follow.
    pub async fn list(
        &self,
        filter: &ActionFilter,
        before: Option<ActionId>,
        size: usize,
    ) -> Result<(Vec<ActionRecord>, bool)> {
        let mut conn = self.store.read().await?;
        let actions = action_list(&mut conn, filter, before, size + 1).await?;
        Ok(crate::app::page_of(actions, size))
    }

    /// Cancels a PENDING or RUNNING action (not a reboot whose delay has passed).
    pub async fn cancel(&self, id: ActionId) -> Result<ActionRecord> {
        let change = Change::Move {
            id,
            etag: None,
            step: Step::Cancel,
        };
        Ok(self.write(change).await?.0)
    }

    /// Fails an open action the timer or the pod check gave up on.
    pub async fn abandon(&self, id: ActionId, reason: &'static str, error: String) -> Result<()> {
        let change = Change::Move {
            id,
            etag: None,
            step: Step::Abandon { reason, error },
        };
        match self.write(change).await {
            Ok(_) => Ok(()),
            // It finished meanwhile, or is gone: nothing to abandon.
            Err(Error::FailedPrecondition { .. } | Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// Records an executor's report. A claim (RUNNING) is granted when the action is
    /// then RUNNING for `by`; a report that would move a finished action is refused
    /// (FAILED_PRECONDITION), a repeated one changes nothing. `cluster`: the reporting
    /// session's cluster, which the action must be of.
    pub async fn report(
        &self,
        id: ActionId,
        by: Executor,
        report: Report,
        etag: Option<i64>,
        cluster: Option<&ClusterName>,
    ) -> Result<ActionRecord> {
        if matches!(report.state, ActionState::Pending | ActionState::Cancelled) {
            return Err(Error::invalid(
                "status.state",
                "executors post RUNNING, SUCCEEDED or FAILED",
            ));
        }
        let change = Change::Move {
            id,
            etag,
            step: Step::Report {
                by,
                report,
                cluster: cluster.cloned(),
            },
        };
        Ok(self.write(change).await?.0)
    }

    /// Deletes a finished action (an open one: FAILED_PRECONDITION).
    pub async fn delete(&self, id: ActionId) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let action = action_get(&mut tx, id)
            .await?
            .ok_or_else(|| not_found(id))?;
        if !action.state.is_finished() {
            return Err(Error::invalid_transition(
                &action.name(),
                action.state,
                "delete",
                "it is still open: cancel it first",
            ));
        }
        if !action_delete(&mut tx, id, action.generation).await? {
            return Err(Error::changed_meanwhile(action.name()));
        }
        emit(&mut tx, &action, ActionChange::Deleted);
        tx.commit().await
    }

    /// Deletes a finished action whose time is up (the timer); true if it did.
    pub async fn expire(&self, action: &ActionRecord) -> Result<bool> {
        let mut tx = self.store.begin().await?;
        if !action_delete(&mut tx, action.id, action.generation).await? {
            return Ok(false);
        }
        emit(&mut tx, action, ActionChange::Deleted);
        tx.commit().await?;
        Ok(true)
    }

    /// The open actions of `cluster`, oldest first (to deliver to a new session).
    pub async fn open_on(&self, cluster: &ClusterName) -> Result<Vec<ActionRecord>> {
        let mut conn = self.store.read().await?;
        let filter = ActionFilter {
            cluster: Some(cluster.clone()),
            open_only: true,
            ..Default::default()
        };
        let mut open = action_list(&mut conn, &filter, None, usize::MAX >> 1).await?;
        open.reverse();
        Ok(open)
    }
}

/// The (namespace, pod) a create reads the cluster's report of ("" for a node).
pub(crate) fn pod_of(new: &NewAction) -> (&str, &str) {
    match &new.target {
        NewTarget::Pod { namespace, pod } => (namespace, pod),
        NewTarget::Node { .. } => ("", ""),
    }
}

/// The new PENDING action `new` asks for, given its cluster as its agent reported it
/// (`cluster`: None if there is no such cluster); NOT_FOUND or FAILED_PRECONDITION for
/// what cannot take the action.
pub(crate) fn new_action(
    new: NewAction,
    cluster: Option<ActionCluster>,
    options: &ActionOptions,
    now: i64,
) -> Result<ActionRecord> {
    let (node, target, connected) = resolve(&new, cluster)?;
    let mut outcome = ActionOutcome::default();
    conditions_of(
        &mut outcome.conditions,
        ActionState::Pending,
        "",
        "",
        connected,
        now,
    );
    Ok(ActionRecord {
        id: ActionId::new(),
        cluster: new.cluster,
        node,
        spec: ActionSpec {
            target,
            operation: new.operation,
        },
        state: ActionState::Pending,
        executor: None,
        outcome,
        generation: 1,
        create_time: now,
        update_time: now,
        deadline: Some(now + micros(options.pickup_timeout)),
        expire_time: None,
    })
}

/// The node that runs the target, the stored target, and whether the cluster's agent
/// is connected.
fn resolve(new: &NewAction, cluster: Option<ActionCluster>) -> Result<(NodeName, Target, bool)> {
    let ActionCluster {
        nodes,
        connectivity,
        pod: observed,
    } = cluster.ok_or_else(|| cluster_not_found(&new.cluster))?;
    let connected = connectivity == Connectivity::Available;
    if connectivity == Connectivity::Unknown {
        let why = format!(
            "{} has never been connected: the server knows its pods and nodes from its agent",
            new.cluster
        );
        let subject = new.cluster.clone();
        return Err(Error::precondition(
            Precondition::ClusterNeverConnected,
            subject,
            why,
        ));
    }
    match &new.target {
        NewTarget::Node { node } => {
            if !nodes.iter().any(|known| known == node.as_str()) {
                return Err(Error::NotFound {
                    kind: "Node",
                    name: format!("{}/nodes/{node}", new.cluster),
                    field: Some("node".into()),
                });
            }
            Ok((node.clone(), Target::Node, connected))
        }
        NewTarget::Pod { namespace, pod } => {
            let body = observed.ok_or_else(|| Error::NotFound {
                kind: "Pod",
                name: format!(
                    "{}/namespaces/{}/pods/{pod}",
                    new.cluster,
                    namespace.spelled()
                ),
                field: Some("pod".into()),
            })?;
            let body: Value = serde_json::from_str(&body).map_err(Error::internal)?;
            let subject = format!("{}/{pod}", namespace.spelled());
            let phase = body.pointer("/status/phase").and_then(Value::as_str);
            if phase != Some("Running") {
                return Err(precondition!(
                    Precondition::PodNotRunning,
                    subject,
                    "pod {}/{pod} is {}, not Running",
                    namespace.spelled(),
                    phase.unwrap_or("in no phase")
                ));
            }
            if matches!(new.operation, Operation::Snapshot { .. })
                && body
                    .pointer(&format!(
                        "/metadata/labels/{}",
                        VM_POD_LABEL.replace('/', "~1")
                    ))
                    .is_none()
            {
                return Err(precondition!(
                    Precondition::NotAVmPod,
                    subject,
                    "pod {}/{pod} is not a VM pod (no {VM_POD_LABEL} label): only VMs are snapshotted",
                    namespace.spelled()
                ));
            }
            let node = body
                .pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| {
                    precondition!(
                        Precondition::PodNotScheduled,
                        subject.clone(),
                        "pod {subject} runs on no node"
                    )
                })?;
            Ok((
                NodeName::from(node),
                Target::Pod {
                    namespace: namespace.clone(),
                    pod: pod.clone(),
                },
                connected,
            ))
        }
    }
}

pub(crate) fn micros(duration: Duration) -> i64 {
    duration.as_micros().min(i64::MAX as u128) as i64
}

pub(crate) fn describe_target(action: &ActionRecord) -> String {
    match &action.spec.target {
        Target::Pod { namespace, pod } => format!("pod {}/{pod}", namespace.spelled()),
        Target::Node => format!("node {}", action.node),
    }
}

/// NOT_FOUND for the cluster a request names (field `cluster`).
pub(crate) fn cluster_not_found(cluster: &str) -> Error {
    Error::NotFound {
        kind: "flotilla.v1.Cluster",
        name: cluster.to_string(),
        field: Some("cluster".into()),
    }
}

pub(crate) fn not_found(id: ActionId) -> Error {
    Error::not_found("flotilla.v1.Action", format!("actions/{id}"))
}

/// Buffers the WatchActions event of a change of `action`.
pub(crate) fn emit(tx: &mut Tx, action: &ActionRecord, change: ActionChange) {
    tx.emit(event(action, change));
}

/// The WatchActions event of a change of `action`.
pub(crate) fn event(action: &ActionRecord, change: ActionChange) -> NewEvent {
    let record = serde_json::to_string(action).expect("actions serialize");
    NewEvent {
        target: ACTIONS_TARGET.to_string(),
        instance: String::new(),
        app: action.node.to_string(),
        cluster: action.cluster.to_string(),
        name: action.id.to_string(),
        payload: Payload::Action {
            change,
            record: Body::from_text(record).expect("serde_json writes JSON"),
        },
    }
}

#[cfg(test)]
mod tests;
