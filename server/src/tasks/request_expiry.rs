//! Expires idempotency records (`request_ids`) older than the retention: a retry with
//! the same `request_id` after that is treated as a new request.

use std::time::Duration;

use serde_json::json;

use super::BackgroundTask;
use crate::error::Result;
use crate::store::request::request_expire;
use crate::store::{Store, now_micros};

pub struct RequestExpiry {
    pub store: Store,
    pub retention: Duration,
}

#[tonic::async_trait]
impl BackgroundTask for RequestExpiry {
    fn name(&self) -> &'static str {
        "request_expiry"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let cutoff = now_micros() - self.retention.as_micros() as i64;
        let mut tx = self.store.begin().await?;
        let expired = request_expire(&mut tx, cutoff).await?;
        tx.commit().await?;
        Ok(json!({"expired": expired, "cutoff_micros": cutoff}))
    }
}
