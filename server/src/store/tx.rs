//! Transactions: write transactions ([`Tx`], behind a write slot), read snapshots, and
//! how they begin.
//!
//! A transaction begins in a task of its own. A caller can stop waiting at any await
//! (a gRPC client goes away, a session's task is aborted), and sqlx's begin is not
//! safe to cancel: SQLite's custom `BEGIN IMMEDIATE` awaits again after the BEGIN ran
//! (to check the connection is in a transaction), and a future dropped there leaves a
//! connection inside a transaction that nothing will end. On SQLite's single writer
//! that stopped every later write ("begin_with at non-zero transaction depth", or the
//! pool timing out). Run to its end in its own task, a begin nobody waits for yields a
//! `Transaction` that is dropped, and so rolled back, like any other.
//!
//! The pools also check each connection that comes back (`release_check`): one still
//! inside a transaction after its queued rollback ran is closed, not handed out again.

use std::future::Future;
use std::sync::Arc;

use sqlx::{Any, AnyConnection, AnyPool, Connection, Executor, Transaction};

use super::slots::WritePermit;
use super::{Backend, Signals, Store, json_query, watch};
use crate::error::{Error, Result};

/// A write transaction. Dereferences to a connection for queries.
pub struct Tx {
    tx: Transaction<'static, Any>,
    backend: Backend,
    _write_slot: WritePermit,
    /// Events to append at commit.
    events: Vec<watch::NewEvent>,
    /// Targets whose readers must hear of this commit even without events.
    touched: Vec<String>,
    signals: Arc<Signals>,
}

/// PostgreSQL's row lock strengths that writers use. Lifecycle verbs take `Update` on
/// the rows they change. Status writes take `KeyShare` on their owners (compatible with
/// each other, not with a verb) and `NoKeyUpdate` on what they write: it conflicts
/// with itself and with `Update`, not with `KeyShare`, so a status write can promote
/// its owner lock to it while other status writes hold theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowLock {
    /// A plain read: no row lock.
    None,
    Update,
    NoKeyUpdate,
    KeyShare,
}

impl RowLock {
    /// The clause a SELECT ends with to take this lock on the rows it reads on
    /// `backend`: nothing on SQLite, whose one writer already serializes writers.
    pub(crate) fn clause(self, backend: Backend) -> &'static str {
        match (backend, self) {
            (Backend::Sqlite, _) | (_, RowLock::None) => "",
            (Backend::Postgres, RowLock::Update) => " FOR UPDATE",
            (Backend::Postgres, RowLock::NoKeyUpdate) => " FOR NO KEY UPDATE",
            (Backend::Postgres, RowLock::KeyShare) => " FOR KEY SHARE",
        }
    }

    /// [`RowLock::clause`] on the backend `conn` talks to.
    pub(crate) fn on(self, conn: &AnyConnection) -> &'static str {
        self.clause(Backend::of(conn))
    }
}

impl Tx {
    /// Appends the buffered events, commits, then wakes the targets' readers.
    pub async fn commit(mut self) -> Result<()> {
        let events = std::mem::take(&mut self.events);
        let n = events.len();
        let started = std::time::Instant::now();
        let written = if events.is_empty() {
            Vec::new()
        } else {
            watch::append(&mut self.tx, events).await?
        };
        let appended = started.elapsed();
        self.tx.commit().await?;
        let metrics = &crate::metrics::METRICS;
        metrics
            .commit_duration
            .observe(started.elapsed().as_secs_f64());
        if n > 0 {
            metrics.status_events_appended.inc_by(n as u64);
            tracing::debug!(
                events = n,
                append_us = appended.as_micros() as u64,
                commit_us = (started.elapsed() - appended).as_micros() as u64,
                "tx commit"
            );
        }
        for (target, events) in written {
            self.signals.signal(&target, Some(events));
        }
        for target in &self.touched {
            self.signals.signal(target, None);
        }
        self.signals.signal(super::signals::FLEET, None);
        Ok(())
    }

    /// Tells the readers of `target` (caches) that it changed, after commit.
    pub fn touch(&mut self, target: &str) {
        self.touched.push(target.to_string());
    }

    /// Buffers a status event, appended to the log when the transaction commits.
    pub fn emit(&mut self, event: watch::NewEvent) {
        self.events.push(event);
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Takes `lock` on the rows of `table` (a table keyed by `name`) named `names`, in
    /// name order, in one statement (PostgreSQL; nothing on SQLite, whose write lock
    /// already serializes writers). Names with no row are skipped.
    pub async fn lock_rows(
        &mut self,
        table: &'static str,
        names: &[&str],
        lock: RowLock,
    ) -> Result<()> {
        let clause = self.row_lock(lock);
        if clause.is_empty() || names.is_empty() {
            return Ok(());
        }
        // One statement text per table and lock, whatever the number of names; the
        // sort below the lock takes them in name order, so that writers locking
        // overlapping sets cannot deadlock.
        let sql = format!(
            "SELECT name FROM {table} WHERE {} ORDER BY name{clause}",
            json_query::json_in(&self.tx, "name", 1)
        );
        let names = serde_json::to_string(names).map_err(Error::internal)?;
        sqlx::query(&sql)
            .bind(names)
            .fetch_all(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// The clause that takes `lock` on the rows a SELECT reads, on PostgreSQL; "" on
    /// SQLite.
    pub fn row_lock(&self, lock: RowLock) -> &'static str {
        lock.clause(self.backend)
    }
}

super::derefs_to_connection!(Tx, tx);

/// How a write transaction begins on PostgreSQL: with generic plans for its
/// statements, in the same round trip as its BEGIN.
///
/// PostgreSQL plans a prepared statement for its parameters (a custom plan) until the
/// generic plan looks no dearer, and for statements that join a JSON parameter to a
/// table it kept choosing custom plans: the status ingest's reads and its status
/// update were planned on every call (0.2 ms each, longer than most of them ran; a
/// seventh of the database's CPU in P8). The writes' parameters are keys and JSON
/// batches, whose values do not change what plan is best (partial indexes are matched
/// on literals in the statements' text, not on parameters).
const POSTGRES_BEGIN: &str = "BEGIN; SET LOCAL plan_cache_mode = force_generic_plan";

impl Store {
    /// A write slot, once one is free (see the module's doc); `urgent`: ahead of the
    /// ordinary writers waiting (see `slots`).
    pub(super) async fn write_slot(&self, urgent: bool) -> WritePermit {
        self.write_slots.acquire(urgent).await
    }

    /// Begins a write transaction.
    pub async fn begin(&self) -> Result<Tx> {
        self.begin_with(false).await
    }

    /// Begins a write transaction ahead of the ordinary writers waiting for a slot:
    /// for a short write whose callers wait on it (the action groups).
    pub async fn begin_urgent(&self) -> Result<Tx> {
        self.begin_with(true).await
    }

    async fn begin_with(&self, urgent: bool) -> Result<Tx> {
        let slot = self.write_slot(urgent).await;
        // SQLite: take the database's write lock at BEGIN, where the busy timeout applies.
        // A deferred transaction that reads first and then writes cannot wait for the
        // lock (SQLite returns SQLITE_BUSY at once on that upgrade).
        let tx = match &self.writer {
            Some(writer) => begin_detached(writer, Some("BEGIN IMMEDIATE")).await,
            None => begin_detached(&self.pool, Some(POSTGRES_BEGIN)).await,
        }?;
        Ok(Tx {
            tx,
            backend: self.backend,
            _write_slot: slot,
            events: Vec::new(),
            touched: Vec::new(),
            signals: self.signals.clone(),
        })
    }

    /// Begins a read-only transaction that sees one consistent snapshot of the database
    /// (REPEATABLE READ on PostgreSQL; a deferred transaction in SQLite's WAL mode).
    pub async fn snapshot(&self) -> Result<Transaction<'static, Any>> {
        let pool = self.pool.clone();
        let backend = self.backend;
        detached(async move {
            let mut tx = pool.begin().await?;
            if backend == Backend::Postgres {
                tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    .await?;
            }
            Ok(tx)
        })
        .await
    }
}

/// Runs `work` to its end in a task of its own, whether or not its caller still waits.
async fn detached<T: Send + 'static>(
    work: impl Future<Output = Result<T>> + Send + 'static,
) -> Result<T> {
    match tokio::spawn(work).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(Error::internal(format!(
            "a transaction's begin stopped: {error}"
        ))),
    }
}

/// Begins a transaction on a connection of `pool` (with `statement` instead of
/// `BEGIN`), in a task of its own.
pub(super) async fn begin_detached(
    pool: &AnyPool,
    statement: Option<&'static str>,
) -> Result<Transaction<'static, Any>> {
    let pool = pool.clone();
    detached(async move {
        match statement {
            Some(statement) => pool.begin_with(statement).await,
            None => pool.begin().await,
        }
        .map_err(Error::from)
    })
    .await
}

/// Whether a connection coming back to its pool may be handed out again: not if it is
/// still inside a transaction once the rollback its transaction queued when dropped
/// has run (the ping runs after it). Reused, such a connection would fail every write
/// (SQLite's writer) or read an old snapshot forever (a reader).
pub(super) async fn release_check(conn: &mut AnyConnection) -> sqlx::Result<bool> {
    if !conn.is_in_transaction() {
        return Ok(true);
    }
    conn.ping().await?;
    if conn.is_in_transaction() {
        tracing::error!("a connection came back to its pool inside a transaction: closed");
        return Ok(false);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use sqlx::Row;

    use super::*;

    /// A store on a fresh database of each backend, with its guard.
    async fn stores() -> Vec<(Store, Box<dyn FnOnce()>)> {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let sqlite = Store::connect(&url).await.unwrap();
        let url = flotilla_tests::create_postgres_database().await;
        let postgres = Store::connect(&url).await.unwrap();
        vec![
            (sqlite, Box::new(move || drop(dir))),
            (
                postgres,
                Box::new(move || flotilla_tests::drop_postgres_database(&url)),
            ),
        ]
    }

    /// Writes `n` into `probe` and checks that a snapshot on every reader connection
    /// at once sees it (a reader stuck in an old transaction would not).
    async fn write_and_read_everywhere(store: &Store, n: i64) {
        let mut tx = store.begin().await.expect("a write transaction begins");
        sqlx::query("CREATE TABLE IF NOT EXISTS probe (n BIGINT NOT NULL)")
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query("INSERT INTO probe (n) VALUES ($1)")
            .bind(n)
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let readers = store.pool().options().get_max_connections();
        let mut snapshots = Vec::new();
        for _ in 0..readers {
            snapshots.push(store.snapshot().await.expect("a snapshot begins"));
        }
        for snapshot in &mut snapshots {
            let row = sqlx::query("SELECT MAX(n) AS n FROM probe")
                .fetch_one(&mut **snapshot)
                .await
                .unwrap();
            assert_eq!(row.try_get::<i64, _>("n").unwrap(), n, "a stale reader");
        }
    }

    /// Begins (write transactions and snapshots) abandoned at every point of their way,
    /// by aborting their tasks after 0 to 200 µs, leave the store whole: the next write
    /// begins and commits, and every reader sees it. Before the begins ran in tasks of
    /// their own, SQLite's writer was left inside a transaction within a few hundred
    /// rounds, and every later write failed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn abandoned_begins_leave_no_transaction_open() {
        for (store, cleanup) in stores().await {
            write_and_read_everywhere(&store, 0).await;
            for round in 0..1500u32 {
                let s = store.clone();
                let task = tokio::spawn(async move {
                    if round % 2 == 0 {
                        let _tx = s.begin().await;
                    } else {
                        let _snapshot = s.snapshot().await;
                    }
                });
                // A spin, not a sleep: the window is microseconds wide.
                let until = Instant::now() + Duration::from_micros(u64::from(round % 200));
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                task.abort();
                let _ = task.await;
            }
            write_and_read_everywhere(&store, 1).await;
            store.close().await;
            cleanup();
        }
    }

    /// A connection that goes back to its pool inside a transaction (one leaked past
    /// sqlx's rollback on drop) is closed, not handed to the next reader.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_connection_returned_inside_a_transaction_is_closed() {
        for (store, cleanup) in stores().await {
            write_and_read_everywhere(&store, 0).await;
            let opened = store.pool().size();
            let mut conn = store.read().await.unwrap();
            let mut leaked = conn.begin().await.unwrap();
            sqlx::query("SELECT COUNT(*) FROM probe")
                .fetch_one(&mut *leaked)
                .await
                .unwrap();
            std::mem::forget(leaked);
            assert!(conn.is_in_transaction());
            drop(conn);
            // The release (and its check) runs in a task of sqlx's.
            let deadline = Instant::now() + Duration::from_secs(5);
            while store.pool().size() >= opened {
                assert!(
                    Instant::now() < deadline,
                    "the leaked connection stayed open"
                );
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            write_and_read_everywhere(&store, 1).await;
            store.close().await;
            cleanup();
        }
    }

    /// On PostgreSQL a write transaction plans generically ([`POSTGRES_BEGIN`]), and
    /// the setting ends with it: the connection's next user (a read, which may well
    /// want a plan for its parameters) has PostgreSQL's default again, whether the
    /// transaction committed or rolled back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn write_transactions_plan_generically_and_only_they() {
        let url = flotilla_tests::create_postgres_database().await;
        let store = Store::connect(&url).await.unwrap();
        async fn mode(conn: &mut AnyConnection) -> String {
            sqlx::query("SHOW plan_cache_mode")
                .fetch_one(conn)
                .await
                .unwrap()
                .get::<String, _>(0)
        }
        for commit in [true, false] {
            let mut tx = store.begin().await.unwrap();
            assert_eq!(mode(&mut tx).await, "force_generic_plan");
            if commit {
                tx.commit().await.unwrap();
            } else {
                drop(tx);
            }
            // Every connection of the pool, so the one the transaction used is among them.
            let readers = store.pool().options().get_max_connections();
            let mut held = Vec::new();
            for _ in 0..readers {
                let mut conn = store.read().await.unwrap();
                assert_eq!(mode(&mut conn).await, "auto", "after commit: {commit}");
                held.push(conn);
            }
        }
        store.close().await;
        flotilla_tests::drop_postgres_database(&url);
    }
}
