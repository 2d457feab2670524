//! How one change moves an action: the state machine's event for the change, the
//! move, and what it records besides the state. Pure: `write` reads the actions and
//! writes what was decided.

use std::collections::{HashMap, HashSet};

use super::write::Step;
use super::{ActionOptions, check_etag, micros, not_found};
use crate::domain::action::{ActionState, Current, Event, Move, conditions_of, transition};
use crate::error::{Error, Precondition, Result, precondition};
use crate::ids::ActionId;
use crate::store::action::ActionRecord;

/// What one change comes to, before anything is written.
pub(super) enum Decided {
    /// Refused, or no move: answered as it is.
    Done(Result<(ActionRecord, bool)>),
    /// A new action to insert.
    Insert(ActionRecord),
    /// The action after the move (written with its action's last move of the group).
    Moved(ActionRecord),
}

/// The moves of a group, decided in order against the actions as read, each against
/// the action as the group's earlier moves left it.
pub(super) struct Moves {
    /// One per move, in order.
    pub(super) decided: Vec<Decided>,
    /// The moved actions after their (last) moves.
    pub(super) moved: HashMap<ActionId, ActionRecord>,
    /// The generation each moved action has in the store: the compare-and-swap's.
    pub(super) stored: HashMap<ActionId, i64>,
    /// Actions read from this server's copies (`copied`) for which a move wrote
    /// nothing (a refusal or no move): the copy may be stale, so these are decided
    /// again from the database.
    pub(super) doubtful: Vec<ActionId>,
}

/// Decides `moves` (id, etag, step) in order against `read`; `copied`: the ids read
/// from this server's copies rather than the database.
pub(super) fn decide_moves<'a>(
    moves: impl Iterator<Item = (ActionId, Option<i64>, &'a Step)>,
    read: &HashMap<ActionId, ActionRecord>,
    copied: &HashSet<ActionId>,
    options: &ActionOptions,
    now: i64,
) -> Moves {
    let mut moved: HashMap<ActionId, ActionRecord> = HashMap::new();
    let mut stored: HashMap<ActionId, i64> = HashMap::new();
    let mut doubtful = Vec::new();
    let decided = moves
        .map(|(id, etag, step)| {
            let Some(current) = moved.get(&id).or_else(|| read.get(&id)) else {
                return Decided::Done(Err(not_found(id)));
            };
            match after(current, etag, step, options, now) {
                Ok(Some(action)) => {
                    stored.entry(id).or_insert(current.generation);
                    moved.insert(id, action.clone());
                    Decided::Moved(action)
                }
                done => {
                    if copied.contains(&id) && !doubtful.contains(&id) {
                        doubtful.push(id);
                    }
                    Decided::Done(done.map(|_| (current.clone(), false)))
                }
            }
        })
        .collect();
    Moves {
        decided,
        moved,
        stored,
        doubtful,
    }
}

/// `current` after `step` (None: no move), or the refusal.
fn after(
    current: &ActionRecord,
    etag: Option<i64>,
    step: &Step,
    options: &ActionOptions,
    now: i64,
) -> Result<Option<ActionRecord>> {
    check_etag(&current.name(), etag, current.generation)?;
    let event = event_of(current, step, now)?;
    let moved = transition(
        &Current {
            state: current.state,
            executor: current.executor.clone(),
        },
        &event,
    )
    .map_err(|refused| {
        Error::invalid_transition(&current.name(), current.state, verb(&event), refused.why)
    })?;
    let next = match moved {
        Move::Same => return Ok(None),
        Move::To(next) => next,
    };
    let mut action = current.clone();
    action.state = next;
    action.generation += 1;
    action.update_time = now;
    note(&mut action, step, now, options);
    let (reason, error) = (action.outcome.reason.clone(), action.outcome.error.clone());
    // A move never leads to PENDING, the one state whose conditions depend on the
    // cluster's connectivity.
    conditions_of(
        &mut action.outcome.conditions,
        next,
        &reason,
        &error,
        true,
        now,
    );
    Ok(Some(action))
}

/// The state machine's event for `step` on `action`, or a refusal that does not
/// depend on the state.
fn event_of(action: &ActionRecord, step: &Step, now: i64) -> Result<Event> {
    Ok(match step {
        Step::Cancel => Event::Cancel {
            delay_passed: action.state == ActionState::Running
                && action
                    .outcome
                    .start_time
                    .is_some_and(|start| now >= start + action.spec.operation.delay_micros()),
        },
        Step::Abandon { .. } => Event::Abandon,
        Step::Report {
            by,
            report,
            cluster,
        } => {
            if cluster.as_ref().is_some_and(|c| *c != action.cluster) {
                return Err(not_found(action.id));
            }
            let event = match report.state {
                ActionState::Running => Event::Claim(by.clone()),
                ActionState::Succeeded => Event::Succeed,
                _ => Event::Fail,
            };
            // Only the executor that took it reports its outcome.
            if matches!(event, Event::Succeed | Event::Fail)
                && action.state == ActionState::Running
                && action.executor.as_ref() != Some(by)
            {
                return Err(precondition!(
                    Precondition::NotTheExecutor,
                    action.name(),
                    "{} is run by another executor",
                    action.name()
                ));
            }
            event
        }
    })
}

/// What a move changes besides the state.
fn note(action: &mut ActionRecord, step: &Step, now: i64, options: &ActionOptions) {
    match step {
        Step::Cancel => {
            action.outcome.reason = "Cancelled".into();
            action.outcome.error = "cancelled by a user".into();
        }
        Step::Abandon { reason, error } => {
            action.outcome.reason = reason.to_string();
            action.outcome.error = error.clone();
        }
        Step::Report { by, report, .. } if action.state == ActionState::Running => {
            action.executor = Some(by.clone());
            action.outcome.start_time = Some(report.start_time.unwrap_or(now));
            action.deadline =
                Some(now + action.spec.operation.delay_micros() + micros(options.run_timeout));
        }
        Step::Report { report, .. } => {
            action.outcome.reboot_successful = report.reboot_successful;
            action.outcome.snapshot_size_in_bytes = report.snapshot_size_in_bytes;
            action.outcome.snapshot_path = report.snapshot_path.clone();
            action.outcome.error = report.error.clone();
            action.outcome.reason = match (action.state, report.reason.is_empty()) {
                (ActionState::Failed, true) => "ExecutionFailed".into(),
                _ => report.reason.clone(),
            };
        }
    }
    if action.state.is_finished() {
        action.outcome.finish_time = Some(now);
        action.deadline = None;
        action.expire_time = Some(now + micros(options.ttl_after_finished));
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
