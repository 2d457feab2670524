//! The store's upkeep: four jobs of one kind (a pass over the store, no input, a
//! status for the log), run as one task type.
//!
//! - `ExpireRequests`: deletes idempotency records (`request_ids`) older than the
//!   retention; a retry with the same `request_id` after that is a new request.
//! - `CompactEvents`: compacts the status event log to the retention window; resume
//!   tokens older than what remains get RESYNC_REQUIRED and a fresh snapshot.
//! - `WalCheckpoint` (SQLite): checkpoints the write-ahead log beside the writer.
//!   SQLite's own automatic checkpoint runs inside the commit that crosses its
//!   threshold, so every write queued behind that commit waited for a copy of the log
//!   and an fsync; here a PASSIVE checkpoint on a connection of its own does the copy
//!   while writes go on appending, and past 16 MB of log a short RESTART makes the
//!   next commit start the log over (`Store::checkpoint`).
//! - `TableStatistics` (PostgreSQL): keeps the planner's statistics current when tables
//!   grow fast (an instantiate writes a whole fleet's resources at once; autovacuum
//!   analyzes once a minute at most); see `Store::refresh_statistics`.

use std::time::Duration;

use serde_json::json;

use super::BackgroundTask;
use crate::error::Result;
use crate::store::request::request_expire;
use crate::store::watch::compact;
use crate::store::{Backend, Store, now_micros};

/// How often the WAL is checkpointed: often enough that each checkpoint copies a few
/// MB at most under a full write load.
const WAL_CHECKPOINT_PERIOD: Duration = Duration::from_millis(100);
/// How often PostgreSQL tables that changed a lot are analyzed.
const STATISTICS_PERIOD: Duration = Duration::from_secs(5);

/// One upkeep job.
#[derive(Clone, Copy, Debug)]
pub enum Upkeep {
    ExpireRequests { retention: Duration },
    CompactEvents { retention: Duration },
    WalCheckpoint,
    TableStatistics,
}

impl Upkeep {
    /// Whether the job has work on `backend`.
    pub fn runs_on(self, backend: Backend) -> bool {
        match self {
            Upkeep::WalCheckpoint => backend == Backend::Sqlite,
            Upkeep::TableStatistics => backend == Backend::Postgres,
            Upkeep::ExpireRequests { .. } | Upkeep::CompactEvents { .. } => true,
        }
    }

    /// How often the job runs: a tenth of a retention, within bounds.
    pub fn period(self) -> Duration {
        match self {
            Upkeep::ExpireRequests { retention } => {
                (retention / 10).clamp(Duration::from_secs(1), Duration::from_secs(3600))
            }
            Upkeep::CompactEvents { retention } => {
                (retention / 10).clamp(Duration::from_millis(200), Duration::from_secs(60))
            }
            Upkeep::WalCheckpoint => WAL_CHECKPOINT_PERIOD,
            Upkeep::TableStatistics => STATISTICS_PERIOD,
        }
    }
}

/// An upkeep job bound to the store.
pub struct StoreUpkeep {
    pub store: Store,
    pub job: Upkeep,
}

#[tonic::async_trait]
impl BackgroundTask for StoreUpkeep {
    fn name(&self) -> &'static str {
        match self.job {
            Upkeep::ExpireRequests { .. } => "request_expiry",
            Upkeep::CompactEvents { .. } => "event_compaction",
            Upkeep::WalCheckpoint => "wal_checkpoint",
            Upkeep::TableStatistics => "table_statistics",
        }
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        Ok(match self.job {
            Upkeep::ExpireRequests { retention } | Upkeep::CompactEvents { retention } => {
                let cutoff = now_micros() - retention.as_micros() as i64;
                let mut tx = self.store.begin().await?;
                let (what, count) = match self.job {
                    Upkeep::ExpireRequests { .. } => {
                        ("expired", request_expire(&mut tx, cutoff).await?)
                    }
                    _ => ("removed", compact(&mut tx, cutoff).await?),
                };
                tx.commit().await?;
                json!({what: count, "cutoff_micros": cutoff})
            }
            Upkeep::WalCheckpoint => match self.store.checkpoint().await? {
                Some((log, done)) => json!({"log_frames": log, "checkpointed_frames": done}),
                None => json!({}),
            },
            Upkeep::TableStatistics => json!({"analyzed": self.store.refresh_statistics().await?}),
        })
    }
}
