//! The aggregates: per (instance, app, cluster) counts of each status dimension,
//! moved by deltas in the transactions that move statuses, and the counts a selection
//! that names resources needs (counted from the rows).

use crate::store::rsync_resource::Shown;
use serde_json::json;

use super::*;
use crate::domain::status::{CountKey, Counts};
use crate::store::Backend;
use crate::store::json_query::execute_for_rows;

/// An aggregate dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dimension {
    Rsync,
    Cluster,
    Readiness,
}

impl Dimension {
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Rsync => "rsync",
            Dimension::Cluster => "cluster",
            Dimension::Readiness => "readiness",
        }
    }
}

/// Pending changes of `status_counts`, applied in one go at the end of a transaction.
#[derive(Debug, Default)]
pub struct CountDeltas(BTreeMap<(String, String, String, Dimension, String), i64>);

impl CountDeltas {
    pub fn add(
        &mut self,
        instance: InstanceId,
        app: &str,
        cluster: &str,
        dimension: Dimension,
        value: &str,
        delta: i64,
    ) {
        if value.is_empty() || delta == 0 {
            return;
        }
        *self
            .0
            .entry((
                instance.to_string(),
                app.to_string(),
                cluster.to_string(),
                dimension,
                value.to_string(),
            ))
            .or_default() += delta;
    }

    /// Counts `n` new resources of `instance`'s (app, cluster) with these statuses, one
    /// per dimension (an empty readiness is not counted).
    #[allow(clippy::too_many_arguments)]
    pub fn add_resources(
        &mut self,
        instance: InstanceId,
        app: &str,
        cluster: &str,
        rsync: &str,
        cluster_status: &str,
        readiness: &str,
        n: i64,
    ) {
        self.add(instance, app, cluster, Dimension::Rsync, rsync, n);
        self.add(
            instance,
            app,
            cluster,
            Dimension::Cluster,
            cluster_status,
            n,
        );
        self.add(instance, app, cluster, Dimension::Readiness, readiness, n);
    }

    /// Records one resource moving from `old` to `new` in `dimension`.
    pub fn moved(
        &mut self,
        instance: InstanceId,
        app: &str,
        cluster: &str,
        dimension: Dimension,
        old: &str,
        new: &str,
    ) {
        if old != new {
            self.add(instance, app, cluster, dimension, old, -1);
            self.add(instance, app, cluster, dimension, new, 1);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.values().all(|d| *d == 0)
    }

    /// Writes the deltas (multi-row upserts) to the per (app, cluster) aggregates,
    /// then to the instance totals: every status write of an instance updates the
    /// same few total rows and holds them until it commits, so they come last.
    pub async fn apply(self, conn: &mut AnyConnection) -> Result<()> {
        let rows: Vec<_> = self
            .0
            .into_iter()
            .filter(|(_, delta)| *delta != 0)
            .collect();
        let mut totals: BTreeMap<(&str, Dimension, &str), i64> = BTreeMap::new();
        for ((instance, _, _, dimension, value), delta) in &rows {
            *totals.entry((instance, *dimension, value)).or_default() += delta;
        }
        let totals: Vec<_> = totals.into_iter().filter(|(_, d)| *d != 0).collect();
        // One statement text each for any number of rows (a JSON array), in key order
        // (the rows lock in it). SQLite needs the WHERE before an upsert's ON CONFLICT.
        let counts: Vec<_> = rows
            .iter()
            .map(|((instance, app, cluster, dimension, value), delta)| {
                json!([instance, app, cluster, dimension.as_str(), value, delta])
            })
            .collect();
        let sql = format!(
            "INSERT INTO status_counts (instance_id, app, cluster, dimension, value, count) \
             SELECT i, a, c, d, v, CAST(n AS BIGINT) FROM {} AS r WHERE true \
             ON CONFLICT (instance_id, app, cluster, dimension, value) \
             DO UPDATE SET count = status_counts.count + excluded.count",
            json_table(conn, 1, &["i", "a", "c", "d", "v", "n"])
        );
        execute_for_rows(conn, &sql, &counts).await?;
        let totals: Vec<_> = totals
            .iter()
            .map(|((instance, dimension, value), delta)| {
                json!([instance, dimension.as_str(), value, delta])
            })
            .collect();
        let sql = format!(
            "INSERT INTO status_totals (instance_id, dimension, value, count) \
             SELECT i, d, v, CAST(n AS BIGINT) FROM {} AS r WHERE true \
             ON CONFLICT (instance_id, dimension, value) \
             DO UPDATE SET count = status_totals.count + excluded.count",
            json_table(conn, 1, &["i", "d", "v", "n"])
        );
        execute_for_rows(conn, &sql, &totals).await
    }
}

/// [`counts_sum`]'s statement and its binds.
fn counts_sum_sql(
    backend: Backend,
    instance: InstanceId,
    filter: &crate::store::rsync_resource::ResourceFilter,
) -> (String, Vec<String>) {
    let mut binds = vec![instance.to_string()];
    if filter.apps.is_empty() && filter.clusters.is_empty() {
        let sql =
            "SELECT dimension, value, count AS total FROM status_totals WHERE instance_id = $1";
        return (sql.to_string(), binds);
    }
    let mut sql = String::from(
        "SELECT dimension, value, CAST(SUM(count) AS BIGINT) AS total FROM status_counts WHERE instance_id = $1",
    );
    if filter.apps.is_empty() {
        // Clusters alone: seek (instance, app, cluster) for each app of the instance
        // rather than read all its rows (apps × clusters) for a few clusters'.
        let apps = match backend {
            Backend::Sqlite => "IN (SELECT app FROM apps)",
            Backend::Postgres => "= ANY(ARRAY(SELECT app FROM apps))",
        };
        sql = format!(
            "WITH RECURSIVE {} {sql} AND app {apps}",
            super::INSTANCE_APPS
        );
    }
    sql.push_str(&filter.sql("", &mut binds));
    sql.push_str(" GROUP BY dimension, value");
    (sql, binds)
}

/// Sums the aggregates of `instance`, optionally only for some apps and clusters (the
/// filter must not name resources).
pub async fn counts_sum(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &crate::store::rsync_resource::ResourceFilter,
) -> Result<Counts> {
    debug_assert!(filter.names.is_empty(), "aggregates are not kept per name");
    let (sql, binds) = counts_sum_sql(Backend::of(conn), instance, filter);
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    let rows = query.fetch_all(conn).await?;
    let mut counts = Counts::new();
    for r in &rows {
        let dimension: String = r.try_get("dimension")?;
        let value: String = r.try_get("value")?;
        // Keys no dimension counts (never written) are left out, as rows of 0 are.
        if let Some(key) = CountKey::parse(&dimension, &value) {
            *counts.entry(key).or_default() += r.try_get::<i64, _>("total")?;
        }
    }
    Ok(counts)
}

/// Counts counted from the (indexed) rows, where the aggregates cannot answer: a
/// selection that names resources, or a [`Shown::Shared`] instance (superseded, or
/// older than another instance of its base), whose rsync statuses are its own and its
/// cluster side what the base's reports say now.
pub async fn counts_from_rows(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &crate::store::rsync_resource::ResourceFilter,
    shown: Shown,
) -> Result<Counts> {
    let rsync = crate::store::rsync_resource::shown_rsync_status("");
    let [cluster, readiness] = shown.cluster_side();
    count_rows(conn, instance, filter, [&rsync, &cluster, &readiness]).await
}

/// The counts of `instance`'s resources that `filter` selects as they were just before
/// a newer instance took the instance's resources over (see `instance_claim`): those
/// it took count with the status they had then (kept in `superseded_from`, or still
/// stored for those taken over without a write). For a watch stream resumed at a token
/// from before that takeover, which no event of the moved resources leads back to.
pub async fn counts_before_takeover(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &crate::store::rsync_resource::ResourceFilter,
) -> Result<Counts> {
    let rsync = "CASE WHEN superseded_from = '' THEN rsync_status ELSE superseded_from END";
    count_rows(
        conn,
        instance,
        filter,
        [rsync, "cluster_status", "readiness"],
    )
    .await
}

/// Counts `instance`'s rows that `filter` selects, reading the rsync status, cluster
/// status and readiness of rendered resources as `[rsync, cluster, readiness]` (SQL
/// expressions over `rsync_resources`).
async fn count_rows(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &crate::store::rsync_resource::ResourceFilter,
    [rsync, cluster, readiness]: [&str; 3],
) -> Result<Counts> {
    let mut totals = Counts::new();
    let mut binds = vec![instance.to_string()];
    let where_ = filter.sql("", &mut binds);
    for (sql, dims) in [
        (
            format!(
                "SELECT {rsync} AS a, {cluster} AS b, {readiness} AS c FROM rsync_resources WHERE instance_id = $1{where_}"
            ),
            ["rsync", "cluster", "readiness"],
        ),
        (
            format!(
                "SELECT '' AS a, CASE WHEN present = 1 THEN 'Present' ELSE 'NotPresent' END AS b, readiness AS c \
                 FROM cluster_resources WHERE {REPORTS_OF_INSTANCE} AND rsync_backed = 0{where_}"
            ),
            ["rsync", "cluster", "readiness"],
        ),
    ] {
        let mut query = sqlx::query(&sql);
        for bind in &binds {
            query = query.bind(bind.clone());
        }
        for row in query.fetch_all(&mut *conn).await? {
            for (column, dimension) in ["a", "b", "c"].into_iter().zip(dims) {
                let value: String = row.try_get(column)?;
                if let Some(key) = CountKey::parse(dimension, &value) {
                    *totals.entry(key).or_default() += 1;
                }
            }
        }
    }
    Ok(totals)
}

/// A status query or watch of a few clusters of a large fleet reads those clusters'
/// aggregates, not every aggregate of the instance (apps × clusters rows).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::rsync_resource::ResourceFilter;

    const APPS: i64 = 40;
    const CLUSTERS: i64 = 500;

    /// `instance`'s aggregates: every app on every cluster, one Applied resource each,
    /// and one Pending on cluster c7.
    async fn fill(store: &Store, instance: InstanceId) {
        let sql = format!(
            "WITH RECURSIVE n (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {}) \
             INSERT INTO status_counts (instance_id, app, cluster, dimension, value, count) \
             SELECT $1, 'a' || (i / {CLUSTERS}), 'c' || (i % {CLUSTERS}), 'rsync', 'Applied', 1 \
             FROM n",
            APPS * CLUSTERS - 1
        );
        sqlx::query(&sql)
            .bind(instance.to_string())
            .execute(store.pool())
            .await
            .unwrap();
        sqlx::query(
            "INSERT INTO status_counts (instance_id, app, cluster, dimension, value, count) \
             VALUES ($1, 'a3', 'c7', 'rsync', 'Pending', 1)",
        )
        .bind(instance.to_string())
        .execute(store.pool())
        .await
        .unwrap();
    }

    async fn cluster_counts_seek_each_app(url: &str) {
        let store = Store::connect(url).await.unwrap();
        let (instance, other) = (InstanceId::new(), InstanceId::new());
        fill(&store, instance).await;
        fill(&store, other).await;
        let backend = store.backend();
        let analyze = match backend {
            Backend::Sqlite => "ANALYZE",
            Backend::Postgres => "ANALYZE status_counts",
        };
        sqlx::query(analyze).execute(store.pool()).await.unwrap();
        let mut conn = store.read().await.unwrap();

        let apps = instance_apps(&mut conn, instance).await.unwrap();
        let mut expected: Vec<String> = (0..APPS).map(|a| format!("a{a}")).collect();
        expected.sort();
        assert_eq!(apps, expected);

        let filter = ResourceFilter {
            clusters: vec!["c7".into(), "c8".into()],
            ..Default::default()
        };
        let counts = counts_sum(&mut conn, instance, &filter).await.unwrap();
        let rsync = |status: &str| {
            counts
                .get(&CountKey::parse("rsync", status).unwrap())
                .copied()
        };
        assert_eq!(rsync("Applied"), Some(2 * APPS));
        assert_eq!(rsync("Pending"), Some(1));
        // An app filter as well: that app's rows only.
        let one_app = ResourceFilter {
            apps: vec!["a3".into()],
            ..filter.clone()
        };
        let counts = counts_sum(&mut conn, instance, &one_app).await.unwrap();
        assert_eq!(
            counts.get(&CountKey::parse("rsync", "Applied").unwrap()),
            Some(&2)
        );

        // The plan seeks (instance, app, cluster), where it read the whole instance.
        let (sql, binds) = counts_sum_sql(backend, instance, &filter);
        let plan = explain(&mut conn, &sql, &binds).await;
        match backend {
            Backend::Sqlite => assert!(
                plan.contains("SEARCH status_counts USING INDEX")
                    && plan.contains("instance_id=? AND app=? AND cluster=?"),
                "{plan}"
            ),
            Backend::Postgres => assert!(
                !plan.contains("Seq Scan on status_counts")
                    && plan.contains("app = ANY")
                    && plan.contains("cluster = ANY"),
                "{plan}"
            ),
        }
        drop(conn);
        store.close().await;
    }

    /// The plan of `sql` with `binds`, one line per node.
    async fn explain(conn: &mut AnyConnection, sql: &str, binds: &[String]) -> String {
        let backend = Backend::of(conn);
        let explain = match backend {
            Backend::Sqlite => format!("EXPLAIN QUERY PLAN {sql}"),
            Backend::Postgres => format!("EXPLAIN {sql}"),
        };
        let mut query = sqlx::query(&explain);
        for bind in binds {
            query = query.bind(bind);
        }
        let plan: Vec<String> = query
            .fetch_all(&mut *conn)
            .await
            .unwrap()
            .iter()
            .map(|row| match backend {
                Backend::Sqlite => row.try_get::<String, _>("detail").unwrap(),
                Backend::Postgres => row.try_get::<String, _>(0).unwrap(),
            })
            .collect();
        plan.join("\n")
    }

    async fn troubled(
        conn: &mut AnyConnection,
        instance: InstanceId,
        status: RsyncStatus,
        limit: i64,
    ) -> Vec<String> {
        super::super::clusters_with_rsync_status(conn, instance, status, limit)
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.to_string())
            .collect()
    }

    /// The clusters a ResourcesApplied condition names come from the troubled rows'
    /// index in cluster order, not from a read of every aggregate of the instance.
    async fn troubled_clusters_read_their_index(url: &str) {
        let store = Store::connect(url).await.unwrap();
        let (instance, other) = (InstanceId::new(), InstanceId::new());
        fill(&store, instance).await;
        fill(&store, other).await;
        // Retrying on c9, c12, c300 (one app each, two on c12), Failed on c5; one row
        // counted down to 0 on c1, and the other instance retrying on c0.
        for (id, app, cluster, value, count) in [
            (instance, "a1", "c9", "Retrying", 2),
            (instance, "a2", "c12", "Retrying", 1),
            (instance, "a4", "c12", "Retrying", 1),
            (instance, "a0", "c300", "Retrying", 1),
            (instance, "a0", "c1", "Retrying", 0),
            (instance, "a6", "c5", "Failed", 1),
            (other, "a0", "c0", "Retrying", 1),
        ] {
            sqlx::query(
                "INSERT INTO status_counts (instance_id, app, cluster, dimension, value, count) \
                 VALUES ($1, $2, $3, 'rsync', $4, $5)",
            )
            .bind(id.to_string())
            .bind(app)
            .bind(cluster)
            .bind(value)
            .bind(count)
            .execute(store.pool())
            .await
            .unwrap();
        }
        let analyze = match store.backend() {
            Backend::Sqlite => "ANALYZE",
            Backend::Postgres => "ANALYZE status_counts",
        };
        sqlx::query(analyze).execute(store.pool()).await.unwrap();
        let mut conn = store.read().await.unwrap();
        // Names sort as text: c12 < c300 < c9.
        assert_eq!(
            troubled(&mut conn, instance, RsyncStatus::Retrying, 4).await,
            ["c12", "c300", "c9"]
        );
        assert_eq!(
            troubled(&mut conn, instance, RsyncStatus::Retrying, 2).await,
            ["c12", "c300"]
        );
        assert_eq!(
            troubled(&mut conn, instance, RsyncStatus::Failed, 4).await,
            ["c5"]
        );

        for (status, index) in [
            (RsyncStatus::Retrying, "status_counts_retrying"),
            (RsyncStatus::Failed, "status_counts_failed"),
        ] {
            let sql = super::super::clusters_with_rsync_status_sql(status);
            let sql = sql.replace("$2", "4");
            let plan = explain(&mut conn, &sql, &[instance.to_string()]).await;
            assert!(
                plan.contains(index) && !plan.contains("Seq Scan") && !plan.contains("SCAN"),
                "{plan}"
            );
        }
        drop(conn);
        store.close().await;
    }

    on_both_backends!(
        troubled_clusters_read_their_index_sqlite,
        troubled_clusters_read_their_index_postgres,
        troubled_clusters_read_their_index
    );

    on_both_backends!(
        cluster_counts_seek_each_app_sqlite,
        cluster_counts_seek_each_app_postgres,
        cluster_counts_seek_each_app
    );
}
