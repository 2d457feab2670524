//! The lifecycle history of deployment intent groups and cluster network intents:
//! one row per verb, `{state, instance, time, revision}`, ordered by `seq`.

use sqlx::{AnyConnection, Row};

use super::watch::NewEvent;
use super::{Tx, now_micros, run};
use crate::error::Result;

/// The lifecycle state a watch reports when its target was deleted.
pub const DELETED: &str = "DELETED";

/// One recorded verb.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistoryEntry {
    pub state: String,
    /// The instance id, or "" when the verb has none.
    pub instance: String,
    pub time: i64,
    pub revision: i64,
}

/// Appends an entry to `owner`'s history: `recorded` is what the entry says (the
/// state, or an event such as UPDATED that leaves the state alone), `state` the state
/// watchers are told. Callers hold the owner's row (a CAS update in the same
/// transaction), so `seq` cannot race.
pub async fn history_append(
    tx: &mut Tx,
    owner: &str,
    recorded: &str,
    state: &str,
    instance: &str,
    revision: i64,
) -> Result<()> {
    // The owner's current instance before this verb: the last one its history names.
    let previous: String = sqlx::query(
        "SELECT instance FROM lifecycle_history WHERE owner = $1 AND instance <> '' \
         ORDER BY seq DESC LIMIT 1",
    )
    .bind(owner)
    .fetch_optional(&mut **tx)
    .await?
    .map(|r| r.try_get("instance"))
    .transpose()?
    .unwrap_or_default();
    let current = if instance.is_empty() {
        previous.clone()
    } else {
        instance.to_string()
    };
    tx.emit(NewEvent::lifecycle(owner, state, &current, &previous));
    let conn: &mut AnyConnection = tx;
    let sql = "INSERT INTO lifecycle_history (owner, seq, state, instance, time, revision) \
               SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 \
               FROM lifecycle_history WHERE owner = $1";
    let query = sqlx::query(sql)
        .bind(owner)
        .bind(recorded)
        .bind(instance)
        .bind(now_micros())
        .bind(revision);
    run(conn, query).await
}

/// The history of `owner`, oldest first.
pub async fn history_list(conn: &mut AnyConnection, owner: &str) -> Result<Vec<HistoryEntry>> {
    let rows = sqlx::query(
        "SELECT state, instance, time, revision FROM lifecycle_history \
         WHERE owner = $1 ORDER BY seq",
    )
    .bind(owner)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(HistoryEntry {
                state: row.try_get("state")?,
                instance: row.try_get("instance")?,
                time: row.try_get("time")?,
                revision: row.try_get("revision")?,
            })
        })
        .collect()
}

/// Deletes `owner`'s history (the owner is being deleted), telling its watchers with a
/// lifecycle event of state `DELETED`.
pub async fn history_delete(tx: &mut Tx, owner: &str) -> Result<()> {
    tx.emit(NewEvent::lifecycle(owner, DELETED, "", ""));
    sqlx::query("DELETE FROM lifecycle_history WHERE owner = $1")
        .bind(owner)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
