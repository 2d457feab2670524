//! The kube backend's monitor: one watch per monitored kind (DESIGN §9) over the whole
//! cluster, restricted to objects labelled `flotilla/deployment-id`, kept as the
//! observed objects of each deployment id; plus a watch of the cluster's nodes. kube-rs'
//! watcher lists, then watches from the list's resourceVersion, resumes from the last
//! one it saw after a dropped connection, and lists again when the API server answers
//! `410 Gone` (the version was compacted): a re-list replaces what was known of the
//! kind, so what vanished meanwhile is seen as deleted.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};
use tracing::{debug, info, warn};

use super::{KubeCluster, ObjectKey, object_key};
use crate::agent::backend::Observed;
use crate::domain::manifest::Gvk;
use crate::domain::render::DEPLOYMENT_ID_LABEL;

/// The kinds watched, as group, version, kind: DESIGN §9's monitored kinds.
pub const WATCHED: [(&str, &str, &str); 9] = [
    ("", "v1", "Pod"),
    ("apps", "v1", "Deployment"),
    ("", "v1", "Service"),
    ("", "v1", "ConfigMap"),
    ("", "v1", "Secret"),
    ("apps", "v1", "DaemonSet"),
    ("apps", "v1", "StatefulSet"),
    ("batch", "v1", "Job"),
    ("certificates.k8s.io", "v1", "CertificateSigningRequest"),
];

/// How long the first list of every kind may take before the agent says hello anyway.
const FIRST_LIST_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Default)]
struct State {
    /// Every observed object: its deployment id and what is reported of it.
    objects: HashMap<ObjectKey, (String, Observed)>,
    by_deployment: HashMap<String, BTreeSet<ObjectKey>>,
    /// Every deployment id seen (so an emptied bundle is still reported).
    deployment_ids: BTreeSet<String>,
    nodes: BTreeSet<String>,
}

impl State {
    fn remove(&mut self, key: &ObjectKey) -> Option<String> {
        let (id, _) = self.objects.remove(key)?;
        if let Some(keys) = self.by_deployment.get_mut(&id) {
            keys.remove(key);
        }
        Some(id)
    }

    /// Stores `observed`; returns the deployment ids it touched (a label change moves
    /// an object between two).
    fn put(&mut self, key: ObjectKey, id: String, observed: Observed) -> Vec<String> {
        let mut touched = Vec::new();
        if let Some(old) = self.remove(&key)
            && old != id
        {
            touched.push(old);
        }
        self.deployment_ids.insert(id.clone());
        self.by_deployment
            .entry(id.clone())
            .or_default()
            .insert(key.clone());
        self.objects.insert(key, (id.clone(), observed));
        touched.push(id);
        touched
    }
}

/// What the monitor observed.
pub struct Monitor {
    state: Mutex<State>,
    changes: mpsc::UnboundedSender<String>,
    cluster: Weak<KubeCluster>,
}

impl Monitor {
    pub(super) fn new(
        changes: mpsc::UnboundedSender<String>,
        cluster: Weak<KubeCluster>,
    ) -> Monitor {
        Monitor {
            state: Mutex::default(),
            changes,
            cluster,
        }
    }

    fn notify(&self, ids: impl IntoIterator<Item = String>) {
        for id in ids {
            let _ = self.changes.send(id);
        }
    }

    /// Reports `id` again.
    pub fn report(&self, id: &str) {
        self.notify([id.to_string()]);
    }

    pub fn deployment_ids(&self) -> Vec<String> {
        let state = self.state.lock().expect("monitor lock");
        state.deployment_ids.iter().cloned().collect()
    }

    pub fn nodes(&self) -> Vec<String> {
        let state = self.state.lock().expect("monitor lock");
        state.nodes.iter().cloned().collect()
    }

    pub fn bundle(&self, id: &str) -> Vec<Observed> {
        let state = self.state.lock().expect("monitor lock");
        state
            .by_deployment
            .get(id)
            .map(|keys| {
                keys.iter()
                    .filter_map(|key| state.objects.get(key).map(|(_, o)| o.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The observed pod `namespace/name`, if any.
    pub fn pod(&self, namespace: &str, name: &str) -> Option<Observed> {
        let key: ObjectKey = ("Pod".into(), String::new(), namespace.into(), name.into());
        let state = self.state.lock().expect("monitor lock");
        state.objects.get(&key).map(|(_, o)| o.clone())
    }

    /// Starts the watches; returns once each kind was listed once (or after
    /// [`FIRST_LIST_TIMEOUT`]).
    pub(super) async fn start(&self, cluster: &Arc<KubeCluster>) -> anyhow::Result<()> {
        let mut listed = Vec::new();
        for (group, version, kind) in WATCHED {
            let gvk = Gvk {
                group: group.into(),
                version: version.into(),
                kind: kind.into(),
            };
            let resource = match cluster.resource(&gvk).await {
                Ok((resource, _)) => resource,
                Err(error) => {
                    warn!(kind, %error, "the cluster does not serve a monitored kind; not watching it");
                    continue;
                }
            };
            let api: Api<DynamicObject> = Api::all_with(cluster.client().clone(), &resource);
            let (done, first) = oneshot::channel();
            listed.push(first);
            tokio::spawn(watch_kind(self.cluster.clone(), gvk, api, done));
        }
        let (done, first) = oneshot::channel();
        listed.push(first);
        tokio::spawn(watch_nodes(
            self.cluster.clone(),
            Api::all(cluster.client().clone()),
            done,
        ));
        let all = futures::future::join_all(listed);
        if tokio::time::timeout(FIRST_LIST_TIMEOUT, all).await.is_err() {
            warn!("not every monitored kind was listed in time; reporting as the lists arrive");
        }
        Ok(())
    }

    /// Applies one watch event of `gvk`; returns the keys deleted.
    fn event(
        &self,
        gvk: &Gvk,
        event: Event<DynamicObject>,
        relist: &mut Option<Vec<DynamicObject>>,
    ) -> Vec<ObjectKey> {
        let mut touched = Vec::new();
        let mut deleted = Vec::new();
        {
            let mut state = self.state.lock().expect("monitor lock");
            match event {
                Event::Init => *relist = Some(Vec::new()),
                Event::InitApply(object) => relist.get_or_insert_with(Vec::new).push(object),
                Event::InitDone => {
                    let listed = relist.take().unwrap_or_default();
                    let mut seen = BTreeSet::new();
                    for object in &listed {
                        if let Some((key, id, observed)) = observe(gvk, object) {
                            seen.insert(key.clone());
                            touched.extend(state.put(key, id, observed));
                        }
                    }
                    // What the list no longer has was deleted while unwatched.
                    let gone: Vec<ObjectKey> = state
                        .objects
                        .keys()
                        .filter(|k| k.0 == gvk.kind && k.1 == gvk.group && !seen.contains(*k))
                        .cloned()
                        .collect();
                    for key in gone {
                        touched.extend(state.remove(&key));
                        deleted.push(key);
                    }
                }
                Event::Apply(object) => match observe(gvk, &object) {
                    Some((key, id, observed)) => touched.extend(state.put(key, id, observed)),
                    // The label was removed: it left its deployment.
                    None => {
                        if let Some(key) = key_of(gvk, &object) {
                            touched.extend(state.remove(&key));
                        }
                    }
                },
                Event::Delete(object) => {
                    if let Some(key) = key_of(gvk, &object) {
                        touched.extend(state.remove(&key));
                        deleted.push(key);
                    }
                }
            }
        }
        self.notify(touched);
        deleted
    }
}

/// Watches one kind until the cluster is dropped.
async fn watch_kind(
    cluster: Weak<KubeCluster>,
    gvk: Gvk,
    api: Api<DynamicObject>,
    first: oneshot::Sender<()>,
) {
    // Lists are quorum reads (MostRecent, kube-rs' default) in pages of
    // `list_page_size`, followed through their continue tokens.
    let page_size = match cluster.upgrade() {
        Some(cluster) => cluster.list_page_size(),
        None => return,
    };
    let config = watcher::Config::default()
        .labels(DEPLOYMENT_ID_LABEL)
        .page_size(page_size);
    let mut stream = watcher::watcher(api, config).default_backoff().boxed();
    let mut first = Some(first);
    let mut relist = None;
    while let Some(event) = stream.next().await {
        let Some(cluster) = cluster.upgrade() else {
            return;
        };
        match event {
            Ok(event) => {
                // Init starts a list before the API server said anything.
                if !matches!(event, Event::Init) {
                    cluster.answered();
                }
                let init_done = matches!(event, Event::InitDone);
                if matches!(event, Event::Init) {
                    debug!(kind = %gvk.kind, "listing");
                }
                for key in cluster.monitor().event(&gvk, event, &mut relist) {
                    if cluster.is_desired(&key) {
                        cluster.heal(&key);
                    }
                }
                if init_done && let Some(first) = first.take() {
                    let _ = first.send(());
                }
            }
            Err(error) => {
                if !answered_watch(&error) {
                    cluster.unanswered();
                }
                warn!(kind = %gvk.kind, %error, "watch failed; retrying")
            }
        }
    }
}

/// Watches the cluster's nodes (their names; the hello reports them).
async fn watch_nodes(cluster: Weak<KubeCluster>, api: Api<Node>, first: oneshot::Sender<()>) {
    let mut stream = watcher::watcher(api, watcher::Config::default())
        .default_backoff()
        .boxed();
    let mut first = Some(first);
    let mut listing: Option<BTreeSet<String>> = None;
    while let Some(event) = stream.next().await {
        let Some(cluster) = cluster.upgrade() else {
            return;
        };
        let name = |node: &Node| node.metadata.name.clone().unwrap_or_default();
        let mut state = cluster.monitor().state.lock().expect("monitor lock");
        match event {
            Ok(Event::Init) => listing = Some(BTreeSet::new()),
            Ok(Event::InitApply(node)) => {
                listing
                    .get_or_insert_with(BTreeSet::new)
                    .insert(name(&node));
            }
            Ok(Event::InitDone) => {
                state.nodes = listing.take().unwrap_or_default();
                info!(nodes = state.nodes.len(), "listed the cluster's nodes");
                if let Some(first) = first.take() {
                    let _ = first.send(());
                }
            }
            Ok(Event::Apply(node)) => {
                state.nodes.insert(name(&node));
            }
            Ok(Event::Delete(node)) => {
                state.nodes.remove(&name(&node));
            }
            Err(error) => {
                drop(state);
                warn!(%error, "node watch failed; retrying (without nodes the agent reports none)");
                // Without nodes the agent still works; say hello without them.
                if let Some(first) = first.take() {
                    let _ = first.send(());
                }
            }
        }
    }
}

/// Whether a watch error is the API server's answer (a 410, a refusal) rather than no
/// answer at all.
fn answered_watch(error: &watcher::Error) -> bool {
    match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => matches!(e, kube::Error::Api(_)),
        watcher::Error::WatchError(_) | watcher::Error::NoResourceVersion => true,
    }
}

fn key_of(gvk: &Gvk, object: &DynamicObject) -> Option<ObjectKey> {
    let namespace = object.metadata.namespace.as_deref().unwrap_or_default();
    Some(object_key(gvk, namespace, object.metadata.name.as_deref()?))
}

/// What is reported of `object`: its key, deployment id and observed form (metadata
/// without managedFields; spec, or the data of a ConfigMap, or only the keys of a
/// Secret's data; status). None without the deployment-id label (the id is read
/// back through [`super::labels::deployment_id`]).
fn observe(gvk: &Gvk, object: &DynamicObject) -> Option<(ObjectKey, String, Observed)> {
    let id = super::labels::deployment_id(
        object.metadata.labels.as_ref(),
        object.metadata.annotations.as_ref(),
    )?;
    let key = key_of(gvk, object)?;
    let mut metadata = serde_json::to_value(&object.metadata).ok()?;
    if let Some(metadata) = metadata.as_object_mut() {
        metadata.remove("managedFields");
    }
    let data = &object.data;
    let spec = match gvk.kind.as_str() {
        "ConfigMap" => json!({"data": data.get("data").cloned().unwrap_or(Value::Null)}),
        // Secret values stay in the cluster: the keys are enough to see what is there.
        "Secret" => {
            let keys: BTreeMap<String, Value> = data
                .get("data")
                .and_then(Value::as_object)
                .map(|d| d.keys().map(|k| (k.clone(), json!("(redacted)"))).collect())
                .unwrap_or_default();
            json!({"data": Value::Object(Map::from_iter(keys))})
        }
        _ => data.get("spec").cloned().unwrap_or(Value::Null),
    };
    let observed = Observed {
        gvk: gvk.clone(),
        namespace: key.2.clone(),
        name: key.3.clone(),
        metadata: metadata.into(),
        spec: spec.into(),
        status: data.get("status").cloned().unwrap_or(Value::Null).into(),
    };
    Some((key, id, observed))
}
