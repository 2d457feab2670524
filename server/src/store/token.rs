//! Bearer tokens: only the SHA-256 of a secret is stored. Revocation is a
//! compare-and-swap on `revoke_time IS NULL`.

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::{fetch_all, fetch_by_id, fetch_optional, run};
use crate::domain::access::Role;
use crate::domain::names::ClusterName;
use crate::error::{Error, Result};
use crate::ids::TokenId;

/// A stored token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    pub id: TokenId,
    /// SHA-256 (hex) of the secret.
    pub hash: String,
    pub role: Role,
    /// Editor and viewer: the projects it is confined to.
    pub projects: Vec<String>,
    /// Agent: its cluster (stored "" for none).
    pub cluster: Option<ClusterName>,
    pub description: String,
    /// The token that created it; None for tokens the server made.
    pub creator: Option<TokenId>,
    pub create_time: i64,
    pub expire_time: Option<i64>,
    pub revoke_time: Option<i64>,
}

impl TokenRecord {
    /// Whether the token authenticates calls at `now`.
    pub fn active_at(&self, now: i64) -> bool {
        self.revoke_time.is_none() && self.expire_time.is_none_or(|t| now < t)
    }
}

const COLUMNS: &str = "id, hash, role, projects, cluster, description, creator, create_time, \
                       expire_time, revoke_time";

fn from_row(row: &AnyRow) -> Result<TokenRecord> {
    let id: String = row.try_get("id")?;
    let role: String = row.try_get("role")?;
    let projects: String = row.try_get("projects")?;
    let creator: String = row.try_get("creator")?;
    Ok(TokenRecord {
        id: id
            .parse()
            .map_err(|_| Error::internal(format!("stored token id {id:?} is not a uuid")))?,
        hash: row.try_get("hash")?,
        role: Role::parse(&role)
            .ok_or_else(|| Error::internal(format!("stored token role {role:?} is unknown")))?,
        projects: serde_json::from_str(&projects)
            .map_err(|e| Error::internal(format!("stored token projects: {e}")))?,
        cluster: Some(row.try_get::<String, _>("cluster")?)
            .filter(|cluster| !cluster.is_empty())
            .map(ClusterName::from),
        description: row.try_get("description")?,
        creator: match creator.as_str() {
            "" => None,
            id => Some(
                id.parse()
                    .map_err(|_| Error::internal(format!("stored creator {id:?} is not a uuid")))?,
            ),
        },
        create_time: row.try_get("create_time")?,
        expire_time: row.try_get("expire_time")?,
        revoke_time: row.try_get("revoke_time")?,
    })
}

pub async fn token_insert(conn: &mut AnyConnection, token: &TokenRecord) -> Result<()> {
    let sql =
        format!("INSERT INTO tokens ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)");
    let query = sqlx::query(&sql)
        .bind(token.id.to_string())
        .bind(&token.hash)
        .bind(token.role.as_str())
        .bind(serde_json::to_string(&token.projects).expect("strings serialize"))
        .bind(token.cluster.as_ref().map_or("", ClusterName::as_str))
        .bind(&token.description)
        .bind(token.creator.map(|c| c.to_string()).unwrap_or_default())
        .bind(token.create_time)
        .bind(token.expire_time)
        .bind(token.revoke_time);
    run(conn, query).await
}

/// The token whose secret has this hash.
pub async fn token_find_by_hash(
    conn: &mut AnyConnection,
    hash: &str,
) -> Result<Option<TokenRecord>> {
    fetch_optional(
        conn,
        sqlx::query(&format!("SELECT {COLUMNS} FROM tokens WHERE hash = $1")).bind(hash),
        from_row,
    )
    .await
}

/// The stored hashes of every token (for tests that check no secret is stored).
pub async fn token_hashes(conn: &mut AnyConnection) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar("SELECT hash FROM tokens ORDER BY hash")
        .fetch_all(conn)
        .await?)
}

pub async fn token_get(conn: &mut AnyConnection, id: TokenId) -> Result<Option<TokenRecord>> {
    fetch_by_id(conn, "tokens", COLUMNS, &id.to_string(), from_row).await
}

/// A page of tokens, newest first, after the keyset cursor `(create_time, id)`; with
/// `active_at`, only tokens active at that time.
pub async fn token_list(
    conn: &mut AnyConnection,
    after: Option<(i64, TokenId)>,
    active_at: Option<i64>,
    limit: usize,
) -> Result<Vec<TokenRecord>> {
    let (time, id) = after.map_or((i64::MAX, String::new()), |(t, id)| (t, id.to_string()));
    let active = if active_at.is_some() {
        "AND revoke_time IS NULL AND (expire_time IS NULL OR expire_time > $4)"
    } else {
        "AND $4 = $4"
    };
    fetch_all(
        conn,
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM tokens \
             WHERE (create_time < $1 OR (create_time = $1 AND (id < $2 OR $2 = ''))) {active} \
             ORDER BY create_time DESC, id DESC LIMIT $3"
        ))
        .bind(time)
        .bind(id)
        .bind(limit as i64)
        .bind(active_at.unwrap_or_default()),
        from_row,
    )
    .await
}

/// Revokes a token if it is not revoked yet; returns whether this call revoked it.
pub async fn token_revoke(conn: &mut AnyConnection, id: TokenId, now: i64) -> Result<bool> {
    let result =
        sqlx::query("UPDATE tokens SET revoke_time = $1 WHERE id = $2 AND revoke_time IS NULL")
            .bind(now)
            .bind(id.to_string())
            .execute(conn)
            .await?;
    Ok(result.rows_affected() == 1)
}

/// Revokes every unrevoked agent token of `cluster`; returns their ids.
pub async fn token_revoke_agent(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
    now: i64,
) -> Result<Vec<TokenId>> {
    let query = sqlx::query(
        "UPDATE tokens SET revoke_time = $1 \
         WHERE cluster = $2 AND role = 'agent' AND revoke_time IS NULL RETURNING id",
    );
    fetch_all(conn, query.bind(now).bind(cluster), |row| {
        let id: String = row.try_get("id")?;
        id.parse()
            .map_err(|_| Error::internal(format!("stored token id {id:?} is not a uuid")))
    })
    .await
}

/// Holds, until `tx` ends, the lock that makes the bootstrap of the first admin token
/// one start at a time across replicas (a PostgreSQL transaction advisory lock; on
/// SQLite the write transaction's lock already is).
pub async fn token_bootstrap_lock(tx: &mut super::Tx) -> Result<()> {
    if tx.backend() == super::Backend::Postgres {
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('bootstrap admin', 22))::TEXT")
            .fetch_one(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Whether an admin token is active at `now`.
pub async fn token_active_admin_exists(conn: &mut AnyConnection, now: i64) -> Result<bool> {
    let row = sqlx::query(
        "SELECT id FROM tokens WHERE role = 'admin' AND revoke_time IS NULL \
         AND (expire_time IS NULL OR expire_time > $1) LIMIT 1",
    )
    .bind(now)
    .fetch_optional(conn)
    .await?;
    Ok(row.is_some())
}
