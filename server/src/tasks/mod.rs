//! Background tasks, all of one shape (after Oxide's Nexus): a name, a period, an
//! activator that others can signal to run it early, and an `activate` that takes no
//! input, is idempotent, returns a status (logged) and does not retry by itself — the
//! next period does.

pub mod action_timer;
pub mod container_clusters;
pub mod health;
pub mod upkeep;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

pub use crate::app::Activator;

/// A background task.
#[tonic::async_trait]
pub trait BackgroundTask: Send + Sync + 'static {
    /// A stable name for logs.
    fn name(&self) -> &'static str;
    /// Does one pass; returns what it did, as a status for logs.
    async fn activate(&self) -> crate::error::Result<serde_json::Value>;
    /// When the task next has scheduled work (microseconds since the epoch), asked
    /// after each pass, for tasks that act at known times: the task then runs at that
    /// time rather than at its period. None: at the period.
    async fn next_due(&self) -> Option<i64> {
        None
    }
}

/// A fleet-wide task: in a replica set it runs only on the replica that holds
/// [`FLEET_TASKS`](crate::coord::ownership::FLEET_TASKS); the others skip their turns.
/// A single process always runs it.
pub struct FleetWide {
    pub ownership: Arc<crate::coord::ownership::Ownership>,
    pub task: Arc<dyn BackgroundTask>,
}

#[tonic::async_trait]
impl BackgroundTask for FleetWide {
    fn name(&self) -> &'static str {
        self.task.name()
    }

    async fn activate(&self) -> crate::error::Result<serde_json::Value> {
        if self
            .ownership
            .owns(crate::coord::ownership::FLEET_TASKS)
            .is_none()
        {
            return Ok(serde_json::json!({ "skipped": "another replica runs fleet-wide tasks" }));
        }
        self.task.activate().await
    }

    async fn next_due(&self) -> Option<i64> {
        self.task.next_due().await
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
            let due = activator.due.load(Ordering::Acquire);
            let wait = if due == i64::MAX {
                period
            } else {
                let left = (due - crate::store::now_micros()).max(0) as u64;
                period.min(Duration::from_micros(left))
            };
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(wait) => {}
                () = activator.run.notified() => {}
                // An earlier time was scheduled: wait for it instead.
                () = activator.rescheduled.notified() => continue,
            }
            activator.due.store(i64::MAX, Ordering::Release);
            let started = std::time::Instant::now();
            let result = task.activate().await;
            record_run(task.name(), started.elapsed(), result.is_ok());
            match result {
                Ok(status) => debug!(task = task.name(), %status, "background task ran"),
                Err(error) => warn!(task = task.name(), %error, "background task failed"),
            }
            if let Some(next) = task.next_due().await {
                activator.schedule(next);
            }
        }
    })
}

fn record_run(task: &str, took: Duration, ok: bool) {
    let metrics = &crate::metrics::METRICS;
    let now = crate::metrics::unix_seconds();
    let outcome = if ok { "ok" } else { "error" };
    metrics.task_runs.with_label_values(&[task, outcome]).inc();
    metrics
        .task_duration
        .with_label_values(&[task])
        .observe(took.as_secs_f64());
    metrics.task_last_run.with_label_values(&[task]).set(now);
    if ok {
        metrics
            .task_last_success
            .with_label_values(&[task])
            .set(now);
    }
}

/// `base` scaled by a random factor in [1 - spread, 1 + spread): the jitter of retries
/// and periodic re-reads, so that many workers started together do not act together.
pub fn jittered(base: Duration, spread: f64) -> Duration {
    let random = uuid::Uuid::new_v4();
    let bytes = random.as_bytes();
    let unit = f64::from(u16::from_le_bytes([bytes[0], bytes[1]])) / 65_536.0;
    base.mul_f64(1.0 - spread + 2.0 * spread * unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_spreads_within_its_bounds() {
        let base = Duration::from_secs(10);
        let waits: Vec<Duration> = (0..1000).map(|_| jittered(base, 0.25)).collect();
        assert!(
            waits
                .iter()
                .all(|w| *w >= base.mul_f64(0.75) && *w < base.mul_f64(1.25))
        );
        let below = waits.iter().filter(|w| **w < base).count();
        assert!(
            (350..650).contains(&below),
            "{below} of 1000 below the base"
        );
    }
}
