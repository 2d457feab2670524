//! Actions. Every change is a compare-and-swap on `generation`; at most one action per
//! pod or node is open, by the unique index on `open_key` (so concurrent creates on one
//! pod give exactly one action, without a read-then-write).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::{
    AnyQuery, Backend, RowLock, fetch_all, fetch_by_id, fetch_optional, json_in, json_rows,
    placeholders, run,
};
use crate::domain::action::{ActionState, Executor, Operation, Target};
use crate::domain::conditions::Condition;
use crate::domain::manifest::DEFAULT_NAMESPACE;
use crate::domain::names::{ClusterName, Namespace, NodeName, PodName};
use crate::domain::readiness::Connectivity;
use crate::error::{Error, Result};
use crate::ids::ActionId;

mod at_once;
pub use at_once::{AtOnce, WrittenAtOnce, action_write_at_once};

/// What happened to an action, as stored in its `status` column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionOutcome {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reboot_successful: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_size_in_bytes: Option<i64>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snapshot_path: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// When an executor took it (its clock), microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_time: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// What an action asks for, as stored in its `spec` column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionSpec {
    pub target: Target,
    pub operation: Operation,
}

/// A stored action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionRecord {
    pub id: ActionId,
    pub cluster: ClusterName,
    /// The node that executes it.
    pub node: NodeName,
    pub spec: ActionSpec,
    pub state: ActionState,
    pub executor: Option<Executor>,
    pub outcome: ActionOutcome,
    pub generation: i64,
    pub create_time: i64,
    pub update_time: i64,
    /// Open: when it fails with DeadlineExceeded.
    pub deadline: Option<i64>,
    /// Finished: when it is deleted.
    pub expire_time: Option<i64>,
}

impl ActionRecord {
    /// `actions/{id}`.
    pub fn name(&self) -> String {
        format!("actions/{}", self.id)
    }

    /// The key of the unique index while open.
    pub fn open_key(&self) -> Option<String> {
        (!self.state.is_finished()).then(|| self.spec.target.open_key(&self.cluster, &self.node))
    }
}

fn executor_text(executor: &Option<Executor>) -> String {
    match executor {
        None => String::new(),
        Some(Executor::Session) => "session".into(),
        Some(Executor::NodeAgent(token)) => format!("node:{token}"),
    }
}

fn executor_of(text: &str) -> Option<Executor> {
    match text {
        "" => None,
        "session" => Some(Executor::Session),
        other => Some(Executor::NodeAgent(
            other.strip_prefix("node:").unwrap_or(other).to_string(),
        )),
    }
}

const COLUMNS: &str = "id, cluster, node, spec, state, executor, status, generation, \
                       create_time, update_time, deadline, expire_time";

fn from_row(row: &AnyRow) -> Result<ActionRecord> {
    let text = |column: &str| -> Result<String> { row.try_get(column).map_err(Error::from) };
    let number = |column: &str| -> Result<i64> { row.try_get(column).map_err(Error::from) };
    let optional =
        |column: &str| -> Result<Option<i64>> { row.try_get(column).map_err(Error::from) };
    from_columns(Columns {
        id: text("id")?,
        cluster: text("cluster")?,
        node: text("node")?,
        spec: text("spec")?,
        state: text("state")?,
        executor: text("executor")?,
        status: text("status")?,
        generation: number("generation")?,
        create_time: number("create_time")?,
        update_time: number("update_time")?,
        deadline: optional("deadline")?,
        expire_time: optional("expire_time")?,
    })
}

fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("action parts serialize")
}

/// Inserts new actions in one statement; returns the ids inserted. An action whose
/// open key another open action holds (its pod or node is busy) is not inserted.
pub async fn action_insert_many(
    conn: &mut AnyConnection,
    actions: &[&ActionRecord],
) -> Result<HashSet<ActionId>> {
    let mut inserted = HashSet::with_capacity(actions.len());
    for chunk in actions.chunks(ROWS_PER_STATEMENT) {
        let sql = format!(
            "INSERT INTO actions (id, cluster, node, namespace, pod, action_name, spec, \
             create_time, {WRITTEN}) VALUES {} ON CONFLICT DO NOTHING",
            placeholders(conn, chunk.len(), 16)
        );
        let mut query = sqlx::query(&sql);
        for action in chunk {
            let (namespace, pod) = match &action.spec.target {
                Target::Pod { namespace, pod } => (namespace.as_str(), pod.as_str()),
                Target::Node => ("", ""),
            };
            let fixed = query
                .bind(action.id.to_string())
                .bind(action.cluster.clone())
                .bind(action.node.clone())
                .bind(namespace)
                .bind(pod)
                .bind(action.spec.operation.name())
                .bind(json(&action.spec))
                .bind(action.create_time);
            query = bind_written(fixed, action);
        }
        // DO NOTHING: a conflict leaves PostgreSQL's transaction usable, to name the holder.
        let rows = query.execute(&mut *conn).await?.rows_affected();
        let ids = chunk.iter().map(|action| action.id);
        if rows == chunk.len() as u64 {
            inserted.extend(ids);
        } else {
            // Some pod or node was busy. The ids are new, so those now stored are the
            // ones this statement inserted. (Counting instead of RETURNING spares the
            // usual case a row per action through sqlx.)
            let stored: HashSet<ActionId> = action_get_many(conn, &ids.collect::<Vec<_>>())
                .await?
                .into_iter()
                .map(|action| action.id)
                .collect();
            inserted.extend(stored);
        }
    }
    Ok(inserted)
}

/// The columns every write of an action sets (an insert, and a compare-and-swap
/// update), in the order [`bind_written`] binds them.
const WRITTEN: &str =
    "state, executor, status, generation, open_key, update_time, deadline, expire_time";

/// Binds an action's [`WRITTEN`] columns.
fn bind_written<'q>(query: AnyQuery<'q>, action: &ActionRecord) -> AnyQuery<'q> {
    query
        .bind(action.state.as_str())
        .bind(executor_text(&action.executor))
        .bind(json(&action.outcome))
        .bind(action.generation)
        .bind(action.open_key())
        .bind(action.update_time)
        .bind(action.deadline)
        .bind(action.expire_time)
}

/// Rows per multi-row statement (16 columns each: far below both databases' limit of
/// bound parameters).
const ROWS_PER_STATEMENT: usize = 256;

fn parse_id(id: String) -> Result<ActionId> {
    id.parse()
        .map_err(|_| Error::internal(format!("stored action id {id:?} is not a uuid")))
}

/// The open action holding `open_key`, if any.
pub async fn action_open_by_key(
    conn: &mut AnyConnection,
    open_key: &str,
) -> Result<Option<ActionRecord>> {
    fetch_optional(
        conn,
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM actions WHERE open_key = $1"
        ))
        .bind(open_key),
        from_row,
    )
    .await
}

pub async fn action_get(conn: &mut AnyConnection, id: ActionId) -> Result<Option<ActionRecord>> {
    fetch_by_id(conn, "actions", COLUMNS, &id.to_string(), from_row).await
}

/// Writes each action over the stored one if its generation is still the expected one
/// (a compare-and-swap per row), in one statement; returns the ids written.
pub async fn action_update_many(
    conn: &mut AnyConnection,
    actions: &[(&ActionRecord, i64)],
) -> Result<HashSet<ActionId>> {
    let postgres = Backend::of(conn) == Backend::Postgres;
    let mut updated = HashSet::with_capacity(actions.len());
    for chunk in actions.chunks(ROWS_PER_STATEMENT) {
        let values = format!(
            "WITH v (id, expected, {WRITTEN}) AS (VALUES {})",
            placeholders(conn, chunk.len(), 10)
        );
        let update = "UPDATE actions SET state = v.state, executor = v.executor, \
                      status = v.status, generation = v.generation, open_key = v.open_key, \
                      update_time = v.update_time, deadline = v.deadline, \
                      expire_time = v.expire_time \
                      FROM v WHERE actions.id = v.id AND actions.generation = v.expected";
        // The ids written come back as one JSON row on PostgreSQL, as a row each on
        // SQLite (which cannot aggregate a RETURNING).
        let sql = if postgres {
            format!(
                "{values}, u AS ({update} RETURNING actions.id) \
                 SELECT COALESCE(json_agg(id), '[]')::text AS ids FROM u"
            )
        } else {
            format!("{values} {update} RETURNING actions.id AS id")
        };
        let mut query = sqlx::query(&sql);
        for (action, expected) in chunk {
            query = bind_written(query.bind(action.id.to_string()).bind(*expected), action);
        }
        let ids: Vec<String> = if postgres {
            let row = query.fetch_one(&mut *conn).await?;
            serde_json::from_str(&row.try_get::<String, _>("ids")?).map_err(Error::internal)?
        } else {
            query
                .fetch_all(&mut *conn)
                .await?
                .iter()
                .map(|row| row.try_get::<String, _>("id").map_err(Error::from))
                .collect::<Result<_>>()?
        };
        for id in ids {
            updated.insert(parse_id(id)?);
        }
    }
    Ok(updated)
}

/// Deletes an action if its generation is still `expected`.
pub async fn action_delete(conn: &mut AnyConnection, id: ActionId, expected: i64) -> Result<bool> {
    let result = sqlx::query("DELETE FROM actions WHERE id = $1 AND generation = $2")
        .bind(id.to_string())
        .bind(expected)
        .execute(conn)
        .await?;
    Ok(result.rows_affected() == 1)
}

/// What a list of actions is narrowed to ("" = any).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ActionFilter {
    pub cluster: Option<ClusterName>,
    pub node: Option<NodeName>,
    /// `Some("")`: the default namespace (stored as "", or "default" by old servers).
    pub namespace: Option<Namespace>,
    pub pod: Option<PodName>,
    /// None: every state.
    pub state: Option<ActionState>,
    /// Only open (PENDING or RUNNING) actions.
    pub open_only: bool,
}

/// Up to `limit` actions matching `filter`, newest first, older than `before`.
pub async fn action_list(
    conn: &mut AnyConnection,
    filter: &ActionFilter,
    before: Option<ActionId>,
    limit: usize,
) -> Result<Vec<ActionRecord>> {
    let mut sql = format!("SELECT {COLUMNS} FROM actions WHERE 1 = 1");
    let mut binds: Vec<String> = Vec::new();
    let mut add = |column: &str, value: &str, sql: &mut String| {
        binds.push(value.to_string());
        sql.push_str(&format!(" AND {column} = ${}", binds.len()));
    };
    for (column, value) in [
        ("cluster", filter.cluster.as_deref()),
        ("node", filter.node.as_deref()),
        ("pod", filter.pod.as_deref()),
    ] {
        if let Some(value) = value {
            add(column, value, &mut sql);
        }
    }
    // Actions store the default namespace as "" (and as "default" if created before it
    // had one spelling).
    match filter.namespace.as_deref() {
        None => {}
        Some("" | DEFAULT_NAMESPACE) => sql.push_str(" AND namespace IN ('', 'default')"),
        Some(namespace) => add("namespace", namespace, &mut sql),
    }
    if let Some(state) = filter.state {
        add("state", state.as_str(), &mut sql);
    }
    if let Some(before) = before {
        binds.push(before.to_string());
        sql.push_str(&format!(" AND id < ${}", binds.len()));
    }
    if filter.open_only {
        sql.push_str(" AND open_key IS NOT NULL");
    }
    sql.push_str(&format!(" ORDER BY id DESC LIMIT {}", limit));
    let mut query = sqlx::query(&sql);
    for bind in &binds {
        query = query.bind(bind.as_str());
    }
    fetch_all(conn, query, from_row).await
}

/// Open actions whose deadline passed by `now`, and finished ones due for deletion
/// (at most `limit` of each).
pub async fn action_due(
    conn: &mut AnyConnection,
    now: i64,
    limit: usize,
) -> Result<(Vec<ActionRecord>, Vec<ActionRecord>)> {
    let late = format!(
        "SELECT {COLUMNS} FROM actions WHERE deadline <= $1 ORDER BY deadline LIMIT {limit}"
    );
    let expired = format!(
        "SELECT {COLUMNS} FROM actions WHERE expire_time <= $1 ORDER BY expire_time LIMIT {limit}"
    );
    Ok((
        fetch_all(&mut *conn, sqlx::query(&late).bind(now), from_row).await?,
        fetch_all(conn, sqlx::query(&expired).bind(now), from_row).await?,
    ))
}

/// The earliest deadline or expiry time (microseconds), if any: when the action timer
/// next has work.
pub async fn action_next_due(conn: &mut AnyConnection) -> Result<Option<i64>> {
    let row = sqlx::query(
        "SELECT (SELECT MIN(deadline) FROM actions WHERE deadline IS NOT NULL) AS deadline, \
         (SELECT MIN(expire_time) FROM actions WHERE expire_time IS NOT NULL) AS expire_time",
    )
    .fetch_one(conn)
    .await?;
    let deadline: Option<i64> = row.try_get("deadline")?;
    let expire: Option<i64> = row.try_get("expire_time")?;
    Ok(match (deadline, expire) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// Open pod actions whose pod its cluster no longer reports.
pub async fn action_open_with_pod_gone(conn: &mut AnyConnection) -> Result<Vec<ActionRecord>> {
    fetch_all(
        conn,
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM actions a WHERE a.open_key IS NOT NULL AND a.pod <> '' \
             AND NOT EXISTS (SELECT 1 FROM cluster_resources c WHERE c.cluster = a.cluster \
             AND c.kind = 'Pod' AND (c.namespace = a.namespace OR (c.namespace IN ('', 'default') \
             AND a.namespace IN ('', 'default'))) AND c.name = a.pod AND c.present = 1)"
        )),
        from_row,
    )
    .await
}

/// A cluster as actions see it: the nodes its agent reported last, its connectivity,
/// and (when a pod is named) the pod as last reported.
#[derive(Debug, Clone)]
pub struct ActionCluster {
    pub nodes: Vec<String>,
    pub connectivity: Connectivity,
    /// `{"metadata", "spec", "status"}` of the present pod, as JSON text.
    pub pod: Option<String>,
}

/// `cluster` with the pod `namespace/pod` (newest instance's row, if present), in one
/// read; None if there is no such cluster.
pub async fn action_cluster(
    conn: &mut AnyConnection,
    cluster: &str,
    namespace: &str,
    pod: &str,
) -> Result<Option<ActionCluster>> {
    let mut found = action_clusters(conn, &[(cluster, namespace, pod)]).await?;
    Ok(found.pop().flatten())
}

/// The projects whose groups deployed pod `namespace/pod` on `cluster` (any instance,
/// present or not: an action stays its project's after the pod is gone), for the
/// tenancy of actions. The default namespace matches however it was spelled.
pub async fn pod_projects(
    conn: &mut AnyConnection,
    cluster: &str,
    namespace: &str,
    pod: &str,
) -> Result<Vec<String>> {
    let spelled = match namespace {
        "" => "default",
        "default" => "",
        other => other,
    };
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT DISTINCT i.owner FROM cluster_resources r JOIN instances i ON i.id = r.base_id \
         WHERE r.cluster = $1 AND r.kind = 'Pod' AND r.namespace IN ($2, $3) AND r.name = $4",
    )
    .bind(cluster)
    .bind(namespace)
    .bind(spelled)
    .bind(pod)
    .fetch_all(conn)
    .await?;
    let mut projects: Vec<String> = rows
        .iter()
        .filter_map(|(owner,)| owner.strip_prefix("projects/")?.split('/').next())
        .map(str::to_string)
        .collect();
    projects.sort();
    projects.dedup();
    Ok(projects)
}

/// For each `(cluster, namespace, pod)`, the cluster with the pod (newest instance's
/// row, if present; `pod` "" for none), None if there is no such cluster: one read for
/// the targets of a group of creates. The default namespace matches however the agent
/// spelled it ("" from the sim, "default" from a Kubernetes API server).
pub async fn action_clusters(
    conn: &mut AnyConnection,
    targets: &[(&str, &str, &str)],
) -> Result<Vec<Option<ActionCluster>>> {
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    let asked: Vec<Value> = targets
        .iter()
        .enumerate()
        .map(|(ord, (cluster, namespace, pod))| {
            let spelled = match *namespace {
                "" => "default",
                "default" => "",
                other => other,
            };
            serde_json::json!({
                "ord": ord, "cluster": cluster, "namespace": namespace,
                "spelled": spelled, "pod": pod,
            })
        })
        .collect();
    let select = action_clusters_sql(Backend::of(conn));
    let rows: Vec<(usize, String, String, Option<String>)> = json_rows(
        conn,
        &select,
        "ord, nodes, connectivity, pod",
        "ord",
        vec![json(&asked)],
        |a: &(usize, String, String, Option<String>),
         b: &(usize, String, String, Option<String>)| { a.0.cmp(&b.0) },
    )
    .await?;
    let mut found = vec![None; targets.len()];
    for (ord, nodes, connectivity, pod) in rows {
        let slot = found
            .get_mut(ord)
            .ok_or_else(|| Error::internal(format!("action target {ord} was not asked for")))?;
        *slot = Some(ActionCluster {
            nodes: serde_json::from_str(&nodes)
                .map_err(|e| Error::internal(format!("stored nodes: {e}")))?,
            connectivity: connectivity.parse().map_err(Error::internal)?,
            pod,
        });
    }
    Ok(found)
}

/// The statement of [`action_clusters`]: `$1` is the JSON array of what is asked.
pub(crate) fn action_clusters_sql(backend: Backend) -> String {
    // PostgreSQL estimates a JSON recordset at 100 rows, and with that estimate it
    // joined a hash of every cluster: a scan that grew with the fleet, for a group of
    // one or two creates. The LATERAL subquery (its LIMIT keeps it from being pulled
    // up into a join) seeks each asked cluster by its key instead.
    let asked_clusters = if backend == Backend::Postgres {
        "json_to_recordset($1::json) AS q (ord bigint, cluster text, namespace text, \
         spelled text, pod text) \
         CROSS JOIN LATERAL (SELECT name, nodes, connectivity FROM clusters \
         WHERE name = q.cluster LIMIT 1) c"
    } else {
        "(SELECT json_extract(value, '$.ord') AS ord, json_extract(value, '$.cluster') AS cluster, \
         json_extract(value, '$.namespace') AS namespace, \
         json_extract(value, '$.spelled') AS spelled, json_extract(value, '$.pod') AS pod \
         FROM json_each($1)) AS q JOIN clusters c ON c.name = q.cluster"
    };
    format!(
        "SELECT q.ord AS ord, c.nodes AS nodes, c.connectivity AS connectivity, \
         (SELECT r.body FROM cluster_resources r WHERE r.cluster = c.name AND r.kind = 'Pod' \
          AND r.namespace IN (q.namespace, q.spelled) AND r.name = q.pod AND r.present = 1 \
          ORDER BY r.base_id DESC LIMIT 1) AS pod \
         FROM {asked_clusters}"
    )
}

/// Which of `clusters` exist, each held against deletion until the transaction ends
/// (`lock`: the KEY SHARE clause on PostgreSQL, which a cluster delete's FOR UPDATE
/// waits for; on SQLite the one writer keeps a delete out already).
pub async fn clusters_existing(
    conn: &mut AnyConnection,
    clusters: &[&str],
    lock: RowLock,
) -> Result<HashSet<String>> {
    let lock = lock.on(conn);
    if clusters.is_empty() {
        return Ok(HashSet::new());
    }
    let select = format!(
        "SELECT name FROM clusters WHERE {}{lock}",
        json_in(conn, "name", 1)
    );
    let names: Vec<(String,)> = json_rows(
        conn,
        &select,
        "name",
        "name",
        vec![json(&clusters)],
        |a: &(String,), b: &(String,)| a.cmp(b),
    )
    .await?;
    Ok(names.into_iter().map(|(name,)| name).collect())
}

/// Deletes every action of `cluster` (the cluster is being deleted), returning them.
pub async fn action_delete_of_cluster(
    conn: &mut AnyConnection,
    cluster: &str,
) -> Result<Vec<ActionRecord>> {
    let sql = format!("DELETE FROM actions WHERE cluster = $1 RETURNING {COLUMNS}");
    fetch_all(conn, sqlx::query(&sql).bind(cluster), from_row).await
}

/// The actions with these ids (what a group of changes reads at once).
pub async fn action_get_many(
    conn: &mut AnyConnection,
    ids: &[ActionId],
) -> Result<Vec<ActionRecord>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let select = format!(
        "SELECT {COLUMNS} FROM actions WHERE {}",
        json_in(conn, "id", 1)
    );
    let ids: Vec<String> = ids.iter().map(ActionId::to_string).collect();
    let rows: Vec<Columns> = json_rows(
        conn,
        &select,
        COLUMNS,
        "id",
        vec![json(&ids)],
        |a: &Columns, b: &Columns| a.id.cmp(&b.id),
    )
    .await?;
    rows.into_iter().map(from_columns).collect()
}

/// An action's columns, in [`COLUMNS`]' order (a row, or the JSON array [`json_rows`]
/// gives for it).
#[derive(Deserialize)]
struct Columns {
    id: String,
    cluster: String,
    node: String,
    spec: String,
    state: String,
    executor: String,
    status: String,
    generation: i64,
    create_time: i64,
    update_time: i64,
    deadline: Option<i64>,
    expire_time: Option<i64>,
}

fn from_columns(row: Columns) -> Result<ActionRecord> {
    let Columns {
        id,
        cluster,
        node,
        spec,
        state,
        executor,
        status,
        generation,
        create_time,
        update_time,
        deadline,
        expire_time,
    } = row;
    Ok(ActionRecord {
        id: parse_id(id)?,
        cluster: cluster.into(),
        node: node.into(),
        spec: serde_json::from_str(&spec)
            .map_err(|e| Error::internal(format!("stored action spec: {e}")))?,
        state: state.parse().map_err(Error::internal)?,
        executor: executor_of(&executor),
        outcome: serde_json::from_str(&status)
            .map_err(|e| Error::internal(format!("stored action status: {e}")))?,
        generation,
        create_time,
        update_time,
        deadline,
        expire_time,
    })
}

/// Records what `cluster`'s agent said of it in its hello: nodes, backend, version.
pub async fn cluster_set_agent_facts(
    conn: &mut AnyConnection,
    cluster: &str,
    nodes: &[String],
    backend: &str,
    version: &str,
) -> Result<()> {
    let sql = "UPDATE clusters SET nodes = $1, agent_backend = $3, cluster_version = $4 WHERE name = $2 \
               AND (nodes <> $1 OR agent_backend <> $3 OR cluster_version <> $4)";
    let query = sqlx::query(sql)
        .bind(json(&nodes))
        .bind(cluster)
        .bind(backend)
        .bind(version);
    run(conn, query).await
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::Store;

    /// A cluster row `name` whose connected agent reported `nodes`.
    pub(crate) async fn insert_cluster(store: &Store, name: &str, nodes: &[&str]) {
        let mut tx = store.begin().await.unwrap();
        sqlx::query(
            "INSERT INTO clusters (name, parent, uid, body, generation, create_time, \
             update_time, network_state, network_revision, current_network_instance, nodes, \
             connectivity) VALUES ($1, 'p', $1, '{}', 1, 0, 0, '', 0, NULL, $2, 'Available')",
        )
        .bind(name)
        .bind(json(&nodes))
        .execute(&mut *tx)
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }

    /// The targets of a group of creates read in one statement, each answered in its
    /// place: a cluster that does not exist, a pod (in the default namespace however
    /// it is spelled, the newest instance's row), a pod the cluster does not report
    /// present, and a node (no pod).
    async fn targets_are_read_at_once(url: &str) {
        let store = Store::connect(url).await.unwrap();
        insert_cluster(&store, "c1", &["n0", "n1"]).await;
        let mut tx = store.begin().await.unwrap();
        for (base, name, present, body) in [
            ("b1", "vm", 1, "{\"old\":1}"),
            ("b2", "vm", 1, "{\"new\":1}"),
            ("b2", "gone", 0, "{}"),
        ] {
            sqlx::query(
                "INSERT INTO cluster_resources (base_id, app, cluster, kind, api_group, \
                 api_version, namespace, name, rsync_backed, present, readiness, body) \
                 VALUES ($1, 'a', 'c1', 'Pod', '', 'v1', '', $2, 0, $3, 'Ready', $4)",
            )
            .bind(base)
            .bind(name)
            .bind(present)
            .bind(body)
            .execute(&mut *tx)
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
        let mut conn = store.read().await.unwrap();
        let found = action_clusters(
            &mut conn,
            &[
                ("nope", "", "vm"),
                ("c1", "default", "vm"),
                ("c1", "", "gone"),
                ("c1", "", ""),
                ("c1", "", "vm"),
            ],
        )
        .await
        .unwrap();
        type Seen = Option<(Vec<String>, Connectivity, Option<String>)>;
        let seen: Vec<Seen> = found
            .into_iter()
            .map(|c| c.map(|c| (c.nodes, c.connectivity, c.pod)))
            .collect();
        let c1 = |pod: Option<&str>| {
            Some((
                vec!["n0".to_string(), "n1".to_string()],
                Connectivity::Available,
                pod.map(str::to_string),
            ))
        };
        assert_eq!(
            seen,
            [
                None,
                c1(Some("{\"new\":1}")),
                c1(None),
                c1(None),
                c1(Some("{\"new\":1}"))
            ]
        );
        drop(conn);
        store.close().await;
    }

    on_both_backends!(
        targets_are_read_at_once_sqlite,
        targets_are_read_at_once_postgres,
        targets_are_read_at_once
    );
}

/// PostgreSQL plans the action statements whose rows come from a JSON bind (estimated
/// at 100 rows, whatever the group) as seeks of the fleet's tables, not as scans: with
/// a fleet of clusters and fences, a create's group of one must not read all of them.
#[cfg(test)]
mod plans {
    use super::at_once::at_once_sql;
    use super::*;
    use crate::store::Store;

    enum Bind<'a> {
        Text(&'a str),
        Number(i64),
    }

    /// The plan of `sql` with `binds`.
    async fn plan(store: &Store, sql: &str, binds: &[Bind<'_>]) -> String {
        let explain = format!("EXPLAIN {sql}");
        let mut query = sqlx::query_scalar::<_, String>(&explain);
        for bind in binds {
            query = match bind {
                Bind::Text(text) => query.bind(*text),
                Bind::Number(number) => query.bind(*number),
            };
        }
        query.fetch_all(store.pool()).await.unwrap().join("\n")
    }

    #[tokio::test]
    async fn fleet_tables_are_sought_not_scanned_postgres() {
        let url = flotilla_tests::create_postgres_database().await;
        let store = Store::connect(&url).await.unwrap();
        sqlx::query(
            "INSERT INTO clusters (name, parent, uid, body, generation, create_time, \
             update_time, network_state, network_revision, current_network_instance, nodes, \
             connectivity) SELECT 'c' || n, 'p', 'u' || n, '{}', 1, 0, 0, '', 0, NULL, \
             '[\"n0\"]', 'Available' FROM generate_series(1, 2000) n",
        )
        .execute(store.pool())
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO cluster_fences (cluster, epoch) \
             SELECT 'c' || n, n FROM generate_series(1, 2000) n",
        )
        .execute(store.pool())
        .await
        .unwrap();
        sqlx::query("ANALYZE").execute(store.pool()).await.unwrap();

        let read = plan(
            &store,
            &action_clusters_sql(Backend::Postgres),
            &[Bind::Text(
                r#"[{"ord":0,"cluster":"c7","namespace":"","spelled":"default","pod":"vm"}]"#,
            )],
        )
        .await;
        assert!(!read.contains("Seq Scan on clusters"), "{read}");
        assert!(read.contains("clusters_pkey"), "{read}");

        // Claims and one move: the fence of the claimed cluster is sought.
        let write = plan(
            &store,
            &at_once_sql(),
            &[
                Bind::Text("[]"),
                Bind::Text("[]"),
                Bind::Text("[]"),
                Bind::Text("[]"),
                Bind::Text("actions"),
                Bind::Number(1),
                Bind::Text(r#"[{"cluster":"c7","epoch":7}]"#),
            ],
        )
        .await;
        assert!(!write.contains("Seq Scan on cluster_fences"), "{write}");
        assert!(!write.contains("Seq Scan on clusters"), "{write}");
        store.close().await;
    }
}
