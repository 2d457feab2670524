//! The background tasks of container clusters: the workflow driver (runs when a verb
//! records a workflow, and every period for workflows a crash or a database failure
//! left due), the garbage collector (retries the cleanup of EXPUNGE clusters) and state
//! sync (compares the book-keeping with the IaaS).

use serde_json::json;

use super::BackgroundTask;
use crate::app::container_clusters::ContainerClusters;
use crate::error::Result;

pub struct WorkflowDriver {
    pub clusters: ContainerClusters,
}

#[tonic::async_trait]
impl BackgroundTask for WorkflowDriver {
    fn name(&self) -> &'static str {
        "container_cluster_workflows"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let started = self.clusters.drive_due().await?;
        Ok(json!({ "started": started }))
    }

    async fn next_due(&self) -> Option<i64> {
        self.clusters.next_due().await
    }
}

pub struct GarbageCollector {
    pub clusters: ContainerClusters,
}

#[tonic::async_trait]
impl BackgroundTask for GarbageCollector {
    fn name(&self) -> &'static str {
        "container_cluster_gc"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let retried = self.clusters.collect_garbage().await?;
        Ok(json!({ "retried": retried }))
    }
}

pub struct StateSync {
    pub clusters: ContainerClusters,
}

#[tonic::async_trait]
impl BackgroundTask for StateSync {
    fn name(&self) -> &'static str {
        "container_cluster_state_sync"
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        let report = self.clusters.sync_states().await?;
        Ok(serde_json::to_value(report).unwrap_or_default())
    }
}
