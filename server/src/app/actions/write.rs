//! How action changes are written: each is decided inside a transaction from the
//! action as stored (the state machine, a compare-and-swap on the generation) and
//! written with its WatchActions event. Changes that arrive together share one
//! transaction (group commit): whoever takes a turn writes everything queued by the
//! time its transaction holds the writer, so a thousand creates and agent reports a
//! second cost hundreds of transactions, not thousands, and a change that arrives
//! while a group waits for the writer rides along instead of waiting for the next
//! group; a change is answered as soon as the group that wrote it commits. On SQLite one group
//! is written at a time (one writer); on PostgreSQL a few overlap.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

use tokio::sync::{Semaphore, oneshot};
use tracing::debug;

use super::{
    ActionOptions, Actions, Report, cluster_not_found, describe_target, emit, micros, not_found,
};
use crate::domain::action::{
    ActionState, Current, Event, Executor, Move, conditions_of, transition,
};
use crate::error::{Error, Result};
use crate::ids::ActionId;
use crate::store::action::{
    ActionRecord, action_get, action_get_many, action_insert_many, action_open_by_key,
    action_update_many, clusters_existing,
};
use crate::store::watch::ActionChange;
use crate::store::{Backend, RowLock, Tx, now_micros};

/// Changes per group transaction, at most.
const GROUP_CHANGES: usize = 512;
/// Group transactions in flight at once on PostgreSQL.
const POSTGRES_TURNS: usize = 4;

/// A change of an action.
pub(super) enum Change {
    /// Insert a new action (PENDING).
    Create(ActionRecord),
    /// Move an existing action by `step`, if its etag (when given) still matches.
    Move {
        id: ActionId,
        etag: Option<i64>,
        step: Step,
    },
}

/// What moves an action.
pub(super) enum Step {
    /// An executor's report; `cluster`: the reporting session's cluster.
    Report {
        by: Executor,
        report: Report,
        cluster: Option<String>,
    },
    /// A user cancels it.
    Cancel,
    /// The timer gives up on it.
    Abandon { reason: &'static str, error: String },
}

type Answer = oneshot::Sender<Result<(ActionRecord, bool)>>;

/// The queue of changes for the next group transaction.
pub(super) struct Group {
    queue: Mutex<Vec<(Change, Answer)>>,
    turns: Semaphore,
}

impl Group {
    pub(super) fn new(backend: Backend) -> Group {
        Group {
            queue: Mutex::default(),
            turns: Semaphore::new(match backend {
                Backend::Sqlite => 1,
                Backend::Postgres => POSTGRES_TURNS,
            }),
        }
    }

    fn is_empty(&self) -> bool {
        self.queue.lock().expect("group queue lock").is_empty()
    }

    fn take(&self) -> Vec<(Change, Answer)> {
        let mut queue = self.queue.lock().expect("group queue lock");
        let n = queue.len().min(GROUP_CHANGES);
        queue.drain(..n).collect()
    }
}

impl Actions {
    /// Writes `change` (in a group with whatever else is queued); returns the action
    /// after it and whether it changed. A lost compare-and-swap is retried.
    pub(super) async fn write(&self, change: Change) -> Result<(ActionRecord, bool)> {
        let mut change = change;
        for _ in 0..8 {
            let (answer, mut result) = oneshot::channel();
            let retry = change.retry_copy();
            self.group
                .queue
                .lock()
                .expect("group queue lock")
                .push((change, answer));
            // Wait for the answer; take a turn to write a group meanwhile (perhaps the
            // one with this change). Whoever queued a change keeps taking turns until
            // it is answered, so every queued change gets written.
            let answered = loop {
                tokio::select! {
                    biased;
                    answered = &mut result => break answered,
                    turn = self.group.turns.acquire() => {
                        let _turn = turn.expect("never closed");
                        if !self.group.is_empty() {
                            self.write_group().await;
                        }
                    }
                }
            };
            match answered.expect("every queued change is answered") {
                Err(Error::Aborted {
                    reason: "CONCURRENT_CHANGE",
                    ..
                }) if retry.is_some() => change = retry.expect("checked"),
                other => return other,
            }
        }
        Err(Error::Aborted {
            reason: "CONCURRENT_CHANGE",
            message: "the action kept changing; retry".into(),
        })
    }

    /// Writes what is queued in one transaction. The queue is taken once the
    /// transaction holds the writer, so that changes arriving while it waited for
    /// the writer ride along rather than wait for the next group.
    async fn write_group(&self) {
        let started = Instant::now();
        let tx = self.store.begin().await;
        let group = self.group.take();
        if group.is_empty() {
            return;
        }
        let size = group.len();
        let creates = group
            .iter()
            .filter(|(change, _)| matches!(change, Change::Create(_)))
            .count();
        let mut tx = match tx {
            Ok(tx) => tx,
            Err(error) => {
                for (_, answer) in group {
                    let _ = answer.send(Err(copy(&error)));
                }
                return;
            }
        };
        let began = started.elapsed();
        let now = now_micros();
        // The actions the group moves, read at once.
        let ids: Vec<ActionId> = group
            .iter()
            .filter_map(|(change, _)| match change {
                Change::Move { id, .. } => Some(*id),
                Change::Create(_) => None,
            })
            .collect();
        let read: HashMap<ActionId, ActionRecord> = match action_get_many(&mut tx, &ids).await {
            Ok(actions) => actions.into_iter().map(|a| (a.id, a)).collect(),
            Err(error) => {
                for (_, answer) in group {
                    let _ = answer.send(Err(copy(&error)));
                }
                return;
            }
        };
        let by_session: Vec<bool> = group
            .iter()
            .map(|(change, _)| change.by_session())
            .collect();
        let (changes, answers): (Vec<Change>, Vec<Answer>) = group.into_iter().unzip();
        let results = match apply_all(&mut tx, changes, read, &self.options, now).await {
            Ok(results) => results.into_iter().zip(answers).collect::<Vec<_>>(),
            Err(error) => {
                for answer in answers {
                    let _ = answer.send(Err(copy(&error)));
                }
                return;
            }
        };
        let applied = started.elapsed();
        if let Err(error) = tx.commit().await {
            for (_, answer) in results {
                let _ = answer.send(Err(copy(&error)));
            }
            return;
        }
        let committed = started.elapsed();
        // Answer first (the changes are committed), then tell the hooks.
        let mut changed = Vec::new();
        for ((result, answer), by_session) in results.into_iter().zip(by_session) {
            if let Ok((action, true)) = &result {
                changed.push((action.clone(), by_session));
            }
            let _ = answer.send(result);
        }
        for (action, by_session) in changed {
            self.changed(&action, by_session).await;
        }
        // Where a group's time goes: waiting for the writer, then holding it.
        debug!(
            changes = size,
            creates,
            slot_wait_us = began.as_micros() as u64,
            apply_us = (applied - began).as_micros() as u64,
            commit_us = (committed - applied).as_micros() as u64,
            hooks_us = (started.elapsed() - committed).as_micros() as u64,
            "action group written"
        );
    }
}

impl Change {
    /// Whether the change is an agent session's own report.
    fn by_session(&self) -> bool {
        matches!(
            self,
            Change::Move {
                step: Step::Report {
                    by: Executor::Session,
                    ..
                },
                ..
            }
        )
    }

    /// The change again, for a retry after a lost compare-and-swap (creates never
    /// lose one).
    fn retry_copy(&self) -> Option<Change> {
        match self {
            Change::Create(_) => None,
            Change::Move { id, etag, step } => Some(Change::Move {
                id: *id,
                etag: *etag,
                step: match step {
                    Step::Report {
                        by,
                        report,
                        cluster,
                    } => Step::Report {
                        by: by.clone(),
                        report: report.clone(),
                        cluster: cluster.clone(),
                    },
                    Step::Cancel => Step::Cancel,
                    Step::Abandon { reason, error } => Step::Abandon {
                        reason,
                        error: error.clone(),
                    },
                },
            }),
        }
    }
}

/// The same error for every change of a failed group.
fn copy(error: &Error) -> Error {
    match error {
        Error::Unavailable(message) => Error::Unavailable(message.clone()),
        other => Error::Internal(other.to_string()),
    }
}

/// Decides and writes one change in `tx`. A refusal writes nothing.
pub(super) async fn apply_in(
    tx: &mut Tx,
    change: Change,
    options: &ActionOptions,
    now: i64,
) -> Result<(ActionRecord, bool)> {
    let mut read = HashMap::new();
    if let Change::Move { id, .. } = &change
        && let Some(action) = action_get(tx, *id).await?
    {
        read.insert(action.id, action);
    }
    let mut results = apply_all(tx, vec![change], read, options, now).await?;
    results.pop().expect("one result per change")
}

/// What a group decided for one change, before anything is written.
enum Decided {
    /// Refused, or no move: answered as it is.
    Done(Result<(ActionRecord, bool)>),
    /// A new action to insert.
    Insert(ActionRecord),
    /// The action after the move (written with its action's last move of the group).
    Moved(ActionRecord),
}

/// Decides `changes` in order against the actions as stored (`read`: the ones they
/// move; each move sees the ones before it), then writes the group with one
/// multi-row statement per kind of write: inserts, and a compare-and-swap update per
/// moved action with its last state. A create whose pod or node is busy is
/// ABORTED (ACTION_IN_PROGRESS); the moves of an action that changed meanwhile
/// (another server's write on PostgreSQL) are ABORTED (CONCURRENT_CHANGE, retried by
/// the caller). Every change that holds gets its WatchActions event, in order.
async fn apply_all(
    tx: &mut Tx,
    changes: Vec<Change>,
    mut read: HashMap<ActionId, ActionRecord>,
    options: &ActionOptions,
    now: i64,
) -> Result<Vec<Result<(ActionRecord, bool)>>> {
    // The generation each moved action has in the store: the compare-and-swap's.
    let mut stored: HashMap<ActionId, i64> = HashMap::new();
    let mut decided: Vec<Decided> = changes
        .into_iter()
        .map(|change| decide(change, &mut read, &mut stored, options, now))
        .collect();
    refuse_where_the_cluster_is_gone(tx, &mut decided).await?;
    let new: Vec<&ActionRecord> = decided
        .iter()
        .filter_map(|d| match d {
            Decided::Insert(action) => Some(action),
            _ => None,
        })
        .collect();
    let inserted = if new.is_empty() {
        HashSet::new()
    } else {
        action_insert_many(tx, &new).await?
    };
    let moved: Vec<(&ActionRecord, i64)> = stored
        .iter()
        .map(|(id, generation)| (&read[id], *generation))
        .collect();
    let updated = if moved.is_empty() {
        HashSet::new()
    } else {
        action_update_many(tx, &moved).await?
    };
    let mut results = Vec::with_capacity(decided.len());
    for decided in decided {
        results.push(match decided {
            Decided::Done(result) => result,
            Decided::Insert(action) if inserted.contains(&action.id) => {
                emit(tx, &action, ActionChange::Added);
                Ok((action, true))
            }
            Decided::Insert(action) => Err(busy(tx, &action).await?),
            Decided::Moved(action) if updated.contains(&action.id) => {
                emit(tx, &action, ActionChange::Modified);
                Ok((action, true))
            }
            Decided::Moved(action) => Err(Error::Aborted {
                reason: "CONCURRENT_CHANGE",
                message: format!("{} changed meanwhile; retry", action.name()),
            }),
        });
    }
    Ok(results)
}

/// Turns the creates of actions whose cluster no longer exists into NOT_FOUND. The
/// create resolved its target before the group's transaction; the cluster may have
/// been deleted since. Checked inside the transaction, holding the clusters against a
/// delete until it commits (a delete that comes later sees the action and refuses),
/// so no action ever names a cluster that is gone, nor reaches a new cluster that
/// takes a deleted one's name.
async fn refuse_where_the_cluster_is_gone(tx: &mut Tx, decided: &mut [Decided]) -> Result<()> {
    let mut clusters: Vec<&str> = decided
        .iter()
        .filter_map(|d| match d {
            Decided::Insert(action) => Some(action.cluster.as_str()),
            _ => None,
        })
        .collect();
    clusters.sort_unstable();
    clusters.dedup();
    if clusters.is_empty() {
        return Ok(());
    }
    let lock = tx.row_lock(RowLock::KeyShare);
    let existing = clusters_existing(tx, &clusters, lock).await?;
    for d in decided.iter_mut() {
        if let Decided::Insert(action) = d
            && !existing.contains(&action.cluster)
        {
            *d = Decided::Done(Err(cluster_not_found(&action.cluster)));
        }
    }
    Ok(())
}

/// The refusal of a create whose pod or node has an open action, naming it.
async fn busy(tx: &mut Tx, action: &ActionRecord) -> Result<Error> {
    let key = action.open_key().expect("a new action is open");
    let holder = action_open_by_key(tx, &key).await?;
    let name = holder
        .map(|h| h.name())
        .unwrap_or_else(|| "another action".into());
    Ok(Error::Aborted {
        reason: "ACTION_IN_PROGRESS",
        message: format!(
            "{name} is already open on {}: wait for it to finish or cancel it",
            describe_target(action)
        ),
    })
}

/// Decides one change against `read` (updated with the move, and `stored` with the
/// moved action's stored generation).
fn decide(
    change: Change,
    read: &mut HashMap<ActionId, ActionRecord>,
    stored: &mut HashMap<ActionId, i64>,
    options: &ActionOptions,
    now: i64,
) -> Decided {
    let (id, etag, step) = match change {
        Change::Create(action) => return Decided::Insert(action),
        Change::Move { id, etag, step } => (id, etag, step),
    };
    let Some(current) = read.get(&id) else {
        return Decided::Done(Err(not_found(id)));
    };
    match moved(current, etag, step, options, now) {
        Ok(Some(action)) => {
            stored.entry(id).or_insert(current.generation);
            read.insert(id, action.clone());
            Decided::Moved(action)
        }
        Ok(None) => Decided::Done(Ok((current.clone(), false))),
        Err(error) => Decided::Done(Err(error)),
    }
}

/// `current` after `step` (None: no move), or the refusal.
fn moved(
    current: &ActionRecord,
    etag: Option<i64>,
    step: Step,
    options: &ActionOptions,
    now: i64,
) -> Result<Option<ActionRecord>> {
    super::check_etag(&current.name(), etag, current.generation)?;
    let event = event_of(current, &step, now)?;
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
                return Err(Error::precondition(
                    "NOT_THE_EXECUTOR",
                    "EXECUTOR",
                    action.name(),
                    format!("{} is run by another executor", action.name()),
                ));
            }
            event
        }
    })
}

/// What a move changes besides the state.
fn note(action: &mut ActionRecord, step: Step, now: i64, options: &ActionOptions) {
    match step {
        Step::Cancel => {
            action.outcome.reason = "Cancelled".into();
            action.outcome.error = "cancelled by a user".into();
        }
        Step::Abandon { reason, error } => {
            action.outcome.reason = reason.to_string();
            action.outcome.error = error;
        }
        Step::Report { by, report, .. } if action.state == ActionState::Running => {
            action.executor = Some(by);
            action.outcome.start_time = Some(report.start_time.unwrap_or(now));
            action.deadline =
                Some(now + action.spec.operation.delay_micros() + micros(options.run_timeout));
        }
        Step::Report { report, .. } => {
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
