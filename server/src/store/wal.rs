//! SQLite's write-ahead log: checkpoints beside the writer, and starting the log over
//! under a steady write load (see `Store::checkpoint`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Instant;

use sqlx::{AnyConnection, Row};

use super::{Backend, SQLITE_BUSY_MILLIS, Store, run};
use crate::error::Result;

/// Past this many frames in the log (16 MB), a checkpoint also starts the log over.
const WAL_RESTART_FRAMES: i64 = 4_000;
/// How long a checkpoint that starts the log over waits for readers of the old log;
/// writers wait meanwhile.
const WAL_RESTART_WAIT_MILLIS: u32 = 2;

/// What the checkpoints keep of a SQLite database's write-ahead log.
pub(super) struct WalState {
    /// The directory holding the database file (flushed before a restart).
    directory: Option<PathBuf>,
    /// The log's length at the last checkpoint that started it over; -1 before any.
    restarted_at: AtomicI64,
}

impl WalState {
    pub(super) fn new(directory: Option<PathBuf>) -> Self {
        WalState {
            directory,
            restarted_at: AtomicI64::new(-1),
        }
    }
}

impl Store {
    /// SQLite: copies the write-ahead log into the database as far as readers allow,
    /// without blocking writers (a PASSIVE checkpoint); past `WAL_RESTART_FRAMES`, also
    /// starts the log over. Returns the frames in the log and the frames checkpointed
    /// (before any restart); `None` on PostgreSQL. Both are -1 when the checkpoint
    /// could not run at that instant because another one was running (a commit's
    /// own, past the backstop); the next round tries again.
    ///
    /// The log only goes back to its start when a writer begins with every frame
    /// copied and no reader left on the old frames. Under a steady write load a PASSIVE
    /// checkpoint never gets there (writers append while it copies), so the log grew
    /// to the backstop, where SQLite checkpointed inside a commit: two fsyncs with
    /// every writer waiting, 10–20 ms every half second in P8 (a P8 run writes 25,000
    /// frames a second). Instead, past the threshold, writers are held off (the write
    /// slot) for a RESTART checkpoint of what was appended since the PASSIVE one,
    /// waiting at most `WAL_RESTART_WAIT_MILLIS` for readers; if they are still
    /// there, the next round tries again.
    pub async fn checkpoint(&self) -> Result<Option<(i64, i64)>> {
        if self.backend != Backend::Sqlite {
            return Ok(None);
        }
        let started = Instant::now();
        let mut conn = self.read().await?;
        let passive = wal_checkpoint(&mut conn, "PASSIVE").await?;
        let (log, done) = (passive.log, passive.done);
        // A log already started over and not written since stays as it is until the
        // next writer begins it anew: nothing to restart (an idle server would
        // otherwise flush the file system and take the write slot every round).
        let unchanged = done == log && self.wal.restarted_at.load(Ordering::Relaxed) == log;
        if log < WAL_RESTART_FRAMES || unchanged {
            return Ok(Some((log, done)));
        }
        let copied = started.elapsed();
        // What the PASSIVE checkpoint copied into the database file is not synced
        // until a checkpoint reaches the end of the log, which is the RESTART below:
        // flushed there, it held the writers up 7 ms. Flushed here, beside them, the
        // RESTART syncs only what it copies itself. (syncfs on the directory, as an
        // fsync through a descriptor of our own on the database file would drop
        // SQLite's POSIX locks on it when closed.)
        if let Some(directory) = self.wal.directory.clone() {
            let flushed = tokio::task::spawn_blocking(move || {
                let dir = std::fs::File::open(&directory)?;
                rustix::fs::syncfs(&dir).map_err(std::io::Error::from)
            })
            .await;
            if let Ok(Err(error)) = flushed {
                tracing::warn!(%error, "cannot flush the database's file system before a checkpoint");
            }
        }
        let flushed = started.elapsed();
        let _slot = self.write_slot(false).await;
        let slot = started.elapsed();
        busy_timeout(&mut conn, WAL_RESTART_WAIT_MILLIS).await?;
        let restart = wal_checkpoint(&mut conn, "RESTART").await;
        if busy_timeout(&mut conn, SQLITE_BUSY_MILLIS).await.is_err() {
            // Not back to the pool with the short timeout.
            conn.close_on_drop();
        }
        let restart = restart?;
        if !restart.busy {
            self.wal.restarted_at.store(restart.log, Ordering::Relaxed);
        }
        // Where a restart's time goes: the PASSIVE copy, the flush, the wait for the
        // write slot, then holding it.
        tracing::debug!(
            log,
            restarted = !restart.busy,
            at = restart.log,
            passive_us = copied.as_micros() as u64,
            flush_us = (flushed - copied).as_micros() as u64,
            slot_wait_us = (slot - flushed).as_micros() as u64,
            restart_us = (started.elapsed() - slot).as_micros() as u64,
            "write-ahead log restart"
        );
        Ok(Some((log, done)))
    }
}

/// The database file of a `sqlite://PATH?…` URL.
pub(super) fn sqlite_path(url: &str) -> Option<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next()?;
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// The directory of a `sqlite://PATH?…` database file.
pub(super) fn sqlite_directory(url: &str) -> Option<PathBuf> {
    let path = sqlite_path(url)?;
    let directory = path.parent()?;
    Some(if directory.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        directory.to_path_buf()
    })
}

/// Sets a SQLite connection's busy timeout.
async fn busy_timeout(conn: &mut AnyConnection, millis: u32) -> Result<()> {
    let sql = format!("PRAGMA busy_timeout = {millis}");
    let query = sqlx::query(&sql);
    run(conn, query).await
}

/// What a checkpoint did.
struct Checkpointed {
    /// It could not finish (a RESTART: readers still on the old log).
    busy: bool,
    /// Frames in the log.
    log: i64,
    /// Frames copied into the database, in all.
    done: i64,
}

/// `PRAGMA wal_checkpoint(mode)`.
async fn wal_checkpoint(conn: &mut AnyConnection, mode: &str) -> Result<Checkpointed> {
    let row = sqlx::query(&format!("PRAGMA wal_checkpoint({mode})"))
        .fetch_one(conn)
        .await?;
    Ok(Checkpointed {
        busy: row.try_get::<i64, _>(0)? != 0,
        log: row.try_get(1)?,
        done: row.try_get(2)?,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    /// Commits leave the checkpointing to `Store::checkpoint` (beyond SQLite's default
    /// threshold of 1,000 pages), which then copies the whole log.
    #[tokio::test]
    async fn checkpoints_beside_the_writer() {
        let (_dir, store) = filler_store().await;
        fill(&store, 30).await;
        let (log, done) = store.checkpoint().await.unwrap().expect("sqlite");
        assert!(
            log > 2_000,
            "commits checkpointed on their own: {log} frames"
        );
        assert_eq!(done, log, "nothing reads, so the whole log is copied");
        // The next commit starts the log over.
        let log = log_after_a_commit(&store).await;
        assert!(log < 10, "the log was not reused: {log} frames");
    }

    /// A store on a fresh SQLite file with an empty `filler` table.
    async fn filler_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("f.db").display());
        let store = Store::connect(&url).await.unwrap();
        write(&store, "CREATE TABLE filler (body TEXT NOT NULL)").await;
        (dir, store)
    }

    /// Commits one statement.
    async fn write(store: &Store, sql: &str) {
        let mut tx = store.begin().await.unwrap();
        sqlx::query(sql).execute(&mut *tx).await.unwrap();
        tx.commit().await.unwrap();
    }

    /// Writes `batches` transactions of 100 rows of 4 KB (about 100 frames each).
    async fn fill(store: &Store, batches: usize) {
        for _ in 0..batches {
            let mut tx = store.begin().await.unwrap();
            for _ in 0..100 {
                sqlx::query("INSERT INTO filler (body) VALUES ($1)")
                    .bind("x".repeat(4000))
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
            tx.commit().await.unwrap();
        }
    }

    /// The frames in the log after one more small commit.
    async fn log_after_a_commit(store: &Store) -> i64 {
        write(store, "INSERT INTO filler (body) VALUES ('y')").await;
        let mut conn = store.read().await.unwrap();
        wal_checkpoint(&mut conn, "PASSIVE").await.unwrap().log
    }

    /// Past `WAL_RESTART_FRAMES` the checkpoint makes the next commit start the log
    /// over (even though reads went on meanwhile), except while a reader still needs
    /// the old log: then it gives up after its short wait, not the busy timeout, and a
    /// later one does it.
    #[tokio::test]
    async fn restarts_a_long_log_unless_a_reader_needs_it() {
        let (_dir, store) = filler_store().await;
        fill(&store, 50).await;
        // Under a steady stream of commits: a PASSIVE checkpoint alone never sees the
        // whole log copied when the next commit begins, so the log would only grow.
        let stop = Arc::new(AtomicBool::new(false));
        let commits = Arc::new(AtomicUsize::new(0));
        let writing = tokio::spawn({
            let (store, stop, commits) = (store.clone(), stop.clone(), commits.clone());
            async move {
                // One small commit a millisecond or so: the log must not reach the
                // 10,000-page backstop, where a commit checkpoints it itself (and a
                // checkpoint beside it cannot run), however late this test's steps
                // come on a loaded machine.
                while !stop.load(Ordering::Relaxed) {
                    write(&store, "INSERT INTO filler (body) VALUES ('y')").await;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        // A checkpoint that meets another one (a commit's own, on a loaded machine)
        // cannot run and reports -1 frames: the next one does.
        let mut log = -1;
        for _ in 0..1000 {
            log = store.checkpoint().await.unwrap().expect("sqlite").0;
            if log >= 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert!(log >= WAL_RESTART_FRAMES, "{log} frames");
        // Two more commits: the first (at most) was under way before the restart.
        let before = commits.load(Ordering::Relaxed);
        while commits.load(Ordering::Relaxed) < before + 2 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let mut conn = store.read().await.unwrap();
        let now = wal_checkpoint(&mut conn, "PASSIVE").await.unwrap().log;
        drop(conn);
        stop.store(true, Ordering::Relaxed);
        writing.await.unwrap();
        assert!(now < log / 2, "the log went on from {log} to {now} frames");

        // A reader on a snapshot in the log keeps it.
        fill(&store, 5).await;
        let mut reader = store.snapshot().await.unwrap();
        sqlx::query("SELECT count(*) FROM filler")
            .fetch_one(&mut *reader)
            .await
            .unwrap();
        fill(&store, 50).await;
        let started = Instant::now();
        let (log, _) = store.checkpoint().await.unwrap().expect("sqlite");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the restart waited {:?} for the reader",
            started.elapsed()
        );
        assert!(
            log_after_a_commit(&store).await > log,
            "restarted under a reader"
        );
        reader.rollback().await.unwrap();
        store.checkpoint().await.unwrap();
        assert!(
            log_after_a_commit(&store).await < 10,
            "not restarted once the reader left"
        );
    }

    /// Once the log is started over, rounds that find nothing written since leave it
    /// (and the write slot) alone: an idle server does not take the slot and flush
    /// the file system ten times a second.
    #[tokio::test]
    async fn leaves_a_restarted_log_alone_while_nothing_writes() {
        let (_dir, store) = filler_store().await;
        fill(&store, 50).await;
        let (log, _) = store.checkpoint().await.unwrap().expect("sqlite");
        assert!(log >= WAL_RESTART_FRAMES, "{log} frames");
        // Holding the write slot: a round that tried to restart again would wait.
        let tx = store.begin().await.unwrap();
        let round = tokio::time::timeout(Duration::from_secs(2), store.checkpoint()).await;
        assert!(round.is_ok(), "the idle log was started over again");
        drop(tx);
        // Written again, it is restarted again.
        fill(&store, 50).await;
        store.checkpoint().await.unwrap();
        assert!(
            log_after_a_commit(&store).await < 10,
            "not restarted after new writes"
        );
    }

    #[test]
    fn directory_of_the_database_file() {
        let dir = |url: &str| sqlite_directory(url).map(|d| d.display().to_string());
        assert_eq!(
            dir("sqlite:///var/lib/flotilla/f.db?mode=rwc").as_deref(),
            Some("/var/lib/flotilla")
        );
        assert_eq!(dir("sqlite://data/f.db").as_deref(), Some("data"));
        assert_eq!(dir("sqlite:f.db?mode=rwc").as_deref(), Some("."));
        assert_eq!(dir("postgres://x/y"), None);
    }
}
