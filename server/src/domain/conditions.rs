//! Cluster API style conditions (v1beta1 semantics, seed 002): one observation per
//! type, with a `Ready` summary. Set keeps `last_transition_time` unless something
//! changed; Summary, Mirror and Aggregate derive conditions from other conditions.

use serde::{Deserialize, Serialize};

/// `Ready`: the summary of an object's other conditions.
pub const READY: &str = "Ready";

/// Whether a condition holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    True,
    False,
    Unknown,
}

/// How bad a False condition is. `None` for True and Unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Severity {
    Error,
    Warning,
    Info,
    None,
}

/// One condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    pub type_: String,
    pub status: Status,
    pub severity: Severity,
    /// Microseconds since the epoch of the last change of status, severity, reason or
    /// message.
    pub last_transition_time: i64,
    pub reason: String,
    pub message: String,
}

impl Condition {
    pub fn true_(type_: &str) -> Self {
        Self::new(type_, Status::True, Severity::None, "", "")
    }

    pub fn false_(
        type_: &str,
        severity: Severity,
        reason: &str,
        message: impl Into<String>,
    ) -> Self {
        Self::new(type_, Status::False, severity, reason, message)
    }

    pub fn unknown(type_: &str, reason: &str, message: impl Into<String>) -> Self {
        Self::new(type_, Status::Unknown, Severity::None, reason, message)
    }

    fn new(
        type_: &str,
        status: Status,
        severity: Severity,
        reason: &str,
        message: impl Into<String>,
    ) -> Self {
        Condition {
            type_: type_.to_string(),
            status,
            severity,
            last_transition_time: 0,
            reason: reason.to_string(),
            message: message.into(),
        }
    }

    fn same_observation(&self, other: &Condition) -> bool {
        self.status == other.status
            && self.severity == other.severity
            && self.reason == other.reason
            && self.message == other.message
    }
}

/// Sets `condition` in `conditions`, replacing the one of its type. The transition time
/// is `now` if status, severity, reason or message differ, else the old one is kept.
/// The list stays ordered: `Ready` first, then by type.
pub fn set(conditions: &mut Vec<Condition>, mut condition: Condition, now: i64) {
    match conditions.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) => {
            condition.last_transition_time = if existing.same_observation(&condition) {
                existing.last_transition_time
            } else {
                now
            };
            *existing = condition;
        }
        None => {
            condition.last_transition_time = now;
            conditions.push(condition);
        }
    }
    conditions.sort_by(|a, b| {
        (a.type_ != READY, a.type_.as_str()).cmp(&(b.type_ != READY, b.type_.as_str()))
    });
}

/// The condition of `type_`, if set.
pub fn get<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Merge priority: False/Error > False/Warning > False/Info > True > Unknown.
fn priority(condition: &Condition) -> u8 {
    match (condition.status, condition.severity) {
        (Status::False, Severity::Error) => 0,
        (Status::False, Severity::Warning) => 1,
        (Status::False, _) => 2,
        (Status::True, _) => 3,
        (Status::Unknown, _) => 4,
    }
}

/// Options of [`summary`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SummaryOptions {
    /// Replace the message with "N of M completed" (N = True conditions).
    pub step_counter: bool,
}

/// Summarises `conditions` (all but `Ready`) into a `Ready` condition: the group of
/// highest priority decides; a True group gives a bare True; otherwise status,
/// severity, reason and message of the group's first condition are copied. No
/// conditions give Unknown.
pub fn summary(conditions: &[Condition], options: SummaryOptions) -> Condition {
    let inputs: Vec<&Condition> = conditions.iter().filter(|c| c.type_ != READY).collect();
    let Some(top) = inputs.iter().min_by_key(|c| priority(c)) else {
        return Condition::unknown(READY, "NoConditions", "");
    };
    let mut ready = match top.status {
        Status::True => Condition::true_(READY),
        _ => Condition::new(
            READY,
            top.status,
            top.severity,
            &top.reason,
            top.message.clone(),
        ),
    };
    if options.step_counter && top.status != Status::True {
        let done = inputs.iter().filter(|c| c.status == Status::True).count();
        ready.message = format!("{done} of {} completed", inputs.len());
    }
    ready
}

/// Mirrors a dependent's `Ready` under `type_`; `fallback` stands in when the dependent
/// has no `Ready` yet.
pub fn mirror(dependent: &[Condition], type_: &str, fallback: Condition) -> Condition {
    match get(dependent, READY) {
        Some(ready) => Condition {
            type_: type_.to_string(),
            last_transition_time: 0,
            ..ready.clone()
        },
        None => Condition {
            type_: type_.to_string(),
            ..fallback
        },
    }
}

/// Aggregates the `Ready` of many dependents under `type_`: the top-priority group
/// decides as in [`summary`]; a dependent without `Ready` counts as not completed; the
/// message of a non-True result is "N of M completed".
pub fn aggregate(dependents: &[Vec<Condition>], type_: &str) -> Condition {
    let readies: Vec<&Condition> = dependents.iter().filter_map(|d| get(d, READY)).collect();
    let done = readies.iter().filter(|c| c.status == Status::True).count();
    let Some(top) = readies.iter().min_by_key(|c| priority(c)) else {
        return Condition::unknown(
            type_,
            "NoDependents",
            format!("0 of {} completed", dependents.len()),
        );
    };
    if top.status == Status::True && done == dependents.len() {
        return Condition::true_(type_);
    }
    let (status, severity, reason) = if top.status == Status::True {
        (
            Status::False,
            Severity::Info,
            "WaitingForDependents".to_string(),
        )
    } else {
        (top.status, top.severity, top.reason.clone())
    };
    Condition::new(
        type_,
        status,
        severity,
        &reason,
        format!("{done} of {} completed", dependents.len()),
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn c(type_: &str, status: Status, severity: Severity, reason: &str) -> Condition {
        Condition::new(type_, status, severity, reason, format!("{reason} message"))
    }

    #[test]
    fn summary_vectors_from_cluster_api() {
        let all = vec![
            c("A", Status::False, Severity::Error, "ErrorReason"),
            c("B", Status::False, Severity::Warning, "WarningReason"),
            c("C", Status::False, Severity::Info, "InfoReason"),
            c("D", Status::Unknown, Severity::None, "UnknownReason"),
            c("E", Status::True, Severity::None, ""),
        ];
        let ready = summary(&all, SummaryOptions::default());
        assert_eq!(
            (ready.status, ready.severity),
            (Status::False, Severity::Error)
        );
        assert_eq!(ready.reason, "ErrorReason");
        assert_eq!(ready.message, "ErrorReason message");

        let ready = summary(&all[3..], SummaryOptions::default());
        assert_eq!(ready.status, Status::True, "[Unknown, True] is True");
        assert_eq!(ready.reason, "");

        let ready = summary(&all[3..4], SummaryOptions::default());
        assert_eq!(ready.status, Status::Unknown, "[Unknown] is Unknown");

        let foo_bar = vec![
            c("foo", Status::True, Severity::None, ""),
            c("bar", Status::False, Severity::Info, "Waiting"),
        ];
        let ready = summary(&foo_bar, SummaryOptions { step_counter: true });
        assert_eq!(
            (ready.status, ready.severity),
            (Status::False, Severity::Info)
        );
        assert_eq!(ready.message, "1 of 2 completed");
    }

    #[test]
    fn aggregate_vector_from_cluster_api() {
        let ready_true = vec![Condition::true_(READY)];
        let ready_info = vec![c(READY, Status::False, Severity::Info, "Provisioning")];
        let empty: Vec<Condition> = vec![];
        let no_ready = vec![Condition::true_("Other")];
        let agg = aggregate(
            &[ready_true.clone(), ready_true, ready_info, empty, no_ready],
            "NodesReady",
        );
        assert_eq!((agg.status, agg.severity), (Status::False, Severity::Info));
        assert_eq!(agg.message, "2 of 5 completed");
        assert_eq!(agg.type_, "NodesReady");
    }

    #[test]
    fn aggregate_of_all_ready_is_true() {
        let ready = vec![Condition::true_(READY)];
        assert_eq!(aggregate(&[ready.clone(), ready], "X").status, Status::True);
    }

    #[test]
    fn mirror_copies_ready_or_falls_back() {
        let dependent = vec![c(READY, Status::False, Severity::Warning, "Degraded")];
        let mirrored = mirror(
            &dependent,
            "InfrastructureReady",
            Condition::unknown("x", "NotYet", ""),
        );
        assert_eq!(mirrored.type_, "InfrastructureReady");
        assert_eq!(mirrored.reason, "Degraded");
        let fallback = mirror(
            &[],
            "InfrastructureReady",
            Condition::unknown("x", "NotYet", ""),
        );
        assert_eq!(
            (fallback.type_.as_str(), fallback.reason.as_str()),
            ("InfrastructureReady", "NotYet")
        );
    }

    #[test]
    fn set_keeps_transition_time_unless_something_changed_and_orders_ready_first() {
        let mut conditions = Vec::new();
        set(&mut conditions, Condition::true_("Zeta"), 1);
        set(&mut conditions, Condition::true_("Alpha"), 2);
        set(&mut conditions, Condition::true_(READY), 3);
        let types: Vec<_> = conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["Ready", "Alpha", "Zeta"]);
        set(&mut conditions, Condition::true_("Alpha"), 10);
        assert_eq!(get(&conditions, "Alpha").unwrap().last_transition_time, 2);
        set(
            &mut conditions,
            Condition::false_("Alpha", Severity::Info, "R", "m"),
            11,
        );
        assert_eq!(get(&conditions, "Alpha").unwrap().last_transition_time, 11);
        set(
            &mut conditions,
            Condition::false_("Alpha", Severity::Info, "R", "other"),
            12,
        );
        assert_eq!(
            get(&conditions, "Alpha").unwrap().last_transition_time,
            12,
            "message change"
        );
    }

    fn condition() -> impl Strategy<Value = Condition> {
        (
            "[A-E]",
            prop_oneof![
                Just(Status::True),
                Just(Status::False),
                Just(Status::Unknown)
            ],
            prop_oneof![
                Just(Severity::Error),
                Just(Severity::Warning),
                Just(Severity::Info)
            ],
        )
            .prop_map(|(t, status, severity)| {
                let severity = if status == Status::False {
                    severity
                } else {
                    Severity::None
                };
                Condition::new(&t, status, severity, "R", "m")
            })
    }

    proptest! {
        /// The summary is never better than its worst input: any False input makes it
        /// False with the highest severity among the inputs.
        #[test]
        fn summary_reflects_the_worst_input(conditions in proptest::collection::vec(condition(), 0..8)) {
            let ready = summary(&conditions, SummaryOptions::default());
            let worst_false = conditions.iter().filter(|c| c.status == Status::False).map(|c| c.severity).min();
            match worst_false {
                Some(severity) => {
                    prop_assert_eq!(ready.status, Status::False);
                    prop_assert_eq!(ready.severity, severity);
                }
                None if conditions.iter().any(|c| c.status == Status::True) => prop_assert_eq!(ready.status, Status::True),
                None => prop_assert_eq!(ready.status, Status::Unknown),
            }
        }

        /// Set is idempotent and keeps one condition per type.
        #[test]
        fn set_is_idempotent(conditions in proptest::collection::vec(condition(), 0..8)) {
            let mut once = Vec::new();
            for (i, c) in conditions.iter().enumerate() {
                set(&mut once, c.clone(), i as i64);
            }
            let mut twice = once.clone();
            for c in &once.clone() {
                set(&mut twice, c.clone(), 1000);
            }
            prop_assert_eq!(&once, &twice);
            let mut types: Vec<_> = once.iter().map(|c| c.type_.clone()).collect();
            let len = types.len();
            types.dedup();
            prop_assert_eq!(types.len(), len);
        }
    }
}
