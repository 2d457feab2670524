//! The vault's check value: a known plaintext sealed with the credentials key, so a
//! server started with another key refuses to start instead of failing to open
//! credentials later.

use super::Store;
use crate::error::Result;

/// The check value, if one was stored.
pub async fn check_get(store: &Store) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT sealed FROM vault_check WHERE id = 1")
            .fetch_optional(store.pool())
            .await?,
    )
}

/// Stores the check value unless one is stored already.
pub async fn check_put(store: &Store, sealed: &str) -> Result<()> {
    sqlx::query("INSERT INTO vault_check (id, sealed) VALUES (1, $1) ON CONFLICT DO NOTHING")
        .bind(sealed)
        .execute(store.pool())
        .await?;
    Ok(())
}
