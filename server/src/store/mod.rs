//! The SQL store. One code path over sqlx's `Any` driver serves both backends: SQLite
//! (the embedded default, WAL mode) and PostgreSQL. Migrations live in
//! `migrations/{sqlite,postgres}` and run at start-up.
//!
//! Writes go through [`Store::begin`], which on SQLite also takes a process-wide write
//! lock (SQLite has a single writer anyway, so writers queue in-process instead of
//! spinning in the busy handler) and begins with `BEGIN IMMEDIATE`: a transaction that
//! is dropped without commit is rolled back asynchronously by sqlx, so its connection
//! can still hold the database lock after the in-process lock is released, and a
//! deferred transaction upgrading from read to write would then fail with
//! `SQLITE_BUSY` at once instead of waiting. Every state change is a compare-and-swap
//! inside such a transaction.

pub mod cluster;
pub mod dig;
pub mod history;
pub mod instance;
pub mod network;
pub mod object;
pub mod request;
pub mod rsync_resource;
pub mod status;

use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::{Any, AnyConnection, AnyPool, Connection, Executor, Transaction};
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::error::{Error, Result};

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("../migrations/postgres");

/// Which database the store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A handle on the database: a connection pool plus, on SQLite, the write lock.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// Serializes write transactions on SQLite; `None` on PostgreSQL.
    write_lock: Option<Arc<Mutex<()>>>,
}

/// A write transaction. Dereferences to a connection for queries.
pub struct Tx {
    tx: Transaction<'static, Any>,
    backend: Backend,
    _write_guard: Option<OwnedMutexGuard<()>>,
}

impl Store {
    /// Connects to `url` (`sqlite://PATH` or `postgres://…`) and runs the migrations.
    pub async fn connect(url: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else {
            return Err(Error::internal(format!(
                "unsupported database url {:?}: use sqlite:// or postgres://",
                redact(url)
            )));
        };
        let options: AnyConnectOptions = url
            .parse()
            .map_err(|e| Error::internal(format!("bad database url: {e}")))?;
        let pool = AnyPoolOptions::new()
            .max_connections(match backend {
                Backend::Sqlite => 8,
                Backend::Postgres => 16,
            })
            .acquire_timeout(Duration::from_secs(5))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                             PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;",
                        )
                        .await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .map_err(db_error)?;
        let migrator = match backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator
            .run(&pool)
            .await
            .map_err(|e| Error::internal(format!("migrations failed: {e}")))?;
        Ok(Store {
            pool,
            backend,
            write_lock: (backend == Backend::Sqlite).then(|| Arc::new(Mutex::new(()))),
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool, for reads outside a transaction.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Acquires a connection for a group of reads.
    pub async fn read(&self) -> Result<sqlx::pool::PoolConnection<Any>> {
        self.pool.acquire().await.map_err(db_error)
    }

    /// Begins a write transaction.
    pub async fn begin(&self) -> Result<Tx> {
        let guard = match &self.write_lock {
            Some(lock) => Some(lock.clone().lock_owned().await),
            None => None,
        };
        // SQLite: take the database's write lock at BEGIN, where the busy timeout applies.
        // A deferred transaction that reads first and then writes cannot wait for the
        // lock (SQLite returns SQLITE_BUSY at once on that upgrade).
        let tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
        .map_err(db_error)?;
        Ok(Tx {
            tx,
            backend: self.backend,
            _write_guard: guard,
        })
    }

    /// Closes the pool, waiting for connections to be returned.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<()> {
        let mut conn = self.read().await?;
        conn.ping().await.map_err(db_error)
    }
}

impl Tx {
    pub async fn commit(self) -> Result<()> {
        self.tx.commit().await.map_err(db_error)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// ` FOR UPDATE` on PostgreSQL (row locks for read-then-write), "" on SQLite where
    /// the write lock already serializes writers.
    pub fn for_update(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        }
    }
}

impl Deref for Tx {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        &self.tx
    }
}

impl DerefMut for Tx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.tx
    }
}

/// Translates a database error: lost connections and exhausted pools are UNAVAILABLE
/// (retryable); everything else is INTERNAL. Unique violations are handled by the
/// callers that expect them (see [`is_unique_violation`]).
pub fn db_error(error: sqlx::Error) -> Error {
    match &error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => Error::Unavailable(error.to_string()),
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            // PostgreSQL: deadlock detected, serialization failure. Another transaction
            // won; the operation can be retried as a whole.
            if code == "40P01" || code == "40001" {
                return Error::Aborted {
                    reason: "CONCURRENT_TRANSACTION",
                    message: format!("a concurrent change conflicted; retry ({})", db.message()),
                };
            }
            // PostgreSQL: class 08 (connection), 57P0x (shutdown), 53 (resources).
            // SQLite: 5 (BUSY), 6 (LOCKED).
            if code.starts_with("08")
                || code.starts_with("57P")
                || code.starts_with("53")
                || code == "5"
                || code == "6"
            {
                Error::Unavailable(db.message().to_string())
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

/// Microseconds since the Unix epoch: the stored form of every timestamp.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or_default()
}

/// A database URL with any password replaced, for logs and errors.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact("postgres://bob:secret@db:5432/x"),
            "postgres://bob:***@db:5432/x"
        );
        assert_eq!(redact("postgres://bob@db/x"), "postgres://bob@db/x");
        assert_eq!(redact("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
    }
}
