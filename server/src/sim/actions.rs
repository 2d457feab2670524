//! Actions in the sim cluster, executed for real on its pods and nodes:
//!
//! - **Reboot** of a pod waits its delay, makes the pod NotReady (reason `Rebooting`)
//!   and raises its container's restart count; the pod becomes Ready again after the
//!   cluster's pod readiness delay, and the reboot succeeds once it is. A node reboot
//!   does the same to every pod on the node.
//! - **Snapshot** of a VM pod (label `kubevirt.io/domain`) writes `size` bytes at
//!   [`SNAPSHOT_BYTES_PER_SECOND`]; the size is derived from the pod's name (256 MiB to
//!   2 GiB), so the same pod always gives the same size.
//!
//! Faults (SimulatorService.FailActions) make matching reboots fail (`RebootFailed`)
//! and snapshots run out of space (`OutOfSpace`). Every wait can be cancelled.

use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::cluster::{Key, SimCluster, pod_status, restarts};
use super::glob_match;
use crate::domain::manifest::canonical_namespace;

/// How fast the sim writes snapshots.
pub const SNAPSHOT_BYTES_PER_SECOND: u64 = 8 << 30;
/// How long a reboot waits, at most, for its pods to be Ready again.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

pub use crate::agent::backend::{ActionBackend, ActionFailure, Snapshot, SnapshotRequest};
use crate::domain::access::PodRef;
use crate::domain::names::NodeName;

fn pod_key(namespace: &str, pod: &str) -> Key {
    (
        "Pod".to_string(),
        String::new(),
        canonical_namespace(namespace.to_string()),
        pod.to_string(),
    )
}

/// Waits `duration` unless cancelled first (then false).
async fn wait(duration: Duration, cancel: &CancellationToken) -> bool {
    tokio::select! {
        () = tokio::time::sleep(duration) => true,
        () = cancel.cancelled() => false,
    }
}

impl SimCluster {
    /// The cluster's nodes.
    pub fn nodes(&self) -> Vec<String> {
        self.lock().nodes.clone()
    }

    /// Makes actions on pods or nodes matching `target_pattern` fail (`action_name`
    /// "" for any); an empty pattern clears every rule.
    pub fn fail_actions(&self, target_pattern: &str, action_name: &str) {
        let mut state = self.lock();
        if target_pattern.is_empty() {
            state.action_faults.clear();
        } else {
            state
                .action_faults
                .push((target_pattern.to_string(), action_name.to_string()));
        }
    }

    fn faulty(&self, target: &str, action_name: &str) -> bool {
        self.lock().action_faults.iter().any(|(pattern, name)| {
            glob_match(pattern, target) && (name.is_empty() || name == action_name)
        })
    }

    /// Whether the pod exists and is a VM pod.
    pub fn is_vm_pod(&self, namespace: &str, pod: &str) -> Option<bool> {
        let state = self.lock();
        let object = state.objects.get(&pod_key(namespace, pod))?;
        Some(
            object
                .metadata
                .pointer("/labels/kubevirt.io~1domain")
                .is_some(),
        )
    }

    /// Waits out a reboot's delay (Cancelled if cancelled meanwhile), then fails the
    /// reboot of `target` if a fault is injected for it.
    async fn reboot_delay(
        &self,
        target: &str,
        delay: Duration,
        cancel: &CancellationToken,
        symptom: &str,
    ) -> Result<(), ActionFailure> {
        if !wait(delay, cancel).await {
            return Err(ActionFailure::new(
                "Cancelled",
                "cancelled during the reboot delay",
            ));
        }
        if self.faulty(target, "Reboot") {
            let message = format!("reboot of {target} failed: {symptom} (injected fault)");
            return Err(ActionFailure::new("RebootFailed", message));
        }
        Ok(())
    }

    /// Restarts pods: NotReady, restart count up, Ready again after the readiness
    /// delay. False if none of them exists.
    fn restart(&self, pods: &[Key]) -> bool {
        let mut state = self.lock();
        let mut touched = Vec::new();
        for key in pods {
            let uid = state.next_uid;
            state.next_uid += 1;
            let Some(object) = state.objects.get_mut(key) else {
                continue;
            };
            let count = restarts(&object.status) + 1;
            object.status = pod_status("Running", false, "Rebooting", count).into();
            object.uid = uid;
            touched.push((
                key.clone(),
                uid,
                object.owner.clone(),
                object.deployment.clone(),
            ));
        }
        for (key, uid, owner, _) in &touched {
            if let Some(owner) = owner {
                self.update_owner_status(&mut state, owner);
            }
            self.schedule_ready(&state, key.clone(), *uid);
        }
        drop(state);
        let mut ids: Vec<Option<String>> = touched.iter().map(|t| t.3.clone()).collect();
        ids.dedup();
        for id in ids {
            self.notify(id);
        }
        !touched.is_empty() || pods.is_empty()
    }

    /// Waits until every pod of `pods` that still exists is Ready: woken per pod when
    /// it turns Ready or goes away, not by polling and not by every other pod's news.
    async fn await_ready(&self, pods: &[Key]) -> Result<(), ActionFailure> {
        let deadline = tokio::time::Instant::now() + self.lock().pod_ready_delay + READY_TIMEOUT;
        loop {
            // Registered under the lock that the check holds, so no change slips between.
            let woken: Vec<_> = {
                let mut state = self.lock();
                let pending: Vec<&Key> = pods
                    .iter()
                    .filter(|key| {
                        state.objects.get(*key).is_some_and(|o| {
                            o.status
                                .pointer("/conditions/0/status")
                                .and_then(Value::as_str)
                                != Some("True")
                        })
                    })
                    .collect();
                pending.into_iter().map(|key| state.wait_for(key)).collect()
            };
            if woken.is_empty() {
                return Ok(());
            }
            let all = futures::future::join_all(woken);
            if tokio::time::timeout_at(deadline, all).await.is_err() {
                return Err(ActionFailure::new(
                    "RebootTimedOut",
                    "the pods did not become Ready again",
                ));
            }
        }
    }
}

impl ActionBackend for SimCluster {
    /// Reboots a pod (see the module doc); Ok once it is Ready again.
    async fn reboot_pod(
        &self,
        pod: &PodRef,
        delay: Duration,
        cancel: &CancellationToken,
    ) -> Result<(), ActionFailure> {
        let (namespace, pod) = (pod.namespace.as_str(), pod.name.as_str());
        if self.is_vm_pod(namespace, pod).is_none() {
            return Err(ActionFailure::new(
                "PodNotFound",
                format!("pod {pod} does not exist"),
            ));
        }
        self.reboot_delay(pod, delay, cancel, "the guest did not come back")
            .await?;
        let key = pod_key(namespace, pod);
        if !self.restart(std::slice::from_ref(&key)) {
            return Err(ActionFailure::new(
                "PodNotFound",
                format!("pod {pod} disappeared"),
            ));
        }
        self.await_ready(&[key]).await
    }

    /// Reboots a node: every pod on it restarts; Ok once they are all Ready again.
    async fn reboot_node(
        &self,
        node: &NodeName,
        delay: Duration,
        cancel: &CancellationToken,
    ) -> Result<(), ActionFailure> {
        if !self.nodes().iter().any(|n| node == n) {
            return Err(ActionFailure::new(
                "NodeNotFound",
                format!("node {node} does not exist"),
            ));
        }
        self.reboot_delay(node, delay, cancel, "it did not come back")
            .await?;
        let pods: Vec<Key> = {
            let state = self.lock();
            state
                .objects
                .iter()
                .filter(|(key, o)| {
                    key.0 == "Pod" && o.spec.get("nodeName").and_then(Value::as_str) == Some(node)
                })
                .map(|(key, _)| key.clone())
                .collect()
        };
        self.restart(&pods);
        self.await_ready(&pods).await
    }

    /// Snapshots a VM pod to `location`; the file is named after the pod and `id`.
    async fn snapshot_pod(
        &self,
        request: SnapshotRequest<'_>,
        cancel: &CancellationToken,
    ) -> Result<Snapshot, ActionFailure> {
        let (namespace, pod) = (request.pod.namespace.as_str(), request.pod.name.as_str());
        let (location, id) = (request.location, request.id);
        match self.is_vm_pod(namespace, pod) {
            None => {
                return Err(ActionFailure::new(
                    "PodNotFound",
                    format!("pod {pod} does not exist"),
                ));
            }
            Some(false) => {
                return Err(ActionFailure::new(
                    "NotAVirtualMachine",
                    format!("pod {pod} is not a VM pod"),
                ));
            }
            Some(true) => {}
        }
        let namespace = if namespace.is_empty() {
            "default"
        } else {
            namespace
        };
        let short: String = id.chars().filter(|c| *c != '-').take(12).collect();
        let path = format!(
            "{}/{namespace}-{pod}-{short}.qcow2",
            location.trim_end_matches('/')
        );
        if self.faulty(pod, "Snapshot") {
            return Err(ActionFailure::new(
                "OutOfSpace",
                format!("no space left on device writing {path} (injected fault)"),
            ));
        }
        let digest = Sha256::digest(format!("{namespace}/{pod}").as_bytes());
        let mib = 256 + u64::from(u16::from_be_bytes([digest[0], digest[1]])) % 1793;
        let size = mib << 20;
        let duration = Duration::from_secs_f64(size as f64 / SNAPSHOT_BYTES_PER_SECOND as f64);
        if !wait(duration, cancel).await {
            return Err(ActionFailure::new(
                "Cancelled",
                "cancelled while writing the snapshot",
            ));
        }
        Ok(Snapshot {
            size_in_bytes: size as i64,
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::render::DEPLOYMENT_ID_LABEL;

    fn pod_ref(name: &str) -> PodRef {
        PodRef {
            namespace: Default::default(),
            name: name.into(),
        }
    }

    fn snapshot_of<'a>(pod: &'a PodRef, location: &'a str, id: &'a str) -> SnapshotRequest<'a> {
        SnapshotRequest { pod, location, id }
    }

    fn vm(name: &str, replicas: i64) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": {DEPLOYMENT_ID_LABEL: "i-vm"}},
            "spec": {"replicas": replicas, "template": {"metadata": {"labels": {"kubevirt.io/domain": name}}}}
        })
    }

    fn pod(sim: &SimCluster, name: &str) -> Value {
        sim.bundle("i-vm")
            .into_iter()
            .find(|o| o.gvk.kind == "Pod" && o.name == name)
            .map(|o| json!({"spec": o.spec, "status": o.status, "metadata": o.metadata}))
            .unwrap_or(Value::Null)
    }

    #[tokio::test]
    async fn pods_are_scheduled_round_robin_and_reboot_restarts_them() {
        let (sim, _changes) = SimCluster::with_nodes(
            Duration::from_millis(20),
            super::super::cluster::node_names("c1", 3),
        );
        sim.apply(&vm("db", 4), 1).unwrap();
        let nodes: Vec<String> = (0..4)
            .map(|i| {
                pod(&sim, &format!("db-{i}"))["spec"]["nodeName"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(nodes, ["c1-node-0", "c1-node-1", "c1-node-2", "c1-node-0"]);
        tokio::time::sleep(Duration::from_millis(60)).await;
        let cancel = CancellationToken::new();
        let db = pod_ref("db-0");
        let reboot = sim.reboot_pod(&db, Duration::ZERO, &cancel);
        tokio::pin!(reboot);
        // While rebooting: NotReady, restart count 1.
        tokio::select! {
            _ = &mut reboot => panic!("a reboot waits for readiness"),
            () = tokio::time::sleep(Duration::from_millis(5)) => {}
        }
        let status = pod(&sim, "db-0")["status"].clone();
        assert_eq!(status["conditions"][0]["status"], "False");
        assert_eq!(status["containerStatuses"][0]["restartCount"], 1);
        reboot.await.unwrap();
        assert_eq!(
            pod(&sim, "db-0")["status"]["conditions"][0]["status"],
            "True"
        );
        // A node reboot restarts the pods on the node only.
        sim.reboot_node(&"c1-node-0".into(), Duration::ZERO, &cancel)
            .await
            .unwrap();
        assert_eq!(
            pod(&sim, "db-0")["status"]["containerStatuses"][0]["restartCount"],
            2
        );
        assert_eq!(
            pod(&sim, "db-3")["status"]["containerStatuses"][0]["restartCount"],
            1
        );
        assert_eq!(
            pod(&sim, "db-1")["status"]["containerStatuses"][0]["restartCount"],
            0
        );
    }

    #[tokio::test]
    async fn snapshots_take_time_by_size_and_faults_fail_actions() {
        let (sim, _changes) = SimCluster::new(Duration::from_millis(1));
        sim.apply(&vm("db", 1), 1).unwrap();
        let cancel = CancellationToken::new();
        let db = pod_ref("db-0");
        let started = std::time::Instant::now();
        let snapshot = sim
            .snapshot_pod(snapshot_of(&db, "/var/tmp/", "0190-abcd"), &cancel)
            .await
            .unwrap();
        let expected = Duration::from_secs_f64(
            snapshot.size_in_bytes as f64 / SNAPSHOT_BYTES_PER_SECOND as f64,
        );
        assert!(started.elapsed() >= expected);
        assert!((256 << 20..=2048 << 20).contains(&snapshot.size_in_bytes));
        assert_eq!(snapshot.path, "/var/tmp/default-db-0-0190abcd.qcow2");
        sim.fail_actions("db-*", "Snapshot");
        let failed = sim
            .snapshot_pod(snapshot_of(&db, "/var/tmp", "x"), &cancel)
            .await
            .unwrap_err();
        assert_eq!(failed.reason, "OutOfSpace");
        sim.reboot_pod(&pod_ref("db-0"), Duration::ZERO, &cancel)
            .await
            .unwrap();
        sim.fail_actions("*", "");
        assert_eq!(
            sim.reboot_pod(&pod_ref("db-0"), Duration::ZERO, &cancel)
                .await
                .unwrap_err()
                .reason,
            "RebootFailed"
        );
        sim.fail_actions("", "");
        // Cancelled during the delay.
        cancel.cancel();
        let cancelled = sim
            .reboot_pod(&pod_ref("db-0"), Duration::from_secs(60), &cancel)
            .await
            .unwrap_err();
        assert_eq!(cancelled.reason, "Cancelled");
        assert_eq!(
            sim.reboot_pod(&pod_ref("nope"), Duration::ZERO, &CancellationToken::new())
                .await
                .unwrap_err()
                .reason,
            "PodNotFound"
        );
    }
}
