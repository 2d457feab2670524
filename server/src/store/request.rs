//! Idempotency keys (`request_id`): the first response of a create or verb is recorded
//! in the same transaction as its change, so a retry returns it unchanged.

use sqlx::{AnyConnection, Row};

use super::{db_error, is_unique_violation, now_micros};
use crate::error::{Conflict, Error, Result};

/// A recorded request: the method and target it was for, the hash of the request and
/// the JSON of the response.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub scope: String,
    pub request_hash: String,
    pub response: String,
}

/// The request recorded under `request_id`, whatever method it was for (an id names
/// one request; it is unique in the table).
pub async fn request_find(
    conn: &mut AnyConnection,
    request_id: &str,
) -> Result<Option<RecordedRequest>> {
    let row =
        sqlx::query("SELECT scope, request_hash, response FROM request_ids WHERE request_id = $1")
            .bind(request_id)
            .fetch_optional(conn)
            .await?;
    row.map(|row| {
        Ok(RecordedRequest {
            scope: row.try_get("scope")?,
            request_hash: row.try_get("request_hash")?,
            response: row.try_get("response")?,
        })
    })
    .transpose()
}

pub async fn request_record(
    conn: &mut AnyConnection,
    scope: &str,
    request_id: &str,
    request_hash: &str,
    response: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO request_ids (scope, request_id, request_hash, response, create_time) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(scope)
    .bind(request_id)
    .bind(request_hash)
    .bind(response)
    .bind(now_micros())
    .execute(conn)
    .await
    .map_err(|e| {
        if is_unique_violation(&e) {
            Error::Aborted {
                reason: Conflict::RequestInProgress,
                message: format!("a request with request_id {request_id:?} is in progress; retry"),
            }
        } else {
            db_error(e)
        }
    })?;
    Ok(())
}

/// Deletes the records created before `cutoff` (microseconds); returns how many.
pub async fn request_expire(conn: &mut AnyConnection, cutoff: i64) -> Result<u64> {
    let result = sqlx::query("DELETE FROM request_ids WHERE create_time < $1")
        .bind(cutoff)
        .execute(conn)
        .await?;
    Ok(result.rows_affected())
}
