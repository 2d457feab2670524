//! Cluster fences: the newest ownership epoch of each cluster a replica set runs
//! (`coord/`). A replica records its epoch when it takes a cluster; an older owner's
//! epoch no longer matches, so its writes for the cluster can be refused in their own
//! transaction however late they come.

use sqlx::AnyConnection;

use crate::error::Result;

/// Records `epoch` as `cluster`'s fence if it is newer than the one recorded. False:
/// a newer owner has already taken the cluster (this claim is stale).
pub async fn fence_take(conn: &mut AnyConnection, cluster: &str, epoch: i64) -> Result<bool> {
    let taken = sqlx::query(
        "INSERT INTO cluster_fences (cluster, epoch) VALUES ($1, $2) \
         ON CONFLICT (cluster) DO UPDATE SET epoch = excluded.epoch \
         WHERE cluster_fences.epoch < excluded.epoch",
    )
    .bind(cluster)
    .bind(epoch)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(taken == 1)
}

/// The recorded fence of `cluster`, if any.
pub async fn fence_of(conn: &mut AnyConnection, cluster: &str) -> Result<Option<i64>> {
    Ok(
        sqlx::query_scalar("SELECT epoch FROM cluster_fences WHERE cluster = $1")
            .bind(cluster)
            .fetch_optional(conn)
            .await?,
    )
}

/// Forgets the fence of a deleted cluster.
pub async fn fence_forget(conn: &mut AnyConnection, cluster: &str) -> Result<()> {
    sqlx::query("DELETE FROM cluster_fences WHERE cluster = $1")
        .bind(cluster)
        .execute(conn)
        .await?;
    Ok(())
}

/// The clusters of `claims` (cluster, epoch) whose recorded fence is not the claimed
/// epoch: a newer owner took them (or none was recorded). On PostgreSQL the fence rows
/// stay share-locked until the transaction ends, so a takeover (which raises them)
/// waits for this transaction, and every transaction after the takeover sees the new
/// epoch: a replica's write for a cluster commits only while it is the newest owner.
pub async fn fence_check(
    conn: &mut AnyConnection,
    claims: &[(&str, i64)],
) -> Result<std::collections::BTreeSet<String>> {
    if claims.is_empty() {
        return Ok(Default::default());
    }
    let names: Vec<&str> = claims.iter().map(|(cluster, _)| *cluster).collect();
    let lock = match super::Backend::of(conn) {
        super::Backend::Postgres => " FOR SHARE",
        super::Backend::Sqlite => "",
    };
    let sql = format!(
        "SELECT cluster, epoch FROM cluster_fences WHERE {}{lock}",
        super::json_query::json_in(conn, "cluster", 1)
    );
    let recorded: std::collections::HashMap<String, i64> = sqlx::query_as(&sql)
        .bind(serde_json::to_string(&names).map_err(crate::error::Error::internal)?)
        .fetch_all(conn)
        .await?
        .into_iter()
        .collect();
    Ok(claims
        .iter()
        .filter(|(cluster, epoch)| recorded.get(*cluster) != Some(epoch))
        .map(|(cluster, _)| (*cluster).to_owned())
        .collect())
}
