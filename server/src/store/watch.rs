//! The status event log behind WatchStatus: events are buffered on the write
//! transaction ([`Tx::emit`]) and appended when it commits, so a change and its events
//! commit together or not at all (transactional outbox). Each watch target (an intent
//! group or a cluster, by resource name) has its own contiguous revision sequence;
//! allocating revisions updates the target's row, which serializes writers of one
//! target, so a reader that sees revision n also sees every revision below it.
//! The log (`watch_log`) keeps a transaction's events of a target in rows of up to
//! [`ROW_EVENTS`] consecutive events, a JSON array each: a row per event made the
//! append most of the time between a change's stamp and its commit on PostgreSQL.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use sqlx::{AnyConnection, Row};

use super::rsync_resource::ResourceKey;
use super::{Backend, Tx, now_micros, placeholders};
use crate::domain::container_cluster::ClusterState;
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Result};

/// The rsync status, cluster status and readiness of a resource.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statuses {
    /// None for a resource nothing rendered (cluster-only).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_name"
    )]
    pub rsync: Option<RsyncStatus>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_name"
    )]
    pub cluster: Option<ClusterStatus>,
    #[serde(default, skip_serializing_if = "Readiness::is_none")]
    pub readiness: Readiness,
}

/// An optional status as its stored name, "" (or absent) for none.
mod optional_name {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Copy + serde::Serialize, S: Serializer>(
        value: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => value.serialize(s),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, T: std::str::FromStr<Err = String>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
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
        body: Option<Body>,
    },
    /// The owner's lifecycle state changed; `instance` is its current instance after
    /// the change, `previous` the one before ("" = none).
    Lifecycle {
        state: String,
        instance: String,
        previous: String,
    },
    /// The connectivity of the event's cluster changed, from `previous` (absent in
    /// events stored before it was recorded).
    Connectivity {
        connectivity: Connectivity,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous: Option<Connectivity>,
    },
    /// An action was added, modified or deleted (WatchActions targets only); `record`
    /// is the action as stored after the change (before it, for a deletion).
    Action { change: ActionChange, record: Body },
    /// A container cluster was added, modified or destroyed (WatchContainerClusters);
    /// `record` is the cluster as stored after the change, `previous` its state before.
    ContainerCluster {
        change: ActionChange,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "cluster_state_by_name"
        )]
        previous: Option<ClusterState>,
        record: Body,
    },
}

/// A container cluster's previous state in an event: its name (`CREATED`), absent or
/// "" for none.
mod cluster_state_by_name {
    use std::borrow::Cow;

    use serde::{Deserialize, Deserializer, Serializer};

    use crate::domain::container_cluster::ClusterState;

    pub fn serialize<S: Serializer>(state: &Option<ClusterState>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(state.map_or("", ClusterState::as_str))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ClusterState>, D::Error> {
        let text = <Cow<'de, str>>::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

/// What happened to an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionChange {
    Added,
    Modified,
    Deleted,
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
        body: Option<Body>,
    ) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: instance.to_string(),
            app: key.app.clone(),
            cluster: key.cluster.to_string(),
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

    /// `cluster`'s connectivity, changed from `previous`, for the watchers of `target`.
    pub fn connectivity(
        target: &str,
        cluster: &str,
        previous: Option<Connectivity>,
        connectivity: Connectivity,
    ) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: String::new(),
            app: String::new(),
            cluster: cluster.to_string(),
            name: String::new(),
            payload: Payload::Connectivity {
                connectivity,
                previous,
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

/// A resource's {"metadata", "spec", "status"} as reported by its cluster, held as the
/// JSON text it is stored and sent as: a report waiting for ingest, an event in a
/// feed's tail or in a transaction's buffer costs its text, not a tree of maps (a
/// fleet's queued reports were most of the server's memory while converging).
#[derive(Debug, Clone)]
pub struct Body(Box<RawValue>);

impl Body {
    /// `{"metadata": …, "spec": …, "status": …}`.
    pub fn of(metadata: &Value, spec: &Value, status: &Value) -> Body {
        #[derive(Serialize)]
        struct Parts<'a> {
            metadata: &'a Value,
            spec: &'a Value,
            status: &'a Value,
        }
        let text = serde_json::to_string(&Parts {
            metadata,
            spec,
            status,
        })
        .expect("JSON values serialize");
        Body(RawValue::from_string(text).expect("serde_json writes valid JSON"))
    }

    /// A body stored as JSON text (None if it is not valid JSON).
    pub fn from_text(text: String) -> Option<Body> {
        RawValue::from_string(text).ok().map(Body)
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The body as a JSON value (for DETAIL output).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or_default()
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Body) -> bool {
        self.text() == other.text()
    }
}

/// Written into the log as the JSON object it is (not re-encoded).
impl Serialize for Body {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Read back through a value: the payload is an internally tagged enum, whose fields
/// serde buffers before decoding them, which raw JSON text cannot pass through.
impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Body, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RawValue::from_string(value.to_string())
            .map(Body)
            .map_err(serde::de::Error::custom)
    }
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
pub async fn compact(tx: &mut Tx, cutoff: i64) -> Result<u64> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Statuses are stored by name, as their columns are, and what the log holds from
    /// before they were typed ("" for none, absent fields) reads back the same.
    #[test]
    fn statuses_keep_their_stored_names() {
        let statuses = Statuses {
            rsync: Some(RsyncStatus::Pending),
            cluster: Some(ClusterStatus::NotPresent),
            readiness: Readiness::NotReady,
        };
        let json = serde_json::to_string(&statuses).unwrap();
        assert_eq!(
            json,
            r#"{"rsync":"Pending","cluster":"NotPresent","readiness":"NotReady"}"#
        );
        assert_eq!(serde_json::from_str::<Statuses>(&json).unwrap(), statuses);
        let cluster_only = Statuses {
            rsync: None,
            cluster: Some(ClusterStatus::Present),
            readiness: Readiness::None,
        };
        assert_eq!(
            serde_json::to_string(&cluster_only).unwrap(),
            r#"{"cluster":"Present"}"#
        );
        for stored in [
            r#"{"cluster":"Present"}"#,
            r#"{"rsync":"","cluster":"Present","readiness":""}"#,
        ] {
            assert_eq!(
                serde_json::from_str::<Statuses>(stored).unwrap(),
                cluster_only
            );
        }
        assert!(serde_json::from_str::<Statuses>(r#"{"rsync":"Sideways"}"#).is_err());
    }

    /// A body is written into the log as the JSON object it is and read back equal,
    /// through the payload's tagged enum.
    #[test]
    fn bodies_are_stored_as_json_objects() {
        let body = Body::of(
            &serde_json::json!({"name": "cm", "labels": {"b": "2", "a": "1"}}),
            &serde_json::json!({"data": {"key": "value"}}),
            &Value::Null,
        );
        let payload = Payload::Resource {
            kind: "ConfigMap".into(),
            group: String::new(),
            version: "v1".into(),
            namespace: String::new(),
            rendered: true,
            old: None,
            new: Statuses::default(),
            body: Some(body.clone()),
        };
        let text = serde_json::to_string(&payload).unwrap();
        assert!(
            text.contains(
                r#""body":{"metadata":{"labels":{"a":"1","b":"2"},"name":"cm"},"spec":{"data":{"key":"value"}},"status":null}"#
            ),
            "{text}"
        );
        let back: Payload = serde_json::from_str(&text).unwrap();
        assert_eq!(back, payload);
        assert_eq!(body.value()["spec"]["data"]["key"], "value");
        assert!(Body::from_text("{not json".into()).is_none());
    }

    fn connectivity(target: &str, n: usize) -> NewEvent {
        NewEvent::connectivity(
            target,
            &format!("clusterProviders/p/clusters/c{n}"),
            None,
            Connectivity::Available,
        )
    }

    /// Transactions larger than a row of the log read back exactly: every revision
    /// range, limit and batch, across row boundaries.
    async fn rows_read_back_as_events(url: &str) {
        let store = Store::connect(url).await.unwrap();
        // Revisions 1..=1300 (one transaction, three rows), then 1301..=1302.
        for (target_events, other) in [(1300usize, 3usize), (2, 1)] {
            let mut tx = store.begin().await.unwrap();
            for n in 0..target_events {
                tx.emit(connectivity("t", n));
            }
            for n in 0..other {
                tx.emit(connectivity("other", n));
            }
            tx.commit().await.unwrap();
        }
        let mut conn = store.read().await.unwrap();
        assert_eq!(target_revision(&mut conn, "t").await.unwrap(), (1302, 0));
        for (after, until, limit) in [
            (0, 1302, 5000),
            (0, 1302, 7),
            (510, 1302, 10),
            (511, 515, 100),
            (1023, 1025, 100),
            (1299, 1302, 100),
            (1302, 1302, 100),
            (700, 600, 100),
        ] {
            let events = events_after(&mut conn, "t", after, until, limit)
                .await
                .unwrap();
            let expected: Vec<i64> = ((after + 1)..=until).take(limit as usize).collect();
            let revisions: Vec<i64> = events.iter().map(|e| e.revision).collect();
            assert_eq!(revisions, expected, "({after}, {until}] limit {limit}");
            for e in &events {
                let batch = if e.revision <= 1300 { 1300 } else { 1302 };
                assert_eq!(e.batch, batch);
                let n = if e.revision <= 1300 {
                    e.revision - 1
                } else {
                    e.revision - 1301
                };
                assert_eq!(e.cluster, format!("clusterProviders/p/clusters/c{n}"));
            }
        }
        for (batch, until, first) in [(1300, 1300, 1), (1300, 700, 1), (1302, 1302, 1301)] {
            let events = batch_events(&mut conn, "t", batch, until).await.unwrap();
            let revisions: Vec<i64> = events.iter().map(|e| e.revision).collect();
            assert_eq!(
                revisions,
                (first..=until).collect::<Vec<_>>(),
                "batch {batch}"
            );
        }
        let other = events_after(&mut conn, "other", 0, i64::MAX, 100)
            .await
            .unwrap();
        assert_eq!(
            other.iter().map(|e| e.revision).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        drop(conn);
        store.close().await;
    }

    /// Times stamped out of revision order (a writer stamps, then waits for the
    /// target's row lock behind another) let compaction remove a later transaction
    /// before an earlier one: readers never step over the hole.
    async fn reads_stop_at_a_compaction_hole(url: &str) {
        let store = Store::connect(url).await.unwrap();
        for _ in 0..3 {
            let mut tx = store.begin().await.unwrap();
            for n in 0..3 {
                tx.emit(connectivity("t", n));
            }
            tx.commit().await.unwrap();
        }
        // The middle transaction (revisions 4..=6) was stamped first.
        let mut tx = store.begin().await.unwrap();
        sqlx::query("UPDATE watch_log SET time = CASE WHEN first = 4 THEN 100 ELSE 300 END")
            .execute(&mut *tx)
            .await
            .unwrap();
        assert_eq!(compact(&mut tx, 200).await.unwrap(), 3);
        tx.commit().await.unwrap();
        let mut conn = store.read().await.unwrap();
        assert_eq!(target_revision(&mut conn, "t").await.unwrap(), (9, 6));
        let revisions = |events: Vec<Event>| events.iter().map(|e| e.revision).collect::<Vec<_>>();
        let read = events_after(&mut conn, "t", 0, i64::MAX, 100)
            .await
            .unwrap();
        assert_eq!(revisions(read), [1, 2, 3], "the read stops at the hole");
        let read = events_after(&mut conn, "t", 3, i64::MAX, 100)
            .await
            .unwrap();
        assert_eq!(
            revisions(read),
            [7, 8, 9],
            "the next read shows it: 7 is not 4"
        );
        drop(conn);
        store.close().await;
    }

    /// A cluster's connectivity at a revision is the `previous` of its first change
    /// after it; clusters whose first change predates `previous` are left out.
    async fn connectivity_at_a_revision(url: &str) {
        let store = Store::connect(url).await.unwrap();
        let (a, b, c) = ("cp/clusters/a", "cp/clusters/b", "cp/clusters/c");
        use Connectivity::*;
        for (cluster, previous, now) in [
            (a, Some(Unknown), Available),  // 1
            (b, None, Available),           // 2
            (a, Some(Available), Retrying), // 3
            (c, Some(Unknown), Available),  // 4
            (a, Some(Retrying), Available), // 5
        ] {
            let mut tx = store.begin().await.unwrap();
            tx.emit(NewEvent::connectivity("t", cluster, previous, now));
            tx.emit(NewEvent::connectivity(
                "other",
                cluster,
                Some(Retrying),
                now,
            ));
            tx.commit().await.unwrap();
        }
        let mut conn = store.read().await.unwrap();
        let all = HashSet::from([a, b, c]);
        for (at, expected) in [
            (0, vec![(a, Unknown), (c, Unknown)]),
            (1, vec![(a, Available), (c, Unknown)]),
            (3, vec![(a, Retrying), (c, Unknown)]),
            (4, vec![(a, Retrying)]),
            (5, vec![]),
        ] {
            let mut got: Vec<(String, Connectivity)> = connectivity_at(&mut conn, "t", at, &all)
                .await
                .unwrap()
                .into_iter()
                .collect();
            got.sort_by(|x, y| x.0.cmp(&y.0));
            let expected: Vec<(String, Connectivity)> = expected
                .into_iter()
                .map(|(c, s)| (c.to_string(), s))
                .collect();
            assert_eq!(got, expected, "at {at}");
        }
        drop(conn);
        store.close().await;
    }

    on_both_backends!(
        connectivity_at_a_revision_sqlite,
        connectivity_at_a_revision_postgres,
        connectivity_at_a_revision
    );

    on_both_backends!(
        reads_stop_at_a_compaction_hole_sqlite,
        reads_stop_at_a_compaction_hole_postgres,
        reads_stop_at_a_compaction_hole
    );

    on_both_backends!(
        rows_read_back_as_events_sqlite,
        rows_read_back_as_events_postgres,
        rows_read_back_as_events
    );
}
