//! Actions on a Kubernetes cluster, through KubeVirt's API. A VM pod is KubeVirt's
//! virt-launcher pod of a VirtualMachine (label `kubevirt.io/domain` or
//! `vm.kubevirt.io/name`, as KubeVirt sets them):
//!
//! - **Reboot**: after the delay, the VirtualMachine's `restart` subresource
//!   (`subresources.kubevirt.io/v1`); done once a virt-launcher pod of the VM runs
//!   Ready again.
//! - **Snapshot**: a `VirtualMachineSnapshot` (`snapshot.kubevirt.io/v1beta1`) named
//!   after the action, followed until its phase is `Succeeded` (or `Failed`); the size
//!   is the sum of its volume snapshots' `restoreSize`, and the path reported is the
//!   snapshot object (KubeVirt's VolumeSnapshotClass decides where the bytes go; the
//!   requested location is kept in its `flotilla/snapshot-location` annotation).
//!
//! Without KubeVirt's API (no CRDs) both fail with `KubeVirtNotInstalled`; a pod that is
//! not a VM pod with `NotAVirtualMachine`. Node reboots are refused
//! (`NodeRebootUnsupported`): Kubernetes has no API to reboot a node.

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{FIELD_MANAGER, KubeCluster, describe, is_not_found};
use crate::agent::backend::{ActionFailure, Snapshot, SnapshotRequest};
use crate::domain::access::PodRef;
use crate::domain::manifest::Gvk;

/// How long a reboot or snapshot may take.
const ACTION_TIMEOUT: Duration = Duration::from_secs(600);
/// How often progress is read.
const POLL: Duration = Duration::from_millis(250);

fn gvk(group: &str, version: &str, kind: &str) -> Gvk {
    Gvk {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
    }
}

/// Waits `duration` unless cancelled first.
async fn wait(duration: Duration, cancel: &CancellationToken) -> Result<(), ActionFailure> {
    tokio::select! {
        () = tokio::time::sleep(duration) => Ok(()),
        () = cancel.cancelled() => Err(ActionFailure::new("Cancelled", "the action was cancelled")),
    }
}

fn api_failure(error: &kube::Error) -> ActionFailure {
    ActionFailure::new("ApiError", describe(error))
}

impl KubeCluster {
    /// The VirtualMachine a VM pod runs: (namespace, VM name).
    async fn vm_of(&self, pod: &PodRef) -> Result<(String, String), ActionFailure> {
        let namespace = if pod.namespace.is_empty() {
            "default"
        } else {
            &pod.namespace
        };
        let pod = pod.name.as_str();
        let pods: Api<Pod> = Api::namespaced(self.client().clone(), namespace);
        let found = pods
            .get_opt(pod)
            .await
            .map_err(|e| api_failure(&e))?
            .ok_or_else(|| {
                ActionFailure::new(
                    "PodNotFound",
                    format!("pod {namespace}/{pod} does not exist"),
                )
            })?;
        let labels = found.metadata.labels.unwrap_or_default();
        let vm = labels
            .get("vm.kubevirt.io/name")
            .or_else(|| labels.get("kubevirt.io/domain"))
            .cloned()
            .ok_or_else(|| {
                ActionFailure::new(
                    "NotAVirtualMachine",
                    format!("pod {pod} is not a KubeVirt VM pod (no kubevirt.io/domain label)"),
                )
            })?;
        // KubeVirt serves VirtualMachines only where it is installed.
        match self
            .resource(&gvk("kubevirt.io", "v1", "VirtualMachine"))
            .await
        {
            Ok(_) => Ok((namespace.to_string(), vm)),
            Err(error) if is_not_found(&error) => Err(ActionFailure::new(
                "KubeVirtNotInstalled",
                "the cluster does not serve kubevirt.io/v1 VirtualMachines: install KubeVirt to reboot or snapshot VMs",
            )),
            Err(error) => Err(api_failure(&error)),
        }
    }

    /// Whether a virt-launcher pod of `vm` other than `old` runs Ready.
    async fn vm_pod_ready(
        &self,
        namespace: &str,
        vm: &str,
        old: &str,
    ) -> Result<bool, ActionFailure> {
        let pods: Api<Pod> = Api::namespaced(self.client().clone(), namespace);
        let listed = pods
            .list(&ListParams::default().labels(&format!("kubevirt.io/domain={vm}")))
            .await
            .map_err(|e| api_failure(&e))?;
        Ok(listed.items.iter().any(|pod| {
            pod.metadata.name.as_deref() != Some(old)
                && pod.metadata.deletion_timestamp.is_none()
                && pod
                    .status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        }))
    }

    pub(super) async fn kubevirt_reboot(
        &self,
        pod: &PodRef,
        delay: Duration,
        cancel: &CancellationToken,
    ) -> Result<(), ActionFailure> {
        let (namespace, vm) = self.vm_of(pod).await?;
        wait(delay, cancel).await?;
        let url = format!(
            "/apis/subresources.kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{vm}/restart"
        );
        let request = http::Request::put(url)
            .header("content-type", "application/json")
            .body(b"{}".to_vec())
            .map_err(|e| ActionFailure::new("ApiError", e.to_string()))?;
        self.client()
            .request_text(request)
            .await
            .map_err(|e| ActionFailure::new("RebootFailed", describe(&e)))?;
        let deadline = tokio::time::Instant::now() + ACTION_TIMEOUT;
        loop {
            wait(POLL, cancel).await?;
            if self.vm_pod_ready(&namespace, &vm, &pod.name).await? {
                return Ok(());
            }
            if tokio::time::Instant::now() > deadline {
                return Err(ActionFailure::new(
                    "RebootTimedOut",
                    format!(
                        "VM {vm} did not run Ready again within {} s",
                        ACTION_TIMEOUT.as_secs()
                    ),
                ));
            }
        }
    }

    pub(super) async fn kubevirt_snapshot(
        &self,
        request: SnapshotRequest<'_>,
        cancel: &CancellationToken,
    ) -> Result<Snapshot, ActionFailure> {
        let (location, id) = (request.location, request.id);
        let (namespace, vm) = self.vm_of(request.pod).await?;
        let snapshot_gvk = gvk("snapshot.kubevirt.io", "v1beta1", "VirtualMachineSnapshot");
        let (snapshots, _) = self.api(&snapshot_gvk, &namespace).await.map_err(|error| {
            if is_not_found(&error) {
                ActionFailure::new(
                    "KubeVirtNotInstalled",
                    "the cluster does not serve snapshot.kubevirt.io/v1beta1 VirtualMachineSnapshots",
                )
            } else {
                api_failure(&error)
            }
        })?;
        let name = format!("flotilla-{id}");
        let manifest = json!({
            "apiVersion": "snapshot.kubevirt.io/v1beta1",
            "kind": "VirtualMachineSnapshot",
            "metadata": {"name": name, "annotations": {"flotilla/snapshot-location": location}},
            "spec": {"source": {"apiGroup": "kubevirt.io", "kind": "VirtualMachine", "name": vm}},
        });
        // Applied, so a retried action finds the same snapshot.
        snapshots
            .patch(
                &name,
                &PatchParams::apply(FIELD_MANAGER),
                &Patch::Apply(&manifest),
            )
            .await
            .map_err(|e| ActionFailure::new("SnapshotFailed", describe(&e)))?;
        let deadline = tokio::time::Instant::now() + ACTION_TIMEOUT;
        loop {
            wait(POLL, cancel).await?;
            let snapshot = snapshots.get(&name).await.map_err(|e| api_failure(&e))?;
            let status = snapshot.data.get("status").cloned().unwrap_or(Value::Null);
            match status.get("phase").and_then(Value::as_str) {
                Some("Succeeded") => {
                    let size = self.snapshot_size(&namespace, &status).await?;
                    return Ok(Snapshot {
                        size_in_bytes: size,
                        path: format!(
                            "snapshot.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachinesnapshots/{name}"
                        ),
                    });
                }
                Some("Failed") => {
                    let error = status
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or("KubeVirt reported the snapshot Failed");
                    return Err(ActionFailure::new("SnapshotFailed", error));
                }
                _ if tokio::time::Instant::now() > deadline => {
                    return Err(ActionFailure::new(
                        "SnapshotTimedOut",
                        format!(
                            "snapshot {name} did not succeed within {} s",
                            ACTION_TIMEOUT.as_secs()
                        ),
                    ));
                }
                _ => {}
            }
        }
    }

    /// The bytes of a succeeded snapshot: its content's volume snapshots' restoreSize.
    async fn snapshot_size(&self, namespace: &str, status: &Value) -> Result<i64, ActionFailure> {
        let Some(content) = status
            .get("virtualMachineSnapshotContentName")
            .and_then(Value::as_str)
        else {
            return Ok(0);
        };
        let content_gvk = gvk(
            "snapshot.kubevirt.io",
            "v1beta1",
            "VirtualMachineSnapshotContent",
        );
        let (contents, _) = self
            .api(&content_gvk, namespace)
            .await
            .map_err(|e| api_failure(&e))?;
        let content: DynamicObject = contents.get(content).await.map_err(|e| api_failure(&e))?;
        let volume_gvk = gvk("snapshot.storage.k8s.io", "v1", "VolumeSnapshot");
        let (volumes, _) = self
            .api(&volume_gvk, namespace)
            .await
            .map_err(|e| api_failure(&e))?;
        let mut total = 0;
        let names: Vec<String> = content
            .data
            .pointer("/status/volumeSnapshotStatus")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.get("volumeSnapshotName").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        for name in names {
            let volume = volumes.get(&name).await.map_err(|e| api_failure(&e))?;
            if let Some(size) = volume
                .data
                .pointer("/status/restoreSize")
                .and_then(Value::as_str)
            {
                total += parse_quantity(size).unwrap_or(0);
            }
        }
        Ok(total)
    }
}

/// Bytes of a Kubernetes quantity ("10Gi", "512M", "1073741824").
pub fn parse_quantity(text: &str) -> Option<i64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let factor: f64 = match suffix {
        "" => 1.0,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some((number * factor) as i64)
}

#[cfg(test)]
mod tests {
    use super::parse_quantity;

    #[test]
    fn quantities() {
        assert_eq!(parse_quantity("1Gi"), Some(1 << 30));
        assert_eq!(parse_quantity("512Mi"), Some(512 << 20));
        assert_eq!(parse_quantity("2G"), Some(2_000_000_000));
        assert_eq!(parse_quantity("1073741824"), Some(1 << 30));
        assert_eq!(parse_quantity("3Zi"), None);
    }
}
