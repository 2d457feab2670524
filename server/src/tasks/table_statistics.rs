//! PostgreSQL: keeps the planner's statistics current when tables grow fast (an
//! instantiate writes a whole fleet's resources at once); see
//! `Store::refresh_statistics`.

use serde_json::json;

use super::BackgroundTask;
use crate::error::Result;
use crate::store::Store;

pub struct TableStatistics {
    pub store: Store,
}

#[tonic::async_trait]
impl BackgroundTask for TableStatistics {
    fn name(&self) -> &'static str {
        "table_statistics"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        Ok(json!({"analyzed": self.store.refresh_statistics().await?}))
    }
}
