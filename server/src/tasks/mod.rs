//! Background tasks, all of one shape (after Oxide's Nexus): a name, a period, an
//! activator that others can signal to run it early, and an `activate` that takes no
//! input, is idempotent, returns a status (logged) and does not retry by itself — the
//! next period does.

pub mod action_timer;
pub mod event_compaction;
pub mod request_expiry;
pub mod table_statistics;
pub mod wal_checkpoint;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

/// A background task.
#[tonic::async_trait]
pub trait BackgroundTask: Send + Sync + 'static {
    /// A stable name for logs.
    fn name(&self) -> &'static str;
    /// Does one pass; returns what it did, as a status for logs.
    async fn activate(&self) -> crate::error::Result<serde_json::Value>;
    /// When the task next has scheduled work (microseconds since the epoch), for tasks
    /// that act at known times: it then runs at that time rather than waiting for its
    /// period. None: at the period.
    async fn next_due(&self) -> Option<i64> {
        None
    }
}

/// Signals a task to run before its period elapses.
#[derive(Clone, Default)]
pub struct Activator(Arc<Notify>);

impl Activator {
    pub fn activate(&self) {
        self.0.notify_one();
    }
}

/// Runs `task` every `period` (and when activated) until `shutdown`.
pub fn spawn(
    task: Arc<dyn BackgroundTask>,
    period: Duration,
    activator: Activator,
    shutdown: CancellationToken,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let wait = match task.next_due().await {
                Some(due) => {
                    let left = (due - crate::store::now_micros()).max(0) as u64;
                    period.min(Duration::from_micros(left))
                }
                None => period,
            };
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(wait) => {}
                () = activator.0.notified() => {}
            }
            match task.activate().await {
                Ok(status) => debug!(task = task.name(), %status, "background task ran"),
                Err(error) => warn!(task = task.name(), %error, "background task failed"),
            }
        }
    })
}
