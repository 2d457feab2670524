//! Clusters: connectivity (agent tokens live in `token.rs`).

use sqlx::AnyConnection;

use crate::domain::names::ClusterName;
use crate::domain::readiness::Connectivity;
use crate::error::Result;

/// Records the connectivity of a cluster; returns the one it replaced when it changed
/// (None when it was already `connectivity` or the cluster does not exist). The
/// caller holds the cluster's lock, so the read and the write see the same row.
pub async fn cluster_set_connectivity(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
    connectivity: Connectivity,
) -> Result<Option<Connectivity>> {
    let before: Option<Connectivity> =
        sqlx::query_scalar("SELECT connectivity FROM clusters WHERE name = $1")
            .bind(cluster)
            .fetch_optional(&mut *conn)
            .await?;
    let Some(before) = before.filter(|before| *before != connectivity) else {
        return Ok(None);
    };
    sqlx::query("UPDATE clusters SET connectivity = $1 WHERE name = $2")
        .bind(connectivity)
        .bind(cluster)
        .execute(conn)
        .await?;
    Ok(Some(before))
}

/// Every cluster name with its connection mode stored in the body, for start-up.
pub async fn cluster_list_all(conn: &mut AnyConnection) -> Result<Vec<(String, String)>> {
    let query = sqlx::query("SELECT name, body FROM clusters ORDER BY name");
    super::fetch_text_pairs(conn, query, "name", "body").await
}

/// The stored spec of one cluster, if it exists.
pub async fn cluster_spec(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
) -> Result<Option<crate::domain::resources::ClusterSpec>> {
    let body: Option<String> = sqlx::query_scalar("SELECT body FROM clusters WHERE name = $1")
        .bind(cluster)
        .fetch_optional(conn)
        .await?;
    body.map(|body| {
        serde_json::from_str(&body)
            .map_err(|e| crate::error::Error::internal(format!("stored cluster {cluster}: {e}")))
    })
    .transpose()
}
