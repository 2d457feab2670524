//! The lifecycle state machines of deployment intent groups and of cluster network
//! intents (DESIGN §7). Pure functions of (state, operation): they return the next
//! state, a no-op, or a typed refusal. The store applies the result with a
//! compare-and-swap on the state it read.

use std::fmt;
use std::str::FromStr;

/// The lifecycle state of a deployment intent group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DigState {
    Created,
    Approved,
    Instantiated,
    Terminated,
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
}

/// The state of a cluster's network intents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NetworkState {
    Created,
    Applied,
    Terminated,
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
        (Instantiated, Update) => Err(Refusal {
            why: "an instantiated deployment intent group and its intents cannot change; terminate it first",
        }),
        (Created | Approved | Terminated, Update) => Ok(Transition::To(Created)),

        (Approved, Approve) => Ok(Transition::NoOp),
        (Created | Terminated, Approve) => Ok(Transition::To(Approved)),
        (Instantiated, Approve) => Err(Refusal {
            why: "already instantiated; terminate it first",
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

macro_rules! state_strings {
    ($ty:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        impl $ty {
            /// The stored and displayed form, e.g. "APPROVED".
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),+ }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }

        impl FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($ty::$variant),)+
                    other => Err(format!("unknown {} {other:?}", stringify!($ty))),
                }
            }
        }
    };
}

state_strings!(DigState {
    Created => "CREATED",
    Approved => "APPROVED",
    Instantiated => "INSTANTIATED",
    Terminated => "TERMINATED",
});

state_strings!(NetworkState {
    Created => "CREATED",
    Applied => "APPLIED",
    Terminated => "TERMINATED",
});

#[cfg(test)]
mod tests {
    use super::*;

    const DIG_STATES: [DigState; 4] = [
        DigState::Created,
        DigState::Approved,
        DigState::Instantiated,
        DigState::Terminated,
    ];
    const DIG_OPS: [DigOp; 5] = [
        DigOp::Update,
        DigOp::Approve,
        DigOp::Instantiate,
        DigOp::Terminate,
        DigOp::Delete,
    ];

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
            (Instantiated, Update) => return None,
            (Created, Approve) => To(Approved),
            (Terminated, Approve) => To(Approved),
            (Approved, Approve) => NoOp,
            (Instantiated, Approve) => return None,
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
}
