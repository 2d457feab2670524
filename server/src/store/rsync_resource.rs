//! Rendered (rsync) resources of instances: bulk insert at instantiate, status
//! changes, paged listing.

use std::sync::Arc;

use sqlx::{AnyConnection, Row};

use super::status::CountDeltas;
use super::{json_rows, placeholders};
use crate::domain::manifest::Gvk;
use crate::domain::names::{ClusterName, DeploymentKey};
use crate::domain::readiness::{ClusterStatus, Readiness};
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// One rendered resource bound to a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct RsyncResource {
    pub app: String,
    /// The destination cluster's resource name.
    pub cluster: ClusterName,
    pub gvk: Gvk,
    pub namespace: String,
    pub name: String,
    /// The rendered manifest as JSON text, shared by the clusters an app's document
    /// is placed on (rendering does not depend on the cluster: an instance of 1,000
    /// clusters would otherwise hold 1,000 copies of each).
    pub manifest: Arc<str>,
    pub status: RsyncStatus,
    pub cluster_status: ClusterStatus,
    /// [`Readiness::None`] for a kind readiness does not apply to, or before a report.
    pub readiness: Readiness,
}

/// The position of a resource in listing order, for keyset pagination. Field order is
/// the SQL order, so the derived ordering agrees with `ORDER BY`.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct ResourceKey {
    pub app: String,
    pub cluster: ClusterName,
    pub kind: String,
    pub group: String,
    pub namespace: String,
    pub name: String,
}

impl ResourceKey {
    /// The key of `app`'s object `namespace/name` of type `gvk` on `cluster`.
    pub fn of(app: &str, cluster: &ClusterName, gvk: &Gvk, namespace: &str, name: &str) -> Self {
        ResourceKey {
            app: app.to_owned(),
            cluster: cluster.clone(),
            kind: gvk.kind.clone(),
            group: gvk.group.clone(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        }
    }

    /// (app, cluster, kind, group, namespace, name), borrowed, in the key's column order.
    pub fn columns(&self) -> [&str; 6] {
        [
            &self.app,
            &self.cluster,
            &self.kind,
            &self.group,
            &self.namespace,
            &self.name,
        ]
    }

    /// The key from a row with the columns app, cluster, kind, api_group, namespace, name.
    pub fn decode(r: &sqlx::any::AnyRow) -> Result<ResourceKey> {
        Ok(ResourceKey {
            app: r.try_get("app")?,
            cluster: r.try_get("cluster")?,
            kind: r.try_get("kind")?,
            group: r.try_get("api_group")?,
            namespace: r.try_get("namespace")?,
            name: r.try_get("name")?,
        })
    }
}

/// The GVK from a row with the columns api_group, api_version, kind.
pub fn decode_gvk(r: &sqlx::any::AnyRow) -> Result<Gvk> {
    Ok(Gvk {
        group: r.try_get("api_group")?,
        version: r.try_get("api_version")?,
        kind: r.try_get("kind")?,
    })
}

/// `key()` for row types that carry the five key fields (`app`, `cluster`, `gvk`,
/// `namespace`, `name`).
macro_rules! keyed_by_fields {
    ($($row:ty),+) => {
        $(impl $row {
            pub fn key(&self) -> ResourceKey {
                ResourceKey::of(&self.app, &self.cluster, &self.gvk, &self.namespace, &self.name)
            }
        })+
    };
}

keyed_by_fields!(RsyncResource, super::status::ClusterResourceRow);

impl RsyncResource {
    /// The statuses it starts with as recorded for watch streams (migration 0018): a
    /// resource that starts Applied was carried over from the instance its instance
    /// replaces ([`carry_applied`](super::carry::carry_applied)), with its cluster
    /// status and readiness; any other starts Pending and Unknown, recorded as ''.
    fn start_statuses(&self) -> (&'static str, &'static str) {
        if self.status == RsyncStatus::Applied {
            (self.cluster_status.as_str(), self.readiness.as_str())
        } else {
            ("", "")
        }
    }
}

/// Rows per INSERT statement: an instance of 100,000 resources is 200 statements (a
/// round trip each), and 7,000 binds stay far below SQLite's (32,766) and
/// PostgreSQL's (65,535) limits.
const INSERT_CHUNK: usize = 500;
const INSERT_COLUMNS: usize = 14;

/// Inserts the rendered resources of a new instance, with the statuses they start with
/// (Pending and Unknown, or carried over), and counts them.
pub async fn rsync_resources_insert<'r>(
    conn: &mut AnyConnection,
    instance: InstanceId,
    resources: impl IntoIterator<Item = &'r RsyncResource>,
) -> Result<()> {
    let resources: Vec<&RsyncResource> = resources.into_iter().collect();
    let instance_id = instance;
    let instance = instance.to_string();
    for chunk in resources.chunks(INSERT_CHUNK) {
        let sql = format!(
            "INSERT INTO rsync_resources (instance_id, app, cluster, kind, api_group, \
             api_version, namespace, name, manifest, rsync_status, cluster_status, readiness, \
             start_cluster_status, start_readiness) VALUES {}",
            placeholders(conn, chunk.len(), INSERT_COLUMNS)
        );
        let mut query = sqlx::query(&sql);
        for resource in chunk {
            let (start_cluster_status, start_readiness) = resource.start_statuses();
            query = query
                .bind(instance.clone())
                .bind(resource.app.clone())
                .bind(resource.cluster.clone())
                .bind(resource.gvk.kind.clone())
                .bind(resource.gvk.group.clone())
                .bind(resource.gvk.version.clone())
                .bind(resource.namespace.clone())
                .bind(resource.name.clone())
                .bind(&*resource.manifest)
                .bind(resource.status.as_str())
                .bind(resource.cluster_status.as_str())
                .bind(resource.readiness.as_str())
                .bind(start_cluster_status)
                .bind(start_readiness);
        }
        query.execute(&mut *conn).await?;
    }
    let mut deltas = CountDeltas::default();
    for r in &resources {
        deltas.add_resources(
            instance_id,
            &r.app,
            &r.cluster,
            r.status.as_str(),
            r.cluster_status.as_str(),
            r.readiness.as_str(),
            1,
        );
    }
    deltas.apply(conn).await
}

/// How many rendered resources of `instance` the filter selects.
pub async fn rendered_count(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &ResourceFilter,
) -> Result<i64> {
    let mut binds: Vec<String> = vec![instance.to_string()];
    let mut sql = String::from("SELECT COUNT(*) AS n FROM rsync_resources WHERE instance_id = $1");
    sql.push_str(&filter.sql("", &mut binds));
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    let row = query.fetch_one(conn).await?;
    row.try_get::<i64, _>("n").map_err(Error::from)
}

/// Filters of a listing; empty lists match everything.
#[derive(Debug, Clone, Default)]
pub struct ResourceFilter {
    pub apps: Vec<String>,
    /// Cluster resource names.
    pub clusters: Vec<String>,
    /// Resource names (metadata.name).
    pub names: Vec<String>,
}

impl ResourceFilter {
    /// ` AND app IN (…) AND cluster IN (…) AND name IN (…)` with numbered placeholders
    /// appended to `binds`; `prefix` qualifies the columns (e.g. "r.").
    pub fn sql(&self, prefix: &str, binds: &mut Vec<String>) -> String {
        let mut sql = String::new();
        for (column, values) in [
            ("app", &self.apps),
            ("cluster", &self.clusters),
            ("name", &self.names),
        ] {
            if values.is_empty() {
                continue;
            }
            let list: Vec<String> = values
                .iter()
                .map(|v| {
                    binds.push(v.clone());
                    format!("${}", binds.len())
                })
                .collect();
            sql.push_str(&format!(" AND {prefix}{column} IN ({})", list.join(", ")));
        }
        sql
    }

    /// Whether a resource passes the filter: [`ResourceFilter::sql`] in Rust.
    pub fn matches(&self, app: &str, cluster: &str, name: &str) -> bool {
        let passes =
            |values: &[String], value: &str| values.is_empty() || values.iter().any(|v| v == value);
        passes(&self.apps, app) && passes(&self.clusters, cluster) && passes(&self.names, name)
    }
}

/// ` AND (app, cluster, kind, api_group, namespace, name) > (…)` for keyset paging.
pub fn after_sql(after: Option<&ResourceKey>, prefix: &str, binds: &mut Vec<String>) -> String {
    let Some(key) = after else {
        return String::new();
    };
    let placeholders: Vec<String> = key
        .columns()
        .into_iter()
        .map(|v| {
            binds.push(v.to_owned());
            format!("${}", binds.len())
        })
        .collect();
    format!(
        " AND ({prefix}app, {prefix}cluster, {prefix}kind, {prefix}api_group, {prefix}namespace, {prefix}name) > ({})",
        placeholders.join(", ")
    )
}

/// The key order of an instance's resources, as the status pages read them.
const KEY_ORDER: &str = "app, cluster, kind, api_group, namespace, name";

/// One page of an instance's resources in key order ([`KEY_ORDER`]): those `filter`
/// selects after `after`, at most `limit`.
#[derive(Debug, Clone, Copy)]
pub struct KeyPage<'a> {
    pub instance: InstanceId,
    pub filter: &'a ResourceFilter,
    pub after: Option<&'a ResourceKey>,
    pub limit: i64,
}

impl KeyPage<'_> {
    /// The bind values of a page's query so far: the instance, as `$1`.
    pub(crate) fn binds(&self) -> Vec<String> {
        vec![self.instance.to_string()]
    }

    /// What a page's `SELECT … WHERE rows` goes on with: the filter, keyset paging,
    /// key order and limit (their values pushed onto `binds`).
    pub(crate) fn sql(&self, binds: &mut Vec<String>) -> String {
        let mut sql = self.filter.sql("", binds);
        sql.push_str(&after_sql(self.after, "", binds));
        sql.push_str(&format!(" ORDER BY {KEY_ORDER} LIMIT {}", self.limit));
        sql
    }
}

/// Lists a page of an instance's resources with the cluster side `shown`
/// ([`Shown::of`]).
pub async fn rsync_resources_list(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
    shown: Shown,
    with_manifest: bool,
) -> Result<Vec<RsyncResource>> {
    let now = now(shown);
    let now = [now[0].as_str(), now[1].as_str(), now[2].as_str()];
    list_at(conn, page, with_manifest, &now).await
}

/// Rows per page of [`rsync_resources_each_page`].
const EACH_PAGE: i64 = 10_000;

/// Reads every rendered resource of `instance`, with its manifest, in key order, a page
/// at a time, handing each page to `each`: a whole instance without holding it all.
pub async fn rsync_resources_each_page(
    conn: &mut AnyConnection,
    instance: InstanceId,
    each: impl FnMut(Vec<RsyncResource>),
) -> Result<()> {
    rsync_resources_each_page_of(conn, instance, &ResourceFilter::default(), each).await
}

/// [`rsync_resources_each_page`] of the resources `filter` selects. The statuses are the
/// stored ones (a rollout reads the instance it replaces after marking it superseded).
pub async fn rsync_resources_each_page_of(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &ResourceFilter,
    mut each: impl FnMut(Vec<RsyncResource>),
) -> Result<()> {
    let mut after: Option<ResourceKey> = None;
    loop {
        let of = KeyPage {
            instance,
            filter,
            after: after.as_ref(),
            limit: EACH_PAGE,
        };
        let page = list_at(conn, of, true, &STORED).await?;
        let full = page.len() as i64 == EACH_PAGE;
        after = page.last().map(RsyncResource::key);
        each(page);
        if !full {
            return Ok(());
        }
    }
}

/// Whether a row (of `rsync_resources`, columns prefixed with `prefix`) was taken over
/// by a newer instance of its owner without a write: a rollout or rollback replaced its
/// instance (`instances.taken_over`), and it is stored `Applied` and not `removed` (the
/// newer instance renders the same object). Such a row is `Superseded`; its stored
/// status is the one it had at the takeover (migration 0024, `instance_supersede`).
pub fn taken_over(prefix: &str) -> String {
    format!(
        "({prefix}rsync_status = 'Applied' AND {prefix}removed = 0 AND {prefix}instance_id IN \
         (SELECT id FROM instances WHERE taken_over = 1))"
    )
}

/// The rsync status of a row as the API shows it: `Superseded` for one taken over
/// without a write ([`taken_over`]), else the stored one.
pub fn shown_rsync_status(prefix: &str) -> String {
    format!(
        "CASE WHEN {} THEN 'Superseded' ELSE {prefix}rsync_status END",
        taken_over(prefix)
    )
}

/// Whose observations an instance's rows show (see [`Shown::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// An instance not superseded and the newest of its deployment base: ingest keeps
    /// its rows' cluster status and readiness, and its aggregates, up to date.
    Own,
    /// A superseded instance, or an older instance of a base a newer instance runs (a
    /// rollout, rollback or migrate replaced it): ingest updates only the newest
    /// instance of a base, and only while it is the newest, so its stored cluster side
    /// and aggregates stopped at the takeover. It shows what the clusters report now
    /// for the base (`cluster_resources`), which every instance of a deployment shares:
    /// a superseded instance's final statuses stay true after the objects go.
    Shared,
}

impl Shown {
    /// The condition on an instance row `i` under which it shows [`Shown::Shared`].
    pub const SHARED: &'static str = "(i.superseded = 1 OR EXISTS (SELECT 1 FROM instances n \
         WHERE n.deployment_base = i.deployment_base AND n.id > i.id))";

    /// Which `instance` shows: [`Shown::Shared`] if it is superseded or a newer
    /// instance has its base.
    pub async fn of(conn: &mut AnyConnection, instance: InstanceId) -> Result<Shown> {
        let sql = format!(
            "SELECT 1 FROM instances i WHERE i.id = $1 AND {}",
            Shown::SHARED
        );
        let newer: Option<(i64,)> = sqlx::query_as(&sql)
            .bind(instance.to_string())
            .fetch_optional(conn)
            .await?;
        Ok(if newer.is_some() {
            Shown::Shared
        } else {
            Shown::Own
        })
    }

    /// The cluster status and readiness of a row of `rsync_resources` (of the instance
    /// bound to `$1`), as SQL expressions.
    pub fn cluster_side(self) -> [String; 2] {
        match self {
            Shown::Own => ["cluster_status".into(), "readiness".into()],
            Shown::Shared => {
                // The base's report of the same object; none: it is gone (or was never
                // there: then the stored status, Unknown or NotPresent, is still true).
                let report = |column: &str| {
                    format!(
                        "(SELECT {column} FROM cluster_resources c WHERE \
                         c.base_id = (SELECT deployment_base FROM instances WHERE id = $1) \
                         AND c.app = rsync_resources.app AND c.cluster = rsync_resources.cluster \
                         AND c.kind = rsync_resources.kind \
                         AND c.api_group = rsync_resources.api_group \
                         AND c.namespace = rsync_resources.namespace \
                         AND c.name = rsync_resources.name)"
                    )
                };
                [
                    format!(
                        "COALESCE({}, CASE WHEN cluster_status = 'Present' THEN 'NotPresent' \
                         ELSE cluster_status END)",
                        report("CASE WHEN c.present = 1 THEN 'Present' ELSE 'NotPresent' END")
                    ),
                    format!("COALESCE({}, '')", report("c.readiness")),
                ]
            }
        }
    }
}

/// The status columns of a listing as it is now.
fn now(shown: Shown) -> [String; 3] {
    let [cluster, readiness] = shown.cluster_side();
    [
        format!("{} AS rsync_status", shown_rsync_status("")),
        format!("{cluster} AS cluster_status"),
        format!("{readiness} AS readiness"),
    ]
}

/// The status columns as stored: what a rollout compares before it supersedes the
/// instance it reads.
const STORED: [&str; 3] = ["rsync_status", "cluster_status", "readiness"];

/// The status columns of a listing as the instance started: Pending, Unknown and no
/// readiness, or for a resource carried over from the instance it replaced, Applied
/// with the statuses it was carried with (migration 0018).
const AT_START: [&str; 3] = [
    "CASE WHEN start_cluster_status = '' THEN 'Pending' ELSE 'Applied' END AS rsync_status",
    "CASE WHEN start_cluster_status = '' THEN 'Unknown' ELSE start_cluster_status END \
     AS cluster_status",
    "start_readiness AS readiness",
];

/// [`rsync_resources_list`] with each resource's statuses as the instance started: what
/// a watch stream shows at the lifecycle event that announced the instance.
pub async fn rsync_resources_at_start(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
    with_manifest: bool,
) -> Result<Vec<RsyncResource>> {
    list_at(conn, page, with_manifest, &AT_START).await
}

async fn list_at(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
    with_manifest: bool,
    statuses: &[&str; 3],
) -> Result<Vec<RsyncResource>> {
    if !with_manifest {
        return rsync_status_page(conn, page, statuses).await;
    }
    let mut binds = page.binds();
    let manifest = "manifest";
    let mut sql = format!(
        "SELECT app, cluster, kind, api_group, api_version, namespace, name, {manifest}, \
         {} FROM rsync_resources WHERE instance_id = $1",
        statuses.join(", ")
    );
    sql.push_str(&page.sql(&mut binds));
    let mut query = sqlx::query(&sql);
    for value in binds {
        query = query.bind(value);
    }
    let rows = query.fetch_all(conn).await?;
    rows.iter()
        .map(|row| {
            let status: String = row.try_get("rsync_status")?;
            Ok(RsyncResource {
                app: row.try_get("app")?,
                cluster: row.try_get("cluster")?,
                gvk: decode_gvk(row)?,
                namespace: row.try_get("namespace")?,
                name: row.try_get("name")?,
                manifest: row.try_get::<String, _>("manifest")?.into(),
                status: status.parse().map_err(Error::internal)?,
                cluster_status: row.try_get("cluster_status")?,
                readiness: row.try_get("readiness")?,
            })
        })
        .collect()
}

/// A row of a status page: the resource's key and version (the first seven columns
/// every page selects, in this order), then two columns of the page's own and the
/// readiness, each read from text.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct PageRow<A, B> {
    pub app: String,
    pub cluster: ClusterName,
    pub kind: String,
    pub api_group: String,
    pub api_version: String,
    pub namespace: String,
    pub name: String,
    pub first: A,
    pub second: B,
    pub readiness: Readiness,
}

/// The columns of a status page in [`PageRow`]'s order: the key columns, then the
/// page's own three (`tail`).
pub(crate) const fn page_columns(tail: [&'static str; 3]) -> [&'static str; 10] {
    [
        "app",
        "cluster",
        "kind",
        "api_group",
        "api_version",
        "namespace",
        "name",
        tail[0],
        tail[1],
        tail[2],
    ]
}

impl<A, B> PageRow<A, B> {
    pub fn gvk(&self) -> Gvk {
        Gvk {
            group: self.api_group.clone(),
            version: self.api_version.clone(),
            kind: self.kind.clone(),
        }
    }

    /// The key order: (app, cluster, kind, group, namespace, name).
    fn key(&self) -> [&str; 6] {
        [
            &self.app,
            &self.cluster,
            &self.kind,
            &self.api_group,
            &self.namespace,
            &self.name,
        ]
    }
}

/// A status page's rows from `select`, which selects `columns` ([`page_columns`]), in
/// key order.
pub(crate) async fn json_page<A, B>(
    conn: &mut AnyConnection,
    select: &str,
    columns: &[&str; 10],
    binds: Vec<String>,
) -> Result<Vec<PageRow<A, B>>>
where
    A: serde::de::DeserializeOwned,
    B: serde::de::DeserializeOwned,
{
    let fields: Vec<String> = columns
        .iter()
        .map(|c| format!("CAST({c} AS TEXT)"))
        .collect();
    json_rows(
        conn,
        select,
        &fields.join(", "),
        KEY_ORDER,
        binds,
        |a: &PageRow<A, B>, b: &PageRow<A, B>| a.key().cmp(&b.key()),
    )
    .await
}

/// `SELECT columns FROM table WHERE rows_of` for `page` (its instance bound to `$1`;
/// `rows_of` selects its rows, e.g. `instance_id = $1`), with its bind values.
pub(crate) fn page_select(
    table: &str,
    rows_of: &str,
    columns: &[&str],
    page: KeyPage<'_>,
) -> (String, Vec<String>) {
    let mut binds = page.binds();
    let mut select = format!("SELECT {} FROM {table} WHERE {rows_of}", columns.join(", "));
    select.push_str(&page.sql(&mut binds));
    (select, binds)
}

/// A page of rendered resources with their statuses but without manifests.
async fn rsync_status_page(
    conn: &mut AnyConnection,
    page: KeyPage<'_>,
    statuses: &[&str; 3],
) -> Result<Vec<RsyncResource>> {
    const COLUMNS: [&str; 10] = page_columns(["rsync_status", "cluster_status", "readiness"]);
    let mut selected = COLUMNS;
    selected[7..].copy_from_slice(statuses);
    let (select, binds) = page_select("rsync_resources", "instance_id = $1", &selected, page);
    let rows: Vec<PageRow<RsyncStatus, ClusterStatus>> =
        json_page(conn, &select, &COLUMNS, binds).await?;
    Ok(rows
        .into_iter()
        .map(|row| RsyncResource {
            gvk: row.gvk(),
            app: row.app,
            cluster: row.cluster,
            namespace: row.namespace,
            name: row.name,
            manifest: Arc::from(""),
            status: row.first,
            cluster_status: row.second,
            readiness: row.readiness,
        })
        .collect())
}

/// How many resources of `owner`'s instances still await their delete by rsync (for
/// an owner that is not applied or instantiated: its last instance is terminated and
/// the older ones are superseded).
pub async fn rsync_resources_awaiting_delete(conn: &mut AnyConnection, owner: &str) -> Result<i64> {
    let row = sqlx::query(&format!(
        "SELECT COUNT(*) AS n FROM rsync_resources \
         WHERE instance_id IN (SELECT id FROM instances WHERE owner = $1) AND rsync_status IN ($2, $3) \
         AND NOT {}",
        taken_over("")
    ))
    .bind(owner)
    .bind(RsyncStatus::Applied.as_str())
    .bind(RsyncStatus::Retrying.as_str())
    .fetch_one(conn)
    .await?;
    row.try_get("n").map_err(Error::from)
}

/// Whether any instance still has resources on `cluster` that rsync must act on.
pub async fn rsync_resources_active_on_cluster(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
) -> Result<bool> {
    let row = sqlx::query(&format!(
        "SELECT 1 AS one FROM rsync_resources WHERE cluster = $1 AND rsync_status IN ($2, $3, $4) \
         AND NOT {} LIMIT 1",
        taken_over("")
    ))
    .bind(cluster)
    .bind(RsyncStatus::Pending.as_str())
    .bind(RsyncStatus::Applied.as_str())
    .bind(RsyncStatus::Retrying.as_str())
    .fetch_optional(conn)
    .await?;
    Ok(row.is_some())
}

/// The deployments of `instance` with resources whose cluster status
/// is still Unknown (no report of them yet), from its aggregates: only rendered
/// resources are ever Unknown there (cluster-only ones count as Present or NotPresent).
/// (Read from the rows, it walked the whole instance: 0.1-0.2 s at 100,000 resources.)
pub async fn rsync_unobserved_deployments(
    conn: &mut AnyConnection,
    instance: InstanceId,
) -> Result<Vec<DeploymentKey>> {
    let query = sqlx::query(
        "SELECT cluster, app FROM status_counts WHERE instance_id = $1 \
         AND dimension = $2 AND value = $3 AND count > 0 ORDER BY cluster, app",
    )
    .bind(instance.to_string())
    .bind(super::status::Dimension::Cluster.as_str())
    .bind(crate::domain::readiness::ClusterStatus::Unknown.as_str());
    let pairs = super::fetch_text_pairs(conn, query, "cluster", "app").await?;
    Ok(pairs
        .into_iter()
        .map(|(cluster, app)| DeploymentKey {
            cluster: cluster.into(),
            app,
        })
        .collect())
}
