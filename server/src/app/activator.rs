//! The activator of a background task (see `tasks/`): how a use case asks for a task's
//! next pass early.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use tokio::sync::Notify;

/// Signals a task to run before its period elapses: now (`activate`), or at a time
/// (`schedule`: the earliest time scheduled wins until the task runs).
#[derive(Clone)]
pub struct Activator {
    pub(crate) run: Arc<Notify>,
    pub(crate) rescheduled: Arc<Notify>,
    /// The earliest scheduled time, microseconds since the epoch (i64::MAX: none).
    pub(crate) due: Arc<AtomicI64>,
}

impl Default for Activator {
    fn default() -> Self {
        Activator {
            run: Arc::default(),
            rescheduled: Arc::default(),
            due: Arc::new(AtomicI64::new(i64::MAX)),
        }
    }
}

impl Activator {
    pub fn activate(&self) {
        self.run.notify_one();
    }

    /// Makes the task run at `at` (microseconds since the epoch) at the latest.
    pub fn schedule(&self, at: i64) {
        if self.due.fetch_min(at, Ordering::AcqRel) > at {
            self.rescheduled.notify_one();
        }
    }
}
