//! The `kube` backend of `flotilla-agent`: a Kubernetes cluster through its API server
//! (kube-rs).
//!
//! - **Apply** is server-side apply under Flotilla's own field manager. Fields another
//!   manager owns are a conflict the API server reports, and the resource ends Failed
//!   with its message; `force` only with `--force-conflicts`. A namespace that a
//!   manifest names and the cluster lacks is created first. Workload templates
//!   (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, KubeVirt VirtualMachine)
//!   carry the deployment-id label down to their pods, so the monitor sees them; an id
//!   longer than a label value may be is bounded in the label and kept whole in an
//!   annotation ([`labels`]).
//! - **Delete** is foreground (dependents first), then waits until the object is gone.
//! - **Monitor** ([`monitor`]): a watch per monitored kind, restricted to objects with the
//!   `flotilla/deployment-id` label, resumed from its resourceVersion and re-listed after
//!   `410 Gone`. An object this agent applied that disappears behind its back is applied
//!   again (the desired state it holds is the server's).
//! - **Actions** ([`actions`]): KubeVirt's API for VM pods; node reboots are refused.
//!
//! An API server that cannot be reached is retried (with backoff) until the session
//! ends: whether the cluster's resources are Retrying is the session's call, not a
//! Failed of each resource.

pub mod actions;
mod labels;
pub mod monitor;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PropagationPolicy};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::{ApiResource, GroupVersionKind};
use kube::discovery::{ApiCapabilities, Scope};
use kube::{Client, Config};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::agent::backend::{
    ActionBackend, ActionFailure, Applied, ClusterBackend, Observed, Snapshot, SnapshotRequest,
};
use crate::domain::access::PodRef;
use crate::domain::manifest::{Gvk, applied_identity};
use crate::domain::names::NodeName;

/// Flotilla's field manager for server-side apply.
pub const FIELD_MANAGER: &str = "flotilla";
/// API calls in flight at once.
const CONCURRENT_CALLS: usize = 32;
/// How long an object deleted behind the agent's back stays deleted before the agent
/// applies it again (the deletion is reported meanwhile; a human deleting by mistake
/// sees it come back, and an agent never fights another writer in a tight loop).
const HEAL_AFTER: Duration = Duration::from_secs(1);
/// How long a delete waits for the object to be gone.
const DELETE_TIMEOUT: Duration = Duration::from_secs(300);

/// How to reach the cluster.
#[derive(Debug, Clone, Default)]
pub struct KubeOptions {
    /// A kubeconfig file; without it, `KUBECONFIG` or `~/.kube/config`, else the
    /// in-cluster service account.
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (default: its current context).
    pub context: Option<String>,
    /// Take over fields other managers own (server-side apply's `force`).
    pub force_conflicts: bool,
    /// How long the API server may go unanswering before the agent ends its session
    /// (the server then holds the cluster's resources Retrying); zero: the default.
    pub unreachable_after: Duration,
    /// Objects per page of the monitor's lists; zero: the default.
    pub list_page_size: u32,
}

/// The default of [`KubeOptions::list_page_size`] (client-go's).
const LIST_PAGE_SIZE: u32 = 500;

/// The default of [`KubeOptions::unreachable_after`].
const UNREACHABLE_AFTER: Duration = Duration::from_secs(10);

/// An object's identity: kind, group, namespace, name.
pub(crate) type ObjectKey = (String, String, String, String);

/// The [`ObjectKey`] of `gvk`'s object `namespace`/`name`.
pub(crate) fn object_key(gvk: &Gvk, namespace: &str, name: &str) -> ObjectKey {
    (
        gvk.kind.clone(),
        gvk.group.clone(),
        namespace.to_string(),
        name.to_string(),
    )
}

/// The desired state this agent applied of an object.
#[derive(Debug, Clone)]
struct Desired {
    manifest: Value,
    generation: i64,
}

/// A Kubernetes cluster as an agent's backend.
pub struct KubeCluster {
    client: Client,
    version: String,
    force_conflicts: bool,
    /// Discovery, per group/version/kind.
    resources: Mutex<HashMap<Gvk, (ApiResource, ApiCapabilities)>>,
    /// Namespaces known to exist.
    namespaces: Mutex<HashSet<String>>,
    /// What this agent applied (and has not deleted since), per object.
    desired: Mutex<HashMap<ObjectKey, Desired>>,
    /// One operation per object at a time.
    object_locks: Mutex<HashMap<ObjectKey, Arc<tokio::sync::Mutex<()>>>>,
    calls: Semaphore,
    monitor: monitor::Monitor,
    /// Since when (µs) calls and watches get no answer; 0 while it answers.
    unanswered_since: std::sync::atomic::AtomicI64,
    unreachable_after: Duration,
    list_page_size: u32,
}

/// Why the cluster refused or failed an operation, as the resource's error.
fn describe(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!(
            "the API server refused it ({} {}): {}",
            status.code, status.reason, status.message
        ),
        other => other.to_string(),
    }
}

/// Whether `error` is the API server's answer (rather than no answer).
fn answered(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(_))
}

fn is_not_found(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == 404)
}

/// The client for `options`: the kubeconfig file or context given, else kube's
/// inference (KUBECONFIG, ~/.kube/config, then the in-cluster service account).
pub async fn client(options: &KubeOptions) -> anyhow::Result<Client> {
    let kube_options = KubeConfigOptions {
        context: options.context.clone(),
        ..Default::default()
    };
    let config = match &options.kubeconfig {
        Some(path) => {
            let kubeconfig = Kubeconfig::read_from(path)
                .map_err(|e| anyhow::anyhow!("kubeconfig {}: {e}", path.display()))?;
            Config::from_custom_kubeconfig(kubeconfig, &kube_options).await?
        }
        None if options.context.is_some() => Config::from_kubeconfig(&kube_options).await?,
        None => Config::infer().await?,
    };
    Ok(Client::try_from(config)?)
}

impl KubeCluster {
    /// Connects (the API server must answer), starts the monitor, and returns the
    /// cluster with the channel of deployment ids that changed.
    pub async fn connect(
        options: &KubeOptions,
    ) -> anyhow::Result<(Arc<KubeCluster>, mpsc::UnboundedReceiver<String>)> {
        let client = client(options).await?;
        let version = client
            .apiserver_version()
            .await
            .map_err(|e| anyhow::anyhow!("the Kubernetes API server does not answer: {e}"))?
            .git_version;
        info!(%version, "connected to the Kubernetes API server");
        let (changes, receiver) = mpsc::unbounded_channel();
        let cluster = Arc::new_cyclic(|this| KubeCluster {
            client: client.clone(),
            version,
            force_conflicts: options.force_conflicts,
            resources: Mutex::default(),
            namespaces: Mutex::default(),
            desired: Mutex::default(),
            object_locks: Mutex::default(),
            calls: Semaphore::new(CONCURRENT_CALLS),
            monitor: monitor::Monitor::new(changes, this.clone()),
            unanswered_since: Default::default(),
            unreachable_after: if options.unreachable_after.is_zero() {
                UNREACHABLE_AFTER
            } else {
                options.unreachable_after
            },
            list_page_size: if options.list_page_size == 0 {
                LIST_PAGE_SIZE
            } else {
                options.list_page_size
            },
        });
        cluster.monitor.start(&cluster).await?;
        tokio::spawn(probe(Arc::downgrade(&cluster)));
        Ok((cluster, receiver))
    }

    /// The API server answered (anything, an error included).
    pub(crate) fn answered(&self) {
        self.unanswered_since
            .store(0, std::sync::atomic::Ordering::Relaxed);
    }

    /// A call or watch got no answer.
    pub(crate) fn unanswered(&self) {
        self.unanswered_from(crate::store::now_micros());
    }

    /// A call sent at `sent` (µs) got no answer.
    fn unanswered_from(&self, sent: i64) {
        let _ = self.unanswered_since.compare_exchange(
            0,
            sent,
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Whether the API server answered within `unreachable_after`.
    fn answering(&self) -> bool {
        let since = self
            .unanswered_since
            .load(std::sync::atomic::Ordering::Relaxed);
        since == 0 || crate::store::now_micros() - since < self.unreachable_after.as_micros() as i64
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// Objects per page of the monitor's lists.
    pub(crate) fn list_page_size(&self) -> u32 {
        self.list_page_size
    }

    pub(crate) fn monitor(&self) -> &monitor::Monitor {
        &self.monitor
    }

    /// The API resource serving `gvk` (discovery, cached); Err when the cluster does
    /// not serve it.
    pub(crate) async fn resource(
        &self,
        gvk: &Gvk,
    ) -> Result<(ApiResource, ApiCapabilities), kube::Error> {
        if let Some(found) = self.resources.lock().expect("resources lock").get(gvk) {
            return Ok(found.clone());
        }
        let found = kube::discovery::pinned_kind(
            &self.client,
            &GroupVersionKind::gvk(&gvk.group, &gvk.version, &gvk.kind),
        )
        .await?;
        self.resources
            .lock()
            .expect("resources lock")
            .insert(gvk.clone(), found.clone());
        Ok(found)
    }

    /// The API of `gvk` in `namespace` (ignored for cluster-scoped kinds).
    pub(crate) async fn api(
        &self,
        gvk: &Gvk,
        namespace: &str,
    ) -> Result<(Api<DynamicObject>, String), kube::Error> {
        let (resource, capabilities) = self.resource(gvk).await?;
        Ok(match capabilities.scope {
            Scope::Namespaced => {
                let namespace = if namespace.is_empty() {
                    "default"
                } else {
                    namespace
                };
                (
                    Api::namespaced_with(self.client.clone(), namespace, &resource),
                    namespace.to_string(),
                )
            }
            Scope::Cluster => (Api::all_with(self.client.clone(), &resource), String::new()),
        })
    }

    fn object_lock(&self, key: &ObjectKey) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.object_locks.lock().expect("object locks");
        // Forget locks nobody holds, so the map stays as large as the work in flight.
        if locks.len() > 4 * CONCURRENT_CALLS {
            locks.retain(|_, lock| Arc::strong_count(lock) > 1);
        }
        locks.entry(key.clone()).or_default().clone()
    }

    /// Runs `call` until the API server answers: transport errors are retried with
    /// backoff (the session decides what an unreachable cluster means).
    async fn until_answered<T, F, Fut>(&self, what: &str, mut call: F) -> Result<T, kube::Error>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, kube::Error>>,
    {
        let mut backoff = Duration::from_millis(200);
        loop {
            let result = {
                let _permit = self.calls.acquire().await.expect("never closed");
                call().await
            };
            match result {
                Err(error) if !answered(&error) => {
                    self.unanswered();
                    warn!(%what, %error, "the API server did not answer; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
                other => {
                    self.answered();
                    return other;
                }
            }
        }
    }

    /// Creates `namespace` unless it is known to exist.
    async fn ensure_namespace(&self, namespace: &str) -> Result<(), String> {
        if namespace.is_empty()
            || self
                .namespaces
                .lock()
                .expect("namespaces lock")
                .contains(namespace)
        {
            return Ok(());
        }
        // One check per namespace at a time (a burst of applies into a new namespace).
        let lock = self.object_lock(&(
            "Namespace".into(),
            String::new(),
            String::new(),
            namespace.into(),
        ));
        let _held = lock.lock().await;
        if self
            .namespaces
            .lock()
            .expect("namespaces lock")
            .contains(namespace)
        {
            return Ok(());
        }
        let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(self.client.clone());
        let exists = self
            .until_answered("get namespace", || api.get_opt(namespace))
            .await
            .map_err(|e| describe(&e))?
            .is_some();
        if !exists {
            let params = PatchParams::apply(FIELD_MANAGER);
            let manifest =
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
            let patch = Patch::Apply(&manifest);
            self.until_answered("create namespace", || api.patch(namespace, &params, &patch))
                .await
                .map_err(|e| format!("creating namespace {namespace}: {}", describe(&e)))?;
            info!(%namespace, "created a namespace a manifest needs");
        }
        self.namespaces
            .lock()
            .expect("namespaces lock")
            .insert(namespace.to_string());
        Ok(())
    }

    /// Applies `manifest` (server-side apply); see the module doc.
    async fn apply_manifest(&self, manifest: Value, generation: i64) -> Result<(), String> {
        let (gvk, namespace, name) = applied_identity(&manifest)?;
        let key = object_key(&gvk, &namespace, &name);
        let lock = self.object_lock(&key);
        let _held = lock.lock().await;
        if self
            .desired
            .lock()
            .expect("desired lock")
            .get(&key)
            .is_some_and(|d| d.generation > generation)
        {
            return Ok(());
        }
        let manifest = labels::for_cluster(manifest);
        let (api, namespace) = self
            .until_answered("discovery", || self.api(&gvk, &namespace))
            .await
            .map_err(|e| {
                if is_not_found(&e) {
                    format!(
                        "the cluster does not serve {} {}",
                        gvk.api_version(),
                        gvk.kind
                    )
                } else {
                    describe(&e)
                }
            })?;
        self.ensure_namespace(&namespace).await?;
        let mut params = PatchParams::apply(FIELD_MANAGER);
        if self.force_conflicts {
            params = params.force();
        }
        let patch = Patch::Apply(&manifest);
        self.until_answered("apply", || api.patch(&name, &params, &patch))
            .await
            .map_err(|e| {
                let error = describe(&e);
                warn!(kind = %gvk.kind, %namespace, %name, %error, "apply refused");
                error
            })?;
        self.desired.lock().expect("desired lock").insert(
            key,
            Desired {
                manifest,
                generation,
            },
        );
        Ok(())
    }

    /// Deletes an object (foreground) and waits until it is gone.
    async fn delete_object(&self, gvk: Gvk, namespace: String, name: String) -> Result<(), String> {
        let key = object_key(&gvk, &namespace, &name);
        let lock = self.object_lock(&key);
        let _held = lock.lock().await;
        self.desired.lock().expect("desired lock").remove(&key);
        let api = match self
            .until_answered("discovery", || self.api(&gvk, &namespace))
            .await
        {
            Ok((api, _)) => api,
            // A kind the cluster does not serve has no objects to delete.
            Err(error) if is_not_found(&error) => return Ok(()),
            Err(error) => return Err(describe(&error)),
        };
        let params = DeleteParams {
            propagation_policy: Some(PropagationPolicy::Foreground),
            ..Default::default()
        };
        match self
            .until_answered("delete", || api.delete(&name, &params))
            .await
        {
            Ok(_) => {}
            Err(error) if is_not_found(&error) => return Ok(()),
            Err(error) => return Err(describe(&error)),
        }
        let deadline = tokio::time::Instant::now() + DELETE_TIMEOUT;
        let mut wait = Duration::from_millis(50);
        loop {
            match self.until_answered("get", || api.get_opt(&name)).await {
                Ok(None) => return Ok(()),
                Ok(Some(object)) if tokio::time::Instant::now() > deadline => {
                    return Err(format!(
                        "still there {} s after its delete (finalizers: {:?})",
                        DELETE_TIMEOUT.as_secs(),
                        object.metadata.finalizers.unwrap_or_default()
                    ));
                }
                Ok(Some(_)) => {}
                Err(error) => return Err(describe(&error)),
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(2));
        }
    }

    /// An object this agent applied went away behind its back: applies it again.
    pub(crate) fn heal(self: &Arc<Self>, key: &ObjectKey) {
        let Some(desired) = self.desired.lock().expect("desired lock").get(key).cloned() else {
            return;
        };
        let this = self.clone();
        let key = key.clone();
        tokio::spawn(async move {
            info!(kind = %key.0, namespace = %key.2, name = %key.3, "an applied object was deleted behind the agent's back; applying it again");
            tokio::time::sleep(HEAL_AFTER).await;
            // Not while an operation of the object runs (its delete removes the desire).
            if !this
                .desired
                .lock()
                .expect("desired lock")
                .contains_key(&key)
            {
                return;
            }
            if let Err(error) = this
                .apply_manifest(desired.manifest, desired.generation)
                .await
            {
                warn!(name = %key.3, %error, "re-applying a deleted object failed");
            }
        });
    }

    /// Whether this agent holds `key` as applied.
    pub(crate) fn is_desired(&self, key: &ObjectKey) -> bool {
        self.desired.lock().expect("desired lock").contains_key(key)
    }
}

/// Asks the API server for its version every quarter of `unreachable_after`, each ask
/// bounded by half of it: a call or watch that fails marks the cluster unanswered, but
/// a hung API server (stopped, or a partition that drops packets) fails nothing — its
/// open watches just go quiet — so only an ask that gets no answer in time shows it.
async fn probe(cluster: std::sync::Weak<KubeCluster>) {
    loop {
        let Some(interval) = cluster.upgrade().map(|c| c.unreachable_after / 4) else {
            return;
        };
        let interval = interval.clamp(Duration::from_millis(250), Duration::from_secs(5));
        tokio::time::sleep(interval).await;
        let Some(cluster) = cluster.upgrade() else {
            return;
        };
        let sent = crate::store::now_micros();
        let limit = (cluster.unreachable_after / 2).max(Duration::from_millis(500));
        match tokio::time::timeout(limit, cluster.client.apiserver_version()).await {
            Ok(Ok(_)) => cluster.answered(),
            Ok(Err(error)) if answered(&error) => cluster.answered(),
            Ok(Err(_)) | Err(_) => cluster.unanswered_from(sent),
        }
    }
}

impl ClusterBackend for KubeCluster {
    fn name(&self) -> &'static str {
        "kube"
    }

    fn reachable(&self) -> bool {
        self.answering()
    }

    fn version(&self) -> String {
        self.version.clone()
    }

    fn nodes(&self) -> Vec<String> {
        self.monitor.nodes()
    }

    fn deployment_ids(&self) -> Vec<String> {
        self.monitor.deployment_ids()
    }

    fn bundle(&self, deployment_id: &str) -> Vec<Observed> {
        self.monitor.bundle(deployment_id)
    }

    fn report(&self, deployment_id: &str) {
        self.monitor.report(deployment_id);
    }

    async fn apply(&self, manifest: Value, generation: i64) -> Result<Applied, String> {
        self.apply_manifest(manifest, generation)
            .await
            .map(|()| Applied::Accepted)
    }

    async fn delete(&self, gvk: Gvk, namespace: String, name: String) -> Result<(), String> {
        self.delete_object(gvk, namespace, name).await
    }
}

impl ActionBackend for KubeCluster {
    async fn reboot_pod(
        &self,
        pod: &PodRef,
        delay: Duration,
        cancel: &CancellationToken,
    ) -> Result<(), ActionFailure> {
        self.kubevirt_reboot(pod, delay, cancel).await
    }

    async fn reboot_node(
        &self,
        node: &NodeName,
        _delay: Duration,
        _cancel: &CancellationToken,
    ) -> Result<(), ActionFailure> {
        Err(ActionFailure::new(
            "NodeRebootUnsupported",
            format!(
                "the kube backend cannot reboot node {node}: Kubernetes has no API for it; \
                 drain it and reboot it with your node tooling"
            ),
        ))
    }

    async fn snapshot_pod(
        &self,
        request: SnapshotRequest<'_>,
        cancel: &CancellationToken,
    ) -> Result<Snapshot, ActionFailure> {
        self.kubevirt_snapshot(request, cancel).await
    }
}
