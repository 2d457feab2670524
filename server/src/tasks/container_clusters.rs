//! The background tasks of container clusters: the workflow driver (runs when a verb
//! records a workflow, and every period for workflows a crash or a database failure
//! left due), the garbage collector (retries the cleanup of EXPUNGE clusters) and state
//! sync (compares the book-keeping with the IaaS).

use serde_json::json;

use super::BackgroundTask;
use crate::app::container_clusters::ContainerClusters;
use crate::error::Result;

/// One of the three jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// Drives the workflows that are due.
    Workflows,
    /// Retries the cleanup of EXPUNGE clusters.
    Garbage,
    /// Compares the book-keeping with the IaaS.
    StateSync,
}

/// A background task running one [`Job`] over the container clusters.
pub struct ClusterTask {
    pub clusters: ContainerClusters,
    pub job: Job,
}

#[tonic::async_trait]
impl BackgroundTask for ClusterTask {
    fn name(&self) -> &'static str {
        match self.job {
            Job::Workflows => "container_cluster_workflows",
            Job::Garbage => "container_cluster_gc",
            Job::StateSync => "container_cluster_state_sync",
        }
    }

    async fn activate(&self) -> Result<serde_json::Value> {
        Ok(match self.job {
            Job::Workflows => json!({ "started": self.clusters.drive_due().await? }),
            Job::Garbage => json!({ "retried": self.clusters.collect_garbage().await? }),
            Job::StateSync => {
                serde_json::to_value(self.clusters.sync_states().await?).unwrap_or_default()
            }
        })
    }

    async fn next_due(&self) -> Option<i64> {
        match self.job {
            Job::Workflows => self.clusters.next_due().await,
            Job::Garbage | Job::StateSync => None,
        }
    }
}
