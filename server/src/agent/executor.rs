//! The agent side of actions: actions arrive through the agent session; the agent
//! claims each (posts RUNNING), executes it on its cluster once the server grants the
//! claim, and posts the outcome. It remembers what it ran by uid, so an action that
//! comes again (a reconnect, a server restart) is never run twice: a PENDING one it
//! knows gets its claim or outcome again, a RUNNING one it does not know (it restarted
//! while running it) is reported FAILED rather than run again.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::connect_request::Message as Up;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info};

use super::backend::{ActionFailure, ClusterBackend, SnapshotRequest};
use crate::domain::access::PodRef;
use crate::domain::names::NodeName;
use crate::store::now_micros;
use crate::wire::convert::timestamp;

/// Finished actions remembered, at most (the oldest are forgotten first).
const REMEMBERED: usize = 100_000;

/// What the agent knows of an action.
enum Known {
    /// Claimed; waiting for the server's answer.
    Claimed { action: Box<pb::Action>, start: i64 },
    /// Executing.
    Running {
        start: i64,
        cancel: CancellationToken,
    },
    /// Finished, with the status reported.
    Done(pb::ActionStatus),
    /// The server gave it to another executor, or cancelled it.
    Dropped,
}

/// Executes a cluster's actions on its backend.
pub struct ActionExecutor<B> {
    backend: Arc<B>,
    known: Mutex<(HashMap<String, Known>, VecDeque<String>)>,
    /// Claims and outcomes to send, in order (kept while the session is down).
    reports: mpsc::UnboundedSender<pb::ConnectRequest>,
    this: std::sync::Weak<ActionExecutor<B>>,
}

impl<B: ClusterBackend> ActionExecutor<B> {
    /// The executor, and the reports it makes (the session forwards them).
    pub fn new(
        backend: Arc<B>,
    ) -> (
        Arc<ActionExecutor<B>>,
        mpsc::UnboundedReceiver<pb::ConnectRequest>,
    ) {
        let (reports, receiver) = mpsc::unbounded_channel();
        let executor = Arc::new_cyclic(|this| ActionExecutor {
            backend,
            known: Mutex::new((HashMap::new(), VecDeque::new())),
            reports,
            this: this.clone(),
        });
        (executor, receiver)
    }

    fn report(&self, name: &str, status: pb::ActionStatus) {
        let _ = self.reports.send(pb::ConnectRequest {
            message: Some(Up::ActionStatus(pb::UpdateActionStatusRequest {
                name: name.to_string(),
                status: Some(status),
                etag: String::new(),
            })),
        });
    }

    fn claim(&self, name: &str, start: i64) {
        self.report(
            name,
            pb::ActionStatus {
                state: pb::ActionState::Running as i32,
                start_time: timestamp(start),
                ..Default::default()
            },
        );
    }

    /// An action the server sent.
    pub fn receive(&self, action: pb::Action) {
        let state = action
            .status
            .as_ref()
            .map(|s| s.state())
            .unwrap_or_default();
        let mut known = self.known.lock().expect("known lock");
        let (map, _) = &mut *known;
        match (state, map.get(&action.uid)) {
            (pb::ActionState::Pending, None) => {
                let start = now_micros();
                let name = action.name.clone();
                map.insert(
                    action.uid.clone(),
                    Known::Claimed {
                        action: Box::new(action),
                        start,
                    },
                );
                drop(known);
                self.claim(&name, start);
            }
            (pb::ActionState::Pending | pb::ActionState::Running, Some(entry)) => match entry {
                Known::Claimed { start, .. } | Known::Running { start, .. } => {
                    let start = *start;
                    drop(known);
                    self.claim(&action.name, start);
                }
                Known::Done(status) => {
                    let status = status.clone();
                    drop(known);
                    self.report(&action.name, status);
                }
                Known::Dropped => {}
            },
            (pb::ActionState::Running, None) => {
                drop(known);
                info!(action = %action.name, "an action this agent does not know is running: reporting it failed, not running it again");
                self.report(
                    &action.name,
                    pb::ActionStatus {
                        state: pb::ActionState::Failed as i32,
                        reason: "AgentRestarted".into(),
                        error: "the agent restarted while running the action; it does not run it twice, so whether it completed is unknown".into(),
                        ..Default::default()
                    },
                );
            }
            // Finished on the server (cancelled, failed by a deadline): stop it.
            (_, entry) => {
                if let Some(Known::Running { cancel, .. }) = entry {
                    cancel.cancel();
                }
                if entry.is_some() {
                    map.insert(action.uid.clone(), Known::Dropped);
                }
            }
        }
    }

    /// The server's answer to a claim.
    pub fn claimed(&self, claim: pb::ActionClaim) {
        let uid = claim.name.trim_start_matches("actions/").to_string();
        let mut known = self.known.lock().expect("known lock");
        let (map, _) = &mut *known;
        let Some(Known::Claimed { .. }) = map.get(&uid) else {
            return;
        };
        if !claim.granted {
            debug!(action = %claim.name, state = ?claim.state(), "claim not granted");
            map.insert(uid, Known::Dropped);
            return;
        }
        let Some(Known::Claimed { action, start }) = map.remove(&uid) else {
            unreachable!("checked above");
        };
        let cancel = CancellationToken::new();
        map.insert(
            uid.clone(),
            Known::Running {
                start,
                cancel: cancel.clone(),
            },
        );
        drop(known);
        let Some(this) = self.this.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            let status = this.execute(&action, &cancel).await;
            if cancel.is_cancelled() {
                return;
            }
            this.finish(&uid, &action.name, status);
        });
    }

    fn finish(&self, uid: &str, name: &str, status: pb::ActionStatus) {
        {
            let mut known = self.known.lock().expect("known lock");
            let (map, order) = &mut *known;
            map.insert(uid.to_string(), Known::Done(status.clone()));
            order.push_back(uid.to_string());
            while order.len() > REMEMBERED {
                if let Some(old) = order.pop_front() {
                    map.remove(&old);
                }
            }
        }
        self.report(name, status);
    }

    /// Runs `action` on the cluster.
    async fn execute(&self, action: &pb::Action, cancel: &CancellationToken) -> pb::ActionStatus {
        use pb::action_spec::Target;
        let spec = action.spec.clone().unwrap_or_default();
        let node = NodeName::from(spec.node_name.as_str());
        let outcome = match spec.target {
            Some(Target::PodAction(pod)) => match &pod.action {
                Some(pb::pod_action::Action::RebootAction(reboot)) => self
                    .backend
                    .reboot_pod(&pod_ref(&pod), delay(reboot), cancel)
                    .await
                    .map(|()| reboot_done()),
                Some(pb::pod_action::Action::SnapshotAction(snapshot)) => self
                    .backend
                    .snapshot_pod(
                        SnapshotRequest {
                            pod: &pod_ref(&pod),
                            location: &snapshot.snapshot_location,
                            id: &action.uid,
                        },
                        cancel,
                    )
                    .await
                    .map(|written| pb::ActionStatus {
                        state: pb::ActionState::Succeeded as i32,
                        snapshot_status: Some(pb::SnapshotStatus {
                            snapshot_size_in_bytes: written.size_in_bytes,
                            snapshot_path: written.path,
                        }),
                        ..Default::default()
                    }),
                None => Err(unsupported()),
            },
            Some(Target::NodeAction(node_action)) => match node_action.action {
                Some(pb::node_action::Action::RebootAction(reboot)) => self
                    .backend
                    .reboot_node(&node, delay(&reboot), cancel)
                    .await
                    .map(|()| reboot_done()),
                _ => Err(unsupported()),
            },
            None => Err(unsupported()),
        };
        outcome.unwrap_or_else(|failure| pb::ActionStatus {
            state: pb::ActionState::Failed as i32,
            reason: failure.reason.to_string(),
            error: failure.message,
            reboot_status: matches!(action.action_name.as_str(), "Reboot").then_some(
                pb::RebootStatus {
                    reboot_successful: false,
                },
            ),
            ..Default::default()
        })
    }
}

fn delay(reboot: &pb::RebootParams) -> Duration {
    Duration::from_secs(reboot.delay_in_seconds.max(0) as u64)
}

fn reboot_done() -> pb::ActionStatus {
    pb::ActionStatus {
        state: pb::ActionState::Succeeded as i32,
        reboot_status: Some(pb::RebootStatus {
            reboot_successful: true,
        }),
        ..Default::default()
    }
}

fn unsupported() -> ActionFailure {
    ActionFailure::new(
        "Unsupported",
        "the agent's backend does not run this action",
    )
}

/// The pod a pod action names.
fn pod_ref(pod: &pb::PodAction) -> PodRef {
    PodRef {
        namespace: pod.namespace.as_str().into(),
        name: pod.pod_name.as_str().into(),
    }
}
