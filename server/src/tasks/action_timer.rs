//! The action timer: fails open actions past their deadline (`DeadlineExceeded`: not
//! taken by an executor within the pickup timeout, or running past its delay plus the
//! run timeout), fails open pod actions whose pod its cluster no longer reports
//! (`PodNotFound`), and deletes finished actions whose time-to-live is up. Deadlines
//! and expiries are scheduled: the task runs at the earliest one (an index makes
//! finding it a lookup), not by scanning every action each period. The pod check
//! compares every open pod action with its cluster's pods, so it runs only after a
//! commit took pods away (an ingest, an instance deleted: the `PODS_GONE` signal),
//! and at the latest every `--action-pod-rescan-secs` as a safety net (a signal is a
//! hint, as the watch hub's are).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::watch;

use super::BackgroundTask;
use crate::app::actions::Actions;
use crate::domain::action::ActionState;
use crate::error::Result;
use crate::store::action::{action_due, action_next_due, action_open_with_pod_gone};
use crate::store::now_micros;
use crate::store::signals::PODS_GONE;

/// Actions handled per pass and kind; the next pass comes at once if more are due.
const BATCH: usize = 500;

pub struct ActionTimer {
    actions: Actions,
    /// `PODS_GONE`, and when the pod check last ran (None: not yet).
    pods: Mutex<(watch::Receiver<u64>, Option<Instant>)>,
    /// The longest the pod check waits without a `PODS_GONE` signal.
    rescan: Duration,
}

impl ActionTimer {
    pub fn new(actions: Actions, rescan: Duration) -> ActionTimer {
        let gone = actions.store().signals().subscribe(PODS_GONE);
        ActionTimer {
            actions,
            pods: Mutex::new((gone, None)),
            rescan,
        }
    }

    /// Whether the pod check is due: pods went since it last ran, or it has not run
    /// for `rescan`. Marks it as run.
    fn pod_check_due(&self) -> bool {
        let mut pods = self.pods.lock().expect("pods lock");
        let (gone, last) = &mut *pods;
        let signalled = gone.has_changed().unwrap_or(true);
        if !signalled && last.is_some_and(|at| at.elapsed() < self.rescan) {
            return false;
        }
        gone.mark_unchanged();
        *last = Some(Instant::now());
        true
    }
}

#[tonic::async_trait]
impl BackgroundTask for ActionTimer {
    fn name(&self) -> &'static str {
        "action_timer"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let now = now_micros();
        let (late, expired, gone) = {
            let mut conn = self.actions.store().read().await?;
            let (late, expired) = action_due(&mut conn, now, BATCH).await?;
            let gone = if self.pod_check_due() {
                action_open_with_pod_gone(&mut conn).await?
            } else {
                Vec::new()
            };
            (late, expired, gone)
        };
        let options = self.actions.options();
        for action in &late {
            let error = match action.state {
                ActionState::Pending => format!(
                    "no executor took the action within {} s",
                    options.pickup_timeout.as_secs()
                ),
                _ => format!(
                    "the action ran longer than its delay plus {} s",
                    options.run_timeout.as_secs()
                ),
            };
            self.actions
                .abandon(action.id, "DeadlineExceeded", error)
                .await?;
        }
        for action in &gone {
            let error = match &action.spec.target {
                crate::domain::action::Target::Pod { namespace, pod } => format!(
                    "pod {}/{pod} is gone from {}",
                    if namespace.is_empty() {
                        "default"
                    } else {
                        namespace
                    },
                    action.cluster
                ),
                crate::domain::action::Target::Node => String::new(),
            };
            self.actions
                .abandon(action.id, "PodNotFound", error)
                .await?;
        }
        let mut deleted = 0;
        for action in &expired {
            if self.actions.expire(action).await? {
                deleted += 1;
            }
        }
        Ok(json!({
            "deadline_exceeded": late.len(),
            "pod_not_found": gone.len(),
            "deleted": deleted,
        }))
    }

    async fn next_due(&self) -> Option<i64> {
        let mut conn = self.actions.store().read().await.ok()?;
        action_next_due(&mut conn).await.ok().flatten()
    }
}
