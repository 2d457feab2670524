//! What the database's errors become: retryable (UNAVAILABLE), lost to a concurrent
//! transaction (ABORTED), the request's fault (INVALID_ARGUMENT) or INTERNAL.

use crate::error::{Conflict, Error};

/// Translates a database error: lost connections and exhausted pools are UNAVAILABLE
/// (retryable); everything else is INTERNAL. Unique violations are handled by the
/// callers that expect them (see [`is_unique_violation`]).
pub fn db_error(error: sqlx::Error) -> Error {
    let mapped = classify_db_error(error);
    let kind = match &mapped {
        Error::Unavailable(_) => "unavailable",
        Error::Aborted { .. } => "conflict",
        // A value the database refused to store: the request's fault, not a fault of
        // the database or of Flotilla.
        Error::InvalidArgument { .. } => "invalid_input",
        _ => "internal",
    };
    crate::metrics::METRICS
        .db_errors
        .with_label_values(&[kind])
        .inc();
    mapped
}

/// `?` on a database result translates its error with [`db_error`].
impl From<sqlx::Error> for Error {
    fn from(error: sqlx::Error) -> Self {
        db_error(error)
    }
}

/// The prefix of the causes of `Error::Unavailable` that come from the database: the
/// API answers those with a plain message and logs the cause (wire/status.rs).
pub const DATABASE: &str = "database: ";

fn classify_db_error(error: sqlx::Error) -> Error {
    match &error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => Error::Unavailable(format!("{DATABASE}{error}")),
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            // PostgreSQL: deadlock detected, serialization failure. Another transaction
            // won; the operation can be retried as a whole.
            if code == "40P01" || code == "40001" {
                tracing::debug!(cause = %db.message(), "transaction lost to a concurrent one");
                return Error::Aborted {
                    reason: Conflict::ConcurrentTransaction,
                    message: "a concurrent change conflicted; retry".into(),
                };
            }
            // PostgreSQL: a text value it cannot store (NUL, which SQLite takes): the
            // request's fault, and the transaction wrote nothing.
            if code == "22021" || code == "22P05" {
                return Error::invalid(
                    "request",
                    "a text field holds a character the database cannot store (NUL)",
                );
            }
            // PostgreSQL: class 08 (connection), 57P0x (shutdown), 53 (resources).
            // SQLite: BUSY and LOCKED, whatever their extended code (sqlx reports the
            // extended one: SQLITE_BUSY_SNAPSHOT is 517, whose primary code, the low
            // byte, is BUSY).
            let sqlite_busy = db
                .try_downcast_ref::<sqlx::sqlite::SqliteError>()
                .and_then(|_| code.parse::<i32>().ok())
                .is_some_and(|extended| matches!(extended & 0xff, 5 | 6));
            if code.starts_with("08")
                || code.starts_with("57P")
                || code.starts_with("53")
                || sqlite_busy
            {
                Error::Unavailable(format!("{DATABASE}{}", db.message()))
            } else {
                Error::Internal(format!("database error: {}", db.message()))
            }
        }
        _ => Error::Internal(format!("database error: {error}")),
    }
}

/// Whether `error` is a unique constraint violation.
pub fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|db| db.is_unique_violation())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that loses to another connection's is UNAVAILABLE (retry), also when
    /// SQLite says so with an extended code: a read transaction that then writes after
    /// another connection committed gets SQLITE_BUSY_SNAPSHOT (517).
    #[tokio::test]
    async fn sqlite_busy_of_any_kind_is_unavailable() {
        use sqlx::{Connection, Executor};
        sqlx::any::install_default_drivers();
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let mut a = sqlx::AnyConnection::connect(&url).await.unwrap();
        let mut b = sqlx::AnyConnection::connect(&url).await.unwrap();
        a.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER)")
            .await
            .unwrap();
        a.execute("BEGIN; SELECT COUNT(*) FROM t").await.unwrap();
        b.execute("INSERT INTO t VALUES (1)").await.unwrap();
        let lost = a.execute("INSERT INTO t VALUES (2)").await.unwrap_err();
        let code = lost.as_database_error().and_then(|db| db.code()).unwrap();
        assert_eq!(code, "517", "{lost}");
        assert!(
            matches!(classify_db_error(lost), Error::Unavailable(_)),
            "BUSY_SNAPSHOT"
        );
        a.execute("ROLLBACK").await.unwrap();
        // Plain BUSY: the write lock is held and the other does not wait.
        a.execute("BEGIN IMMEDIATE").await.unwrap();
        b.execute("PRAGMA busy_timeout = 0").await.unwrap();
        let busy = b.execute("INSERT INTO t VALUES (3)").await.unwrap_err();
        assert!(
            matches!(classify_db_error(busy), Error::Unavailable(_)),
            "BUSY"
        );
        // Anything else stays INTERNAL.
        let other = b.execute("SELECT nope FROM t").await.unwrap_err();
        assert!(
            matches!(classify_db_error(other), Error::Internal(_)),
            "syntax"
        );
    }
}
