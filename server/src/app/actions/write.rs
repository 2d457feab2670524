//! How action changes are written: each is decided from the action as stored (the
//! state machine; creates from their target as its cluster's agent reported it) and
//! written, with its WatchActions event, by a compare-and-swap on the generation.
//!
//! Changes that arrive together are written as one group (group commit): whoever
//! takes a turn writes everything queued by the time it holds a writer, and a change
//! is answered as soon as the group that wrote it commits. A group is a transaction on
//! SQLite and one autocommitted statement on PostgreSQL; a server writes one group at a
//! time on both (on PostgreSQL every group appends to the one `actions` event target,
//! whose row serializes them anyway). Why and the figures:
//! docs/decisions/2026-11-21-group-commit-and-shared-watch-bytes.md and
//! docs/decisions/2026-11-28-postgresql-ingest-and-action-turns.md.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

use crate::store::Conn;
use tokio::sync::{Semaphore, oneshot};
use tracing::{debug, warn};

use super::cache::OpenActions;
use super::decide::{Decided, decide_moves};
use super::targets::ReadTarget;
use super::{
    ACTIONS_TARGET, ActionOptions, Actions, NewAction, Report, cluster_not_found, describe_target,
    event, new_action, pod_of,
};
use crate::domain::action::Executor;
use crate::domain::names::ClusterName;
use crate::error::{Conflict, Error, Result};
use crate::ids::ActionId;
use crate::store::action::{
    ActionRecord, AtOnce, action_clusters, action_get_many, action_insert_many, action_open_by_key,
    action_update_many, action_write_at_once, clusters_existing,
};
use crate::store::fence::fence_check;
use crate::store::watch::{ActionChange, NewEvent, ROW_EVENTS, row_json, stored_events};
use crate::store::{Autocommit, GroupWrite, RowLock, Store, Tx, now_micros};

/// Changes per group transaction, at most.
pub(super) const GROUP_CHANGES: usize = 512;

/// A change of an action.
pub(super) enum Change {
    /// Insert a new action (PENDING), once its target is read and checked: read ahead
    /// (see [`super::targets`]), or else with the group.
    Create(Box<NewAction>, Option<ReadTarget>),
    /// Move an existing action by `step`, if its etag (when given) still matches.
    Move {
        id: ActionId,
        etag: Option<i64>,
        step: Step,
    },
}

/// What moves an action.
#[derive(Clone)]
pub(super) enum Step {
    /// An executor's report; `cluster`: the reporting session's cluster.
    Report {
        by: Executor,
        report: Report,
        cluster: Option<ClusterName>,
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
    /// One group at a time (see the module).
    turns: Semaphore,
}

impl Group {
    pub(super) fn new() -> Group {
        Group {
            queue: Mutex::default(),
            turns: Semaphore::new(1),
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
                    reason: Conflict::ConcurrentChange,
                    ..
                }) if retry.is_some() => change = retry.expect("checked"),
                other => return other,
            }
        }
        Err(Error::Aborted {
            reason: Conflict::ConcurrentChange,
            message: "the action kept changing; retry".into(),
        })
    }

    /// Writes what is queued: in one transaction on SQLite, in one autocommitted
    /// statement on PostgreSQL (see [`Writer`]). The queue is taken once the writer
    /// holds a write slot (and, on SQLite, the database's write lock), so that changes
    /// arriving while it waited ride along rather than wait for the next group.
    async fn write_group(&self) {
        let started = Instant::now();
        let writer = Writer::open(&self.store).await;
        let mut group = self.group.take();
        if group.is_empty() {
            return;
        }
        let size = group.len();
        let creates = group
            .iter()
            .filter(|(change, _)| matches!(change, Change::Create(..)))
            .count();
        let mut writer = match writer {
            Ok(writer) => writer,
            Err(error) => {
                for (_, answer) in group {
                    let _ = answer.send(Err(copy(&error)));
                }
                return;
            }
        };
        // With replicas, the fenced changes (session reports, passed creates) of
        // clusters this replica does not run are answered now; the others are written
        // only if their clusters' fences still hold this replica's epochs, checked by
        // the write itself.
        let mut claims: Vec<(String, i64)> = Vec::new();
        if let Some(ownership) = &self.fencing {
            let clusters: std::collections::BTreeSet<&str> = group
                .iter()
                .filter_map(|(change, _)| change.fenced_cluster())
                .collect();
            let clusters: Vec<&str> = clusters.into_iter().collect();
            let (held, stale) = ownership.claims(&clusters);
            claims = held.into_iter().map(|(c, e)| (c.to_owned(), e)).collect();
            group = answer_fenced_out(group, &stale);
        }
        let began = started.elapsed();
        let by_session: Vec<bool> = group
            .iter()
            .map(|(change, _)| change.by_session())
            .collect();
        let moving: Vec<Option<ActionId>> =
            group.iter().map(|(change, _)| change.target()).collect();
        let fenced: Option<Vec<bool>> = self.fencing.as_ref().map(|_| {
            group
                .iter()
                .map(|(change, _)| change.fenced_cluster().is_some())
                .collect()
        });
        let (changes, answers): (Vec<Change>, Vec<Answer>) = group.into_iter().unzip();
        let outcome: Result<_> = async {
            let mut decision = writer.read(changes, &self.options, &self.open).await?;
            if let Some(fenced) = fenced {
                decision.fenced = fenced;
            }
            let read_us = (started.elapsed() - began).as_micros() as u64;
            Ok((writer.write(decision, &claims).await?, read_us))
        }
        .await;
        let (results, read_us) = match outcome {
            Ok((results, read_us)) => (
                results.into_iter().zip(answers).collect::<Vec<_>>(),
                read_us,
            ),
            Err(error) => {
                self.open.forget(moving.into_iter().flatten());
                for answer in answers {
                    let _ = answer.send(Err(copy(&error)));
                }
                return;
            }
        };
        let written = started.elapsed();
        // The copies first (a retry of a lost compare-and-swap must read the database,
        // the next report of an action must see this move), then the answers (the
        // changes are committed), then the hooks.
        for ((result, _), moves) in results.iter().zip(&moving) {
            match (result, moves) {
                (Ok((action, _)), _) => self.open.written(action),
                (Err(_), Some(id)) => self.open.forget([*id]),
                (Err(_), None) => {}
            }
        }
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
        // Where a group's time goes: waiting for a writer, then holding it.
        debug!(
            changes = size,
            creates,
            slot_wait_us = began.as_micros() as u64,
            read_us,
            write_us = (written - began).as_micros() as u64 - read_us,
            hooks_us = (started.elapsed() - written).as_micros() as u64,
            "action group written"
        );
    }
}

/// How a group is written: [`GroupWrite`], chosen by the store.
struct Writer(GroupWrite);

impl Writer {
    /// The store's group writer.
    async fn open(store: &Store) -> Result<Writer> {
        // Creates wait on their group: it goes ahead of queued ingests.
        Ok(Writer(store.group_write().await?))
    }

    fn conn(&mut self) -> &mut Conn {
        self.0.conn()
    }

    /// Reads what `changes` need and decides each (see [`read_and_decide`]).
    async fn read(
        &mut self,
        changes: Vec<Change>,
        options: &ActionOptions,
        open: &OpenActions,
    ) -> Result<Decision> {
        read_and_decide(self.conn(), changes, options, Some(open)).await
    }

    /// Writes what was decided (see [`apply_all`]), committed; the fenced changes
    /// only where the fences hold `claims`, the others are answered UNAVAILABLE.
    async fn write(
        self,
        mut decision: Decision,
        claims: &[(String, i64)],
    ) -> Result<Vec<Result<(ActionRecord, bool)>>> {
        match self.0 {
            GroupWrite::Tx(mut tx) => {
                let claims: Vec<(&str, i64)> =
                    claims.iter().map(|(c, e)| (c.as_str(), *e)).collect();
                let stale = fence_check(&mut tx, &claims).await?;
                decision.refuse_fenced_out(&stale.into_iter().collect());
                let results = apply_all(&mut tx, decision).await?;
                tx.commit().await?;
                Ok(results)
            }
            GroupWrite::AtOnce(mut conn) => apply_at_once(&mut conn, decision, claims).await,
        }
    }
}

/// Answers the fenced changes of `group` for the `stale` clusters (not run here) with
/// UNAVAILABLE, and returns the rest.
fn answer_fenced_out(
    group: Vec<(Change, Answer)>,
    stale: &std::collections::BTreeSet<String>,
) -> Vec<(Change, Answer)> {
    if stale.is_empty() {
        return group;
    }
    warn!(clusters = ?stale, "fenced out: not writing for clusters this replica no longer runs");
    group
        .into_iter()
        .filter_map(|(change, answer)| match change.fenced_cluster() {
            Some(cluster) if stale.contains(cluster) => {
                let _ = answer.send(Err(moved_away(cluster)));
                None
            }
            _ => Some((change, answer)),
        })
        .collect()
}

/// The answer to a fenced change for a cluster this replica no longer runs.
pub(super) fn moved_away(cluster: &str) -> Error {
    Error::Unavailable(format!(
        "{cluster} is run by another replica now: its session's reports and the \
         creates passed for it are not recorded here"
    ))
}

impl Change {
    /// The cluster whose ownership the change needs: that of an agent session's own
    /// report, or of a create another replica passed here.
    fn fenced_cluster(&self) -> Option<&str> {
        match self {
            Change::Create(new, _) if new.passed => Some(new.cluster.as_str()),
            Change::Move {
                step:
                    Step::Report {
                        by: Executor::Session,
                        cluster: Some(cluster),
                        ..
                    },
                ..
            } => Some(cluster.as_str()),
            _ => None,
        }
    }

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
            Change::Create(..) => None,
            Change::Move { id, etag, step } => Some(Change::Move {
                id: *id,
                etag: *etag,
                step: step.clone(),
            }),
        }
    }

    /// The action a move moves.
    fn target(&self) -> Option<ActionId> {
        match self {
            Change::Create(..) => None,
            Change::Move { id, .. } => Some(*id),
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
) -> Result<(ActionRecord, bool)> {
    let decision = read_and_decide(tx, vec![change], options, None).await?;
    let mut results = apply_all(tx, decision).await?;
    results.pop().expect("one result per change")
}

/// A group's changes, decided.
struct Decision {
    decided: Vec<Decided>,
    /// Per change: whether it is fenced (see [`Change::fenced_cluster`]); with
    /// replicas only.
    fenced: Vec<bool>,
    /// The moved actions after their moves.
    moved: HashMap<ActionId, ActionRecord>,
    /// The generation each moved action has in the store: the compare-and-swap's.
    stored: HashMap<ActionId, i64>,
}

/// Reads the actions `changes` move (from this server's copies, `open`, where it has
/// them, else in one statement) and the targets of the creates as their clusters'
/// agents reported them (one statement); then decides each change in order (see
/// [`decide_moves`]). A move decided from a copy that writes nothing is decided again
/// from the database.
async fn read_and_decide(
    conn: &mut Conn,
    changes: Vec<Change>,
    options: &ActionOptions,
    open: Option<&OpenActions>,
) -> Result<Decision> {
    let targets: Vec<(&str, &str, &str)> = changes
        .iter()
        .filter_map(|change| match change {
            Change::Create(new, None) => {
                let (namespace, pod) = pod_of(new);
                Some((new.cluster.as_str(), namespace, pod))
            }
            Change::Create(_, Some(_)) | Change::Move { .. } => None,
        })
        .collect();
    let mut clusters = action_clusters(conn, &targets).await?.into_iter();
    // Set by a replica's group writer (a single process fences nothing).
    let fenced = vec![false; changes.len()];
    let now = now_micros();
    let mut ids: Vec<ActionId> = Vec::new();
    let mut decided: Vec<Option<Decided>> = Vec::with_capacity(changes.len());
    let mut moves = Vec::new();
    for change in changes {
        match change {
            Change::Create(new, read) => {
                let cluster = match read {
                    Some(ReadTarget(cluster)) => cluster,
                    None => clusters.next().expect("one read per create not read ahead"),
                };
                decided.push(Some(match new_action(*new, cluster, options, now) {
                    Ok(action) => Decided::Insert(action),
                    Err(refused) => Decided::Done(Err(refused)),
                }));
            }
            Change::Move { id, etag, step } => {
                if !ids.contains(&id) {
                    ids.push(id);
                }
                decided.push(None);
                moves.push((id, etag, step));
            }
        }
    }
    // The copies this server has, the rest from the database. A copy that decided a
    // move writing nothing is replaced by the database's row, and the moves are
    // decided again.
    let mut read = open.map(|open| open.get_many(&ids)).unwrap_or_default();
    let mut copied: HashSet<ActionId> = read.keys().copied().collect();
    let mut unread: Vec<ActionId> = ids.into_iter().filter(|id| !copied.contains(id)).collect();
    let moved = loop {
        read.extend(
            action_get_many(conn, &unread)
                .await?
                .into_iter()
                .map(|a| (a.id, a)),
        );
        let steps = moves.iter().map(|(id, etag, step)| (*id, *etag, step));
        let moved = decide_moves(steps, &read, &copied, options, now);
        if moved.doubtful.is_empty() {
            break moved;
        }
        for id in &moved.doubtful {
            read.remove(id);
            copied.remove(id);
        }
        unread = moved.doubtful;
    };
    let mut of_moves = moved.decided.into_iter();
    let decided = decided
        .into_iter()
        .map(|d| d.unwrap_or_else(|| of_moves.next().expect("one decision per move")))
        .collect();
    Ok(Decision {
        decided,
        fenced,
        moved: moved.moved,
        stored: moved.stored,
    })
}

impl Decision {
    /// Answers the fenced inserts and moves of the `stale` clusters UNAVAILABLE
    /// (nothing of theirs was or will be written). A move of the same action that was
    /// not fenced was not written either: it lost its compare-and-swap, and is
    /// retried.
    fn refuse_fenced_out(&mut self, stale: &HashSet<String>) {
        if stale.is_empty() {
            return;
        }
        for (decided, fenced) in self.decided.iter_mut().zip(&self.fenced) {
            let cluster = match decided {
                Decided::Insert(action) | Decided::Moved(action) if *fenced => &action.cluster,
                _ => continue,
            };
            if stale.contains(cluster.as_str()) {
                *decided = Decided::Done(Err(moved_away(cluster)));
            }
        }
    }

    /// The ids of the actions a fenced change moves.
    fn fenced_moves(&self) -> HashSet<ActionId> {
        self.decided
            .iter()
            .zip(&self.fenced)
            .filter_map(|(decided, fenced)| match decided {
                Decided::Moved(action) if *fenced => Some(action.id),
                _ => None,
            })
            .collect()
    }
}

/// Writes a decided group in `tx` with one multi-row statement per kind of write:
/// inserts, and a compare-and-swap update per moved action with its last state. A create whose pod or node is busy is
/// ABORTED (ACTION_IN_PROGRESS); the moves of an action that changed meanwhile
/// (another server's write on PostgreSQL) are ABORTED (CONCURRENT_CHANGE, retried by
/// the caller). Every change that holds gets its WatchActions event, in order.
async fn apply_all(tx: &mut Tx, decision: Decision) -> Result<Vec<Result<(ActionRecord, bool)>>> {
    let Decision {
        mut decided,
        moved,
        stored,
        ..
    } = decision;
    refuse_where_the_cluster_is_gone(tx, &mut decided).await?;
    let new = inserts(&decided);
    let inserted = if new.is_empty() {
        HashSet::new()
    } else {
        action_insert_many(tx, &new).await?
    };
    let moved = moves(&stored, &moved);
    let updated = if moved.is_empty() {
        HashSet::new()
    } else {
        action_update_many(tx, &moved).await?
    };
    let events = events_of(&decided);
    let results = settle(tx, decided, &inserted, &updated).await?;
    for event in written(events, &inserted, &updated) {
        tx.emit(event);
    }
    Ok(results)
}

/// [`apply_all`] on PostgreSQL as one autocommitted statement: the fence check of the
/// fenced changes (`claims`), the cluster check, the inserts, the compare-and-swap
/// updates and the append of the events of what was written (see
/// [`action_write_at_once`]).
async fn apply_at_once(
    conn: &mut Autocommit,
    mut decision: Decision,
    claims: &[(String, i64)],
) -> Result<Vec<Result<(ActionRecord, bool)>>> {
    let events = events_of(&decision.decided);
    let of: Vec<ActionId> = events.iter().map(|(id, _)| *id).collect();
    let text = row_json(events.iter().map(|(_, event)| event))?;
    let time = now_micros();
    let fenced_moves = decision.fenced_moves();
    let done = action_write_at_once(
        conn,
        &AtOnce {
            inserts: decision
                .decided
                .iter()
                .zip(&decision.fenced)
                .filter_map(|(d, fenced)| match d {
                    Decided::Insert(action) => Some((action, *fenced)),
                    _ => None,
                })
                .collect(),
            moves: moves(&decision.stored, &decision.moved)
                .into_iter()
                .map(|(action, expected)| (action, expected, fenced_moves.contains(&action.id)))
                .collect(),
            events: (&of, &text),
            target: ACTIONS_TARGET,
            time,
            claims: claims.iter().map(|(c, e)| (c.as_str(), *e)).collect(),
        },
    )
    .await?;
    if !done.fenced_out.is_empty() {
        warn!(clusters = ?done.fenced_out, "fenced out: not writing for clusters this replica no longer runs");
    }
    decision.refuse_fenced_out(&done.fenced_out);
    let mut decided = decision.decided;
    refuse_creates_where(&mut decided, |cluster| !done.clusters.contains(cluster));
    let results = settle(conn, decided, &done.inserted, &done.updated).await?;
    if let Some(last) = done.revision {
        let events = written(events, &done.inserted, &done.updated);
        conn.appended(ACTIONS_TARGET, stored_events(events, last, time));
    }
    Ok(results)
}

// A group's events fit one statement's append.
const _: () = assert!(GROUP_CHANGES <= ROW_EVENTS);

/// The new actions to insert.
fn inserts(decided: &[Decided]) -> Vec<&ActionRecord> {
    decided
        .iter()
        .filter_map(|d| match d {
            Decided::Insert(action) => Some(action),
            _ => None,
        })
        .collect()
}

/// Each moved action with its last state and the generation it must still have.
fn moves<'a>(
    stored: &HashMap<ActionId, i64>,
    moved: &'a HashMap<ActionId, ActionRecord>,
) -> Vec<(&'a ActionRecord, i64)> {
    stored
        .iter()
        .map(|(id, generation)| (&moved[id], *generation))
        .collect()
}

/// The WatchActions event of every insert and move, in order, with its action's id.
fn events_of(decided: &[Decided]) -> Vec<(ActionId, NewEvent)> {
    decided
        .iter()
        .filter_map(|d| match d {
            Decided::Insert(action) => Some((action.id, event(action, ActionChange::Added))),
            Decided::Moved(action) => Some((action.id, event(action, ActionChange::Modified))),
            Decided::Done(_) => None,
        })
        .collect()
}

/// The events of the actions that were written.
fn written(
    events: Vec<(ActionId, NewEvent)>,
    inserted: &HashSet<ActionId>,
    updated: &HashSet<ActionId>,
) -> Vec<NewEvent> {
    events
        .into_iter()
        .filter(|(id, _)| inserted.contains(id) || updated.contains(id))
        .map(|(_, event)| event)
        .collect()
}

/// Each change's answer once the group is written.
async fn settle(
    conn: &mut Conn,
    decided: Vec<Decided>,
    inserted: &HashSet<ActionId>,
    updated: &HashSet<ActionId>,
) -> Result<Vec<Result<(ActionRecord, bool)>>> {
    let mut results = Vec::with_capacity(decided.len());
    for decided in decided {
        results.push(match decided {
            Decided::Done(result) => result,
            Decided::Insert(action) if inserted.contains(&action.id) => Ok((action, true)),
            Decided::Insert(action) => Err(busy(conn, &action).await?),
            Decided::Moved(action) if updated.contains(&action.id) => Ok((action, true)),
            Decided::Moved(action) => Err(Error::changed_meanwhile(action.name())),
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
    let lock = RowLock::KeyShare;
    let existing = clusters_existing(tx, &clusters, lock).await?;
    refuse_creates_where(decided, |cluster| !existing.contains(cluster));
    Ok(())
}

/// Turns the creates of actions whose cluster is `gone` into NOT_FOUND.
fn refuse_creates_where(decided: &mut [Decided], gone: impl Fn(&str) -> bool) {
    for d in decided.iter_mut() {
        if let Decided::Insert(action) = d
            && gone(&action.cluster)
        {
            *d = Decided::Done(Err(cluster_not_found(&action.cluster)));
        }
    }
}

/// The refusal of a create whose pod or node has an open action, naming it.
async fn busy(conn: &mut Conn, action: &ActionRecord) -> Result<Error> {
    let key = action.open_key().expect("a new action is open");
    let holder = action_open_by_key(conn, &key).await?;
    let name = holder
        .map(|h| h.name())
        .unwrap_or_else(|| "another action".into());
    Ok(Error::Aborted {
        reason: Conflict::ActionInProgress,
        message: format!(
            "{name} is already open on {}: wait for it to finish or cancel it",
            describe_target(action)
        ),
    })
}
