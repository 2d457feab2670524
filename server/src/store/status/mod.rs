//! Status bookkeeping: per-resource rsync status changes (compare-and-swap), the cluster
//! resources reported by agents, and the aggregates (`status_counts`) maintained in the
//! same transactions so that status queries never count by scanning resources.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use sqlx::{AnyConnection, Row};

use super::json_query::{execute_for_rows, json_table};
use super::rsync_resource::{KeyPage, PageRow, page_columns};
use super::rsync_resource::{ResourceKey, decode_gvk, taken_over};
use super::signals::PODS_GONE;
use super::watch::{NewEvent, Statuses};
use super::{Decode, RowLock, Tx, placeholders};
use crate::domain::manifest::Gvk;
use crate::domain::names::{ClusterName, DeploymentKey};
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Result};
use crate::ids::InstanceId;

mod counts;
mod transitions;

pub use counts::{CountDeltas, Dimension, counts_before_takeover, counts_from_rows, counts_sum};

pub use transitions::{
    Announce, Scope, StatusMove, rsync_bulk_transition, rsync_let_go_unapplied, rsync_set_statuses,
};

/// Takes, on PostgreSQL, the row locks every transaction that changes statuses takes
/// before it touches resources: `clusters` (those whose resources it writes) and the
/// clusters among `owners` with NO KEY UPDATE, then the intent groups among `owners`
/// with KEY SHARE, each kind in name order.
///
/// Status writes of one cluster therefore run one after the other (they write the same
/// rows), while those of different clusters run side by side, up to where they refresh
/// their owners' conditions (`app::status`'s condition refresh promotes the owner lock to NO KEY
/// UPDATE; PostgreSQL lets a transaction promote a lock it holds without queueing
/// behind waiters, so the promotion cannot deadlock). A lifecycle verb takes its intent
/// group FOR UPDATE, which conflicts with KEY SHARE: verbs and status writes of one
/// group still exclude each other, in the same order, so they cannot deadlock.
pub async fn lock_owners<'c>(
    tx: &mut Tx,
    owners: impl IntoIterator<Item = String>,
    clusters: impl IntoIterator<Item = &'c str>,
) -> Result<()> {
    if tx.backend() == super::Backend::Sqlite {
        return Ok(());
    }
    let owners: BTreeSet<String> = owners.into_iter().collect();
    let mut locked: BTreeSet<&str> = clusters.into_iter().collect();
    let mut digs = Vec::new();
    for owner in &owners {
        if owner.starts_with("clusterProviders/") {
            locked.insert(owner);
        } else {
            digs.push(owner.as_str());
        }
    }
    let locked: Vec<&str> = locked.into_iter().collect();
    tx.lock_rows("clusters", &locked, RowLock::NoKeyUpdate)
        .await?;
    tx.lock_rows("deployment_intent_groups", &digs, RowLock::KeyShare)
        .await?;
    Ok(())
}

/// One unit of rsync work: apply or delete one resource on a cluster.
#[derive(Debug, Clone)]
pub struct RsyncWork {
    pub instance: InstanceId,
    pub key: ResourceKey,
    pub api_version: String,
    /// The rendered manifest (JSON).
    pub manifest: String,
    /// The status the work was read in (the compare-and-swap token).
    pub status: RsyncStatus,
    /// Delete (the instance was terminated or superseded) rather than apply.
    pub delete: bool,
    /// The desired-state generation: the instance's creation time, so a newer
    /// instance's apply always wins over a late one of an older instance.
    pub generation: i64,
}

/// The next resources rsync must act on for `cluster`: applies of active instances
/// (Pending or Retrying), deletes of terminated or superseded ones (Applied or
/// Retrying; what a newer instance took over is `Superseded` and left alone). `after`
/// continues a pass; older instances come first, so an object one instance stops
/// rendering is deleted before the objects of its successor are applied.
///
/// One read per instance placed on the cluster (an owner has one instance that is not
/// superseded, and the few older ones its retention keeps), each a range of the (instance, cluster, app, kind, group, namespace,
/// name) index starting after `after`, in the order of that index, stopping at `limit`
/// rows. Read as one UNION of applies and deletes ordered by key, the database found
/// every pending resource of the cluster and sorted them all to return the first page:
/// with a fresh instance of 1,000 resources a cluster, 7 ms a page uncontended on
/// PostgreSQL, 40 ms while a hundred clusters converged.
pub async fn rsync_work(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
    after: Option<&(String, ResourceKey)>,
    limit: i64,
) -> Result<Vec<RsyncWork>> {
    let mut sql = String::from(
        "SELECT i.id AS id, i.create_time AS create_time, \
         CASE WHEN i.terminate_time IS NULL AND i.superseded = 0 THEN 0 ELSE 1 END AS deleting \
         FROM instance_clusters c JOIN instances i ON i.id = c.instance_id \
         WHERE c.cluster = $1",
    );
    if after.is_some() {
        sql.push_str(" AND i.id >= $2");
    }
    sql.push_str(" ORDER BY i.id");
    let mut query = sqlx::query(&sql).bind(cluster);
    if let Some((instance, _)) = after {
        query = query.bind(instance.as_str());
    }
    let instances: Vec<(String, i64, bool)> = query
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|row| {
            Ok((
                row.try_get("id")?,
                row.try_get("create_time")?,
                row.try_get::<i64, _>("deleting")? == 1,
            ))
        })
        .collect::<Result<_>>()?;

    const FIELDS: &str =
        "app, kind, api_group, api_version, namespace, name, manifest, rsync_status";
    const ORDER: &str = "app, kind, api_group, namespace, name";
    type WorkRow = (
        String,
        String,
        String,
        String,
        String,
        String,
        String,
        String,
    );
    let mut work = Vec::new();
    for (instance, generation, delete) in instances {
        let left = limit - work.len() as i64;
        if left <= 0 {
            break;
        }
        let statuses = if delete {
            "'Applied', 'Retrying'"
        } else {
            "'Pending', 'Retrying'"
        };
        let mut select = format!(
            "SELECT {FIELDS} FROM rsync_resources \
             WHERE instance_id = $1 AND cluster = $2 AND rsync_status IN ({statuses})"
        );
        // Of an instance a rollout replaced, what the newer instance took over stays on
        // the cluster: rsync deletes only the rest.
        if delete {
            select.push_str(&format!(" AND NOT {}", taken_over("")));
        }
        let mut binds = vec![instance.clone(), cluster.to_string()];
        // Instances before `after`'s were left out above; its own continue after it.
        if let Some((_, key)) = after.filter(|(from, _)| *from == instance) {
            select.push_str(" AND (app, kind, api_group, namespace, name) > ($3, $4, $5, $6, $7)");
            binds.extend(
                [&key.app, &key.kind, &key.group, &key.namespace, &key.name].map(|v| v.to_string()),
            );
        }
        select.push_str(&format!(" ORDER BY {ORDER} LIMIT {left}"));
        let rows: Vec<WorkRow> = super::json_rows(
            conn,
            &select,
            FIELDS,
            ORDER,
            binds,
            |a: &WorkRow, b: &WorkRow| {
                (&a.0, &a.1, &a.2, &a.4, &a.5).cmp(&(&b.0, &b.1, &b.2, &b.4, &b.5))
            },
        )
        .await?;
        let parsed: InstanceId = instance.parse().map_err(Error::internal)?;
        for (app, kind, group, api_version, namespace, name, manifest, status) in rows {
            work.push(RsyncWork {
                instance: parsed,
                key: ResourceKey {
                    app,
                    cluster: cluster.clone(),
                    kind,
                    group,
                    namespace,
                    name,
                },
                api_version,
                manifest,
                status: status.parse().map_err(Error::internal)?,
                delete,
                generation,
            });
        }
    }
    Ok(work)
}

/// Binds a resource's full key: instance, then (app, cluster, kind, group, namespace,
/// name), the primary key's column order.
fn bind_key<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    instance: &'q str,
    key: [&'q str; 6],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    key.into_iter().fold(query.bind(instance), |q, v| q.bind(v))
}

/// A rendered resource's cluster-side status, as ingest needs it.
#[derive(Debug, Clone)]
pub struct ObservedRsyncRow {
    pub gvk: Gvk,
    pub rsync_status: RsyncStatus,
    pub namespace: String,
    pub name: String,
    pub cluster_status: ClusterStatus,
    pub readiness: Readiness,
}

/// The rows of `cluster_resources` an instance (bound to `$1`) reads: its deployment
/// base's. What an agent reports is the state of the deployment its deployment-id
/// label names, whichever instance of the base runs; a rollout shares the rows rather
/// than copying them (migration 0023).
pub(crate) const REPORTS_OF_INSTANCE: &str =
    "base_id = (SELECT deployment_base FROM instances WHERE id = $1)";

/// What an ingest batch reads of one instance: the deployments whose states are whole
/// (cluster, apps), and the resources partial states list (cluster, app, kind, group,
/// namespace, name): ingest compares a partial state with those rows only.
#[derive(Debug, Default)]
pub struct BatchReads<'a> {
    pub whole: Vec<(&'a str, Vec<&'a str>)>,
    pub listed: Vec<[&'a str; 6]>,
}

/// `columns` of the rows of `table` whose `id_column` is `id` that `wanted` reads,
/// decoded and grouped by deployment, each group in key order: the reads of a whole
/// ingest batch in two statements.
/// The (cluster, app) pairs, and the listed keys, are a JSON array joined as the outer
/// side, so both backends seek the (id, app, cluster, ...) key once per pair or key,
/// and each statement has one text whatever the batch: terms of their own per cluster
/// (`cluster = ? AND app IN (?, ?)`) made a new statement for every shape of batch
/// (240 a P8 run), each prepared and planned again, and pushed the statements in
/// use out of sqlx's cache. A row-value IN over the pairs made SQLite scan every row
/// of the id; a statement per cluster cost a round trip each, inside the write
/// transaction.
async fn bundle_rows<T>(
    conn: &mut AnyConnection,
    (table, id_column, columns): (&str, &str, &str),
    id: &str,
    wanted: &BatchReads<'_>,
    decode: Decode<(DeploymentKey, T)>,
) -> Result<BTreeMap<DeploymentKey, Vec<T>>> {
    let pairs: Vec<(&str, &str)> = wanted
        .whole
        .iter()
        .flat_map(|(cluster, apps)| apps.iter().map(move |app| (*cluster, *app)))
        .collect();
    let mut rows = Vec::new();
    // CROSS JOIN: SQLite keeps the pairs as the outer loop (PostgreSQL plans it as
    // an inner join).
    if !pairs.is_empty() {
        let sql = format!(
            "SELECT {columns} FROM {} w CROSS JOIN {table} t \
             WHERE t.{id_column} = $1 AND t.app = w.a AND t.cluster = w.c \
             ORDER BY cluster, app, kind, api_group, namespace, name",
            json_table(conn, 2, &["c", "a"])
        );
        rows = sqlx::query(&sql)
            .bind(id)
            .bind(serde_json::to_string(&pairs).map_err(Error::internal)?)
            .fetch_all(&mut *conn)
            .await?;
    }
    if !wanted.listed.is_empty() {
        let sql = format!(
            "SELECT {columns} FROM {} w CROSS JOIN {table} t \
             WHERE t.{id_column} = $1 AND t.app = w.a AND t.cluster = w.c AND t.kind = w.k \
             AND t.api_group = w.g AND t.namespace = w.n AND t.name = w.m \
             ORDER BY cluster, app, kind, api_group, namespace, name",
            json_table(conn, 2, &["c", "a", "k", "g", "n", "m"])
        );
        rows.extend(
            sqlx::query(&sql)
                .bind(id)
                .bind(serde_json::to_string(&wanted.listed).map_err(Error::internal)?)
                .fetch_all(conn)
                .await?,
        );
    }
    let mut by_deployment: BTreeMap<DeploymentKey, Vec<T>> = BTreeMap::new();
    for row in &rows {
        let (key, decoded) = decode(row)?;
        by_deployment.entry(key).or_default().push(decoded);
    }
    Ok(by_deployment)
}

/// The rendered resources of `instance` for the deployments of `wanted`, with their
/// cluster status, by (cluster, app).
pub async fn rsync_rows_for_bundles(
    conn: &mut AnyConnection,
    instance: InstanceId,
    wanted: &BatchReads<'_>,
) -> Result<BTreeMap<DeploymentKey, Vec<ObservedRsyncRow>>> {
    let columns = "cluster, app, kind, api_group, api_version, namespace, name, rsync_status, \
                   cluster_status, readiness";
    let source = ("rsync_resources", "instance_id", columns);
    bundle_rows(conn, source, &instance.to_string(), wanted, |r| {
        let key = DeploymentKey {
            cluster: r.try_get("cluster")?,
            app: r.try_get("app")?,
        };
        let row = ObservedRsyncRow {
            gvk: decode_gvk(r)?,
            rsync_status: r.try_get("rsync_status")?,
            namespace: r.try_get("namespace")?,
            name: r.try_get("name")?,
            cluster_status: r.try_get("cluster_status")?,
            readiness: r.try_get("readiness")?,
        };
        Ok((key, row))
    })
    .await
}

/// A cluster resource as stored (its `key()` is `rsync_resource::keyed_by_fields!`'s).
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterResourceRow {
    pub app: String,
    pub cluster: ClusterName,
    pub gvk: Gvk,
    pub namespace: String,
    pub name: String,
    pub rsync_backed: bool,
    pub present: bool,
    pub readiness: Readiness,
    /// {"metadata", "spec", "status"} as JSON.
    pub body: String,
}

impl ClusterResourceRow {
    /// Its cluster status: present or not (a cluster-only row is one its cluster
    /// reported, or reported gone).
    pub fn cluster_status(&self) -> ClusterStatus {
        if self.present {
            ClusterStatus::Present
        } else {
            ClusterStatus::NotPresent
        }
    }

    /// (app, cluster, kind, group, namespace, name), borrowed.
    fn key_columns(&self) -> [&str; 6] {
        [
            &self.app,
            &self.cluster,
            &self.gvk.kind,
            &self.gvk.group,
            &self.namespace,
            &self.name,
        ]
    }

    pub fn deployment(&self) -> DeploymentKey {
        DeploymentKey {
            cluster: self.cluster.clone(),
            app: self.app.clone(),
        }
    }
}

/// The cluster resources of deployment base `base` for the deployments of `wanted`,
/// by (cluster, app).
pub async fn cluster_resources_for_bundles(
    conn: &mut AnyConnection,
    base: InstanceId,
    wanted: &BatchReads<'_>,
) -> Result<BTreeMap<DeploymentKey, Vec<ClusterResourceRow>>> {
    let source = ("cluster_resources", "base_id", CLUSTER_RESOURCE_COLUMNS);
    bundle_rows(conn, source, &base.to_string(), wanted, |r| {
        let row = decode_cluster_resource(r)?;
        Ok((row.deployment(), row))
    })
    .await
}

/// The cluster-only resources (pods and the like, present or remembered gone) of
/// `instance`'s deployment base, in key order.
pub async fn cluster_only_of_base(
    conn: &mut AnyConnection,
    instance: InstanceId,
) -> Result<Vec<ClusterResourceRow>> {
    let sql = format!(
        "SELECT {CLUSTER_RESOURCE_COLUMNS} FROM cluster_resources WHERE {REPORTS_OF_INSTANCE} \
         AND rsync_backed = 0 ORDER BY app, cluster, kind, api_group, namespace, name"
    );
    let rows = sqlx::query(&sql)
        .bind(instance.to_string())
        .fetch_all(conn)
        .await?;
    rows.iter().map(decode_cluster_resource).collect()
}

/// Rows per multi-row statement of [`IngestWrites`] (12 binds a row at most).
const WRITE_CHUNK: usize = 40;

/// The row writes of an ingest batch, collected while its bundles are compared with
/// the stored state and made at the end in multi-row statements (a statement per
/// resource was most of an ingest's cost: each is a round trip to the database).
#[derive(Debug, Default)]
pub struct IngestWrites {
    /// (instance, resource, cluster status, readiness) of rendered resources.
    statuses: Vec<(String, ResourceKey, String, String)>,
    /// Cluster resources to insert or update, with their deployment base.
    upserts: Vec<(String, ClusterResourceRow)>,
    /// Cluster resources gone from their cluster's report, with their deployment base.
    deletes: Vec<(String, ClusterResourceRow)>,
}

impl IngestWrites {
    /// Sets the cluster status and readiness of one rendered resource.
    pub fn set_cluster_status(
        &mut self,
        instance: InstanceId,
        key: ResourceKey,
        cluster_status: &str,
        readiness: &str,
    ) {
        self.statuses.push((
            instance.to_string(),
            key,
            cluster_status.to_string(),
            readiness.to_string(),
        ));
    }

    /// Brings the stored cluster resources of one (deployment base, app, cluster) from
    /// `old` to `new`, writing only the rows that differ (an unchanged bundle costs
    /// nothing).
    pub fn sync_cluster_resources(
        &mut self,
        base: InstanceId,
        old: &[ClusterResourceRow],
        new: &[ClusterResourceRow],
    ) {
        type RowKey<'a> = (&'a str, &'a str, &'a str, &'a str);
        fn key(r: &ClusterResourceRow) -> RowKey<'_> {
            (&r.gvk.kind, &r.gvk.group, &r.namespace, &r.name)
        }
        let old_by_key: BTreeMap<RowKey<'_>, &ClusterResourceRow> =
            old.iter().map(|r| (key(r), r)).collect();
        let new_by_key: BTreeMap<RowKey<'_>, &ClusterResourceRow> =
            new.iter().map(|r| (key(r), r)).collect();
        let id = base.to_string();
        for (k, gone) in &old_by_key {
            if !new_by_key.contains_key(k) {
                self.deletes.push((id.clone(), (*gone).clone()));
            }
        }
        for (k, row) in new_by_key {
            if old_by_key.get(&k).is_none_or(|old| *old != row) {
                self.upserts.push((id.clone(), row.clone()));
            }
        }
    }

    /// Whether these writes take a pod out of what its cluster reports (a row deleted,
    /// or marked not present): open actions on it may have lost their target.
    fn drops_pods(&self) -> bool {
        self.deletes.iter().any(|(_, row)| row.gvk.kind == "Pod")
            || self
                .upserts
                .iter()
                .any(|(_, row)| row.gvk.kind == "Pod" && !row.present)
    }

    /// Deletes `rows`, cluster resources of deployment base `base`.
    pub fn delete_cluster_resources(&mut self, base: InstanceId, rows: Vec<ClusterResourceRow>) {
        let id = base.to_string();
        self.deletes
            .extend(rows.into_iter().map(|row| (id.clone(), row)));
    }

    /// Makes the collected writes; tells the action timer (`PODS_GONE`, after commit)
    /// when they take pods away.
    pub async fn apply(self, tx: &mut Tx) -> Result<()> {
        if self.drops_pods() {
            tx.touch(PODS_GONE);
        }
        let conn: &mut AnyConnection = tx;
        // One statement text for any number of rows (a JSON array), so it is prepared
        // and planned once per connection, not once per batch size.
        let sql = format!(
            "UPDATE rsync_resources SET cluster_status = v.cs, readiness = v.rd FROM {} AS v \
             WHERE rsync_resources.instance_id = v.i AND rsync_resources.app = v.a \
             AND rsync_resources.cluster = v.c AND rsync_resources.kind = v.k \
             AND rsync_resources.api_group = v.g AND rsync_resources.namespace = v.ns \
             AND rsync_resources.name = v.n",
            json_table(conn, 1, &["i", "a", "c", "k", "g", "ns", "n", "cs", "rd"])
        );
        let rows: Vec<[&str; 9]> = self
            .statuses
            .iter()
            .map(|(instance, key, cluster_status, readiness)| {
                let [a, c, k, g, ns, n] = key.columns();
                [instance, a, c, k, g, ns, n, cluster_status, readiness]
            })
            .collect();
        execute_for_rows(conn, &sql, &rows).await?;
        for chunk in self.deletes.chunks(WRITE_CHUNK) {
            let sql = format!(
                "DELETE FROM cluster_resources WHERE (base_id, app, cluster, kind, api_group, namespace, name) \
                 IN (VALUES {})",
                placeholders(conn, chunk.len(), 7)
            );
            let mut query = sqlx::query(&sql);
            for (base, row) in chunk {
                query = bind_key(query, base, row.key_columns());
            }
            query.execute(&mut *conn).await?;
        }
        for chunk in self.upserts.chunks(WRITE_CHUNK) {
            let sql = format!(
                "INSERT INTO cluster_resources (base_id, app, cluster, kind, api_group, api_version, namespace, \
                 name, rsync_backed, present, readiness, body) VALUES {} \
                 ON CONFLICT (base_id, app, cluster, kind, api_group, namespace, name) DO UPDATE SET \
                 api_version = excluded.api_version, rsync_backed = excluded.rsync_backed, present = excluded.present, \
                 readiness = excluded.readiness, body = excluded.body",
                placeholders(conn, chunk.len(), 12)
            );
            let mut query = sqlx::query(&sql);
            for (base, row) in chunk {
                query = query
                    .bind(base)
                    .bind(&row.app)
                    .bind(&row.cluster)
                    .bind(&row.gvk.kind)
                    .bind(&row.gvk.group)
                    .bind(&row.gvk.version)
                    .bind(&row.namespace)
                    .bind(&row.name)
                    .bind(i64::from(row.rsync_backed))
                    .bind(i64::from(row.present))
                    .bind(row.readiness)
                    .bind(&row.body);
            }
            query.execute(&mut *conn).await?;
        }
        Ok(())
    }
}

/// The rows of `cluster_resources` (as `c`) that are reports of `instance`'s (`$1`)
/// own rendered resources.
const RENDERED_BY_INSTANCE: &str = "EXISTS (SELECT 1 FROM rsync_resources n \
     WHERE n.instance_id = $1 AND n.app = c.app AND n.cluster = c.cluster AND n.kind = c.kind \
     AND n.api_group = c.api_group AND n.namespace = c.namespace AND n.name = c.name)";

/// A page of cluster resources of `instance` in key order: its deployment base's
/// cluster-only resources and the reports of its own rendered ones (the base's rows of
/// objects that another instance of the base renders, and this one does not, are left
/// out).
pub async fn cluster_resources_page(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
    with_body: bool,
) -> Result<Vec<ClusterResourceRow>> {
    if !with_body {
        return cluster_status_page(conn, page).await;
    }
    let rows_of = format!("(rsync_backed = 0 OR {RENDERED_BY_INSTANCE})");
    reports_page(conn, page, &rows_of).await
}

/// A page of the reports of `instance`'s rendered resources alone, with their bodies,
/// in key order: the reports of a page of its rendered resources are within the same
/// number of rows after the same key.
pub async fn rendered_reports_page(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
) -> Result<Vec<ClusterResourceRow>> {
    let rows_of = format!("rsync_backed = 1 AND {RENDERED_BY_INSTANCE}");
    reports_page(conn, page, &rows_of).await
}

async fn reports_page(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
    rows_of: &str,
) -> Result<Vec<ClusterResourceRow>> {
    let mut binds = page.binds();
    let mut sql = format!(
        "SELECT {CLUSTER_RESOURCE_COLUMNS} FROM cluster_resources c \
         WHERE {REPORTS_OF_INSTANCE} AND {rows_of}"
    );
    sql.push_str(&page.sql(&mut binds));
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    let rows = query.fetch_all(conn).await?;
    rows.iter().map(decode_cluster_resource).collect()
}

/// A page of cluster-only resources (the rendered ones carry their cluster status
/// themselves) without their bodies, in one aggregated row.
async fn cluster_status_page(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
) -> Result<Vec<ClusterResourceRow>> {
    const COLUMNS: [&str; 10] = page_columns(["rsync_backed", "present", "readiness"]);
    let rows_of = format!("{REPORTS_OF_INSTANCE} AND rsync_backed = 0");
    let (select, binds) =
        super::rsync_resource::page_select("cluster_resources", &rows_of, &COLUMNS, page);
    let rows: Vec<PageRow<String, String>> =
        super::rsync_resource::json_page(conn, &select, &COLUMNS, binds).await?;
    Ok(rows
        .into_iter()
        .map(|row| ClusterResourceRow {
            gvk: row.gvk(),
            app: row.app,
            cluster: row.cluster,
            namespace: row.namespace,
            name: row.name,
            rsync_backed: row.first == "1",
            present: row.second == "1",
            readiness: row.readiness,
            body: String::new(),
        })
        .collect())
}

/// The columns of `cluster_resources` that [`decode_cluster_resource`] reads.
const CLUSTER_RESOURCE_COLUMNS: &str = "app, cluster, kind, api_group, api_version, namespace, \
     name, rsync_backed, present, readiness, body";

fn decode_cluster_resource(r: &sqlx::any::AnyRow) -> Result<ClusterResourceRow> {
    let rsync_backed: i64 = r.try_get("rsync_backed")?;
    let present: i64 = r.try_get("present")?;
    Ok(ClusterResourceRow {
        app: r.try_get("app")?,
        cluster: r.try_get("cluster")?,
        gvk: decode_gvk(r)?,
        namespace: r.try_get("namespace")?,
        name: r.try_get("name")?,
        rsync_backed: rsync_backed == 1,
        present: present == 1,
        readiness: r.try_get("readiness")?,
        body: r.try_get("body")?,
    })
}

/// The apps that have resources in `instance`, in name order.
pub async fn instance_apps(conn: &mut AnyConnection, instance: InstanceId) -> Result<Vec<String>> {
    let sql = format!("WITH RECURSIVE {INSTANCE_APPS} SELECT app FROM apps WHERE app IS NOT NULL");
    Ok(sqlx::query_scalar(&sql)
        .bind(instance.to_string())
        .fetch_all(conn)
        .await?)
}

/// A recursive CTE `apps (app)` of the apps with counts in instance `$1`, then a NULL:
/// a seek per app in `status_counts`' key (instance, app, cluster, …), where `SELECT
/// DISTINCT app` read every row of the instance (apps × clusters × statuses: half a
/// million at 1,000 clusters, for every filtered status query and watch).
pub(crate) const INSTANCE_APPS: &str = "apps (app) AS (\
     SELECT MIN(app) FROM status_counts WHERE instance_id = $1 \
     UNION ALL SELECT (SELECT MIN(s.app) FROM status_counts s \
     WHERE s.instance_id = $1 AND s.app > apps.app) FROM apps WHERE apps.app IS NOT NULL)";

/// The clusters (up to `limit`, in name order) where `instance` has resources of rsync
/// status `status`: what a condition names when something failed.
pub async fn clusters_with_rsync_status(
    conn: &mut AnyConnection,
    instance: InstanceId,
    status: RsyncStatus,
    limit: i64,
) -> Result<Vec<ClusterName>> {
    let sql = clusters_with_rsync_status_sql(status);
    let query = sqlx::query_scalar(&sql).bind(instance).bind(limit);
    Ok(query.fetch_all(conn).await?)
}

/// [`clusters_with_rsync_status`]'s statement. The status is written as a literal (an
/// enum's name): a planner uses a partial index only where the query's terms imply the
/// index's, and Failed and Retrying have one each (migration `troubled_clusters`), so
/// this reads the troubled rows in cluster order, not all of the instance's.
pub(crate) fn clusters_with_rsync_status_sql(status: RsyncStatus) -> String {
    format!(
        "SELECT DISTINCT cluster FROM status_counts WHERE instance_id = $1 \
         AND dimension = 'rsync' AND value = '{status}' AND count > 0 ORDER BY cluster LIMIT $2"
    )
}

/// The owners whose current instance places resources on `cluster`.
pub async fn owners_placed_on(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
) -> Result<Vec<String>> {
    let sql = "SELECT DISTINCT i.owner AS owner FROM instance_clusters c \
               JOIN instances i ON i.id = c.instance_id \
               WHERE c.cluster = $1 AND i.superseded = 0 ORDER BY owner";
    Ok(sqlx::query_scalar(sql)
        .bind(cluster)
        .fetch_all(conn)
        .await?)
}

/// The connectivity of the clusters an instance is placed on: of all of them when
/// `only` is empty, else of those of `only` (full names) it is placed on. A watch of a
/// few clusters reads theirs, not the whole fleet's.
pub async fn placed_connectivity(
    conn: &mut AnyConnection,
    instance: InstanceId,
    only: &[String],
) -> Result<Vec<(ClusterName, Connectivity)>> {
    let mut sql = String::from(
        "SELECT c.cluster AS cluster, COALESCE(k.connectivity, $2) AS connectivity \
         FROM instance_clusters c LEFT JOIN clusters k ON k.name = c.cluster \
         WHERE c.instance_id = $1",
    );
    if !only.is_empty() {
        let list: Vec<String> = (0..only.len()).map(|i| format!("${}", i + 3)).collect();
        sql.push_str(&format!(" AND c.cluster IN ({})", list.join(", ")));
    }
    sql.push_str(" ORDER BY c.cluster");
    let mut query = sqlx::query_as(&sql)
        .bind(instance)
        .bind(Connectivity::Unknown);
    for cluster in only {
        query = query.bind(cluster);
    }
    Ok(query.fetch_all(conn).await?)
}

/// (instance, its base, app) of the deployments with Applied resources on `cluster` in
/// active, current instances.
pub async fn applied_deployments(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
) -> Result<Vec<(InstanceId, InstanceId, String)>> {
    let sql = "SELECT DISTINCT r.instance_id AS instance_id, i.deployment_base AS base, \
               r.app AS app FROM rsync_resources r JOIN instances i ON i.id = r.instance_id \
               WHERE r.cluster = $1 AND r.rsync_status = $2 AND i.superseded = 0 \
               AND i.terminate_time IS NULL";
    let query = sqlx::query_as(sql).bind(cluster).bind(RsyncStatus::Applied);
    Ok(query.fetch_all(conn).await?)
}

/// (base, app) of the deployments `cluster` was last heard to hold something of: a
/// present row among the reports of a base placed there.
pub async fn reported_deployments(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
) -> Result<Vec<(InstanceId, String)>> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT DISTINCT r.base_id, r.app FROM \
         (SELECT DISTINCT i.deployment_base AS base FROM instance_clusters c \
          JOIN instances i ON i.id = c.instance_id WHERE c.cluster = $1) b \
         JOIN cluster_resources r ON r.base_id = b.base AND r.cluster = $1 WHERE r.present = 1",
    )
    .bind(cluster)
    .fetch_all(conn)
    .await?;
    rows.into_iter()
        .map(|(base, app)| Ok((base.parse().map_err(Error::internal)?, app)))
        .collect()
}
