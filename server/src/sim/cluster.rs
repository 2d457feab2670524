//! The in-memory cluster. All state sits behind one mutex that is never held across an
//! await; timers (pod readiness, pod recreation) are tokio tasks holding a weak
//! reference. Every change names the deployment ids it touched on the `changes`
//! channel, which the agent's monitor debounces into ResourceBundleStates.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use super::glob_match;
use crate::agent::backend::Applied;
use crate::domain::manifest::{Gvk, applied_identity, canonical_namespace};
use crate::domain::readiness::is_monitored;
use crate::domain::render::DEPLOYMENT_ID_LABEL;

/// kind, group, namespace, name.
pub(super) type Key = (String, String, String, String);

/// A stored object.
#[derive(Debug, Clone)]
pub(super) struct SimObject {
    pub(super) api_version: String,
    /// Shared with the bundles that report it (see [`Observed`]); a change replaces them.
    pub(super) metadata: Arc<Value>,
    pub(super) spec: Arc<Value>,
    pub(super) status: Arc<Value>,
    /// The controller that owns it (pods).
    pub(super) owner: Option<Key>,
    /// Changes when the object is recreated (or a pod restarts), so stale timers do
    /// nothing.
    pub(super) uid: u64,
    /// The desired-state generation of the last apply (0 for objects the sim made).
    generation: i64,
    /// Its deployment-id label, read once when stored.
    pub(super) deployment: Option<String>,
}

pub use crate::agent::backend::Observed;

pub(super) struct State {
    pub(super) objects: BTreeMap<Key, SimObject>,
    /// The keys of the objects of each deployment id (a bundle reads one id's objects
    /// without walking the whole cluster).
    by_deployment: HashMap<String, BTreeSet<Key>>,
    /// The keys of each controller's pods (its status is recomputed from them).
    by_owner: HashMap<Key, BTreeSet<Key>>,
    /// Who waits for a pod to turn Ready (or go away): woken one pod at a time.
    ready_waiters: HashMap<Key, Vec<oneshot::Sender<()>>>,
    /// Every deployment id an apply or delete named, so empty bundles get reported.
    deployment_ids: BTreeSet<String>,
    /// The deployments whose objects a change under the lock moved away or removed
    /// (a controller's pods included): [`SimCluster::release`] reports each, as a
    /// Kubernetes watch on their label would.
    left: BTreeSet<String>,
    pub(super) pod_ready_delay: Duration,
    /// How long an apply takes on average (see [`SimCluster::set_apply_delay`]).
    pub(super) apply_delay: Duration,
    /// (kind glob, name glob) rules that make applies fail.
    fail_rules: Vec<(String, String)>,
    /// (pod or node glob, action name or "" for any) rules that make actions fail.
    pub(super) action_faults: Vec<(String, String)>,
    pub(super) nodes: Vec<String>,
    /// The node the next unscheduled pod goes to (round robin).
    next_node: usize,
    pub(super) next_uid: u64,
}

impl State {
    /// The node the next pod runs on (round robin over the nodes).
    fn schedule(&mut self) -> String {
        if self.nodes.is_empty() {
            return String::new();
        }
        let node = self.nodes[self.next_node % self.nodes.len()].clone();
        self.next_node += 1;
        node
    }

    /// Stores `object` under `key`, keeping the deployment index; a deployment whose
    /// object this relabels (moves to another) is marked left.
    fn put(&mut self, key: Key, object: SimObject) {
        if let Some(old) = self
            .objects
            .get(&key)
            .and_then(|old| old.deployment.clone())
            .filter(|old| object.deployment.as_ref() != Some(old))
        {
            self.left.insert(old);
        }
        if let Some(id) = &object.deployment {
            self.by_deployment
                .entry(id.clone())
                .or_default()
                .insert(key.clone());
        }
        if let Some(owner) = &object.owner {
            self.by_owner
                .entry(owner.clone())
                .or_default()
                .insert(key.clone());
        }
        if let Some(old) = self.objects.insert(key.clone(), object) {
            self.unindex(&key, &old);
        }
    }

    /// Removes the object under `key`, keeping the deployment index; its deployment
    /// is marked left.
    fn take(&mut self, key: &Key) -> Option<SimObject> {
        let old = self.objects.remove(key)?;
        self.unindex(key, &old);
        if let Some(id) = &old.deployment {
            self.left.insert(id.clone());
        }
        self.wake(key);
        Some(old)
    }

    fn unindex(&mut self, key: &Key, old: &SimObject) {
        let current = self.objects.get(key);
        if let Some(id) = &old.deployment
            && current.and_then(|o| o.deployment.as_ref()) != Some(id)
        {
            unindex_in(&mut self.by_deployment, id, key);
        }
        if let Some(owner) = &old.owner
            && current.and_then(|o| o.owner.as_ref()) != Some(owner)
        {
            unindex_in(&mut self.by_owner, owner, key);
        }
    }

    /// Wakes whoever waits for the pod under `key`.
    pub(super) fn wake(&mut self, key: &Key) {
        for waiter in self.ready_waiters.remove(key).unwrap_or_default() {
            let _ = waiter.send(());
        }
    }

    /// A receiver woken when the pod under `key` turns Ready or goes away.
    pub(super) fn wait_for(&mut self, key: &Key) -> oneshot::Receiver<()> {
        let (waiter, woken) = oneshot::channel();
        let waiters = self.ready_waiters.entry(key.clone()).or_default();
        waiters.retain(|w| !w.is_closed());
        waiters.push(waiter);
        woken
    }

    /// The keys of the pods a controller owns.
    fn owned_keys(&self, owner: &Key) -> impl Iterator<Item = Key> + use<'_> {
        self.by_owner.get(owner).into_iter().flatten().cloned()
    }

    /// The pods a controller owns.
    fn owned(&self, owner: &Key) -> impl Iterator<Item = &SimObject> {
        self.by_owner
            .get(owner)
            .into_iter()
            .flatten()
            .filter_map(|key| self.objects.get(key))
    }
}

/// Removes `key` from the index entry `of`, dropping the entry when it empties.
fn unindex_in<K: std::hash::Hash + Eq>(index: &mut HashMap<K, BTreeSet<Key>>, of: &K, key: &Key) {
    if let Some(keys) = index.get_mut(of) {
        keys.remove(key);
        if keys.is_empty() {
            index.remove(of);
        }
    }
}

fn is_controller(kind: &str) -> bool {
    matches!(kind, "Deployment" | "StatefulSet" | "DaemonSet" | "Job")
}

/// An in-memory Kubernetes-like cluster.
pub struct SimCluster {
    state: Mutex<State>,
    changes: mpsc::UnboundedSender<String>,
    pub(super) this: Weak<SimCluster>,
}

/// A pod's status: `phase`, the Ready condition and its container's restart count.
pub(super) fn pod_status(phase: &str, ready: bool, reason: &str, restarts: i64) -> Value {
    let mut condition = json!({"type": "Ready", "status": if ready { "True" } else { "False" }});
    if !reason.is_empty() {
        condition["reason"] = json!(reason);
    }
    json!({
        "phase": phase,
        "conditions": [condition],
        "containerStatuses": [{"name": "main", "ready": ready, "restartCount": restarts}],
    })
}

/// The restart count in a pod's status.
pub(super) fn restarts(status: &Value) -> i64 {
    status
        .pointer("/containerStatuses/0/restartCount")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// The node names of a sim cluster: `<cluster id>-node-<i>`.
pub fn node_names(cluster: &str, count: usize) -> Vec<String> {
    let id = cluster.rsplit('/').next().unwrap_or(cluster);
    (0..count).map(|i| format!("{id}-node-{i}")).collect()
}

/// Nodes of a sim cluster made without names.
pub const DEFAULT_NODES: usize = 3;

/// How long a deleted controller pod stays gone before it is recreated.
const RECREATE_DELAY: Duration = Duration::from_millis(300);

/// An object's key: the default namespace has one spelling here too, as a real API
/// server has one namespace for "" and "default".
fn key_of(gvk: &Gvk, namespace: &str, name: &str) -> Key {
    (
        gvk.kind.clone(),
        gvk.group.clone(),
        canonical_namespace(namespace.to_string()),
        name.to_string(),
    )
}

fn deployment_id(metadata: &Value) -> Option<String> {
    metadata
        .pointer(&format!(
            "/labels/{}",
            DEPLOYMENT_ID_LABEL.replace('/', "~1")
        ))
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl SimCluster {
    /// A new empty cluster with the default nodes (`sim-node-0…`), and the receiver of
    /// its change feed.
    pub fn new(pod_ready_delay: Duration) -> (Arc<SimCluster>, mpsc::UnboundedReceiver<String>) {
        Self::with_nodes(pod_ready_delay, node_names("sim", DEFAULT_NODES))
    }

    /// A new empty cluster with these nodes, and the receiver of its change feed.
    pub fn with_nodes(
        pod_ready_delay: Duration,
        nodes: Vec<String>,
    ) -> (Arc<SimCluster>, mpsc::UnboundedReceiver<String>) {
        let (changes, receiver) = mpsc::unbounded_channel();
        let cluster = Arc::new_cyclic(|this| SimCluster {
            state: Mutex::new(State {
                objects: BTreeMap::new(),
                by_deployment: HashMap::new(),
                by_owner: HashMap::new(),
                ready_waiters: HashMap::new(),
                deployment_ids: BTreeSet::new(),
                left: BTreeSet::new(),
                pod_ready_delay,
                apply_delay: Duration::ZERO,
                fail_rules: Vec::new(),
                action_faults: Vec::new(),
                nodes,
                next_node: 0,
                next_uid: 1,
            }),
            changes,
            this: this.clone(),
        });
        (cluster, receiver)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Reports the deployment `id` as it is now (its bundle state goes out as after a
    /// change).
    pub fn report(&self, id: &str) {
        self.notify(Some(id.to_string()));
    }

    /// Releases the lock and reports `id` and every deployment the change under the
    /// lock left (see `State::left`).
    pub(super) fn release(&self, mut state: std::sync::MutexGuard<'_, State>, id: Option<String>) {
        let mut ids = std::mem::take(&mut state.left);
        drop(state);
        ids.extend(id);
        for id in ids {
            self.notify(Some(id));
        }
    }

    pub(super) fn notify(&self, id: Option<String>) {
        if let Some(id) = id {
            let _ = self.changes.send(id);
        }
    }

    /// Applies a manifest (create or replace) of desired-state `generation`: whether it
    /// wrote the object. An apply older than what the object holds, or one that
    /// changes nothing, is acknowledged and writes nothing. Fails if a fault rule
    /// matches.
    pub fn apply(&self, manifest: &Value, generation: i64) -> Result<Applied, String> {
        let (gvk, namespace, name) = applied_identity(manifest)?;
        let (api_version, kind) = (gvk.api_version(), gvk.kind.clone());
        let metadata = manifest
            .get("metadata")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let id = deployment_id(&metadata);
        let mut state = self.lock();
        if let Some(id) = &id {
            state.deployment_ids.insert(id.clone());
        }
        if state
            .fail_rules
            .iter()
            .any(|(k, n)| glob_match(k, &kind) && glob_match(n, &name))
        {
            drop(state);
            self.notify(id);
            return Err(format!("admission denied {kind} {name}: injected failure"));
        }
        let key = key_of(&gvk, &namespace, &name);
        if state
            .objects
            .get(&key)
            .is_some_and(|o| o.generation > generation)
        {
            return Ok(Applied::Unchanged);
        }
        // Data-only kinds keep their payload where Kubernetes has it.
        let mut spec = match manifest.get("data") {
            Some(data) => json!({"data": data}),
            None => manifest.get("spec").cloned().unwrap_or(Value::Null),
        };
        // A bare pod without a node keeps the one it was bound to, or is scheduled
        // onto one, as the scheduler would.
        if kind == "Pod" && spec.get("nodeName").and_then(Value::as_str).is_none() {
            let bound = state
                .objects
                .get(&key)
                .and_then(|o| o.spec.get("nodeName"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let node = bound.unwrap_or_else(|| state.schedule());
            if !spec.is_object() {
                spec = json!({});
            }
            spec["nodeName"] = json!(node);
        }
        // An apply that changes nothing is a no-op, as in Kubernetes: the object, its
        // status and its pods stay, and no watch event (bundle report) follows. A
        // reconnecting agent's desired state comes back whole; only what changed
        // while it was away is reported.
        if let Some(object) = state.objects.get_mut(&key)
            && object.api_version == api_version
            && *object.metadata == metadata
            && *object.spec == spec
        {
            object.generation = object.generation.max(generation);
            return Ok(Applied::Unchanged);
        }
        let uid = state.next_uid;
        state.next_uid += 1;
        let status = match kind.as_str() {
            "Deployment" | "StatefulSet" | "DaemonSet" | "Job" => json!({}),
            "Pod" => pod_status("Pending", false, "", 0),
            _ => Value::Null,
        };
        let object = SimObject {
            api_version,
            metadata: metadata.into(),
            spec: spec.into(),
            status: status.into(),
            owner: None,
            uid,
            generation,
            deployment: id.clone(),
        };
        let is_pod = kind == "Pod";
        state.put(key.clone(), object);
        if is_pod {
            self.schedule_ready(&state, key.clone(), uid);
        }
        self.reconcile(&mut state, &key);
        // An object relabelled by a newer deployment (re-instantiated while its old
        // one was still deleting) leaves the old one, with its pods: as a Kubernetes
        // watch on the old label would, the old deployment is reported again.
        self.release(state, id);
        Ok(Applied::Written)
    }

    /// Deletes a resource and what it owns; deleting an absent resource succeeds.
    pub fn delete(
        &self,
        gvk: &Gvk,
        namespace: &str,
        name: &str,
        deployment: Option<&str>,
    ) -> Result<(), String> {
        let key = key_of(gvk, namespace, name);
        let mut state = self.lock();
        if let Some(id) = deployment {
            state.deployment_ids.insert(id.to_string());
        }
        let removed = state.take(&key);
        if removed.is_some() && is_controller(&key.0) {
            let owned: Vec<Key> = state.owned_keys(&key).collect();
            for pod in owned {
                state.take(&pod);
            }
        }
        // The controller's deployment and its pods' (which a relabel may have left on
        // another) are reported; the named one too, so an absent object's is.
        self.release(state, deployment.map(str::to_string));
        Ok(())
    }

    /// Deletes a pod out of band. A controller's pod is recreated after a short delay.
    /// Returns whether the pod existed.
    pub fn delete_pod(&self, namespace: &str, name: &str) -> bool {
        let key = key_of(&Gvk::from_api_version("v1", "Pod"), namespace, name);
        let mut state = self.lock();
        let Some(pod) = state.take(&key) else {
            return false;
        };
        if let Some(owner) = &pod.owner {
            self.update_owner_status(&mut state, owner);
            let (this, owner) = (self.this.clone(), owner.clone());
            tokio::spawn(async move {
                tokio::time::sleep(RECREATE_DELAY).await;
                if let Some(cluster) = this.upgrade() {
                    let mut state = cluster.lock();
                    if state.objects.contains_key(&owner) {
                        cluster.reconcile(&mut state, &owner);
                        let id = state.objects.get(&owner).and_then(|o| o.deployment.clone());
                        cluster.release(state, id);
                    }
                }
            });
        }
        self.release(state, pod.deployment);
        true
    }

    /// Makes applies of resources whose kind and name match the globs fail; an empty
    /// kind pattern clears every rule.
    pub fn fail_applies(&self, kind_pattern: &str, name_pattern: &str) {
        let mut state = self.lock();
        if kind_pattern.is_empty() {
            state.fail_rules.clear();
        } else {
            let name = if name_pattern.is_empty() {
                "*"
            } else {
                name_pattern
            };
            state
                .fail_rules
                .push((kind_pattern.to_string(), name.to_string()));
        }
    }

    /// Sets how long new pods take to become Ready.
    pub fn set_pod_ready_delay(&self, delay: Duration) {
        self.lock().pod_ready_delay = delay;
    }

    /// Makes each apply through the agent backend take a random time between none and
    /// twice `delay`, as an API server's round trip does (default: none).
    pub fn set_apply_delay(&self, delay: Duration) {
        self.lock().apply_delay = delay;
    }

    /// See [`SimCluster::set_apply_delay`].
    pub fn apply_delay(&self) -> Duration {
        self.lock().apply_delay
    }

    /// The deployment ids the cluster has seen.
    pub fn deployment_ids(&self) -> Vec<String> {
        self.lock().deployment_ids.iter().cloned().collect()
    }

    /// The monitored resources labelled with `deployment_id` (a ResourceBundleState).
    pub fn bundle(&self, deployment_id_value: &str) -> Vec<Observed> {
        let state = self.lock();
        let Some(keys) = state.by_deployment.get(deployment_id_value) else {
            return Vec::new();
        };
        keys.iter()
            .filter(|(kind, ..)| is_monitored(kind))
            .filter_map(|key| state.objects.get(key).map(|o| (key, o)))
            .map(|((kind, _, namespace, name), o)| Observed {
                gvk: Gvk::from_api_version(&o.api_version, kind),
                namespace: namespace.clone(),
                name: name.clone(),
                metadata: o.metadata.clone(),
                spec: o.spec.clone(),
                status: o.status.clone(),
            })
            .collect()
    }

    /// How many objects the cluster holds (all kinds).
    pub fn object_count(&self) -> usize {
        self.lock().objects.len()
    }

    /// The desired pod names of a controller.
    fn desired_pods(state: &State, key: &Key, object: &SimObject) -> Vec<String> {
        let name = &key.3;
        match key.0.as_str() {
            "Deployment" | "StatefulSet" => {
                let replicas = object
                    .spec
                    .get("replicas")
                    .and_then(Value::as_i64)
                    .unwrap_or(1)
                    .max(0);
                (0..replicas).map(|i| format!("{name}-{i}")).collect()
            }
            "DaemonSet" => state.nodes.iter().map(|n| format!("{name}-{n}")).collect(),
            "Job" => vec![format!("{name}-0")],
            _ => Vec::new(),
        }
    }

    /// Creates missing pods of a controller and removes extra ones.
    fn reconcile(&self, state: &mut State, key: &Key) {
        let Some(object) = state.objects.get(key).cloned() else {
            return;
        };
        let desired = Self::desired_pods(state, key, &object);
        if desired.is_empty()
            && !matches!(
                key.0.as_str(),
                "Deployment" | "StatefulSet" | "DaemonSet" | "Job"
            )
        {
            return;
        }
        let pod_key = |name: &str| {
            (
                "Pod".to_string(),
                String::new(),
                key.2.clone(),
                name.to_string(),
            )
        };
        // Extra pods go through `take`, which keeps the indexes and marks their
        // deployments left (a pod may still carry an older label than its controller).
        let extra: Vec<Key> = state
            .owned_keys(key)
            .filter(|k| !desired.contains(&k.3))
            .collect();
        for pod in extra {
            state.take(&pod);
        }
        let mut labels = object
            .spec
            .pointer("/template/metadata/labels")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if let Some(id) = &object.deployment {
            labels.insert(DEPLOYMENT_ID_LABEL.to_string(), Value::String(id.clone()));
        }
        let template = object
            .spec
            .pointer("/template/spec")
            .cloned()
            .filter(Value::is_object)
            .unwrap_or_else(|| json!({}));
        for pod_name in &desired {
            let pk = pod_key(pod_name);
            // A pod whose template changed is rolled, as Kubernetes rolls a changed pod
            // template (the deployment-id label is in it): a pod of the same template
            // stays, whatever else of its controller changed (its replicas).
            if state.objects.get(&pk).is_some_and(|pod| {
                let mut spec = (*pod.spec).clone();
                if let Some(spec) = spec.as_object_mut() {
                    spec.remove("nodeName");
                }
                pod.deployment == object.deployment
                    && spec == template
                    && pod.metadata.get("labels").and_then(Value::as_object) == Some(&labels)
            }) {
                continue;
            }
            let mut metadata = Map::new();
            metadata.insert("name".into(), json!(pod_name));
            if !key.2.is_empty() {
                metadata.insert("namespace".into(), json!(key.2));
            }
            metadata.insert("labels".into(), Value::Object(labels.clone()));
            metadata.insert(
                "ownerReferences".into(),
                json!([{"kind": key.0, "name": key.3}]),
            );
            let uid = state.next_uid;
            state.next_uid += 1;
            metadata.insert("uid".into(), json!(format!("sim-{uid}")));
            let deployment = object.deployment.clone();
            let mut spec = template.clone();
            // DaemonSet pods are named after their node; the others are scheduled.
            let node = match key.0.as_str() {
                "DaemonSet" => pod_name
                    .strip_prefix(&format!("{}-", key.3))
                    .unwrap_or_default()
                    .to_string(),
                _ => state.schedule(),
            };
            spec["nodeName"] = json!(node);
            state.put(
                pk.clone(),
                SimObject {
                    api_version: "v1".into(),
                    metadata: Value::Object(metadata).into(),
                    spec: spec.into(),
                    status: pod_status("Pending", false, "", 0).into(),
                    owner: Some(key.clone()),
                    uid,
                    generation: 0,
                    deployment,
                },
            );
            self.schedule_ready(state, pk, uid);
        }
        self.update_owner_status(state, key);
    }

    /// After the readiness delay, marks the pod Ready (or Succeeded for Job pods).
    pub(super) fn schedule_ready(&self, state: &State, pod: Key, uid: u64) {
        let delay = state.pod_ready_delay;
        let this = self.this.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let Some(cluster) = this.upgrade() else {
                return;
            };
            let mut state = cluster.lock();
            let Some(object) = state.objects.get_mut(&pod) else {
                return;
            };
            if object.uid != uid {
                return;
            }
            let job_pod = object.owner.as_ref().is_some_and(|o| o.0 == "Job");
            let restarted = restarts(&object.status);
            object.status = Arc::new(if job_pod {
                pod_status("Succeeded", false, "PodCompleted", restarted)
            } else {
                pod_status("Running", true, "", restarted)
            });
            let owner = object.owner.clone();
            let id = object.deployment.clone();
            if let Some(owner) = owner {
                cluster.update_owner_status(&mut state, &owner);
            }
            state.wake(&pod);
            drop(state);
            cluster.notify(id);
        });
    }

    /// Recomputes a controller's status from its pods.
    pub(super) fn update_owner_status(&self, state: &mut State, key: &Key) {
        let pods: Vec<&SimObject> = state.owned(key).collect();
        let total = pods.len() as i64;
        let ready = pods
            .iter()
            .filter(|p| {
                p.status
                    .pointer("/conditions/0/status")
                    .and_then(Value::as_str)
                    == Some("True")
            })
            .count() as i64;
        let succeeded = pods
            .iter()
            .filter(|p| p.status.get("phase").and_then(Value::as_str) == Some("Succeeded"))
            .count() as i64;
        let nodes = state.nodes.len() as i64;
        let Some(object) = state.objects.get_mut(key) else {
            return;
        };
        object.status = Arc::new(match key.0.as_str() {
            "Deployment" => {
                json!({"replicas": total, "readyReplicas": ready, "availableReplicas": ready, "updatedReplicas": total})
            }
            "StatefulSet" => {
                json!({"replicas": total, "readyReplicas": ready, "currentReplicas": total})
            }
            "DaemonSet" => {
                json!({"desiredNumberScheduled": nodes, "currentNumberScheduled": total, "numberReady": ready})
            }
            "Job" if succeeded > 0 => {
                json!({"succeeded": succeeded, "active": 0, "conditions": [{"type": "Complete", "status": "True"}]})
            }
            "Job" => json!({"succeeded": 0, "active": total}),
            _ => return,
        });
    }
}

#[cfg(test)]
mod tests;
