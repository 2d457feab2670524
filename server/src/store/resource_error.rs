//! What clusters said when they refused resources (`resource_errors`, migration 0019):
//! recorded with the Failed status, cleared when the resource is applied.

use sqlx::Row;

use super::Tx;
use super::rsync_resource::ResourceKey;
use crate::error::Result;
use crate::ids::InstanceId;

const KEY: &str = "instance_id, app, cluster, kind, api_group, namespace, name";

/// Records `error` as what the cluster said of `key` of `instance`.
pub async fn resource_error_set(
    tx: &mut Tx,
    instance: InstanceId,
    key: &ResourceKey,
    error: &str,
) -> Result<()> {
    let sql = format!(
        "INSERT INTO resource_errors ({KEY}, error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
         ON CONFLICT ({KEY}) DO UPDATE SET error = excluded.error"
    );
    let mut query = sqlx::query(&sql).bind(instance.to_string());
    for column in key.columns() {
        query = query.bind(column);
    }
    query.bind(error).execute(&mut **tx).await?;
    Ok(())
}

/// Forgets the errors of `keys` of `instance` (they were applied). One probe when the
/// instance has none, the usual case.
pub async fn resource_errors_clear(
    tx: &mut Tx,
    instance: InstanceId,
    keys: &[&ResourceKey],
) -> Result<()> {
    let id = instance.to_string();
    let any = sqlx::query("SELECT 1 AS one FROM resource_errors WHERE instance_id = $1 LIMIT 1")
        .bind(&id)
        .fetch_optional(&mut **tx)
        .await?;
    if any.is_none() {
        return Ok(());
    }
    for key in keys {
        let mut query = sqlx::query(
            "DELETE FROM resource_errors WHERE instance_id = $1 AND app = $2 AND cluster = $3 \
             AND kind = $4 AND api_group = $5 AND namespace = $6 AND name = $7",
        )
        .bind(&id);
        for column in key.columns() {
            query = query.bind(column);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

/// The first `limit` errors of `instance` that are still Failed, as
/// "Kind namespace/name on cluster: error", in key order.
pub async fn resource_errors_first(
    tx: &mut Tx,
    instance: InstanceId,
    limit: i64,
) -> Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT e.kind AS kind, e.namespace AS namespace, e.name AS name, e.cluster AS cluster, \
         e.error AS error FROM resource_errors e JOIN rsync_resources r ON r.instance_id = e.instance_id \
         AND r.app = e.app AND r.cluster = e.cluster AND r.kind = e.kind AND r.api_group = e.api_group \
         AND r.namespace = e.namespace AND r.name = e.name \
         WHERE e.instance_id = $1 AND r.rsync_status = 'Failed' \
         ORDER BY e.app, e.cluster, e.kind, e.api_group, e.namespace, e.name LIMIT $2",
    )
    .bind(instance.to_string())
    .bind(limit)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|row| {
            let text = |c: &str| {
                row.try_get::<String, _>(c)
                    .map_err(crate::error::Error::from)
            };
            let (kind, namespace, name) = (text("kind")?, text("namespace")?, text("name")?);
            let object = if namespace.is_empty() {
                format!("{kind} {name}")
            } else {
                format!("{kind} {namespace}/{name}")
            };
            let cluster = text("cluster")?;
            let cluster = cluster.rsplit('/').next().unwrap_or_default().to_string();
            Ok(format!("{object} on {cluster}: {}", text("error")?))
        })
        .collect()
}
