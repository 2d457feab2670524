//! The status event log behind WatchStatus: events are buffered on the write
//! transaction ([`Tx::emit`]) and appended when it commits, so a change and its events
//! commit together or not at all (transactional outbox). Each watch target (an intent
//! group or a cluster, by resource name) has its own contiguous revision sequence;
//! allocating revisions updates the target's row, which serializes writers of one
//! target, so a reader that sees revision n also sees every revision below it.
//! The log (`watch_log`) keeps a transaction's events of a target in rows of up to
//! [`ROW_EVENTS`] consecutive events, a JSON array each: a row per event made the
//! append most of the time between a change's stamp and its commit on PostgreSQL.

mod event;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use sqlx::{AnyConnection, Row};

pub use event::*;

use super::{Backend, Tx, now_micros, placeholders};
use crate::domain::readiness::Connectivity;
use crate::error::{Error, Result};

/// Events per row of the log (a row is read whole: this bounds what a reader that
/// wants one event of a large transaction parses).
pub(crate) const ROW_EVENTS: usize = 512;
/// Rows per INSERT statement (6 binds each).
const INSERT_ROWS: usize = 100;

/// An event as a row of the log holds it (its revision, batch and time are the row's).
#[derive(Serialize)]
struct StoredRef<'a> {
    instance: &'a str,
    app: &'a str,
    cluster: &'a str,
    name: &'a str,
    payload: &'a Payload,
}

#[derive(Deserialize)]
struct Stored {
    instance: String,
    app: String,
    cluster: String,
    name: String,
    payload: Payload,
}

/// Adds the inserted row's revisions to a target that has a row already: the upsert
/// that allocates revisions (the target's row stays locked until commit).
const ADD_REVISIONS: &str =
    "ON CONFLICT (target) DO UPDATE SET revision = watch_targets.revision + excluded.revision";

/// PostgreSQL: the CTEs that append, as one log row of target `{target}` (a SQL
/// expression) at time `{time}`, the events that CTE `{appending}` holds (one row:
/// `n`, how many; `events`, their JSON text as [`row_json`] writes it), inside a larger
/// statement. Revisions are allocated (the target's row locked until commit) only once
/// `{appending}` is complete: a statement that commits on its own and whose other CTEs
/// feed it holds the row for its tail and its commit only. Defines `appended (revision)`:
/// the target's new last revision, no row if `n` is 0. At most [`ROW_EVENTS`] events.
pub(crate) fn append_ctes(appending: &str, target: &str, time: &str) -> String {
    format!(
        "appended AS (INSERT INTO watch_targets (target, revision, compacted) \
         SELECT {target}, n, 0 FROM {appending} WHERE n > 0 {ADD_REVISIONS} \
         RETURNING revision), \
         appended_row AS (INSERT INTO watch_log (target, first, last, batch, time, events) \
         SELECT {target}, revision - n + 1, revision, revision, {time}, events \
         FROM appended, {appending})"
    )
}

/// Appends `events` (in order), allocating revisions per target. Returns the events
/// written, by target, as readers will see them.
pub async fn append(
    conn: &mut AnyConnection,
    events: Vec<NewEvent>,
) -> Result<Vec<(String, Vec<Event>)>> {
    let mut by_target: Vec<(String, Vec<NewEvent>)> = Vec::new();
    for event in events {
        match by_target.iter_mut().find(|(t, _)| *t == event.target) {
            Some((_, list)) => list.push(event),
            None => by_target.push((event.target.clone(), vec![event])),
        }
    }
    // Lock targets in name order, like every other multi-row lock.
    by_target.sort_by(|a, b| a.0.cmp(&b.0));
    let time = now_micros();
    let postgres = Backend::of(conn) == Backend::Postgres;
    let mut written = Vec::new();
    for (target, list) in by_target {
        let n = list.len() as i64;
        if postgres && list.len() <= ROW_EVENTS {
            let last = append_one_row(conn, &target, &list, time).await?;
            written.push((target, stored_events(list, last, time)));
            continue;
        }
        let row = sqlx::query(&format!(
            "INSERT INTO watch_targets (target, revision, compacted) VALUES ($1, $2, 0) \
             {ADD_REVISIONS} RETURNING revision"
        ))
        .bind(&target)
        .bind(n)
        .fetch_one(&mut *conn)
        .await?;
        let last: i64 = row.try_get("revision")?;
        let first = last - n + 1;
        // (first revision, last revision, events JSON) of each row.
        let rows = list
            .chunks(ROW_EVENTS)
            .enumerate()
            .map(|(i, chunk)| {
                let from = first + (i * ROW_EVENTS) as i64;
                Ok((from, from + chunk.len() as i64 - 1, row_json(chunk)?))
            })
            .collect::<Result<Vec<_>>>()?;
        for chunk in rows.chunks(INSERT_ROWS) {
            let sql = format!(
                "INSERT INTO watch_log (target, first, last, batch, time, events) VALUES {}",
                placeholders(conn, chunk.len(), 6)
            );
            let mut query = sqlx::query(&sql);
            for (from, to, json) in chunk {
                query = query
                    .bind(target.as_str())
                    .bind(*from)
                    .bind(*to)
                    .bind(last)
                    .bind(time)
                    .bind(json.as_str());
            }
            query.execute(&mut *conn).await?;
        }
        written.push((target, stored_events(list, last, time)));
    }
    Ok(written)
}

/// Appends `list` (at most [`ROW_EVENTS`]) to `target` on PostgreSQL in one statement:
/// the revision upsert and the log row together, so that the target's row, locked by
/// the upsert until commit, is held for one round trip less (every transaction of the
/// target waits for that hold). Returns the target's new last revision.
async fn append_one_row(
    conn: &mut AnyConnection,
    target: &str,
    list: &[NewEvent],
    time: i64,
) -> Result<i64> {
    let row = sqlx::query(&format!(
        "WITH appending AS (SELECT $2::bigint AS n, $4::text AS events), {} \
         SELECT revision FROM appended",
        append_ctes("appending", "$1", "$3")
    ))
    .bind(target)
    .bind(list.len() as i64)
    .bind(time)
    .bind(row_json(list)?)
    .fetch_one(&mut *conn)
    .await?;
    row.try_get("revision").map_err(Error::from)
}

/// The JSON array a log row holds for `events`.
pub(crate) fn row_json<'a>(events: impl IntoIterator<Item = &'a NewEvent>) -> Result<String> {
    let stored: Vec<StoredRef<'_>> = events
        .into_iter()
        .map(|e| StoredRef {
            instance: &e.instance,
            app: &e.app,
            cluster: &e.cluster,
            name: &e.name,
            payload: &e.payload,
        })
        .collect();
    serde_json::to_string(&stored).map_err(Error::internal)
}

/// `list` as readers see it once appended with `last` as the last revision.
pub(crate) fn stored_events(list: Vec<NewEvent>, last: i64, time: i64) -> Vec<Event> {
    let first = last - list.len() as i64 + 1;
    list.into_iter()
        .zip(first..)
        .map(|(event, revision)| Event {
            revision,
            batch: last,
            time,
            instance: event.instance,
            app: event.app,
            cluster: event.cluster,
            name: event.name,
            payload: event.payload,
        })
        .collect()
}

/// The last revision of `target` and the highest revision compaction removed
/// ((0, 0) for a target without events).
pub async fn target_revision(conn: &mut AnyConnection, target: &str) -> Result<(i64, i64)> {
    let row = sqlx::query("SELECT revision, compacted FROM watch_targets WHERE target = $1")
        .bind(target)
        .fetch_optional(conn)
        .await?;
    match row {
        Some(r) => Ok((r.try_get("revision")?, r.try_get("compacted")?)),
        None => Ok((0, 0)),
    }
}

/// Up to `limit` events of `target` with revisions in (`after`, `until`], in order.
pub async fn events_after(
    conn: &mut AnyConnection,
    target: &str,
    after: i64,
    until: i64,
    limit: i64,
) -> Result<Vec<Event>> {
    // Every row holds at least one event: `limit` rows hold enough.
    let rows = sqlx::query(
        "SELECT first, batch, time, events FROM watch_log \
         WHERE target = $1 AND last > $2 AND first <= $3 ORDER BY last LIMIT $4",
    )
    .bind(target)
    .bind(after)
    .bind(until)
    .bind(limit)
    .fetch_all(conn)
    .await?;
    let mut events: Vec<Event> = Vec::new();
    for row in &rows {
        for event in decode_row(row)? {
            if event.revision > after && event.revision <= until {
                // The log is read as one contiguous run. A gap means compaction removed
                // a later transaction's row before an earlier one's (their times were
                // stamped out of revision order); the read stops before it, and the
                // caller's next read, starting right there, finds its position gone.
                if events
                    .last()
                    .is_some_and(|last| event.revision != last.revision + 1)
                {
                    return Ok(events);
                }
                events.push(event);
                if events.len() as i64 >= limit {
                    return Ok(events);
                }
            }
        }
    }
    Ok(events)
}

/// The connectivity each of `clusters` had at `target`'s revision `at`, for those
/// whose connectivity changed after it: the `previous` of each one's first change
/// event after `at`. A cluster absent from the answer has not changed since (or its
/// first change predates recording `previous`): what is stored now holds for it, when
/// read before this walk. The walk ends once every cluster's first change is found.
pub async fn connectivity_at(
    conn: &mut AnyConnection,
    target: &str,
    at: i64,
    clusters: &HashSet<&str>,
) -> Result<HashMap<String, Connectivity>> {
    const CHUNK: i64 = 1000;
    let mut first_change: HashMap<String, Option<Connectivity>> = HashMap::new();
    let mut after = at;
    while first_change.len() < clusters.len() {
        let events = events_after(&mut *conn, target, after, i64::MAX, CHUNK).await?;
        let Some(last) = events.last() else { break };
        after = last.revision;
        for event in events {
            if let Payload::Connectivity { previous, .. } = event.payload
                && clusters.contains(event.cluster.as_str())
            {
                first_change.entry(event.cluster).or_insert(previous);
            }
        }
    }
    Ok(first_change
        .into_iter()
        .filter_map(|(cluster, previous)| Some((cluster, previous?)))
        .collect())
}

/// The events of one row of the log.
fn decode_row(row: &sqlx::any::AnyRow) -> Result<Vec<Event>> {
    let first: i64 = row.try_get("first")?;
    let batch: i64 = row.try_get("batch")?;
    let time: i64 = row.try_get("time")?;
    let json: &str = row.try_get("events")?;
    let stored: Vec<Stored> = serde_json::from_str(json).map_err(Error::internal)?;
    Ok(stored
        .into_iter()
        .zip(first..)
        .map(|(e, revision)| Event {
            revision,
            batch,
            time,
            instance: e.instance,
            app: e.app,
            cluster: e.cluster,
            name: e.name,
            payload: e.payload,
        })
        .collect())
}

/// The events of `target`'s transaction `batch` up to revision `until`.
pub async fn batch_events(
    conn: &mut AnyConnection,
    target: &str,
    batch: i64,
    until: i64,
) -> Result<Vec<Event>> {
    // The transaction's rows are the last ones at or below `batch`: walk back from
    // there until a row of another transaction (or the log's start).
    let mut rows = Vec::new();
    let mut below = batch + 1;
    loop {
        let page = sqlx::query(
            "SELECT first, last, batch, time, events FROM watch_log \
             WHERE target = $1 AND last < $2 ORDER BY last DESC LIMIT 8",
        )
        .bind(target)
        .bind(below)
        .fetch_all(&mut *conn)
        .await?;
        let full = page.len() == 8;
        for row in page {
            let row_batch: i64 = row.try_get("batch")?;
            if row_batch != batch {
                return collect_batch(rows, until);
            }
            below = row.try_get("last")?;
            rows.push(row);
        }
        if !full {
            return collect_batch(rows, until);
        }
    }
}

fn collect_batch(mut rows: Vec<sqlx::any::AnyRow>, until: i64) -> Result<Vec<Event>> {
    rows.reverse();
    let mut events = Vec::new();
    for row in &rows {
        events.extend(decode_row(row)?.into_iter().filter(|e| e.revision <= until));
    }
    Ok(events)
}

/// Removes the events older than `cutoff` (microseconds) and records, per target, the
/// highest revision removed. Returns how many events went.
///
/// On PostgreSQL it is one statement: the watermarks are raised from exactly the rows
/// it deleted (a transaction stamped before the cutoff that commits meanwhile is either
/// deleted and counted, or left for the next pass), and the targets' rows, which every
/// append to them waits for, are locked at its end only, not while the log is scanned
/// and deleted, in name order like every other multi-row lock. (SQLite's one writer
/// keeps appends out of the whole transaction.)
pub async fn compact(tx: &mut Tx, cutoff: i64) -> Result<u64> {
    if tx.backend() == Backend::Postgres {
        let events: i64 = sqlx::query_scalar(
            "WITH gone AS (DELETE FROM watch_log WHERE time < $1 \
             RETURNING target, first, last), \
             per_target AS (SELECT target, MAX(last) AS last, SUM(last - first + 1) AS n \
             FROM gone GROUP BY target), \
             locked AS (SELECT target FROM watch_targets \
             WHERE target IN (SELECT target FROM per_target) ORDER BY target FOR UPDATE), \
             raised AS (UPDATE watch_targets t SET compacted = GREATEST(t.compacted, p.last) \
             FROM per_target p WHERE t.target = p.target \
             AND t.target IN (SELECT target FROM locked)) \
             SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM per_target",
        )
        .bind(cutoff)
        .fetch_one(&mut **tx)
        .await?;
        return Ok(events as u64);
    }
    sqlx::query(
        "UPDATE watch_targets SET compacted = (SELECT MAX(l.last) FROM watch_log l \
         WHERE l.target = watch_targets.target AND l.time < $1) \
         WHERE EXISTS (SELECT 1 FROM watch_log l WHERE l.target = watch_targets.target AND l.time < $1)",
    )
    .bind(cutoff)
    .execute(&mut **tx)
    .await?;
    let events: i64 = sqlx::query(
        "SELECT CAST(COALESCE(SUM(last - first + 1), 0) AS BIGINT) AS n FROM watch_log WHERE time < $1",
    )
    .bind(cutoff)
    .fetch_one(&mut **tx)
    .await?
    .try_get("n")?;
    // Every event older than the cutoff is at or below its target's watermark now; an
    // event at or below it but newer stays until a later pass (readers detect the gap
    // by revision, not by what is left).
    sqlx::query("DELETE FROM watch_log WHERE time < $1")
        .bind(cutoff)
        .execute(&mut **tx)
        .await?;
    Ok(events as u64)
}
