//! Container clusters (seed 001, DESIGN §12): the lifecycle state machine and the
//! conditions of a cluster. Pure: the store applies each move with a compare-and-swap
//! on the generation it read, so of two verbs racing on one cluster one wins and the
//! other is ABORTED, and a workflow's late report can never move a cluster twice.
//!
//! ```text
//! CREATED ─start─▶ STARTING ─ok─▶ RUNNING ─scale─▶ SCALING ─ok─▶ RUNNING
//!                     │  ╰─failed (first provisioning)─▶ EXPUNGING     ╰─failed─▶ ALERT
//!                     ╰─failed (restart)─▶ ALERT
//! RUNNING, ALERT ─stop─▶ STOPPING ─ok─▶ STOPPED ─start─▶ STARTING
//!                            ╰─failed─▶ ALERT
//! RUNNING, STOPPED ─faults (state sync)─▶ ALERT ─agreed again─▶ RUNNING or STOPPED
//! ALERT ─recover─▶ RECOVERING ─ok─▶ RUNNING   (failed ─▶ ALERT)
//! STOPPED, ALERT ─delete─▶ EXPUNGING ─ok─▶ DESTROYED
//!                              ╰─failed─▶ EXPUNGE ─gc retry (or delete)─▶ EXPUNGING
//! ```
//!
//! Besides its state a cluster remembers what it should be (`desired`: its VMs running
//! or stopped), which is the state an ALERT cluster returns to once state sync finds
//! its VMs agree again, and whether it was ever provisioned (a first start that fails
//! cleans up; a restart that fails raises ALERT and keeps the VMs).

use serde::{Deserialize, Serialize};

use super::conditions::{self, Condition, Severity, SummaryOptions};

super::named_enum! {
    /// The state of a container cluster.
    #[derive(Serialize, Deserialize)]
    pub enum ClusterState ("container cluster state", SCREAMING_SNAKE_CASE) {
        Created,
        Starting,
        Running,
        Stopping,
        Stopped,
        Scaling,
        Alert,
        Recovering,
        Expunging,
        Expunge,
        Destroyed,
    }
}

impl ClusterState {
    /// Whether an operation (a workflow) is in flight: it ends in `Succeeded` or
    /// `Failed`, and no verb is accepted meanwhile.
    pub fn is_busy(self) -> bool {
        matches!(
            self,
            ClusterState::Starting
                | ClusterState::Stopping
                | ClusterState::Scaling
                | ClusterState::Recovering
                | ClusterState::Expunging
        )
    }

    /// Whether state sync judges the cluster: its VMs are meant to be settled.
    pub fn is_synced(self) -> bool {
        matches!(
            self,
            ClusterState::Running | ClusterState::Stopped | ClusterState::Alert
        )
    }
}

super::named_enum! {
    /// What a cluster's VMs should be doing.
    #[derive(Serialize, Deserialize)]
    pub enum Desired ("desired state") {
        Running,
        Stopped,
    }
}

/// A user's (or the garbage collector's, or auto-recovery's) request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verb {
    Start,
    Stop,
    Scale,
    Recover,
    Delete,
}

impl Verb {
    pub const ALL: [Verb; 5] = [
        Verb::Start,
        Verb::Stop,
        Verb::Scale,
        Verb::Recover,
        Verb::Delete,
    ];

    /// The verb as an error message says it ("cannot stop …").
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Start => "start",
            Verb::Stop => "stop",
            Verb::Scale => "scale",
            Verb::Recover => "recover",
            Verb::Delete => "delete",
        }
    }
}

/// What moves a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// A verb is requested.
    Request(Verb),
    /// The operation in flight finished.
    Succeeded,
    /// The operation in flight failed (or timed out).
    Failed,
    /// State sync found VMs that differ from what the cluster should be.
    FaultsDetected,
    /// State sync found every VM as the cluster should be.
    Agreed,
    /// The garbage collector retries the cleanup of an EXPUNGE cluster.
    CollectGarbage,
}

impl Event {
    pub const ALL: [Event; 10] = [
        Event::Request(Verb::Start),
        Event::Request(Verb::Stop),
        Event::Request(Verb::Scale),
        Event::Request(Verb::Recover),
        Event::Request(Verb::Delete),
        Event::Succeeded,
        Event::Failed,
        Event::FaultsDetected,
        Event::Agreed,
        Event::CollectGarbage,
    ];
}

/// What the state machine reads of a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lifecycle {
    pub state: ClusterState,
    pub desired: Desired,
    /// Whether the cluster ever reached RUNNING.
    pub provisioned: bool,
}

impl Lifecycle {
    /// A cluster as created: CREATED, meant to run, never provisioned.
    pub fn created() -> Lifecycle {
        Lifecycle {
            state: ClusterState::Created,
            desired: Desired::Running,
            provisioned: false,
        }
    }
}

/// Why an event cannot move a cluster (the caller names the cluster and its state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    pub why: &'static str,
}

fn refused(why: &'static str) -> Result<Lifecycle, Refused> {
    Err(Refused { why })
}

/// The container cluster state machine (DESIGN §12). `Ok` with the lifecycle after the
/// event (the same one when the event changes nothing, e.g. a second fault report).
pub fn transition(now: &Lifecycle, event: Event) -> Result<Lifecycle, Refused> {
    use ClusterState::*;
    let to = |state: ClusterState| Lifecycle { state, ..*now };
    let aiming = |state: ClusterState, desired: Desired| Lifecycle {
        state,
        desired,
        ..*now
    };
    match (now.state, event) {
        (Destroyed, _) => refused("it is destroyed"),

        // Verbs.
        (Created | Stopped, Event::Request(Verb::Start)) => Ok(aiming(Starting, Desired::Running)),
        (Running | Alert, Event::Request(Verb::Stop)) => Ok(aiming(Stopping, Desired::Stopped)),
        (Running, Event::Request(Verb::Scale)) => Ok(to(Scaling)),
        (Alert, Event::Request(Verb::Recover)) => Ok(aiming(Recovering, Desired::Running)),
        (Stopped | Alert | Expunge, Event::Request(Verb::Delete)) => Ok(to(Expunging)),
        (state, Event::Request(_)) if state.is_busy() => {
            refused("an operation is in progress: wait for it to finish")
        }
        (Running, Event::Request(Verb::Start)) => refused("it is already running"),
        (Stopped, Event::Request(Verb::Stop)) => refused("it is already stopped"),
        (Running, Event::Request(Verb::Delete)) => refused("stop it first"),
        (_, Event::Request(Verb::Scale)) => refused("only a RUNNING cluster scales"),
        (_, Event::Request(Verb::Recover)) => refused("only a cluster in ALERT is recovered"),
        (Expunge, Event::Request(_)) => {
            refused("its cleanup failed: delete it again (the garbage collector retries too)")
        }
        (_, Event::Request(_)) => refused("the verb does not apply in this state"),

        // The end of the operation in flight.
        (Starting, Event::Succeeded) => Ok(Lifecycle {
            state: Running,
            desired: Desired::Running,
            provisioned: true,
        }),
        (Starting, Event::Failed) if !now.provisioned => Ok(to(Expunging)),
        (Starting | Stopping | Scaling | Recovering, Event::Failed) => Ok(to(Alert)),
        (Stopping, Event::Succeeded) => Ok(to(Stopped)),
        (Scaling | Recovering, Event::Succeeded) => Ok(to(Running)),
        (Expunging, Event::Succeeded) => Ok(to(Destroyed)),
        (Expunging, Event::Failed) => Ok(to(Expunge)),
        (_, Event::Succeeded | Event::Failed) => refused("no operation is in progress"),

        // State sync.
        (Running | Stopped | Alert, Event::FaultsDetected) => Ok(to(Alert)),
        (Alert, Event::Agreed) => Ok(to(match now.desired {
            Desired::Running => Running,
            Desired::Stopped => Stopped,
        })),
        (Running | Stopped, Event::Agreed) => Ok(*now),
        (_, Event::FaultsDetected | Event::Agreed) => {
            refused("state sync judges settled clusters only")
        }

        // The garbage collector.
        (Expunge, Event::CollectGarbage) => Ok(to(Expunging)),
        (_, Event::CollectGarbage) => refused("only an EXPUNGE cluster is collected"),
    }
}

/// What a cluster's conditions are made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed<'a> {
    pub state: ClusterState,
    /// The infrastructure object's Ready condition (None: no status yet).
    pub infrastructure_ready: Option<&'a Condition>,
    /// VMs that are as the cluster wants them, of how many it should have.
    pub vms_completed: usize,
    pub vms_wanted: usize,
    /// What state sync found wrong, one entry per VM ("vm-3: stopped out of band").
    pub faults: &'a [String],
    /// The last operation's failure, if it failed.
    pub failure: Option<(&'a str, &'a str)>,
}

/// Sets `InfrastructureReady` (mirrored from the infrastructure object), `NodesReady`
/// ("N of M completed") and `Ready` (the summary, Cluster API semantics).
pub fn conditions_of(current: &mut Vec<Condition>, observed: &Observed<'_>, now: i64) {
    let infrastructure = match observed.infrastructure_ready {
        Some(ready) => Condition {
            type_: "InfrastructureReady".into(),
            ..ready.clone()
        },
        None => Condition::false_(
            "InfrastructureReady",
            Severity::Info,
            "WaitingForInfrastructure",
            "the infrastructure object has not reported yet",
        ),
    };
    let (done, wanted) = (observed.vms_completed, observed.vms_wanted);
    let nodes = if !observed.faults.is_empty() {
        // What differs, and (if the last operation failed too, e.g. a recovery) why
        // that did not fix it.
        let (reason, failure) = match observed.failure {
            Some((reason, message)) => (reason, format!("; {message}")),
            None => ("VmsDiffer", String::new()),
        };
        Condition::false_(
            "NodesReady",
            Severity::Error,
            reason,
            format!(
                "{done} of {wanted} completed; {}{failure}",
                observed.faults.join("; ")
            ),
        )
    } else if let Some((reason, message)) = observed.failure {
        Condition::false_(
            "NodesReady",
            Severity::Error,
            reason,
            format!("{done} of {wanted} completed; {message}"),
        )
    } else if done >= wanted && !observed.state.is_busy() {
        Condition::true_("NodesReady")
    } else {
        Condition::false_(
            "NodesReady",
            Severity::Info,
            observed_reason(observed.state),
            format!("{done} of {wanted} completed"),
        )
    };
    conditions::set(current, infrastructure, now);
    conditions::set(current, nodes, now);
    let ready = match observed.state {
        ClusterState::Stopped => {
            Condition::false_("Ready", Severity::Info, "Stopped", "the cluster is stopped")
        }
        ClusterState::Destroyed => Condition::false_(
            "Ready",
            Severity::Info,
            "Destroyed",
            "the cluster is destroyed",
        ),
        _ => conditions::summary(current, SummaryOptions::default()),
    };
    conditions::set(current, ready, now);
}

/// The reason of a NodesReady that is not done yet.
fn observed_reason(state: ClusterState) -> &'static str {
    match state {
        ClusterState::Created | ClusterState::Starting => "Provisioning",
        ClusterState::Stopping | ClusterState::Stopped => "Stopped",
        ClusterState::Scaling => "Scaling",
        ClusterState::Recovering => "Recovering",
        ClusterState::Expunging | ClusterState::Expunge | ClusterState::Destroyed => "Deleting",
        ClusterState::Running | ClusterState::Alert => "WaitingForVms",
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use ClusterState::*;

    fn at(state: ClusterState, desired: Desired, provisioned: bool) -> Lifecycle {
        Lifecycle {
            state,
            desired,
            provisioned,
        }
    }

    /// DESIGN §12's table, row by row: (from, event, to), for every desired state and
    /// provisioning history where the row does not depend on them.
    const TABLE: &[(ClusterState, Event, ClusterState)] = &[
        (Created, Event::Request(Verb::Start), Starting),
        (Starting, Event::Succeeded, Running),
        (Running, Event::Request(Verb::Stop), Stopping),
        (Alert, Event::Request(Verb::Stop), Stopping),
        (Stopping, Event::Succeeded, Stopped),
        (Stopping, Event::Failed, Alert),
        (Stopped, Event::Request(Verb::Start), Starting),
        (Running, Event::Request(Verb::Scale), Scaling),
        (Scaling, Event::Succeeded, Running),
        (Scaling, Event::Failed, Alert),
        (Running, Event::FaultsDetected, Alert),
        (Stopped, Event::FaultsDetected, Alert),
        (Alert, Event::Request(Verb::Recover), Recovering),
        (Recovering, Event::Succeeded, Running),
        (Recovering, Event::Failed, Alert),
        (Stopped, Event::Request(Verb::Delete), Expunging),
        (Alert, Event::Request(Verb::Delete), Expunging),
        (Expunging, Event::Succeeded, Destroyed),
        (Expunging, Event::Failed, Expunge),
        (Expunge, Event::CollectGarbage, Expunging),
        // Refinements (DESIGN §12): a user's delete retries a failed cleanup at once.
        (Expunge, Event::Request(Verb::Delete), Expunging),
    ];

    fn all_lifecycles() -> Vec<Lifecycle> {
        let mut all = Vec::new();
        for state in ClusterState::ALL {
            for desired in [Desired::Running, Desired::Stopped] {
                for provisioned in [false, true] {
                    all.push(at(state, desired, provisioned));
                }
            }
        }
        all
    }

    #[test]
    fn every_row_of_the_table_holds() {
        for &(from, event, to) in TABLE {
            for desired in [Desired::Running, Desired::Stopped] {
                let now = at(from, desired, true);
                let next = transition(&now, event)
                    .unwrap_or_else(|r| panic!("{from} + {event:?} refused: {}", r.why));
                assert_eq!(next.state, to, "{from} + {event:?}");
            }
        }
    }

    #[test]
    fn a_failed_start_cleans_up_the_first_time_and_alerts_after() {
        let first = at(Starting, Desired::Running, false);
        assert_eq!(transition(&first, Event::Failed).unwrap().state, Expunging);
        let restart = at(Starting, Desired::Running, true);
        assert_eq!(transition(&restart, Event::Failed).unwrap().state, Alert);
        let ran = transition(&first, Event::Succeeded).unwrap();
        assert!(ran.provisioned);
    }

    #[test]
    fn alert_returns_to_what_the_cluster_should_be() {
        let running = at(Alert, Desired::Running, true);
        assert_eq!(transition(&running, Event::Agreed).unwrap().state, Running);
        let stopped = at(Alert, Desired::Stopped, true);
        assert_eq!(transition(&stopped, Event::Agreed).unwrap().state, Stopped);
        // A stop that left a VM running raises ALERT and remembers the stop.
        let stopping = transition(
            &at(Running, Desired::Running, true),
            Event::Request(Verb::Stop),
        );
        let alert = transition(&stopping.unwrap(), Event::Failed).unwrap();
        assert_eq!((alert.state, alert.desired), (Alert, Desired::Stopped));
    }

    /// Exhaustive: every (lifecycle, event) pair is either a row of the table, one of
    /// the documented no-ops, or refused, and nothing but the table moves a state.
    #[test]
    fn nothing_outside_the_table_moves_a_cluster() {
        for now in all_lifecycles() {
            for event in Event::ALL {
                let in_table = TABLE
                    .iter()
                    .any(|&(from, e, _)| from == now.state && e == event);
                let first_failure =
                    now.state == Starting && event == Event::Failed && !now.provisioned;
                let restart_failure =
                    now.state == Starting && event == Event::Failed && now.provisioned;
                let agreed = event == Event::Agreed && now.state.is_synced();
                let repeated_fault = event == Event::FaultsDetected && now.state == Alert;
                match transition(&now, event) {
                    Ok(next) if next.state != now.state => assert!(
                        in_table || first_failure || restart_failure || agreed,
                        "{now:?} + {event:?} moved to {}",
                        next.state
                    ),
                    Ok(next) => assert!(
                        (agreed || repeated_fault) && next == now,
                        "{now:?} + {event:?} is a no-op it should not be"
                    ),
                    Err(refusal) => {
                        assert!(!in_table, "{now:?} + {event:?} refused: {}", refusal.why);
                        assert!(!refusal.why.is_empty());
                    }
                }
            }
        }
    }

    #[test]
    fn busy_clusters_take_no_verb() {
        for state in ClusterState::ALL.into_iter().filter(|s| s.is_busy()) {
            for verb in Verb::ALL {
                let refusal = transition(&at(state, Desired::Running, true), Event::Request(verb))
                    .expect_err("busy");
                assert!(
                    refusal.why.contains("in progress"),
                    "{state}: {}",
                    refusal.why
                );
            }
        }
    }

    #[test]
    fn states_round_trip_through_their_names() {
        for state in ClusterState::ALL {
            assert_eq!(state.as_str().parse::<ClusterState>(), Ok(state));
        }
        assert!("BOGUS".parse::<ClusterState>().is_err());
    }

    #[test]
    fn nodes_ready_counts_and_names_the_faults() {
        let mut conditions = Vec::new();
        let faults = vec!["vm-2: stopped out of band".to_string()];
        conditions_of(
            &mut conditions,
            &Observed {
                state: Alert,
                infrastructure_ready: Some(&Condition::true_("Ready")),
                vms_completed: 2,
                vms_wanted: 3,
                faults: &faults,
                failure: None,
            },
            1,
        );
        let nodes = conditions::get(&conditions, "NodesReady").unwrap();
        assert_eq!(nodes.status, conditions::Status::False);
        assert_eq!(nodes.message, "2 of 3 completed; vm-2: stopped out of band");
        let infra = conditions::get(&conditions, "InfrastructureReady").unwrap();
        assert_eq!(infra.status, conditions::Status::True);
        let ready = conditions::get(&conditions, "Ready").unwrap();
        assert_eq!(ready.status, conditions::Status::False);

        conditions_of(
            &mut conditions,
            &Observed {
                state: Running,
                infrastructure_ready: Some(&Condition::true_("Ready")),
                vms_completed: 3,
                vms_wanted: 3,
                faults: &[],
                failure: None,
            },
            2,
        );
        for type_ in ["InfrastructureReady", "NodesReady", "Ready"] {
            let c = conditions::get(&conditions, type_).unwrap();
            assert_eq!(c.status, conditions::Status::True, "{type_}: {c:?}");
        }
    }

    proptest! {
        /// Whatever events arrive in whatever order: DESTROYED is final, a busy cluster
        /// takes no verb, a cluster is provisioned once it has run and stays so, and
        /// only a stop (or a failed first start's cleanup path) aims a cluster at
        /// stopped VMs.
        #[test]
        fn any_sequence_keeps_the_invariants(picks in proptest::collection::vec(0usize..10, 0..60)) {
            let mut now = transition(&Lifecycle::created(), Event::Request(Verb::Start)).unwrap();
            for pick in picks {
                let event = Event::ALL[pick];
                let before = now;
                if let Ok(next) = transition(&now, event) {
                    prop_assert_ne!(before.state, Destroyed);
                    if before.state.is_busy() {
                        prop_assert!(!matches!(event, Event::Request(_)), "{before:?} took {event:?}");
                    }
                    if before.provisioned {
                        prop_assert!(next.provisioned);
                    }
                    if next.state == Running {
                        prop_assert!(next.provisioned);
                        prop_assert_eq!(next.desired, Desired::Running);
                    }
                    if next.desired != before.desired {
                        prop_assert!(matches!(event, Event::Request(_) | Event::Succeeded));
                    }
                    now = next;
                }
            }
        }
    }
}
