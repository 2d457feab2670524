//! Carrying over, in bulk, what an instance replacing another (rollout, rollback,
//! migrate) takes from it unchanged: a few set statements whatever the instance's size,
//! instead of a status move, an ingest and an event per resource.

use sqlx::Row;

use super::rsync_resource::ResourceKey;
use super::status::{CountDeltas, Dimension};
use super::{Tx, db_error};
use crate::domain::status::RsyncStatus;
use crate::error::Result;
use crate::ids::InstanceId;

/// The same resource (app, cluster, object) in `rsync_resources` (`n`) and `o`.
const SAME_RESOURCE: &str = "o.app = n.app AND o.cluster = n.cluster AND o.kind = n.kind \
     AND o.api_group = n.api_group AND o.namespace = n.namespace AND o.name = n.name";

/// Carries over to `instance` (just inserted, every resource Pending) what `previous`
/// has Applied with the very manifest `instance` renders: those resources start
/// Applied with the cluster status and readiness `previous` last saw (recorded as
/// their start statuses, see migration 0018), and the cluster's report of them is
/// copied, with the aggregates. Call before `previous`'s rows are superseded. Returns
/// how many resources were carried.
///
/// No events: a watch stream shows the new instance as it started (see
/// `rsync_resources_at_start`) at its lifecycle event. Cluster-only resources (the pods
/// of carried controllers) are carried after that event, by ingest, with events.
pub async fn carry_applied(tx: &mut Tx, previous: InstanceId, instance: InstanceId) -> Result<i64> {
    let mut deltas = CountDeltas::default();
    let (previous_id, id) = (previous.to_string(), instance.to_string());
    let applied = RsyncStatus::Applied.as_str();
    sqlx::query(&format!(
        "UPDATE rsync_resources AS n SET rsync_status = $3, cluster_status = o.cluster_status, \
         readiness = o.readiness, start_cluster_status = o.cluster_status, \
         start_readiness = o.readiness \
         FROM rsync_resources AS o \
         WHERE n.instance_id = $2 AND o.instance_id = $1 AND {SAME_RESOURCE} \
         AND o.rsync_status = $3 AND o.manifest = n.manifest"
    ))
    .bind(&previous_id)
    .bind(&id)
    .bind(applied)
    .execute(&mut **tx)
    .await
    .map_err(db_error)?;

    let groups = sqlx::query(
        "SELECT app, cluster, start_cluster_status AS cluster_status, start_readiness AS readiness, \
         COUNT(*) AS n FROM rsync_resources WHERE instance_id = $1 AND start_cluster_status <> '' \
         GROUP BY app, cluster, start_cluster_status, start_readiness",
    )
    .bind(&id)
    .fetch_all(&mut **tx)
    .await
    .map_err(db_error)?;
    let mut carried = 0;
    for row in &groups {
        let app: String = row.try_get("app").map_err(db_error)?;
        let cluster: String = row.try_get("cluster").map_err(db_error)?;
        let cluster_status: String = row.try_get("cluster_status").map_err(db_error)?;
        let readiness: String = row.try_get("readiness").map_err(db_error)?;
        let n: i64 = row.try_get("n").map_err(db_error)?;
        for (dimension, from, to) in [
            (Dimension::Rsync, RsyncStatus::Pending.as_str(), applied),
            (Dimension::Cluster, "Unknown", cluster_status.as_str()),
            (Dimension::Readiness, "", readiness.as_str()),
        ] {
            if from != to {
                deltas.add(instance, &app, &cluster, dimension, from, -n);
                deltas.add(instance, &app, &cluster, dimension, to, n);
            }
        }
        carried += n;
    }
    if carried == 0 {
        return Ok(0);
    }
    deltas.apply(tx).await?;

    sqlx::query(&format!(
        "INSERT INTO cluster_resources (instance_id, app, cluster, kind, api_group, api_version, \
         namespace, name, rsync_backed, present, readiness, body) \
         SELECT $2, o.app, o.cluster, o.kind, o.api_group, o.api_version, o.namespace, o.name, \
         o.rsync_backed, o.present, o.readiness, o.body \
         FROM cluster_resources AS o JOIN rsync_resources AS n ON n.instance_id = $2 \
         AND {SAME_RESOURCE} AND n.start_cluster_status <> '' \
         WHERE o.instance_id = $1 AND o.rsync_backed = 1"
    ))
    .bind(&previous_id)
    .bind(&id)
    .execute(&mut **tx)
    .await
    .map_err(db_error)?;
    sqlx::query("UPDATE instances SET carried = $1 WHERE id = $2")
        .bind(carried)
        .bind(&id)
        .execute(&mut **tx)
        .await
        .map_err(db_error)?;
    Ok(carried)
}

/// How many resources `instance` carried over from the instance it replaced.
pub async fn instance_carried(conn: &mut sqlx::AnyConnection, instance: InstanceId) -> Result<i64> {
    let row = sqlx::query("SELECT carried FROM instances WHERE id = $1")
        .bind(instance.to_string())
        .fetch_optional(conn)
        .await
        .map_err(db_error)?;
    match row {
        Some(row) => row.try_get("carried").map_err(db_error),
        None => Ok(0),
    }
}

/// The keys of the resources `instance` carried over, in key order.
pub async fn carried_keys(tx: &mut Tx, instance: InstanceId) -> Result<Vec<ResourceKey>> {
    let rows = sqlx::query(
        "SELECT app, cluster, kind, api_group, namespace, name FROM rsync_resources \
         WHERE instance_id = $1 AND start_cluster_status <> '' \
         ORDER BY app, cluster, kind, api_group, namespace, name",
    )
    .bind(instance.to_string())
    .fetch_all(&mut **tx)
    .await
    .map_err(db_error)?;
    rows.iter().map(ResourceKey::decode).collect()
}

/// Whether `instance` has cluster-only resources (pods and the like) present.
pub async fn has_cluster_only(tx: &mut Tx, instance: InstanceId) -> Result<bool> {
    let row = sqlx::query(
        "SELECT 1 AS one FROM cluster_resources WHERE instance_id = $1 AND rsync_backed = 0 \
         AND present = 1 LIMIT 1",
    )
    .bind(instance.to_string())
    .fetch_optional(&mut **tx)
    .await
    .map_err(db_error)?;
    Ok(row.is_some())
}

/// Start statuses per (cluster status, readiness) of `instance`'s rendered resources
/// that `filter` selects: what a watch stream counts at the instance's lifecycle event.
pub async fn start_counts(
    conn: &mut sqlx::AnyConnection,
    instance: InstanceId,
    filter: &super::rsync_resource::ResourceFilter,
) -> Result<Vec<(String, String, i64)>> {
    let mut binds = vec![instance.to_string()];
    let mut sql = String::from(
        "SELECT start_cluster_status AS cluster_status, start_readiness AS readiness, \
         COUNT(*) AS n FROM rsync_resources WHERE instance_id = $1",
    );
    sql.push_str(&filter.sql("", &mut binds));
    sql.push_str(" GROUP BY start_cluster_status, start_readiness");
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    query
        .fetch_all(conn)
        .await
        .map_err(db_error)?
        .iter()
        .map(|row| {
            Ok((
                row.try_get("cluster_status").map_err(db_error)?,
                row.try_get("readiness").map_err(db_error)?,
                row.try_get("n").map_err(db_error)?,
            ))
        })
        .collect()
}
