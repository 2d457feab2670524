//! Compacts the status event log to the retention window. Resume tokens older than
//! what remains get RESYNC_REQUIRED and a fresh snapshot.

use std::time::Duration;

use serde_json::json;

use super::BackgroundTask;
use crate::error::Result;
use crate::store::watch::compact;
use crate::store::{Store, now_micros};

pub struct EventCompaction {
    pub store: Store,
    pub retention: Duration,
}

#[tonic::async_trait]
impl BackgroundTask for EventCompaction {
    fn name(&self) -> &'static str {
        "event_compaction"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let cutoff = now_micros() - self.retention.as_micros() as i64;
        let mut tx = self.store.begin().await?;
        let removed = compact(&mut tx, cutoff).await?;
        tx.commit().await?;
        Ok(json!({"removed": removed, "cutoff_micros": cutoff}))
    }
}
