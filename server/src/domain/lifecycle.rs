//! The lifecycle state machines of deployment intent groups and of cluster network
//! intents (DESIGN §7). Pure functions of (state, operation): they return the next
//! state, a no-op, or a typed refusal. The store applies the result with a
//! compare-and-swap on the state it read.

use std::fmt;
use std::str::FromStr;

super::named_enum! {
    /// The lifecycle state of a deployment intent group.
    pub enum DigState ("group state", SCREAMING_SNAKE_CASE) {
        Created,
        Approved,
        Instantiated,
        Terminated,
    }
}

/// An operation on a deployment intent group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigOp {
    /// A change of the group, its intents, or the apps and profiles it uses.
    Update,
    Approve,
    Instantiate,
    Terminate,
    Delete,
    /// Render the approved pending revision of a running group (EMCO's update).
    Rollout,
    /// Render an earlier revision's content again.
    Rollback,
    /// Hand the running deployment to another group (the source's side).
    MigrateOut,
    /// Take over another group's running deployment (the target's side).
    MigrateIn,
}

super::named_enum! {
    /// What a history entry of a deployment intent group records: the verb's outcome.
    /// Several share a state (an update leaves the group INSTANTIATED).
    pub enum DigEvent ("group event", SCREAMING_SNAKE_CASE) {
        Created,
        Approved,
        Instantiated,
        Terminated,
        RevisionApproved,
        Updated,
        RolledBack,
        MigratedIn,
        MigratedOut,
    }
}

impl DigEvent {
    /// The state the group is in after the event.
    pub fn state(self) -> DigState {
        match self {
            DigEvent::Created => DigState::Created,
            DigEvent::Approved => DigState::Approved,
            DigEvent::Instantiated
            | DigEvent::RevisionApproved
            | DigEvent::Updated
            | DigEvent::RolledBack
            | DigEvent::MigratedIn => DigState::Instantiated,
            DigEvent::Terminated | DigEvent::MigratedOut => DigState::Terminated,
        }
    }

    /// The event an operation that moved the group to `to` records.
    pub fn of(op: DigOp, to: DigState) -> DigEvent {
        match (op, to) {
            (DigOp::Approve, DigState::Instantiated) => DigEvent::RevisionApproved,
            (DigOp::Rollout, _) => DigEvent::Updated,
            (DigOp::Rollback, _) => DigEvent::RolledBack,
            (DigOp::MigrateIn, _) => DigEvent::MigratedIn,
            (DigOp::MigrateOut, _) => DigEvent::MigratedOut,
            (_, DigState::Created) => DigEvent::Created,
            (_, DigState::Approved) => DigEvent::Approved,
            (_, DigState::Instantiated) => DigEvent::Instantiated,
            (_, DigState::Terminated) => DigEvent::Terminated,
        }
    }
}

/// How a resource a running instance was rendered from differs now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PendingKind {
    Added,
    Changed,
    Removed,
}

/// One resource of a pending revision: its name and how it changed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PendingChange {
    pub name: String,
    pub kind: PendingKind,
}

/// What differs between the content digests (resource name -> hash of its spec) of a
/// running instance and of the group now, in name order.
pub fn pending_changes(
    running: &std::collections::BTreeMap<String, String>,
    now: &std::collections::BTreeMap<String, String>,
) -> Vec<PendingChange> {
    let names: std::collections::BTreeSet<&String> = running.keys().chain(now.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| {
            let kind = match (running.get(name), now.get(name)) {
                (None, Some(_)) => PendingKind::Added,
                (Some(_), None) => PendingKind::Removed,
                (Some(a), Some(b)) if a != b => PendingKind::Changed,
                _ => return None,
            };
            Some(PendingChange {
                name: name.clone(),
                kind,
            })
        })
        .collect()
}

super::named_enum! {
    /// The state of a cluster's network intents.
    pub enum NetworkState ("network intents state", SCREAMING_SNAKE_CASE) {
        Created,
        Applied,
        Terminated,
    }
}

/// An operation on a cluster's network intents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkOp {
    /// Create, update or delete one network intent.
    EditIntent,
    Apply,
    Terminate,
    DeleteCluster,
}

/// What an allowed operation does to the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition<S> {
    /// Move to this state (possibly the same one) and record it in the history.
    To(S),
    /// Allowed, but nothing changes and nothing is recorded (e.g. approve twice).
    NoOp,
    /// Allowed, and the state is left alone (e.g. editing an intent, deleting).
    Keep,
}

/// Why an operation is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub why: &'static str,
}

/// Decides a deployment intent group operation. `terminating` is true while rsync
/// still has to delete resources of the last instance.
pub fn dig_transition(
    state: DigState,
    op: DigOp,
    terminating: bool,
) -> Result<Transition<DigState>, Refusal> {
    use DigOp::*;
    use DigState::*;
    match (state, op) {
        // The running instance is untouched: the change is a pending revision.
        (Instantiated, Update) => Ok(Transition::Keep),
        (Created | Approved | Terminated, Update) => Ok(Transition::To(Created)),

        (Approved, Approve) => Ok(Transition::NoOp),
        (Created | Terminated, Approve) => Ok(Transition::To(Approved)),
        // Approves the pending revision.
        (Instantiated, Approve) => Ok(Transition::To(Instantiated)),

        (Instantiated, Rollout | Rollback) => Ok(Transition::To(Instantiated)),
        (Instantiated, MigrateOut) => Ok(Transition::To(Terminated)),
        (Created | Approved | Terminated, Rollout | Rollback | MigrateOut) => Err(Refusal {
            why: "not instantiated",
        }),
        (Approved | Terminated, MigrateIn) => Ok(Transition::To(Instantiated)),
        (Created, MigrateIn) => Err(Refusal {
            why: "must be approved",
        }),
        (Instantiated, MigrateIn) => Err(Refusal {
            why: "already instantiated",
        }),

        (Approved | Terminated, Instantiate) => Ok(Transition::To(Instantiated)),
        (Created, Instantiate) => Err(Refusal {
            why: "must be approved",
        }),
        (Instantiated, Instantiate) => Err(Refusal {
            why: "already instantiated",
        }),

        (Instantiated, Terminate) => Ok(Transition::To(Terminated)),
        (Created | Approved | Terminated, Terminate) => Err(Refusal {
            why: "not instantiated",
        }),

        (Instantiated, Delete) => Err(Refusal {
            why: "instantiated; terminate it first",
        }),
        (Terminated, Delete) if terminating => Err(Refusal {
            why: "its last instance is still terminating",
        }),
        (Created | Approved | Terminated, Delete) => Ok(Transition::Keep),
    }
}

/// Decides a cluster network intents operation.
pub fn network_transition(
    state: NetworkState,
    op: NetworkOp,
    terminating: bool,
) -> Result<Transition<NetworkState>, Refusal> {
    use NetworkOp::*;
    use NetworkState::*;
    match (state, op) {
        (Applied, EditIntent) => Err(Refusal {
            why: "network intents are applied; terminate them first",
        }),
        (Created | Terminated, EditIntent) => Ok(Transition::Keep),

        (Applied, Apply) => Ok(Transition::NoOp),
        (Created | Terminated, Apply) => Ok(Transition::To(Applied)),

        (Applied, Terminate) => Ok(Transition::To(Terminated)),
        (Terminated, Terminate) => Ok(Transition::NoOp),
        (Created, Terminate) => Err(Refusal {
            why: "network intents are not applied",
        }),

        (Applied, DeleteCluster) => Err(Refusal {
            why: "network intents are applied; terminate them first",
        }),
        (Terminated, DeleteCluster) if terminating => Err(Refusal {
            why: "network intents are still terminating",
        }),
        (Created | Terminated, DeleteCluster) => Ok(Transition::Keep),
    }
}

impl DigOp {
    pub fn verb(self) -> &'static str {
        match self {
            DigOp::Update => "update",
            DigOp::Approve => "approve",
            DigOp::Instantiate => "instantiate",
            DigOp::Terminate => "terminate",
            DigOp::Delete => "delete",
            DigOp::Rollout => "roll out",
            DigOp::Rollback => "roll back",
            DigOp::MigrateOut => "migrate",
            DigOp::MigrateIn => "migrate to",
        }
    }
}

impl NetworkOp {
    pub fn verb(self) -> &'static str {
        match self {
            NetworkOp::EditIntent => "change network intents of",
            NetworkOp::Apply => "apply network intents of",
            NetworkOp::Terminate => "terminate network intents of",
            NetworkOp::DeleteCluster => "delete",
        }
    }
}

/// The lifecycle state of what a status answer or a status watch is of: an intent
/// group, or a cluster's network intents; shown by the state's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerState {
    Group(DigState),
    Network(NetworkState),
}

impl OwnerState {
    pub fn as_str(self) -> &'static str {
        match self {
            OwnerState::Group(state) => state.as_str(),
            OwnerState::Network(state) => state.as_str(),
        }
    }
}

impl fmt::Display for OwnerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a lifecycle history records of a verb: an event, stored by its name, and the
/// state it leaves its owner in (what watchers are told). For most verbs the two are
/// the same; an update of a running group records UPDATED and leaves it INSTANTIATED.
pub trait Recorded:
    Copy + fmt::Debug + PartialEq + FromStr<Err = String> + serde::Serialize
{
    /// The stored name of the event.
    fn name(self) -> &'static str;
    /// The owner's state after the event, by name.
    fn state_name(self) -> &'static str;
}

impl Recorded for DigEvent {
    fn name(self) -> &'static str {
        self.as_str()
    }

    fn state_name(self) -> &'static str {
        self.state().as_str()
    }
}

/// A cluster's network intents record their states as they are.
impl Recorded for NetworkState {
    fn name(self) -> &'static str {
        self.as_str()
    }

    fn state_name(self) -> &'static str {
        self.as_str()
    }
}

super::serde_by_name!(DigState);
super::serde_by_name!(DigEvent);
super::serde_by_name!(NetworkState);

#[cfg(test)]
mod tests {
    use super::*;

    const DIG_STATES: [DigState; 4] = [
        DigState::Created,
        DigState::Approved,
        DigState::Instantiated,
        DigState::Terminated,
    ];
    const DIG_OPS: [DigOp; 9] = [
        DigOp::Update,
        DigOp::Approve,
        DigOp::Instantiate,
        DigOp::Terminate,
        DigOp::Delete,
        DigOp::Rollout,
        DigOp::Rollback,
        DigOp::MigrateOut,
        DigOp::MigrateIn,
    ];

    /// A history records one name per verb and tells watchers the state: the event a
    /// transition records must leave the group in the state it moved to.
    #[test]
    fn every_recorded_event_names_the_state_its_transition_reached() {
        for state in DIG_STATES {
            for op in DIG_OPS {
                for terminating in [false, true] {
                    if let Ok(Transition::To(next)) = dig_transition(state, op, terminating) {
                        let event = DigEvent::of(op, next);
                        assert_eq!(event.state(), next, "{state} {op:?}");
                        assert_eq!(event.state_name(), next.as_str());
                        assert_eq!(event.name().parse::<DigEvent>(), Ok(event));
                    }
                }
            }
        }
    }

    /// The expected outcome of every (state, operation) pair, written out from the
    /// table of DESIGN §7 rather than derived from the implementation.
    fn expected_dig(state: DigState, op: DigOp, terminating: bool) -> Option<Transition<DigState>> {
        use DigOp::*;
        use DigState::*;
        use Transition::*;
        Some(match (state, op) {
            (Created, Update) => To(Created),
            (Approved, Update) => To(Created),
            (Terminated, Update) => To(Created),
            (Instantiated, Update) => Keep,
            (Created, Approve) => To(Approved),
            (Terminated, Approve) => To(Approved),
            (Approved, Approve) => NoOp,
            (Instantiated, Approve) => To(Instantiated),
            (Instantiated, Rollout) => To(Instantiated),
            (Instantiated, Rollback) => To(Instantiated),
            (Instantiated, MigrateOut) => To(Terminated),
            (_, Rollout | Rollback | MigrateOut) => return None,
            (Approved, MigrateIn) => To(Instantiated),
            (Terminated, MigrateIn) => To(Instantiated),
            (Created | Instantiated, MigrateIn) => return None,
            (Approved, Instantiate) => To(Instantiated),
            (Terminated, Instantiate) => To(Instantiated),
            (Created, Instantiate) => return None,
            (Instantiated, Instantiate) => return None,
            (Instantiated, Terminate) => To(Terminated),
            (Created, Terminate) => return None,
            (Approved, Terminate) => return None,
            (Terminated, Terminate) => return None,
            (Created, Delete) => Keep,
            (Approved, Delete) => Keep,
            (Terminated, Delete) if !terminating => Keep,
            (Terminated, Delete) => return None,
            (Instantiated, Delete) => return None,
        })
    }

    #[test]
    fn dig_table_is_exhaustively_as_designed() {
        for state in DIG_STATES {
            for op in DIG_OPS {
                for terminating in [false, true] {
                    let got = dig_transition(state, op, terminating).ok();
                    assert_eq!(
                        got,
                        expected_dig(state, op, terminating),
                        "{state} {op:?} terminating={terminating}"
                    );
                }
            }
        }
    }

    #[test]
    fn dig_refusals_explain_themselves() {
        assert_eq!(
            dig_transition(DigState::Created, DigOp::Instantiate, false)
                .unwrap_err()
                .why,
            "must be approved"
        );
        assert_eq!(
            dig_transition(DigState::Approved, DigOp::Terminate, false)
                .unwrap_err()
                .why,
            "not instantiated"
        );
    }

    #[test]
    fn network_table_is_exhaustively_as_designed() {
        use NetworkOp::*;
        use NetworkState::*;
        use Transition::*;
        for state in [Created, Applied, Terminated] {
            for op in [EditIntent, Apply, Terminate, DeleteCluster] {
                for terminating in [false, true] {
                    let expected = match (state, op) {
                        (Created | Terminated, EditIntent) => Some(Keep),
                        (Applied, EditIntent) => None,
                        (Created | Terminated, Apply) => Some(To(Applied)),
                        (Applied, Apply) => Some(NoOp),
                        (Applied, Terminate) => Some(To(Terminated)),
                        (Terminated, Terminate) => Some(NoOp),
                        (Created, Terminate) => None,
                        (Applied, DeleteCluster) => None,
                        (Terminated, DeleteCluster) if terminating => None,
                        (Created | Terminated, DeleteCluster) => Some(Keep),
                    };
                    assert_eq!(
                        network_transition(state, op, terminating).ok(),
                        expected,
                        "{state} {op:?} terminating={terminating}"
                    );
                }
            }
        }
    }

    #[test]
    fn states_round_trip_through_strings() {
        for state in DIG_STATES {
            assert_eq!(state.as_str().parse::<DigState>().unwrap(), state);
        }
        for state in [
            NetworkState::Created,
            NetworkState::Applied,
            NetworkState::Terminated,
        ] {
            assert_eq!(state.as_str().parse::<NetworkState>().unwrap(), state);
        }
        assert!("BOGUS".parse::<DigState>().is_err());
    }

    #[test]
    fn pending_changes_name_what_was_added_changed_and_removed() {
        let map = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let running = map(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let now = map(&[("a", "1"), ("b", "9"), ("d", "4")]);
        let changes = pending_changes(&running, &now);
        let got: Vec<(&str, PendingKind)> =
            changes.iter().map(|c| (c.name.as_str(), c.kind)).collect();
        assert_eq!(
            got,
            [
                ("b", PendingKind::Changed),
                ("c", PendingKind::Removed),
                ("d", PendingKind::Added)
            ]
        );
        assert!(pending_changes(&running, &running).is_empty());
    }

    #[test]
    fn every_allowed_move_records_an_event_of_its_state() {
        for state in DIG_STATES {
            for op in DIG_OPS {
                if let Ok(Transition::To(next)) = dig_transition(state, op, false) {
                    let event = DigEvent::of(op, next);
                    assert_eq!(event.state(), next, "{state} {op:?}");
                    assert_eq!(event.as_str().parse::<DigEvent>().unwrap(), event);
                }
            }
        }
        assert_eq!(
            DigEvent::of(DigOp::Approve, DigState::Instantiated),
            DigEvent::RevisionApproved
        );
        assert_eq!(
            DigEvent::of(DigOp::MigrateOut, DigState::Terminated),
            DigEvent::MigratedOut
        );
    }
}
