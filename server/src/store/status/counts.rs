//! The aggregates: per (instance, app, cluster) counts of each status dimension,
//! moved by deltas in the transactions that move statuses, and the counts a selection
//! that names resources needs (counted from the rows).

use crate::store::rsync_resource::Shown;
use serde_json::json;

use super::*;
use crate::domain::status::{CountKey, Counts};
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

/// Sums the aggregates of `instance`, optionally only for some apps and clusters (the
/// filter must not name resources).
pub async fn counts_sum(
    conn: &mut AnyConnection,
    instance: InstanceId,
    filter: &crate::store::rsync_resource::ResourceFilter,
) -> Result<Counts> {
    debug_assert!(filter.names.is_empty(), "aggregates are not kept per name");
    let mut binds = vec![instance.to_string()];
    let sql = if filter.apps.is_empty() && filter.clusters.is_empty() {
        String::from(
            "SELECT dimension, value, count AS total FROM status_totals WHERE instance_id = $1",
        )
    } else {
        let mut sql = String::from(
            "SELECT dimension, value, CAST(SUM(count) AS BIGINT) AS total FROM status_counts WHERE instance_id = $1",
        );
        sql.push_str(&filter.sql("", &mut binds));
        sql.push_str(" GROUP BY dimension, value");
        sql
    };
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
