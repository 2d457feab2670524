//! Actions (seed 003, DESIGN §11): what an action asks for, its lifecycle and its
//! conditions. Pure: the store applies each transition with a compare-and-swap on the
//! state it read, so a late or repeated report can never move a finished action.
//!
//! ```text
//! PENDING ──claim──▶ RUNNING ──succeed──▶ SUCCEEDED
//!    │                  │  └────fail────▶ FAILED
//!    │                  └──cancel──▶ CANCELLED   (a reboot whose delay passed: refused)
//!    ├──cancel──▶ CANCELLED
//!    └──expire / target gone──▶ FAILED            (RUNNING too)
//! ```

use serde::{Deserialize, Serialize};

use super::conditions::{self, Condition, Severity, SummaryOptions};
use super::names::{ClusterName, Namespace, NodeName, PodName};

/// The longest reboot delay accepted, in seconds (one day): a delay is a maintenance
/// window, not a scheduler.
pub const MAX_DELAY_SECONDS: i32 = 86_400;
/// The longest snapshot location, in characters.
pub const MAX_LOCATION_CHARS: usize = 1024;

super::named_enum! {
    /// The state of an action.
    #[derive(Serialize, Deserialize)]
    pub enum ActionState ("action state", SCREAMING_SNAKE_CASE) {
        Pending,
        Running,
        Succeeded,
        Failed,
        Cancelled,
    }
}

impl ActionState {
    /// Whether the action is finished (it never changes again).
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            ActionState::Succeeded | ActionState::Failed | ActionState::Cancelled
        )
    }
}

/// What is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "name")]
pub enum Operation {
    Reboot { delay_in_seconds: i32 },
    Snapshot { snapshot_location: String },
}

impl Operation {
    /// "Reboot" or "Snapshot".
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Reboot { .. } => "Reboot",
            Operation::Snapshot { .. } => "Snapshot",
        }
    }

    /// The reboot delay in microseconds (0 for snapshots).
    pub fn delay_micros(&self) -> i64 {
        match self {
            Operation::Reboot { delay_in_seconds } => i64::from(*delay_in_seconds) * 1_000_000,
            Operation::Snapshot { .. } => 0,
        }
    }
}

/// What the action is done to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Target {
    Pod { namespace: Namespace, pod: PodName },
    Node,
}

impl Target {
    /// The key under which at most one action is open at a time.
    pub fn open_key(&self, cluster: &ClusterName, node: &NodeName) -> String {
        match self {
            Target::Pod { namespace, pod } => format!("{cluster}|pod|{namespace}/{pod}"),
            Target::Node => format!("{cluster}|node|{node}"),
        }
    }
}

/// Why a field of an action request is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: &'static str,
    pub why: String,
}

fn invalid(field: &'static str, why: impl Into<String>) -> Invalid {
    Invalid {
        field,
        why: why.into(),
    }
}

/// The parameters of a request, as the API received them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Params {
    None,
    Reboot { delay_in_seconds: i32 },
    Snapshot { snapshot_location: String },
}

/// Validates `action_name` and its parameters into an operation; `node` actions take
/// Reboot only (a node has no snapshot; KubeVirt snapshots VMs).
pub fn operation(action_name: &str, params: Params, node: bool) -> Result<Operation, Vec<Invalid>> {
    let mut problems = Vec::new();
    let operation = match (action_name, params) {
        ("Reboot", Params::Reboot { delay_in_seconds }) => {
            if !(0..=MAX_DELAY_SECONDS).contains(&delay_in_seconds) {
                problems.push(invalid(
                    "reboot_params.delay_in_seconds",
                    format!("must be between 0 and {MAX_DELAY_SECONDS} (one day)"),
                ));
            }
            Some(Operation::Reboot { delay_in_seconds })
        }
        ("Snapshot", Params::Snapshot { snapshot_location }) => {
            if node {
                problems.push(invalid("action_name", "nodes support Reboot only"));
            }
            if let Err(why) = check_location(&snapshot_location) {
                problems.push(invalid("snapshot_params.snapshot_location", why));
            }
            Some(Operation::Snapshot { snapshot_location })
        }
        ("Reboot", Params::None) => {
            problems.push(invalid("reboot_params", "is required for Reboot"));
            None
        }
        ("Snapshot", Params::None) => {
            problems.push(invalid("snapshot_params", "is required for Snapshot"));
            None
        }
        ("Reboot", Params::Snapshot { .. }) => {
            problems.push(invalid(
                "snapshot_params",
                "does not go with Reboot: give reboot_params",
            ));
            None
        }
        ("Snapshot", Params::Reboot { .. }) => {
            problems.push(invalid(
                "reboot_params",
                "does not go with Snapshot: give snapshot_params",
            ));
            None
        }
        (other, _) => {
            problems.push(invalid(
                "action_name",
                format!("must be \"Reboot\" or \"Snapshot\", not {other:?}"),
            ));
            None
        }
    };
    match operation {
        Some(operation) if problems.is_empty() => Ok(operation),
        _ => Err(problems),
    }
}

/// A snapshot location: an absolute, normalised path.
fn check_location(location: &str) -> Result<(), String> {
    if !location.starts_with('/') {
        return Err("must be an absolute path, e.g. /var/tmp/".into());
    }
    if location.chars().count() > MAX_LOCATION_CHARS {
        return Err(format!("must be at most {MAX_LOCATION_CHARS} characters"));
    }
    if location.chars().any(char::is_control) {
        return Err("must not hold control characters".into());
    }
    if location.split('/').any(|segment| segment == "..") {
        return Err("must not hold .. segments".into());
    }
    Ok(())
}

/// Who executes a running action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Executor {
    /// The agent session of the cluster.
    Session,
    /// A node agent, by the id of the token it posted with.
    NodeAgent(String),
}

/// What happens to an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An executor takes it (posts RUNNING).
    Claim(Executor),
    /// The executor reports success.
    Succeed,
    /// The executor reports failure.
    Fail,
    /// A user cancels it; `delay_passed`: a reboot whose delay is over.
    Cancel { delay_passed: bool },
    /// A deadline passed, or the target disappeared.
    Abandon,
}

/// An action's state and executor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Current {
    pub state: ActionState,
    pub executor: Option<Executor>,
}

/// What an allowed event does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Move {
    /// Go to this state.
    To(ActionState),
    /// Nothing changes (a repeated claim by the same executor, a repeated report).
    Same,
}

/// Why an event is refused (FAILED_PRECONDITION).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub why: &'static str,
}

/// The action state machine.
pub fn transition(current: &Current, event: &Event) -> Result<Move, Refused> {
    use ActionState::*;
    match (current.state, event) {
        (Pending, Event::Claim(_)) => Ok(Move::To(Running)),
        (Running, Event::Claim(by)) if current.executor.as_ref() == Some(by) => Ok(Move::Same),
        (Running, Event::Claim(_)) => Err(Refused {
            why: "another executor runs it",
        }),
        (Running, Event::Succeed) => Ok(Move::To(Succeeded)),
        (Running, Event::Fail) => Ok(Move::To(Failed)),
        (Pending, Event::Succeed | Event::Fail) => Err(Refused {
            why: "it was not claimed: post RUNNING first",
        }),
        (Running, Event::Cancel { delay_passed: true }) => Err(Refused {
            why: "its reboot delay has passed: the reboot is under way",
        }),
        (Pending | Running, Event::Cancel { .. }) => Ok(Move::To(Cancelled)),
        (Pending | Running, Event::Abandon) => Ok(Move::To(Failed)),
        (Succeeded, Event::Succeed) | (Failed, Event::Fail) => Ok(Move::Same),
        (Succeeded | Failed | Cancelled, _) => Err(Refused {
            why: "it is finished",
        }),
    }
}

/// The conditions of an action in `state`: `Delivered` (an executor took it),
/// `Completed`, summarised into `Ready`. `reason`/`error` explain a failure or a
/// cancellation; `connected`: whether the cluster's agent is connected (for a pending
/// action's message).
pub fn conditions_of(
    current: &mut Vec<Condition>,
    state: ActionState,
    reason: &str,
    error: &str,
    connected: bool,
    now: i64,
) {
    use ActionState::*;
    let delivered = match state {
        Pending if connected => Condition::false_(
            "Delivered",
            Severity::Info,
            "WaitingForAgent",
            "the agent has not taken the action yet",
        ),
        Pending => Condition::false_(
            "Delivered",
            Severity::Warning,
            "AgentDisconnected",
            "the cluster's agent is not connected; the action waits for it",
        ),
        Cancelled
            if conditions::get(current, "Delivered")
                .is_none_or(|c| c.status != conditions::Status::True) =>
        {
            Condition::false_(
                "Delivered",
                Severity::Info,
                "Cancelled",
                "cancelled before delivery",
            )
        }
        Failed
            if reason == "DeadlineExceeded"
                && conditions::get(current, "Delivered")
                    .is_none_or(|c| c.status != conditions::Status::True) =>
        {
            Condition::false_("Delivered", Severity::Error, reason, error)
        }
        _ if conditions::get(current, "Delivered")
            .is_some_and(|c| c.status == conditions::Status::True) =>
        {
            conditions::get(current, "Delivered")
                .cloned()
                .expect("checked")
        }
        _ => Condition::true_("Delivered"),
    };
    let completed = match state {
        Pending | Running => Condition::false_(
            "Completed",
            Severity::Info,
            if state == Pending {
                "Pending"
            } else {
                "Running"
            },
            "the action is in progress",
        ),
        Succeeded => Condition::true_("Completed"),
        Failed => Condition::false_("Completed", Severity::Error, reason, error),
        Cancelled => Condition::false_("Completed", Severity::Warning, "Cancelled", error),
    };
    conditions::set(current, delivered, now);
    conditions::set(current, completed, now);
    let ready = conditions::summary(current, SummaryOptions::default());
    conditions::set(current, ready, now);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn current(state: ActionState, executor: Option<Executor>) -> Current {
        Current { state, executor }
    }

    fn events() -> Vec<Event> {
        vec![
            Event::Claim(Executor::Session),
            Event::Claim(Executor::NodeAgent("n".into())),
            Event::Succeed,
            Event::Fail,
            Event::Cancel {
                delay_passed: false,
            },
            Event::Cancel { delay_passed: true },
            Event::Abandon,
        ]
    }

    /// Every (state, event) pair, against a table written out by hand.
    #[test]
    fn every_transition_is_as_the_table_says() {
        use ActionState::*;
        for state in ActionState::ALL {
            for event in events() {
                let by_session = current(state, Some(Executor::Session));
                let got = transition(&by_session, &event);
                let want = match (state, &event) {
                    (Pending, Event::Claim(_)) => Some(Move::To(Running)),
                    (Running, Event::Claim(Executor::Session)) => Some(Move::Same),
                    (Running, Event::Claim(_)) => None,
                    (Running, Event::Succeed) => Some(Move::To(Succeeded)),
                    (Running, Event::Fail) => Some(Move::To(Failed)),
                    (Pending, Event::Succeed | Event::Fail) => None,
                    (Running, Event::Cancel { delay_passed: true }) => None,
                    (Pending, Event::Cancel { .. }) => Some(Move::To(Cancelled)),
                    (Running, Event::Cancel { .. }) => Some(Move::To(Cancelled)),
                    (Pending | Running, Event::Abandon) => Some(Move::To(Failed)),
                    (Succeeded, Event::Succeed) | (Failed, Event::Fail) => Some(Move::Same),
                    (Succeeded | Failed | Cancelled, _) => None,
                };
                assert_eq!(got.ok(), want, "{state} + {event:?}");
            }
        }
    }

    proptest! {
        /// Whatever events arrive in whatever order: a finished action never changes
        /// state, RUNNING is only entered from PENDING, and the claimant is the one
        /// that runs it.
        #[test]
        fn finished_actions_stay_finished(picks in proptest::collection::vec(0usize..7, 0..40)) {
            let all = events();
            let mut now = current(ActionState::Pending, None);
            for pick in picks {
                let event = &all[pick];
                let before = now.clone();
                match transition(&now, event) {
                    Ok(Move::To(next)) => {
                        prop_assert!(!before.state.is_finished(), "{before:?} moved by {event:?}");
                        if next == ActionState::Running {
                            prop_assert_eq!(before.state, ActionState::Pending);
                            if let Event::Claim(by) = event {
                                now.executor = Some(by.clone());
                            }
                        }
                        now.state = next;
                    }
                    Ok(Move::Same) => {}
                    Err(_) => {}
                }
                if before.state.is_finished() {
                    prop_assert_eq!(&now, &before);
                }
            }
        }
    }

    #[test]
    fn requests_are_validated() {
        let ok = operation(
            "Reboot",
            Params::Reboot {
                delay_in_seconds: 10,
            },
            false,
        );
        assert_eq!(
            ok,
            Ok(Operation::Reboot {
                delay_in_seconds: 10
            })
        );
        let fields = |r: Result<Operation, Vec<Invalid>>| -> Vec<&'static str> {
            r.unwrap_err().into_iter().map(|i| i.field).collect()
        };
        assert_eq!(
            fields(operation("Dance", Params::None, false)),
            ["action_name"]
        );
        assert_eq!(
            fields(operation("reboot", Params::None, false)),
            ["action_name"]
        );
        assert_eq!(
            fields(operation("Reboot", Params::None, false)),
            ["reboot_params"]
        );
        assert_eq!(
            fields(operation(
                "Reboot",
                Params::Reboot {
                    delay_in_seconds: -1
                },
                false
            )),
            ["reboot_params.delay_in_seconds"]
        );
        assert_eq!(
            fields(operation(
                "Reboot",
                Params::Reboot {
                    delay_in_seconds: MAX_DELAY_SECONDS + 1
                },
                false
            )),
            ["reboot_params.delay_in_seconds"]
        );
        assert_eq!(
            fields(operation(
                "Reboot",
                Params::Snapshot {
                    snapshot_location: "/x".into()
                },
                false
            )),
            ["snapshot_params"]
        );
        for bad in ["var/tmp", "", "/a/../b", "/a\nb"] {
            assert_eq!(
                fields(operation(
                    "Snapshot",
                    Params::Snapshot {
                        snapshot_location: bad.into()
                    },
                    false
                )),
                ["snapshot_params.snapshot_location"],
                "{bad:?}"
            );
        }
        assert_eq!(
            fields(operation(
                "Snapshot",
                Params::Snapshot {
                    snapshot_location: "/var/tmp/".into()
                },
                true
            )),
            ["action_name"]
        );
        assert!(
            operation(
                "Snapshot",
                Params::Snapshot {
                    snapshot_location: "/var/tmp/".into()
                },
                false
            )
            .is_ok()
        );
    }

    #[test]
    fn conditions_follow_the_state() {
        use conditions::Status;
        let mut list = Vec::new();
        conditions_of(&mut list, ActionState::Pending, "", "", false, 1);
        let ready = conditions::get(&list, "Ready").unwrap();
        assert_eq!(
            (ready.status, ready.reason.as_str()),
            (Status::False, "AgentDisconnected")
        );
        conditions_of(&mut list, ActionState::Running, "", "", true, 2);
        assert_eq!(
            conditions::get(&list, "Delivered").unwrap().status,
            Status::True
        );
        conditions_of(&mut list, ActionState::Succeeded, "", "", true, 3);
        assert_eq!(
            conditions::get(&list, "Ready").unwrap().status,
            Status::True
        );
        let mut failed = Vec::new();
        conditions_of(&mut failed, ActionState::Pending, "", "", true, 1);
        conditions_of(
            &mut failed,
            ActionState::Failed,
            "DeadlineExceeded",
            "not picked up",
            true,
            2,
        );
        let ready = conditions::get(&failed, "Ready").unwrap();
        assert_eq!(
            (ready.status, ready.severity, ready.reason.as_str()),
            (Status::False, Severity::Error, "DeadlineExceeded")
        );
        assert_eq!(
            conditions::get(&failed, "Delivered").unwrap().status,
            Status::False
        );
    }
}
