//! What an agent drives: a cluster backend behind the agent protocol. The session
//! (`runner`) and the action executor are the same for every backend; a backend applies
//! and deletes resources, keeps what its monitor observed (the ResourceBundleStates it
//! reports, one per `flotilla/deployment-id`), names the deployment ids that changed
//! on the channel it was built with, and executes actions on its pods and nodes.
//!
//! Backends: [`crate::sim::SimCluster`] (in memory) and [`crate::k8s::KubeCluster`]
//! (a Kubernetes API server through kube-rs).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use flotilla_api::v1 as pb;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::domain::access::PodRef;
use crate::domain::manifest::Gvk;
use crate::domain::names::NodeName;

/// A resource as a backend's monitor reports it (one entry of a ResourceBundleState).
///
/// Its documents are shared: a monitor keeps one copy per object version, and every
/// bundle of it (taken on each change of its deployment) and the agent's last sent
/// state hold the same one. A clone is then a few reference counts, and comparing an
/// unchanged object with what was sent is a pointer comparison (`Arc`'s equality
/// checks identity first), so reporting a change costs what changed, not the bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub gvk: Gvk,
    pub namespace: String,
    pub name: String,
    pub metadata: Arc<Value>,
    pub spec: Arc<Value>,
    pub status: Arc<Value>,
}

/// Why an action failed: a CamelCase reason and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionFailure {
    pub reason: &'static str,
    pub message: String,
}

impl ActionFailure {
    pub fn new(reason: &'static str, message: impl Into<String>) -> ActionFailure {
        ActionFailure {
            reason,
            message: message.into(),
        }
    }
}

/// What a snapshot action asks of a cluster: the VM pod to snapshot, where to write
/// it, and the action's uid `id`, which names the snapshot (a retried action finds
/// the same one).
#[derive(Debug, Clone, Copy)]
pub struct SnapshotRequest<'a> {
    pub pod: &'a PodRef,
    pub location: &'a str,
    pub id: &'a str,
}

/// A written snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub size_in_bytes: i64,
    pub path: String,
}

/// The imperative actions a cluster runs on its workloads (reboot, snapshot); each
/// waits until the action is done and can be cancelled.
pub trait ActionBackend: Send + Sync + 'static {
    /// Reboots a pod: Ok once it runs (Ready) again.
    fn reboot_pod(
        &self,
        pod: &PodRef,
        delay: Duration,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<(), ActionFailure>> + Send;

    /// Reboots a node: Ok once its pods run again.
    fn reboot_node(
        &self,
        node: &NodeName,
        delay: Duration,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<(), ActionFailure>> + Send;

    /// Snapshots a VM pod as `request` says.
    fn snapshot_pod(
        &self,
        request: SnapshotRequest<'_>,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<Snapshot, ActionFailure>> + Send;
}

/// A cluster an agent serves: what it holds and reports, and its actions.
/// What an accepted apply did to the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The object was created or changed.
    Written,
    /// The object already held this (or a newer) desired state: nothing was written,
    /// as an apply that changes nothing writes nothing in Kubernetes.
    Unchanged,
    /// Accepted; whether it changed the object is not known (server-side apply answers
    /// the object either way).
    Accepted,
}

impl Applied {
    pub fn as_str(self) -> &'static str {
        match self {
            Applied::Written => "written",
            Applied::Unchanged => "unchanged",
            Applied::Accepted => "accepted",
        }
    }
}

pub trait ClusterBackend: ActionBackend {
    /// The backend's name in the agent's hello (`sim`, `kube`).
    fn name(&self) -> &'static str;

    /// The cluster's version, when it has one (a Kubernetes server's `gitVersion`).
    fn version(&self) -> String {
        String::new()
    }

    /// Whether the cluster answers. An agent whose cluster stops answering ends its
    /// session (the server holds the cluster's resources Retrying) and reconnects once
    /// it answers again.
    fn reachable(&self) -> bool {
        true
    }

    /// The cluster's node names.
    fn nodes(&self) -> Vec<String>;

    /// The deployment ids the cluster holds resources of.
    fn deployment_ids(&self) -> Vec<String>;

    /// What the monitor last observed of a deployment id (a ResourceBundleState).
    fn bundle(&self, deployment_id: &str) -> Vec<Observed>;

    /// Reports `deployment_id` again (it goes out as after a change).
    fn report(&self, deployment_id: &str);

    /// Applies `manifest` of desired-state `generation`: Ok once the cluster accepted
    /// it (and whether that wrote anything, when the backend can tell), Err with the
    /// cluster's reason when it refused it.
    fn apply(
        &self,
        manifest: Value,
        generation: i64,
    ) -> impl Future<Output = Result<Applied, String>> + Send;

    /// Deletes a resource: Ok once it is gone (or was never there).
    fn delete(
        &self,
        gvk: Gvk,
        namespace: String,
        name: String,
    ) -> impl Future<Output = Result<(), String>> + Send;

    /// A SimulatorService fault; only the sim backend takes them.
    fn simulate(&self, command: pb::simulator_command::Command) {
        tracing::warn!(
            backend = self.name(),
            ?command,
            "a simulator command reached a backend that is not simulated; ignored"
        );
    }
}
