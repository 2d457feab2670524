//! The status event log behind WatchStatus: events are buffered on the write
//! transaction ([`Tx::emit`]) and appended when it commits, so a change and its events
//! commit together or not at all (transactional outbox). Each watch target (an intent
//! group or a cluster, by resource name) has its own contiguous revision sequence;
//! allocating revisions updates the target's row, which serializes writers of one
//! target, so a reader that sees revision n also sees every revision below it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{AnyConnection, Row};

use super::rsync_resource::ResourceKey;
use super::{Tx, db_error, now_micros, placeholders};
use crate::error::{Error, Result};

/// The rsync status, cluster status and readiness of a resource ("" = none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statuses {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rsync: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cluster: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub readiness: String,
}

/// What an event says.
// Resource events are nearly all events: boxing that variant would cost an allocation
// per event to save bytes on the rare others.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Payload {
    /// A resource's statuses changed (`old` = None: a cluster-only resource appeared).
    Resource {
        kind: String,
        group: String,
        version: String,
        namespace: String,
        /// A rendered (rsync) resource rather than a cluster-only one.
        rendered: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old: Option<Statuses>,
        new: Statuses,
        /// {"metadata", "spec", "status"} from the cluster, when the change came with it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Value>,
    },
    /// The owner's lifecycle state changed; `instance` is its current instance after
    /// the change, `previous` the one before ("" = none).
    Lifecycle {
        state: String,
        instance: String,
        previous: String,
    },
    /// The connectivity of the event's cluster changed.
    Connectivity { connectivity: String },
}

impl Payload {
    fn kind(&self) -> &'static str {
        match self {
            Payload::Resource { .. } => "resource",
            Payload::Lifecycle { .. } => "lifecycle",
            Payload::Connectivity { .. } => "connectivity",
        }
    }
}

/// An event about to be appended.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub target: String,
    pub instance: String,
    pub app: String,
    pub cluster: String,
    /// The resource name, for resource events.
    pub name: String,
    pub payload: Payload,
}

impl NewEvent {
    /// A resource event of `instance`'s resource `key` for the watchers of `target`.
    #[allow(clippy::too_many_arguments)]
    pub fn resource(
        target: &str,
        instance: &str,
        key: &ResourceKey,
        version: &str,
        rendered: bool,
        old: Option<Statuses>,
        new: Statuses,
        body: Option<Value>,
    ) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: instance.to_string(),
            app: key.app.clone(),
            cluster: key.cluster.clone(),
            name: key.name.clone(),
            payload: Payload::Resource {
                kind: key.kind.clone(),
                group: key.group.clone(),
                version: version.to_string(),
                namespace: key.namespace.clone(),
                rendered,
                old,
                new,
                body,
            },
        }
    }
}

impl NewEvent {
    /// A lifecycle event of `target`: its state, current and previous instance.
    pub fn lifecycle(target: &str, state: &str, instance: &str, previous: &str) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: instance.to_string(),
            app: String::new(),
            cluster: String::new(),
            name: String::new(),
            payload: Payload::Lifecycle {
                state: state.to_string(),
                instance: instance.to_string(),
                previous: previous.to_string(),
            },
        }
    }

    /// `cluster`'s connectivity, for the watchers of `target`.
    pub fn connectivity(target: &str, cluster: &str, connectivity: &str) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: String::new(),
            app: String::new(),
            cluster: cluster.to_string(),
            name: String::new(),
            payload: Payload::Connectivity {
                connectivity: connectivity.to_string(),
            },
        }
    }
}

/// An event of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub revision: i64,
    /// The last revision of the transaction that wrote the event: the event ends its
    /// transaction when `revision == batch`.
    pub batch: i64,
    /// Microseconds since the epoch.
    pub time: i64,
    pub instance: String,
    pub app: String,
    pub cluster: String,
    pub name: String,
    pub payload: Payload,
}

/// Rows per INSERT statement (10 binds each).
const INSERT_CHUNK: usize = 50;

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
    let mut written = Vec::new();
    for (target, list) in by_target {
        let n = list.len() as i64;
        let row = sqlx::query(
            "INSERT INTO watch_targets (target, revision, compacted) VALUES ($1, $2, 0) \
             ON CONFLICT (target) DO UPDATE SET revision = watch_targets.revision + excluded.revision \
             RETURNING revision",
        )
        .bind(&target)
        .bind(n)
        .fetch_one(&mut *conn)
        .await
        .map_err(db_error)?;
        let last: i64 = row.try_get("revision").map_err(db_error)?;
        let mut revision = last - n + 1;
        let mut stored = Vec::with_capacity(list.len());
        let mut list = list.into_iter().peekable();
        while list.peek().is_some() {
            let chunk: Vec<NewEvent> = list.by_ref().take(INSERT_CHUNK).collect();
            let sql = format!(
                "INSERT INTO watch_events (target, revision, batch, time, kind, instance_id, app, cluster, name, payload) \
                 VALUES {}",
                placeholders(conn, chunk.len(), 10)
            );
            let mut query = sqlx::query(&sql);
            for event in chunk {
                let payload = serde_json::to_string(&event.payload).map_err(Error::internal)?;
                query = query
                    .bind(target.clone())
                    .bind(revision)
                    .bind(last)
                    .bind(time)
                    .bind(event.payload.kind())
                    .bind(event.instance.clone())
                    .bind(event.app.clone())
                    .bind(event.cluster.clone())
                    .bind(event.name.clone())
                    .bind(payload);
                stored.push(Event {
                    revision,
                    batch: last,
                    time,
                    instance: event.instance,
                    app: event.app,
                    cluster: event.cluster,
                    name: event.name,
                    payload: event.payload,
                });
                revision += 1;
            }
            query.execute(&mut *conn).await.map_err(db_error)?;
        }
        written.push((target, stored));
    }
    Ok(written)
}

/// The last revision of `target` and the highest revision compaction removed
/// ((0, 0) for a target without events).
pub async fn target_revision(conn: &mut AnyConnection, target: &str) -> Result<(i64, i64)> {
    let row = sqlx::query("SELECT revision, compacted FROM watch_targets WHERE target = $1")
        .bind(target)
        .fetch_optional(conn)
        .await
        .map_err(db_error)?;
    match row {
        Some(r) => Ok((
            r.try_get("revision").map_err(db_error)?,
            r.try_get("compacted").map_err(db_error)?,
        )),
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
    let rows = sqlx::query(
        "SELECT revision, batch, time, instance_id, app, cluster, name, payload FROM watch_events \
         WHERE target = $1 AND revision > $2 AND revision <= $3 ORDER BY revision LIMIT $4",
    )
    .bind(target)
    .bind(after)
    .bind(until)
    .bind(limit)
    .fetch_all(conn)
    .await
    .map_err(db_error)?;
    rows.iter()
        .map(|r| {
            let payload: String = r.try_get("payload").map_err(db_error)?;
            Ok(Event {
                revision: r.try_get("revision").map_err(db_error)?,
                batch: r.try_get("batch").map_err(db_error)?,
                time: r.try_get("time").map_err(db_error)?,
                instance: r.try_get("instance_id").map_err(db_error)?,
                app: r.try_get("app").map_err(db_error)?,
                cluster: r.try_get("cluster").map_err(db_error)?,
                name: r.try_get("name").map_err(db_error)?,
                payload: serde_json::from_str(&payload).map_err(Error::internal)?,
            })
        })
        .collect()
}

/// The events of `target`'s transaction `batch` up to revision `until`.
pub async fn batch_events(
    conn: &mut AnyConnection,
    target: &str,
    batch: i64,
    until: i64,
) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    let mut after = until;
    // Walk back from `until` in pages until the batch starts.
    loop {
        let from = (after - 512).max(0);
        let page = events_after(conn, target, from, after, 512).await?;
        let before = page.len();
        let mut page: Vec<Event> = page.into_iter().filter(|e| e.batch == batch).collect();
        let complete = page.len() < before || from == 0;
        page.append(&mut events);
        events = page;
        if complete || events.is_empty() {
            return Ok(events);
        }
        after = from;
    }
}

/// Removes the events older than `cutoff` (microseconds) and records, per target, the
/// highest revision removed. Returns how many events went.
pub async fn compact(tx: &mut Tx, cutoff: i64) -> Result<u64> {
    sqlx::query(
        "UPDATE watch_targets SET compacted = (SELECT MAX(e.revision) FROM watch_events e \
         WHERE e.target = watch_targets.target AND e.time < $1) \
         WHERE EXISTS (SELECT 1 FROM watch_events e WHERE e.target = watch_targets.target AND e.time < $1)",
    )
    .bind(cutoff)
    .execute(&mut **tx)
    .await
    .map_err(db_error)?;
    // Every event older than the cutoff is at or below its target's watermark now; an
    // event at or below it but newer stays until a later pass (readers detect the gap
    // by revision, not by what is left).
    let deleted = sqlx::query("DELETE FROM watch_events WHERE time < $1")
        .bind(cutoff)
        .execute(&mut **tx)
        .await
        .map_err(db_error)?;
    Ok(deleted.rows_affected())
}
