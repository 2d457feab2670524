//! The ActionService use cases: create (the `pods/action` subresource and node
//! actions), query, cancel, delete, and the reports of executors (the cluster's agent
//! session or node agents). Every change is a compare-and-swap on the action's
//! generation, written in one transaction with its WatchActions event; after commit
//! the hooks deliver the action to its cluster's agent session and reschedule the
//! action timer.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::{RequestKey, check_etag, idempotent};
use crate::domain::action::{
    ActionState, Event, Executor, Move, Operation, Target, conditions_of, transition,
};
use crate::error::{Error, Result};
use crate::ids::ActionId;
use crate::store::action::{
    ActionFilter, ActionOutcome, ActionRecord, ActionSpec, action_delete, action_get,
    action_insert, action_list, action_open_by_key, action_update, cluster_nodes, pod_observed,
};
use crate::store::cluster::cluster_connectivity;
use crate::store::watch::{ActionChange, Body, NewEvent, Payload};
use crate::store::{Store, Tx, now_micros};

/// The label that marks a VM pod: KubeVirt puts it on every virt-launcher pod (its
/// value is the VirtualMachineInstance's name).
pub const VM_POD_LABEL: &str = "kubevirt.io/domain";

/// The WatchActions target of a cluster's actions in the event log.
pub fn actions_target(cluster: &str) -> String {
    format!("{cluster}/actions")
}

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
    /// A deadline or expiry may now come sooner: wake the action timer.
    fn reschedule(&self);
}

/// What an action is asked for on.
#[derive(Debug, Clone)]
pub enum NewTarget {
    Pod { namespace: String, pod: String },
    Node { node: String },
}

/// A validated create request.
#[derive(Debug, Clone)]
pub struct NewAction {
    pub cluster: String,
    pub target: NewTarget,
    pub operation: Operation,
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
}

impl Actions {
    pub fn new(store: Store, options: ActionOptions, hooks: Option<Arc<dyn ActionHooks>>) -> Self {
        Self {
            store,
            options,
            hooks,
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn options(&self) -> &ActionOptions {
        &self.options
    }

    async fn changed(&self, action: &ActionRecord) {
        if let Some(hooks) = &self.hooks {
            hooks.action_changed(action).await;
            hooks.reschedule();
        }
    }

    /// Validates the target against what the cluster's agent reported, then persists
    /// the action PENDING. A second open action on the same pod or node is ABORTED.
    pub async fn create(&self, new: NewAction, key: Option<&RequestKey>) -> Result<ActionRecord> {
        let (node, target) = self.resolve(&new).await?;
        let now = now_micros();
        let connected = {
            let mut conn = self.store.read().await?;
            cluster_connectivity(&mut conn, &new.cluster).await? == "Available"
        };
        let mut outcome = ActionOutcome::default();
        conditions_of(
            &mut outcome.conditions,
            ActionState::Pending,
            "",
            "",
            connected,
            now,
        );
        let action = ActionRecord {
            id: ActionId::new(),
            cluster: new.cluster.clone(),
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
            deadline: Some(now + micros(self.options.pickup_timeout)),
            expire_time: None,
        };
        let created = idempotent(&self.store, key, async |tx: &mut Tx| {
            if !action_insert(tx, &action).await? {
                let key = action.open_key().expect("a new action is open");
                let holder = action_open_by_key(tx, &key).await?;
                let name = holder
                    .map(|h| h.name())
                    .unwrap_or_else(|| "another action".into());
                return Err(Error::Aborted {
                    reason: "ACTION_IN_PROGRESS",
                    message: format!(
                        "{name} is already {} on {}: wait for it to finish or cancel it",
                        "open",
                        describe_target(&action)
                    ),
                });
            }
            emit(tx, &action, ActionChange::Added);
            Ok(action.clone())
        })
        .await?;
        self.changed(&created).await;
        Ok(created)
    }

    /// The node that runs the target, and the stored target; NOT_FOUND or
    /// FAILED_PRECONDITION for what cannot take the action.
    async fn resolve(&self, new: &NewAction) -> Result<(String, Target)> {
        let mut conn = self.store.read().await?;
        let nodes = cluster_nodes(&mut conn, &new.cluster)
            .await?
            .ok_or_else(|| Error::NotFound {
                kind: "flotilla.v1.Cluster",
                name: new.cluster.clone(),
                field: Some("cluster".into()),
            })?;
        if cluster_connectivity(&mut conn, &new.cluster).await? == "Unknown" {
            return Err(Error::precondition(
                "CLUSTER_NEVER_CONNECTED",
                "CONNECTIVITY",
                new.cluster.clone(),
                format!(
                    "{} has never been connected: the server knows its pods and nodes from its agent",
                    new.cluster
                ),
            ));
        }
        match &new.target {
            NewTarget::Node { node } => {
                if !nodes.contains(node) {
                    return Err(Error::NotFound {
                        kind: "Node",
                        name: format!("{}/nodes/{node}", new.cluster),
                        field: Some("node".into()),
                    });
                }
                Ok((node.clone(), Target::Node))
            }
            NewTarget::Pod { namespace, pod } => {
                let body = pod_observed(&mut conn, &new.cluster, namespace, pod)
                    .await?
                    .ok_or_else(|| Error::NotFound {
                        kind: "Pod",
                        name: format!("{}/namespaces/{}/pods/{pod}", new.cluster, ns(namespace)),
                        field: Some("pod".into()),
                    })?;
                let body: Value = serde_json::from_str(&body).map_err(Error::internal)?;
                let subject = format!("{}/{pod}", ns(namespace));
                let phase = body.pointer("/status/phase").and_then(Value::as_str);
                if phase != Some("Running") {
                    return Err(Error::precondition(
                        "POD_NOT_RUNNING",
                        "POD_PHASE",
                        subject,
                        format!(
                            "pod {}/{pod} is {}, not Running",
                            ns(namespace),
                            phase.unwrap_or("in no phase")
                        ),
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
                    return Err(Error::precondition(
                        "NOT_A_VM_POD",
                        "POD_KIND",
                        subject,
                        format!(
                            "pod {}/{pod} is not a VM pod (no {VM_POD_LABEL} label): only VMs are snapshotted",
                            ns(namespace)
                        ),
                    ));
                }
                let node = body
                    .pointer("/spec/nodeName")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| {
                        Error::precondition(
                            "POD_NOT_SCHEDULED",
                            "POD_NODE",
                            subject.clone(),
                            format!("pod {subject} runs on no node"),
                        )
                    })?;
                Ok((
                    node.to_string(),
                    Target::Pod {
                        namespace: namespace.clone(),
                        pod: pod.clone(),
                    },
                ))
            }
        }
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
        let mut actions = action_list(&mut conn, filter, before, size + 1).await?;
        let more = actions.len() > size;
        actions.truncate(size);
        Ok((actions, more))
    }

    /// Cancels a PENDING or RUNNING action (not a reboot whose delay has passed).
    pub async fn cancel(&self, id: ActionId) -> Result<ActionRecord> {
        self.apply(id, None, |action, now| {
            let delay_passed = action.state == ActionState::Running
                && action
                    .outcome
                    .start_time
                    .is_some_and(|start| now >= start + action.spec.operation.delay_micros());
            let event = Event::Cancel { delay_passed };
            Ok((event, finish_note("Cancelled", "cancelled by a user")))
        })
        .await
        .map(|(action, _)| action)
    }

    /// Fails an open action the timer or the pod check gave up on.
    pub async fn abandon(&self, id: ActionId, reason: &'static str, error: String) -> Result<()> {
        match self
            .apply(id, None, move |_, _| {
                Ok((Event::Abandon, finish_note(reason, &error)))
            })
            .await
        {
            Ok(_) => Ok(()),
            // It finished meanwhile, or is gone: nothing to abandon.
            Err(Error::FailedPrecondition { .. } | Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// Records an executor's report. A claim (RUNNING) returns whether it was granted;
    /// a report that would move a finished action is refused (FAILED_PRECONDITION), a
    /// repeated one changes nothing.
    pub async fn report(
        &self,
        id: ActionId,
        by: Executor,
        report: Report,
        etag: Option<i64>,
        cluster: Option<&str>,
    ) -> Result<ActionRecord> {
        let event = match report.state {
            ActionState::Running => Event::Claim(by.clone()),
            ActionState::Succeeded => Event::Succeed,
            ActionState::Failed => Event::Fail,
            ActionState::Pending | ActionState::Cancelled => {
                return Err(Error::invalid(
                    "status.state",
                    "executors post RUNNING, SUCCEEDED or FAILED",
                ));
            }
        };
        let (action, _) = self
            .apply(id, etag, |action, _| {
                if let Some(cluster) = cluster
                    && action.cluster != cluster
                {
                    return Err(not_found(id));
                }
                // Only the executor that took it reports its outcome.
                if matches!(event, Event::Succeed | Event::Fail)
                    && action.state == ActionState::Running
                    && action.executor.as_ref() != Some(&by)
                {
                    return Err(Error::precondition(
                        "NOT_THE_EXECUTOR",
                        "EXECUTOR",
                        action.name(),
                        format!("{} is run by another executor", action.name()),
                    ));
                }
                Ok((event.clone(), Note::Report(report.clone(), by.clone())))
            })
            .await?;
        Ok(action)
    }

    /// Reads the action, decides `event` with the state machine and writes the result
    /// with a compare-and-swap, retrying when another change won in between.
    async fn apply(
        &self,
        id: ActionId,
        etag: Option<i64>,
        decide: impl Fn(&ActionRecord, i64) -> Result<(Event, Note)>,
    ) -> Result<(ActionRecord, bool)> {
        for _ in 0..8 {
            let mut tx = self.store.begin().await?;
            let current = action_get(&mut tx, id)
                .await?
                .ok_or_else(|| not_found(id))?;
            check_etag(&current.name(), etag, current.generation)?;
            let now = now_micros();
            let (event, note) = decide(&current, now)?;
            let step = transition(
                &crate::domain::action::Current {
                    state: current.state,
                    executor: current.executor.clone(),
                },
                &event,
            )
            .map_err(|refused| {
                Error::invalid_transition(&current.name(), current.state, verb(&event), refused.why)
            })?;
            let next = match step {
                Move::Same => return Ok((current, false)),
                Move::To(next) => next,
            };
            let mut action = current.clone();
            action.state = next;
            action.generation += 1;
            action.update_time = now;
            note.apply(&mut action, now, &self.options);
            let connected = cluster_connectivity(&mut tx, &action.cluster).await? == "Available";
            let (reason, error) = (action.outcome.reason.clone(), action.outcome.error.clone());
            conditions_of(
                &mut action.outcome.conditions,
                next,
                &reason,
                &error,
                connected,
                now,
            );
            if !action_update(&mut tx, &action, current.generation).await? {
                continue;
            }
            emit(&mut tx, &action, ActionChange::Modified);
            tx.commit().await?;
            self.changed(&action).await;
            return Ok((action, true));
        }
        Err(Error::Aborted {
            reason: "CONCURRENT_CHANGE",
            message: format!("actions/{id} kept changing; retry"),
        })
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
            return Err(Error::Aborted {
                reason: "CONCURRENT_CHANGE",
                message: format!("{} changed meanwhile; retry", action.name()),
            });
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
    pub async fn open_on(&self, cluster: &str) -> Result<Vec<ActionRecord>> {
        let mut conn = self.store.read().await?;
        let filter = ActionFilter {
            cluster: cluster.to_string(),
            open_only: true,
            ..Default::default()
        };
        let mut open = action_list(&mut conn, &filter, None, usize::MAX >> 1).await?;
        open.reverse();
        Ok(open)
    }
}

/// How a transition changes an action besides its state.
enum Note {
    /// Finish with this reason and message.
    Finish(&'static str, String),
    /// An executor's report.
    Report(Report, Executor),
}

fn finish_note(reason: &'static str, error: &str) -> Note {
    Note::Finish(reason, error.to_string())
}

impl Note {
    fn apply(self, action: &mut ActionRecord, now: i64, options: &ActionOptions) {
        match self {
            Note::Finish(reason, error) => {
                action.outcome.reason = reason.to_string();
                action.outcome.error = error;
            }
            Note::Report(report, by) => {
                if action.state == ActionState::Running {
                    action.executor = Some(by);
                    let start = report.start_time.unwrap_or(now);
                    action.outcome.start_time = Some(start);
                    action.deadline = Some(
                        now + action.spec.operation.delay_micros() + micros(options.run_timeout),
                    );
                } else {
                    action.outcome.reboot_successful = report.reboot_successful;
                    action.outcome.snapshot_size_in_bytes = report.snapshot_size_in_bytes;
                    action.outcome.snapshot_path = report.snapshot_path;
                    action.outcome.error = report.error;
                    action.outcome.reason = match (action.state, report.reason.is_empty()) {
                        (ActionState::Failed, true) => "ExecutionFailed".into(),
                        _ => report.reason,
                    };
                }
            }
        }
        if action.state.is_finished() {
            action.outcome.finish_time = Some(now);
            action.deadline = None;
            action.expire_time = Some(now + micros(options.ttl_after_finished));
        }
    }
}

fn micros(duration: Duration) -> i64 {
    duration.as_micros().min(i64::MAX as u128) as i64
}

fn ns(namespace: &str) -> &str {
    if namespace.is_empty() {
        "default"
    } else {
        namespace
    }
}

fn describe_target(action: &ActionRecord) -> String {
    match &action.spec.target {
        Target::Pod { namespace, pod } => format!("pod {}/{pod}", ns(namespace)),
        Target::Node => format!("node {}", action.node),
    }
}

fn verb(event: &Event) -> &'static str {
    match event {
        Event::Claim(_) => "claim",
        Event::Succeed => "report success of",
        Event::Fail => "report failure of",
        Event::Cancel { .. } => "cancel",
        Event::Abandon => "abandon",
    }
}

fn not_found(id: ActionId) -> Error {
    Error::not_found("flotilla.v1.Action", format!("actions/{id}"))
}

/// Buffers the WatchActions event of a change of `action`.
fn emit(tx: &mut Tx, action: &ActionRecord, change: ActionChange) {
    let record = serde_json::to_string(action).expect("actions serialize");
    tx.emit(NewEvent {
        target: actions_target(&action.cluster),
        instance: String::new(),
        app: action.node.clone(),
        cluster: action.cluster.clone(),
        name: action.id.to_string(),
        payload: Payload::Action {
            change,
            record: Body::from_text(record).expect("serde_json writes JSON"),
        },
    });
}
