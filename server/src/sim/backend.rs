//! The sim cluster as an agent's backend: every operation completes at once.

use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::simulator_command::Command;
use serde_json::Value;
use tracing::warn;

use super::SimCluster;
use crate::agent::backend::{Applied, ClusterBackend, Observed};
use crate::domain::manifest::Gvk;
use crate::tasks::jittered;

impl ClusterBackend for SimCluster {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn nodes(&self) -> Vec<String> {
        SimCluster::nodes(self)
    }

    fn deployment_ids(&self) -> Vec<String> {
        SimCluster::deployment_ids(self)
    }

    fn bundle(&self, deployment_id: &str) -> Vec<Observed> {
        SimCluster::bundle(self, deployment_id)
    }

    fn report(&self, deployment_id: &str) {
        SimCluster::report(self, deployment_id);
    }

    async fn apply(&self, manifest: Value, generation: i64) -> Result<Applied, String> {
        let delay = self.apply_delay();
        if !delay.is_zero() {
            // Between none and twice the delay, as an API server's round trips vary.
            tokio::time::sleep(jittered(delay, 1.0)).await;
        }
        SimCluster::apply(self, &manifest, generation)
    }

    async fn delete(&self, gvk: Gvk, namespace: String, name: String) -> Result<(), String> {
        SimCluster::delete(self, &gvk, &namespace, &name, None)
    }

    fn simulate(&self, command: Command) {
        match command {
            Command::FailApplies(rule) => self.fail_applies(&rule.kind_pattern, &rule.name_pattern),
            Command::DeletePod(pod) => {
                if !self.delete_pod(&pod.namespace, &pod.pod) {
                    warn!(pod = %pod.pod, "simulator asked to delete a pod that does not exist");
                }
            }
            Command::SetPodReadinessDelay(delay) => {
                self.set_pod_ready_delay(Duration::from_millis(delay.delay_millis.max(0) as u64))
            }
            Command::FailActions(rule) => {
                self.fail_actions(&rule.target_pattern, &rule.action_name)
            }
        }
    }
}
