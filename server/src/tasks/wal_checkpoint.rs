//! SQLite: checkpoints the write-ahead log beside the writer. SQLite's own automatic
//! checkpoint runs inside the commit that crosses its threshold, so every write queued
//! behind that commit waited for a copy of the log and an fsync; here a PASSIVE
//! checkpoint on a connection of its own does the copy while writes go on appending.

use serde_json::json;

use super::BackgroundTask;
use crate::error::Result;
use crate::store::Store;

pub struct WalCheckpoint {
    pub store: Store,
}

#[tonic::async_trait]
impl BackgroundTask for WalCheckpoint {
    fn name(&self) -> &'static str {
        "wal_checkpoint"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        Ok(match self.store.checkpoint().await? {
            Some((log, done)) => json!({"log_frames": log, "checkpointed_frames": done}),
            None => json!({}),
        })
    }
}
