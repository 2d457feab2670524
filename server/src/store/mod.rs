//! The SQL store. One code path over sqlx's `Any` driver serves both backends: SQLite
//! (the embedded default, WAL mode) and PostgreSQL. Migrations live in
//! `migrations/{sqlite,postgres}` and run at start-up.
//!
//! Writes go through [`Store::begin`], which first takes a write slot: one on SQLite
//! (SQLite has a single writer anyway, so writers queue in-process instead of spinning
//! in the busy handler), half the pool on PostgreSQL (writers never hold every
//! connection). On SQLite the transaction begins with `BEGIN IMMEDIATE`: a transaction
//! that is dropped without commit is rolled back asynchronously by sqlx, so its
//! connection can still hold the database lock after the slot is released, and a
//! deferred transaction upgrading from read to write would then fail with
//! `SQLITE_BUSY` at once instead of waiting. Every state change is a compare-and-swap
//! inside such a transaction.

pub mod action;
mod autocommit;
mod background;
pub mod carry;
pub mod cluster;
mod codec;
pub mod container_cluster;
mod db_error;
pub mod dig;
pub mod fence;
pub mod fleet;
pub mod group_commit;
pub mod history;
pub mod instance;
mod json_query;
pub mod network;
pub mod object;
pub mod request;
pub mod resource_error;
pub mod rsync_resource;
pub mod signals;
pub mod sim_iaas;
pub mod sim_infrastructure;
mod slots;
pub mod status;
pub mod token;
mod tx;
pub mod vault_check;
mod wal;
pub mod watch;

pub use db_error::{DATABASE, db_error, is_unique_violation};
pub(crate) use json_query::{json_in, json_rows};

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::{Any, AnyConnection, AnyPool, ConnectOptions, Connection, Executor, Row};

pub use self::autocommit::{Autocommit, GroupWrite};
pub use self::background::BackgroundRead;
pub use self::signals::{Reach, Signals};
use self::slots::WriteSlots;
pub use self::tx::{RowLock, Tx};
use crate::error::{Error, Result};

/// A database connection, as the store's functions take it (a [`Tx`] derefs to one).
pub type Conn = sqlx::AnyConnection;

/// The pool size on PostgreSQL.
const POSTGRES_CONNECTIONS: u32 = 16;

/// The duration past which a statement is logged as slow.
const SLOW_STATEMENT: Duration = Duration::from_millis(100);
/// SQLite checkpoints in the committing connection only past this many WAL pages
/// (40 MB); the checkpoint task normally keeps the log far below it.
const WAL_BACKSTOP_PAGES: u32 = 10_000;
/// How long SQLite connections wait for a lock (the busy timeout).
const SQLITE_BUSY_MILLIS: u32 = 10_000;
/// SQLite page cache per reading connection (SQLite's default).
const SQLITE_READ_CACHE_KIB: u32 = 2_000;
/// SQLite page cache of the writing connection.
const SQLITE_WRITE_CACHE_KIB: u32 = 48_000;
/// PostgreSQL's statistics target for the analyses `refresh_statistics` runs (a sample
/// of 300 rows per unit; PostgreSQL's default is 100).
const STATISTICS_TARGET: u32 = 10;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("../migrations/postgres");

/// Which database the store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend `conn` talks to.
    pub(crate) fn of(conn: &AnyConnection) -> Backend {
        match conn.backend_name() {
            "PostgreSQL" => Backend::Postgres,
            _ => Backend::Sqlite,
        }
    }
}

/// A handle on the database: a connection pool plus the write slots.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    /// SQLite: the one connection write transactions use (reads use `pool`).
    writer: Option<AnyPool>,
    backend: Backend,
    /// Write-transaction slots: one on SQLite (a single writer), half the pool on
    /// PostgreSQL, so that a burst of writers (a hundred agent sessions ingesting,
    /// all waiting on the same owner's row lock) cannot hold every connection while
    /// queries time out waiting for one. Urgent writers go first (see `slots`).
    write_slots: Arc<WriteSlots>,
    /// Wakes the readers of a target's event log when a transaction appended to it.
    signals: Arc<Signals>,
    /// SQLite: what the checkpoints keep of the write-ahead log (see `checkpoint`).
    wal: Arc<wal::WalState>,
    /// The turns of background reads (see `read_background`).
    background_reads: Arc<tokio::sync::Semaphore>,
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
        if backend == Backend::Sqlite && (url.contains(":memory:") || url.contains("mode=memory")) {
            // Every pooled connection (and the writer) would open a database of its own.
            return Err(Error::internal(format!(
                "unsupported database url {url:?}: an in-memory SQLite database is not shared \
                 between connections; use a file (sqlite://PATH?mode=rwc)"
            )));
        }
        if backend == Backend::Sqlite
            && let Some(path) = wal::sqlite_path(url)
        {
            private_database_file(&path, url.contains("mode=rwc"))?;
        }
        let options: AnyConnectOptions = url
            .parse::<AnyConnectOptions>()
            .map_err(|e| Error::internal(format!("bad database url: {e}")))?
            // Statements slower than this are logged (sqlx's default is 1 s, which
            // hides the scans that make a busy server slow).
            .log_slow_statements(log::LevelFilter::Warn, SLOW_STATEMENT);
        let connections = match backend {
            Backend::Sqlite => 8,
            Backend::Postgres => POSTGRES_CONNECTIONS,
        };
        let pool = Self::pool_options(backend, connections, SQLITE_READ_CACHE_KIB)
            .connect_with(options.clone())
            .await?;
        let migrator = match backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        if backend == Backend::Postgres {
            repair_checksums(&pool, migrator).await?;
        }
        migrator
            .run(&pool)
            .await
            .map_err(|e| Error::internal(format!("migrations failed: {e}")))?;
        // SQLite has one writer: a connection of its own, with a page cache that holds
        // what a group of status writes touches (rows, their indexes, the event log's
        // tail) from one transaction to the next. With the 2 MB default the writer
        // re-read those pages and spilled dirty ones mid-transaction.
        let writer = match backend {
            Backend::Sqlite => Some(
                Self::pool_options(backend, 1, SQLITE_WRITE_CACHE_KIB)
                    .connect_with(options)
                    .await?,
            ),
            Backend::Postgres => None,
        };
        Ok(Store {
            pool,
            writer,
            backend,
            write_slots: WriteSlots::new(match backend {
                Backend::Sqlite => 1,
                Backend::Postgres => POSTGRES_CONNECTIONS as usize / 2,
            }),
            signals: Arc::default(),
            background_reads: background::permits(connections),
            wal: Arc::new(wal::WalState::new(match backend {
                Backend::Sqlite => wal::sqlite_directory(url),
                Backend::Postgres => None,
            })),
        })
    }

    fn pool_options(backend: Backend, connections: u32, cache_kib: u32) -> AnyPoolOptions {
        AnyPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(Duration::from_secs(5))
            // sqlx pings a connection when it goes back to the pool and closes it if
            // the ping fails; a second ping on the way out (its default) costs a round
            // trip per acquire (to SQLite's worker thread, or to PostgreSQL) on every
            // read and write, for a check the release has just made.
            .test_before_acquire(false)
            .after_release(|conn, _meta| Box::pin(tx::release_check(conn)))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute(
                            format!(
                                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                                 PRAGMA foreign_keys = ON; PRAGMA busy_timeout = {SQLITE_BUSY_MILLIS}; \
                                 PRAGMA cache_size = -{cache_kib};"
                            )
                            .as_str(),
                        )
                        .await?;
                        // Checkpoints run beside the writer (Store::checkpoint, from a
                        // background task): left to SQLite, the commit that crosses the
                        // threshold copies the WAL into the database and fsyncs it while
                        // every other write waits. The threshold stays as a backstop for
                        // when nothing checkpoints.
                        conn.execute(
                            format!("PRAGMA wal_autocheckpoint = {WAL_BACKSTOP_PAGES};").as_str(),
                        )
                        .await?;
                    } else {
                        // Flotilla's statements are short and many. A parallel plan
                        // starts worker processes (~10 ms) to save less than that, and
                        // JIT compiles a query (tens of milliseconds) once its estimated
                        // cost crosses a threshold that wide status reads can cross.
                        conn.execute("SET jit = off; SET max_parallel_workers_per_gather = 0")
                            .await?;
                    }
                    Ok(())
                })
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
        self.pool.acquire().await.map_err(Error::from)
    }

    /// The event-log wake-ups.
    pub fn signals(&self) -> &Arc<Signals> {
        &self.signals
    }

    /// PostgreSQL: ANALYZEs the tables whose row count moved by more than a tenth
    /// (plus 1,000) since their last analysis, and returns their names. Autovacuum
    /// analyzes too but looks once a minute: until then, a table that went from empty
    /// to the 100,000 rows of an instantiate is planned as nearly empty (a status page
    /// then sorted the whole instance instead of walking the primary key: 148 ms a page
    /// instead of 34). Status updates, which change values but not how many rows
    /// there are, are left to autovacuum: re-analyzing the fleet's tables every few
    /// seconds while statuses churn cost PostgreSQL 0.1–1 s of CPU each time (during
    /// convergence and under watch load alike) for plans that do not change.
    ///
    /// It samples `STATISTICS_TARGET` × 300 rows, not PostgreSQL's default 30,000: the
    /// analysis runs while the tables grow, so while the server is busy, and on two
    /// cores the full sample's 80 ms of CPU per table (cluster_resources, status_counts
    /// at 20,000 and 67,000 rows) made a queue that P8's creates waited in for half a
    /// second (its p99 went from 25 ms to 60). The small sample takes a tenth of that.
    /// Nothing on SQLite.
    pub async fn refresh_statistics(&self) -> Result<Vec<String>> {
        if self.backend != Backend::Postgres {
            return Ok(Vec::new());
        }
        let mut conn = self.read().await?;
        let stale: Vec<String> = sqlx::query(
            "SELECT s.relname::text AS relname \
             FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid \
             WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > 1000 \
               AND abs(s.n_live_tup - greatest(c.reltuples, 0)) > 1000 + greatest(c.reltuples, 0) / 10 \
             ORDER BY relname",
        )
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|row| row.try_get::<String, _>("relname").map_err(Error::from))
        .collect::<Result<_>>()?;
        if stale.is_empty() {
            return Ok(stale);
        }
        // A small sample: the point is the row counts and rough shapes a table's
        // growth made wrong, and autovacuum's own analysis later refines them.
        drop(conn);
        let mut tx = tx::begin_detached(&self.pool, None).await?;
        tx.execute(format!("SET LOCAL default_statistics_target = {STATISTICS_TARGET}").as_str())
            .await?;
        for table in &stale {
            tx.execute(format!("ANALYZE \"{}\"", table.replace('"', "\"\"")).as_str())
                .await?;
        }
        tx.commit().await?;
        Ok(stale)
    }

    /// Closes the pool, waiting for connections to be returned.
    pub async fn close(&self) {
        if let Some(writer) = &self.writer {
            writer.close().await;
        }
        self.pool.close().await;
    }

    /// Connections (open, idle) of each pool: `read` (every connection on
    /// PostgreSQL) and, on SQLite, `write` (the single writer).
    pub fn pool_use(&self) -> Vec<(&'static str, i64, i64)> {
        let mut pools = vec![(
            "read",
            i64::from(self.pool.size()),
            self.pool.num_idle() as i64,
        )];
        if let Some(writer) = &self.writer {
            pools.push(("write", i64::from(writer.size()), writer.num_idle() as i64));
        }
        pools
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<()> {
        let mut conn = self.read().await?;
        conn.ping().await.map_err(Error::from)
    }
}

/// Migrations whose text changed after they shipped, without changing what they do to
/// a database that already ran them: (version, SHA-384 of the old text). sqlx refuses to
/// start on a database whose recorded checksum differs from the file's, so the old
/// checksum is moved to the new text first.
///
/// 0006 created `watch_log.events` with `COMPRESSION lz4`, which PostgreSQL < 14 and
/// builds without lz4 reject; it now creates the column plainly and 0015 sets lz4 where
/// the server supports it (a database that ran the old text already has lz4 there).
const REWRITTEN_MIGRATIONS: [(i64, &str); 1] = [(
    6,
    "7362bd1a4436e9b72ac2c44c4f745b7ec17e1af1e71a311979f54f8349d51113ff3f1bb4e868d0d8be02577432bb8d44",
)];

/// Moves the recorded checksums of [`REWRITTEN_MIGRATIONS`] to their current text.
async fn repair_checksums(pool: &AnyPool, migrator: &Migrator) -> Result<()> {
    let (present,): (bool,) = sqlx::query_as("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(pool)
        .await?;
    if !present {
        return Ok(());
    }
    for (version, old) in REWRITTEN_MIGRATIONS {
        let Some(current) = migrator.iter().find(|m| m.version == version) else {
            continue;
        };
        let new: String = current
            .checksum
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let moved = sqlx::query(
            "UPDATE _sqlx_migrations SET checksum = decode($1, 'hex') \
             WHERE version = $2 AND checksum = decode($3, 'hex')",
        )
        .bind(new)
        .bind(version)
        .bind(old)
        .execute(pool)
        .await?;
        if moved.rows_affected() > 0 {
            tracing::info!(
                version,
                "recorded checksum of a rewritten migration updated"
            );
        }
    }
    Ok(())
}

/// `$writer` dereferences to the connection in its field `$field`, for queries.
macro_rules! derefs_to_connection {
    ($writer:ty, $field:ident) => {
        impl std::ops::Deref for $writer {
            type Target = sqlx::AnyConnection;

            fn deref(&self) -> &sqlx::AnyConnection {
                &self.$field
            }
        }

        impl std::ops::DerefMut for $writer {
            fn deref_mut(&mut self) -> &mut sqlx::AnyConnection {
                &mut self.$field
            }
        }
    };
}
pub(crate) use derefs_to_connection;

/// `($1, …, $k), ($k+1, …)`: placeholders for `rows` rows of `columns` values of a
/// multi-row statement whose only parameters they are, bound in order. (sqlx's
/// QueryBuilder writes `?` for the Any driver, which PostgreSQL rejects.) On SQLite they
/// are anonymous `?`: sqlx looks up the name of every numbered parameter when binding,
/// and SQLite finds a name by walking the statement's list of names, so a statement with
/// n numbered parameters costs n² steps to bind.
pub(crate) fn placeholders(conn: &AnyConnection, rows: usize, columns: usize) -> String {
    let sqlite = Backend::of(conn) == Backend::Sqlite;
    (0..rows)
        .map(|row| {
            let values: Vec<String> = (1..=columns)
                .map(|c| {
                    if sqlite {
                        "?".to_string()
                    } else {
                        format!("${}", row * columns + c)
                    }
                })
                .collect();
            format!("({})", values.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A query with its arguments bound.
pub(crate) type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

/// How a row becomes a value.
pub(crate) type Decode<T> = fn(&sqlx::any::AnyRow) -> Result<T>;

/// Runs a statement.
pub(crate) async fn run(conn: &mut AnyConnection, query: AnyQuery<'_>) -> Result<()> {
    query.execute(conn).await?;
    Ok(())
}

/// Runs a write; whether it matched a row.
pub(crate) async fn wrote(conn: &mut AnyConnection, query: AnyQuery<'_>) -> Result<bool> {
    Ok(query.execute(conn).await?.rows_affected() > 0)
}

/// Runs `query` for at most one row and decodes it.
pub(crate) async fn fetch_optional<T>(
    conn: &mut AnyConnection,
    query: AnyQuery<'_>,
    decode: Decode<T>,
) -> Result<Option<T>> {
    let row = query.fetch_optional(conn).await?;
    row.as_ref().map(decode).transpose()
}

/// The row of `table` whose `id` is `id` (its `columns`, decoded), if there is one.
pub(crate) async fn fetch_by_id<T>(
    conn: &mut AnyConnection,
    table: &str,
    columns: &str,
    id: &str,
    decode: Decode<T>,
) -> Result<Option<T>> {
    let sql = format!("SELECT {columns} FROM {table} WHERE id = $1");
    fetch_optional(conn, sqlx::query(&sql).bind(id), decode).await
}

/// Runs `query` and decodes every row.
pub(crate) async fn fetch_all<T>(
    conn: &mut AnyConnection,
    query: AnyQuery<'_>,
    decode: Decode<T>,
) -> Result<Vec<T>> {
    let rows = query.fetch_all(conn).await?;
    rows.iter().map(decode).collect()
}

/// Runs `query` and reads columns `first` and `second` of each row as text.
pub(crate) async fn fetch_text_pairs(
    conn: &mut AnyConnection,
    query: AnyQuery<'_>,
    first: &str,
    second: &str,
) -> Result<Vec<(String, String)>> {
    let rows = query.fetch_all(conn).await?;
    rows.iter()
        .map(|r| Ok((r.try_get(first)?, r.try_get(second)?)))
        .collect()
}

/// Microseconds since the Unix epoch: the stored form of every timestamp.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or_default()
}

/// A database URL with any password replaced, for logs and errors.
/// Makes the SQLite database at `path` readable by its owner only (0600), as the
/// token and key files are: creates it so if `create` and it does not exist yet
/// (SQLite gives its -wal and -shm files the database's mode), and tightens an existing
/// one readable by others.
fn private_database_file(path: &std::path::Path, create: bool) -> Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let failed = |e: std::io::Error| {
        Error::internal(format!(
            "cannot secure the database file {}: {e}",
            path.display()
        ))
    };
    match std::fs::metadata(path) {
        Ok(metadata) => {
            if metadata.permissions().mode() & 0o077 != 0 {
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                    .map_err(failed)?;
                tracing::warn!(file = %path.display(), "the database file was readable by others: now 0600");
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map(drop)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => Ok(()),
                _ => Err(failed(e)),
            }),
        Err(_) => Ok(()),
    }
}

/// `url` with every credential in it replaced by `***`: the password of its user info
/// (`user:pw@host`) and the value of each query parameter that carries one
/// (`?password=…`, `sslpassword=…`, anything naming a secret, token or key), for logs
/// and errors.
pub fn redact(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut out = match (base.find("://"), base.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &base[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &base[..scheme_end + 3], &base[at..]),
                None => base.to_string(),
            }
        }
        _ => base.to_string(),
    };
    if let Some(query) = query {
        let parameters: Vec<String> = query
            .split('&')
            .map(|parameter| match parameter.split_once('=') {
                Some((key, _)) if is_secret_parameter(key) => format!("{key}=***"),
                _ => parameter.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&parameters.join("&"));
    }
    out
}

/// Whether a URL query parameter named `key` carries a credential.
fn is_secret_parameter(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["password", "passwd", "secret", "token", "key"]
        .iter()
        .any(|word| key.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table that changed a lot is analyzed (its column statistics appear) without
    /// waiting for autovacuum.
    #[tokio::test]
    async fn analyzes_changed_tables_on_postgres() {
        let url = flotilla_tests::create_postgres_database().await;
        let store = Store::connect(&url).await.unwrap();
        let mut tx = store.begin().await.unwrap();
        sqlx::query("CREATE TABLE filler (n BIGINT NOT NULL)")
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query("INSERT INTO filler (n) SELECT generate_series(1, 5000)")
            .execute(&mut *tx)
            .await
            .unwrap();
        // A backend reports its counters at most once a second, else when idle for 10
        // s: have this one report them as its transaction ends, or the wait below races
        // that 10 s.
        sqlx::query("SELECT pg_stat_force_next_flush()")
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let analyzed = |store: Store| async move {
            let mut conn = store.read().await.unwrap();
            let row = sqlx::query("SELECT COUNT(*) AS n FROM pg_stats WHERE tablename = 'filler'")
                .fetch_one(&mut *conn)
                .await
                .unwrap();
            row.try_get::<i64, _>("n").unwrap() > 0
        };
        assert!(!analyzed(store.clone()).await, "no statistics before");
        // The backend's counters reach pg_stat_user_tables within about a second.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let tables = store.refresh_statistics().await.unwrap();
            if tables.iter().any(|t| t == "filler") {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "filler never analyzed"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(analyzed(store.clone()).await, "statistics after");
        // With the small sample: 5,000 distinct values make a histogram of
        // STATISTICS_TARGET buckets, not PostgreSQL's default 100.
        let bounds: i32 = sqlx::query(
            "SELECT array_length(histogram_bounds::text::text[], 1) AS n FROM pg_stats \
             WHERE tablename = 'filler' AND attname = 'n'",
        )
        .fetch_one(&mut *store.read().await.unwrap())
        .await
        .unwrap()
        .try_get("n")
        .unwrap();
        assert_eq!(bounds, STATISTICS_TARGET as i32 + 1);
        // Updates of every row (as status changes are) move no row count: no new
        // analysis, once the counters show the updates.
        let mut conn = store.read().await.unwrap();
        for statement in [
            "UPDATE filler SET n = n + 1",
            "SELECT pg_stat_force_next_flush()",
        ] {
            sqlx::query(statement).execute(&mut *conn).await.unwrap();
        }
        drop(conn);
        let modified = |store: Store| async move {
            let mut conn = store.read().await.unwrap();
            let row = sqlx::query(
                "SELECT n_mod_since_analyze AS n FROM pg_stat_user_tables WHERE relname = 'filler'",
            )
            .fetch_one(&mut *conn)
            .await
            .unwrap();
            row.try_get::<i64, _>("n").unwrap()
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while modified(store.clone()).await < 5000 {
            assert!(
                std::time::Instant::now() < deadline,
                "updates never counted"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let tables = store.refresh_statistics().await.unwrap();
        assert!(!tables.iter().any(|t| t == "filler"), "{tables:?}");
        store.close().await;
        flotilla_tests::drop_postgres_database(&url);
    }

    #[tokio::test]
    async fn refuses_in_memory_sqlite() {
        for url in ["sqlite::memory:", "sqlite://x.db?mode=memory"] {
            let error = Store::connect(url).await.err().expect("refused");
            assert!(error.to_string().contains("in-memory"), "{url}: {error}");
        }
    }

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact("postgres://bob:secret@db:5432/x"),
            "postgres://bob:***@db:5432/x"
        );
        assert_eq!(redact("postgres://bob@db/x"), "postgres://bob@db/x");
        assert_eq!(
            redact("postgres://u@h/db?password=hunter2&sslmode=require&sslpassword=pw2"),
            "postgres://u@h/db?password=***&sslmode=require&sslpassword=***"
        );
        assert_eq!(
            redact("postgres://u:pw@h/db?PASSWORD=x&application_name=f"),
            "postgres://u:***@h/db?PASSWORD=***&application_name=f"
        );
        assert_eq!(
            redact("sqlite:///tmp/a.db?mode=rwc"),
            "sqlite:///tmp/a.db?mode=rwc"
        );
        assert_eq!(redact("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
    }
}
