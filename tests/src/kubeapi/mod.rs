//! A Kubernetes API server emulator with KubeVirt's API, for the one part of the kube
//! backend the real control plane of the tests (`controlplane`) cannot serve: VM
//! actions, which need KubeVirt's virt-api (an aggregated API server serving the
//! `restart` subresource) and its snapshot controller. Everything else of the kube
//! backend is tested against a real kube-apiserver. It follows the API's documented
//! semantics where the agent depends on them:
//!
//! - discovery (`/version`, `/api`, `/api/v1`, `/apis`, `/apis/{group}/{version}`);
//! - get, list (label selectors: `k`, `!k`, `k=v`, `k!=v`), create, replace, merge
//!   patch, delete, for the kinds in [`store::RESOURCES`], namespaced or not; a name
//!   that is not a DNS-1123 subdomain is refused (422 Invalid), as is a namespaced
//!   object in a namespace that does not exist (404);
//! - server-side apply (`application/apply-patch+yaml`) with field ownership per
//!   manager: setting a field another manager owns to another value is a 409 Conflict
//!   naming the manager and field, unless `force=true`; fields a manager stops applying
//!   are removed. Lists are atomic (the real API merges some by key);
//! - a global resourceVersion; watches (`watch=true`) from a resourceVersion, with the
//!   events since; a version older than the last compaction gets the `410 Expired`
//!   ERROR event, as from the real API server;
//! - deletes with `propagationPolicy` Foreground (the object stays, with a
//!   deletionTimestamp and the `foregroundDeletion` finalizer, until its dependents are
//!   gone) or Background, and garbage collection through ownerReferences;
//! - KubeVirt's controllers as [`controllers`] describes; with
//!   `Options::kubevirt`, KubeVirt's VirtualMachine, VirtualMachineInstance (a
//!   virt-launcher pod labelled `kubevirt.io/domain`), the `restart` subresource, and
//!   VirtualMachineSnapshot with its content and VolumeSnapshot (`restoreSize`).
//!
//! Not emulated: authentication and RBAC, admission webhooks, field selectors, paging
//! (`limit` is ignored: every list is one page), strategic merge, bookmarks.

pub mod controllers;
mod routes;
pub mod store;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use self::store::{ApiError, Key, Store};

type Body = BoxBody<Bytes, Infallible>;

/// The emulator's settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Nodes (`node-0`, …).
    pub nodes: usize,
    /// How long a new pod takes to run Ready.
    pub pod_ready: Duration,
    /// Whether KubeVirt is installed (its kinds served, the `restart` subresource).
    pub kubevirt: bool,
    /// How long a VM snapshot takes.
    pub snapshot_time: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            nodes: 3,
            pod_ready: Duration::from_millis(200),
            kubevirt: false,
            snapshot_time: Duration::from_millis(300),
        }
    }
}

struct Inner {
    store: Mutex<(Store, u64)>,
    options: Options,
    /// Cancelled to drop every open watch.
    watches: Mutex<CancellationToken>,
    /// VM restarts asked for.
    restarts: std::sync::atomic::AtomicU64,
    /// Cancelled to drop every open connection.
    connections: Mutex<CancellationToken>,
}

/// A running emulator.
#[derive(Clone)]
pub struct KubeApi {
    inner: Arc<Inner>,
    pub address: SocketAddr,
}

impl KubeApi {
    /// Starts the emulator on a free loopback port, with its nodes and the `default`
    /// and `kube-system` namespaces; it runs until `stop`.
    pub async fn start(options: Options, stop: CancellationToken) -> KubeApi {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let mut store = Store::default();
        for ns in ["default", "kube-system"] {
            store.put(
                store::resource_of_kind("Namespace").expect("served"),
                json!({"metadata": {"name": ns}}),
            );
        }
        for i in 0..options.nodes.max(1) {
            store.put(
                store::resource_of_kind("Node").expect("served"),
                json!({"metadata": {"name": format!("node-{i}")},
                       "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
            );
        }
        let api = KubeApi {
            inner: Arc::new(Inner {
                store: Mutex::new((store, 0)),
                options,
                watches: Mutex::new(CancellationToken::new()),
                restarts: Default::default(),
                connections: Mutex::new(CancellationToken::new()),
            }),
            address,
        };
        let server = api.clone();
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    () = stop.cancelled() => return,
                    accepted = listener.accept() => accepted,
                };
                let Ok((stream, _)) = accepted else { continue };
                let api = server.clone();
                let dropped = server
                    .inner
                    .connections
                    .lock()
                    .expect("connections")
                    .clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let api = api.clone();
                        async move { Ok::<_, Infallible>(api.serve(request).await) }
                    });
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service);
                    tokio::select! {
                        _ = connection => {}
                        () = dropped.cancelled() => {}
                    }
                });
            }
        });
        api
    }

    /// `http://127.0.0.1:port`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// A kubeconfig for the emulator (context `emulator`).
    pub fn kubeconfig(&self) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: emulator\n  cluster:\n    server: {}\n\
             users:\n- name: agent\n  user:\n    token: emulator-token\ncontexts:\n- name: emulator\n  context:\n    \
             cluster: emulator\n    user: agent\ncurrent-context: emulator\n",
            self.url()
        )
    }

    /// The object of `kind` in `namespace` named `name`.
    pub fn get(&self, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let resource = store::resource_of_kind(kind)?;
        let guard = self.inner.store.lock().expect("store");
        guard
            .0
            .objects
            .get(&(resource.plural, namespace.to_string(), name.to_string()))
            .cloned()
    }

    /// Runs the controllers until nothing changes; starts the kubelet's timers of new
    /// pods.
    fn settle(&self, guard: &mut (Store, u64)) {
        let (store, counter) = guard;
        for _ in 0..4 {
            let before = store.rv;
            let started = controllers::reconcile(store, counter);
            for (key, uid) in started.pods {
                self.kubelet(key, uid);
            }
            for (key, uid) in started.snapshots {
                self.snapshotter(key, uid);
            }
            if store.rv == before {
                break;
            }
        }
    }

    fn kubelet(&self, key: Key, uid: String) {
        let api = self.clone();
        let delay = self.inner.options.pod_ready;
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let mut guard = api.inner.store.lock().expect("store");
            if controllers::start_pod(&mut guard.0, &key, &uid) {
                api.settle(&mut guard);
            }
        });
    }

    fn snapshotter(&self, key: Key, uid: String) {
        let api = self.clone();
        let delay = self.inner.options.snapshot_time;
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let mut guard = api.inner.store.lock().expect("store");
            controllers::finish_snapshot(&mut guard.0, &key, &uid);
            api.settle(&mut guard);
        });
    }

    /// KubeVirt's `restart` of a VirtualMachine: its instance (and virt-launcher pod)
    /// goes, and the VM controller starts a new one.
    fn restart(&self, namespace: &str, name: &str) -> Result<Value, ApiError> {
        let mut guard = self.inner.store.lock().expect("store");
        let vm: Key = ("virtualmachines", namespace.to_string(), name.to_string());
        if !guard.0.objects.contains_key(&vm) {
            return Err(ApiError::new(
                404,
                "NotFound",
                format!("virtualmachines.kubevirt.io \"{name}\" not found"),
            ));
        }
        controllers::remove_tree(
            &mut guard.0,
            &(
                "virtualmachineinstances",
                namespace.to_string(),
                name.to_string(),
            ),
        );
        self.inner
            .restarts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.settle(&mut guard);
        Ok(json!({}))
    }

    /// How many VM restarts were asked for.
    pub fn vm_restarts(&self) -> u64 {
        self.inner
            .restarts
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}
