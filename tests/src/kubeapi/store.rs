//! The emulator's object store: objects by resource, namespace and name, a global
//! resourceVersion, the history of events since the last compaction (what a watch
//! resumes from), field ownership for server-side apply, and the validation the
//! API server does before it stores anything.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

/// A served resource: group, version, plural, kind, namespaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
    /// Served only with KubeVirt installed (`Options::kubevirt`).
    pub kubevirt: bool,
}

impl Resource {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

const fn r(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
) -> Resource {
    Resource {
        group,
        version,
        plural,
        kind,
        namespaced,
        kubevirt: false,
    }
}

/// A KubeVirt resource (namespaced).
const fn kv(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
) -> Resource {
    Resource {
        group,
        version,
        plural,
        kind,
        namespaced: true,
        kubevirt: true,
    }
}

/// What the emulator serves (the KubeVirt kinds only when it is installed).
pub const RESOURCES: [Resource; 17] = [
    r("", "v1", "namespaces", "Namespace", false),
    r("", "v1", "nodes", "Node", false),
    r("", "v1", "pods", "Pod", true),
    r("", "v1", "services", "Service", true),
    r("", "v1", "configmaps", "ConfigMap", true),
    r("", "v1", "secrets", "Secret", true),
    r("apps", "v1", "deployments", "Deployment", true),
    r("apps", "v1", "replicasets", "ReplicaSet", true),
    r("apps", "v1", "statefulsets", "StatefulSet", true),
    r("apps", "v1", "daemonsets", "DaemonSet", true),
    r("batch", "v1", "jobs", "Job", true),
    r(
        "certificates.k8s.io",
        "v1",
        "certificatesigningrequests",
        "CertificateSigningRequest",
        false,
    ),
    kv("kubevirt.io", "v1", "virtualmachines", "VirtualMachine"),
    kv(
        "kubevirt.io",
        "v1",
        "virtualmachineinstances",
        "VirtualMachineInstance",
    ),
    kv(
        "snapshot.kubevirt.io",
        "v1beta1",
        "virtualmachinesnapshots",
        "VirtualMachineSnapshot",
    ),
    kv(
        "snapshot.kubevirt.io",
        "v1beta1",
        "virtualmachinesnapshotcontents",
        "VirtualMachineSnapshotContent",
    ),
    kv(
        "snapshot.storage.k8s.io",
        "v1",
        "volumesnapshots",
        "VolumeSnapshot",
    ),
];

pub fn resource_of_kind(kind: &str) -> Option<&'static Resource> {
    RESOURCES.iter().find(|r| r.kind == kind)
}

/// plural, namespace, name.
pub type Key = (&'static str, String, String);

/// A watch event.
#[derive(Debug, Clone)]
pub struct Event {
    pub rv: u64,
    pub plural: &'static str,
    pub kind: &'static str,
    pub object: Value,
}

/// An API error: HTTP code, reason, message.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason,
            message: message.into(),
        }
    }

    pub fn status(&self) -> Value {
        json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": self.message, "reason": self.reason, "code": self.code
        })
    }
}

pub struct Store {
    pub rv: u64,
    /// Watches from a version older than this get 410 Gone.
    pub compacted: u64,
    pub objects: BTreeMap<Key, Value>,
    /// The fields each manager owns, per object (leaf paths).
    pub managers: BTreeMap<Key, BTreeMap<String, BTreeSet<String>>>,
    pub history: VecDeque<Event>,
    pub events: broadcast::Sender<Event>,
    next_uid: u64,
}

const HISTORY: usize = 100_000;

impl Default for Store {
    fn default() -> Self {
        let (events, _) = broadcast::channel(65_536);
        Store {
            rv: 1,
            compacted: 0,
            objects: BTreeMap::new(),
            managers: BTreeMap::new(),
            history: VecDeque::new(),
            events,
            next_uid: 1,
        }
    }
}

/// Whether `name` is a DNS-1123 subdomain, as the API server requires of most names.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        })
}

/// The leaf paths of `value` ("/spec/replicas"); arrays are leaves (atomic).
pub fn leaves(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                leaves(
                    v,
                    &format!("{prefix}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {
            out.insert(prefix.to_string());
        }
    }
}

/// The paths of an applied configuration that ownership covers (not its identity).
pub fn owned_paths(applied: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    leaves(applied, "", &mut out);
    out.retain(|p| {
        !matches!(
            p.as_str(),
            "/apiVersion" | "/kind" | "/metadata/name" | "/metadata/namespace"
        )
    });
    out
}

/// Removes the value at `path` (and parents it leaves empty).
fn remove_path(value: &mut Value, path: &str) {
    let Some((parent, last)) = path.rsplit_once('/') else {
        return;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    if let Some(Value::Object(map)) = value.pointer_mut(parent) {
        map.remove(&last);
        if map.is_empty() && !parent.is_empty() {
            remove_path(value, parent);
        }
    }
}

/// Sets `path` in `value` to `leaf`, creating objects on the way.
fn set_path(value: &mut Value, path: &str, leaf: Value) {
    let mut current = value;
    let parts: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect();
    for (i, part) in parts.iter().enumerate() {
        if !current.is_object() {
            *current = Value::Object(Map::new());
        }
        let map = current.as_object_mut().expect("object");
        if i + 1 == parts.len() {
            map.insert(part.clone(), leaf);
            return;
        }
        current = map.entry(part.clone()).or_insert_with(|| json!({}));
    }
}

impl Store {
    pub fn uid(&mut self) -> String {
        self.next_uid += 1;
        format!("00000000-0000-4000-8000-{:012}", self.next_uid)
    }

    fn record(
        &mut self,
        kind: &'static str,
        plural: &'static str,
        mut object: Value,
        deleted: bool,
    ) -> u64 {
        self.rv += 1;
        let rv = self.rv;
        object["metadata"]["resourceVersion"] = json!(rv.to_string());
        let event = Event {
            rv,
            plural,
            kind: if deleted { "DELETED" } else { kind },
            object,
        };
        self.history.push_back(event.clone());
        while self.history.len() > HISTORY {
            if let Some(old) = self.history.pop_front() {
                self.compacted = self.compacted.max(old.rv + 1);
            }
        }
        let _ = self.events.send(event);
        rv
    }

    /// Stores `object` (new or changed) and emits its event.
    pub fn put(&mut self, resource: &'static Resource, mut object: Value) -> Value {
        let namespace = object
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let key: Key = (resource.plural, namespace, name);
        let existed = self.objects.contains_key(&key);
        object["apiVersion"] = json!(resource.api_version());
        object["kind"] = json!(resource.kind);
        if object.pointer("/metadata/uid").is_none() {
            let uid = self.uid();
            object["metadata"]["uid"] = json!(uid);
            object["metadata"]["creationTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        let rv = self.record(
            if existed { "MODIFIED" } else { "ADDED" },
            resource.plural,
            object.clone(),
            false,
        );
        object["metadata"]["resourceVersion"] = json!(rv.to_string());
        self.objects.insert(key, object.clone());
        object
    }

    /// Removes an object now and emits DELETED.
    pub fn remove(&mut self, key: &Key) -> Option<Value> {
        let object = self.objects.remove(key)?;
        self.managers.remove(key);
        let resource = RESOURCES
            .iter()
            .find(|r| r.plural == key.0)
            .expect("served");
        self.record("DELETED", resource.plural, object.clone(), true);
        Some(object)
    }

    pub fn namespace_exists(&self, namespace: &str) -> bool {
        self.objects
            .contains_key(&("namespaces", String::new(), namespace.to_string()))
    }

    /// Server-side apply of `applied` by `manager` (see the module doc of `kubeapi`).
    pub fn apply(
        &mut self,
        resource: &'static Resource,
        namespace: &str,
        name: &str,
        applied: Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApiError> {
        let key: Key = (resource.plural, namespace.to_string(), name.to_string());
        let paths = owned_paths(&applied);
        let current = self.objects.get(&key).cloned();
        let mut object = match &current {
            Some(current) => current.clone(),
            None => {
                validate_new(self, resource, namespace, name)?;
                json!({"metadata": {"name": name}})
            }
        };
        if resource.namespaced {
            object["metadata"]["namespace"] = json!(namespace);
        }
        let owners = self.managers.entry(key.clone()).or_default();
        // Conflicts: a field another manager owns, set to another value.
        let mut conflicts = Vec::new();
        for (other, owned) in owners.iter() {
            if other == manager {
                continue;
            }
            for path in paths.intersection(owned) {
                if object.pointer(path) != applied.pointer(path) {
                    conflicts.push((other.clone(), path.clone()));
                }
            }
        }
        if !conflicts.is_empty() && !force {
            let list: Vec<String> = conflicts
                .iter()
                .map(|(m, p)| {
                    format!(
                        "conflict with \"{m}\": .{}",
                        p.trim_start_matches('/').replace('/', ".")
                    )
                })
                .collect();
            return Err(ApiError::new(
                409,
                "Conflict",
                format!(
                    "Apply failed with {} conflict{}: {}",
                    list.len(),
                    if list.len() == 1 { "" } else { "s" },
                    list.join(", ")
                ),
            ));
        }
        // Fields this manager owned and no longer sets (and nobody else owns) go.
        let previous = owners.get(manager).cloned().unwrap_or_default();
        for path in previous.difference(&paths) {
            if !owners.iter().any(|(m, o)| m != manager && o.contains(path)) {
                remove_path(&mut object, path);
            }
        }
        for path in &paths {
            set_path(
                &mut object,
                path,
                applied.pointer(path).cloned().unwrap_or(Value::Null),
            );
        }
        for (other, owned) in owners.iter_mut() {
            if other != manager {
                for path in &paths {
                    owned.remove(path);
                }
            }
        }
        owners.insert(manager.to_string(), paths);
        if current.as_ref() == Some(&object) {
            return Ok(object);
        }
        validate_spec(resource, name, &object)?;
        bump_generation(&mut object, current.as_ref());
        Ok(self.put(resource, object))
    }

    /// An update (create, replace or merge patch) by `manager`: it takes the fields it
    /// changed.
    pub fn update(
        &mut self,
        resource: &'static Resource,
        namespace: &str,
        name: &str,
        mut object: Value,
        manager: &str,
    ) -> Result<Value, ApiError> {
        let key: Key = (resource.plural, namespace.to_string(), name.to_string());
        let current = self.objects.get(&key).cloned();
        if current.is_none() {
            validate_new(self, resource, namespace, name)?;
        }
        object["metadata"]["name"] = json!(name);
        if resource.namespaced {
            object["metadata"]["namespace"] = json!(namespace);
        }
        if let Some(current) = &current {
            for field in ["uid", "creationTimestamp"] {
                if let Some(v) = current["metadata"].get(field) {
                    object["metadata"][field] = v.clone();
                }
            }
        }
        let before = current.clone().map(|c| owned_paths(&c)).unwrap_or_default();
        let after = owned_paths(&object);
        let changed: BTreeSet<String> = after
            .iter()
            .filter(|p| {
                !p.starts_with("/status")
                    && !p.starts_with("/metadata/resourceVersion")
                    && (!before.contains(*p)
                        || current.as_ref().and_then(|c| c.pointer(p)) != object.pointer(p))
            })
            .cloned()
            .collect();
        let owners = self.managers.entry(key).or_default();
        for owned in owners.values_mut() {
            for path in &changed {
                owned.remove(path);
            }
        }
        owners
            .entry(manager.to_string())
            .or_default()
            .extend(changed);
        validate_spec(resource, name, &object)?;
        bump_generation(&mut object, current.as_ref());
        Ok(self.put(resource, object))
    }
}

/// The API server's checks before it stores a new object.
fn validate_new(
    store: &Store,
    resource: &Resource,
    namespace: &str,
    name: &str,
) -> Result<(), ApiError> {
    if !valid_name(name) {
        return Err(ApiError::new(
            422,
            "Invalid",
            format!(
                "{} \"{name}\" is invalid: metadata.name: Invalid value: \"{name}\": a lowercase \
                 RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
                 '.', and must start and end with an alphanumeric character",
                resource.kind
            ),
        ));
    }
    if resource.namespaced && !store.namespace_exists(namespace) {
        return Err(ApiError::new(
            404,
            "NotFound",
            format!("namespaces \"{namespace}\" not found"),
        ));
    }
    Ok(())
}

/// The apps/v1 workload checks: a selector that matches the pod template's labels,
/// and containers.
fn validate_spec(resource: &Resource, name: &str, object: &Value) -> Result<(), ApiError> {
    validate_labels(
        resource,
        name,
        object.pointer("/metadata/labels"),
        "metadata.labels",
    )?;
    validate_labels(
        resource,
        name,
        object.pointer("/spec/template/metadata/labels"),
        "spec.template.metadata.labels",
    )?;
    if resource.group != "apps"
        || resource.kind == "ReplicaSet" && object.pointer("/metadata/ownerReferences").is_some()
    {
        return Ok(());
    }
    let invalid = |field: &str, what: &str| {
        ApiError::new(
            422,
            "Invalid",
            format!(
                "{}.apps \"{name}\" is invalid: {field}: {what}",
                resource.kind
            ),
        )
    };
    let Some(selector) = object
        .pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object)
    else {
        return Err(invalid("spec.selector", "Required value"));
    };
    let labels = object
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object);
    if !selector
        .iter()
        .all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
    {
        return Err(invalid(
            "spec.template.metadata.labels",
            "Invalid value: `selector` does not match template `labels`",
        ));
    }
    if object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        return Err(invalid("spec.template.spec.containers", "Required value"));
    }
    Ok(())
}

/// Label values: at most 63 characters of `[A-Za-z0-9_.-]`, alphanumeric at both ends
/// (or empty), as the API server validates them.
fn validate_labels(
    resource: &Resource,
    name: &str,
    labels: Option<&Value>,
    field: &str,
) -> Result<(), ApiError> {
    let Some(labels) = labels.and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, value) in labels {
        let value = value.as_str().unwrap_or_default();
        let valid = value.is_empty()
            || (value.len() <= 63
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                && value.starts_with(|c: char| c.is_ascii_alphanumeric())
                && value.ends_with(|c: char| c.is_ascii_alphanumeric()));
        if !valid {
            return Err(ApiError::new(
                422,
                "Invalid",
                format!(
                    "{} \"{name}\" is invalid: {field}: Invalid value: \"{value}\": must be no more \
                     than 63 characters (label {key})",
                    resource.kind
                ),
            ));
        }
    }
    Ok(())
}

/// metadata.generation rises when anything but status and metadata changes.
fn bump_generation(object: &mut Value, current: Option<&Value>) {
    let generation = current
        .and_then(|c| c.pointer("/metadata/generation"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let spec_changed = current.is_none_or(|c| {
        let strip = |v: &Value| {
            let mut v = v.clone();
            if let Some(m) = v.as_object_mut() {
                m.remove("status");
                m.remove("metadata");
            }
            v
        };
        strip(c) != strip(object)
    });
    object["metadata"]["generation"] = json!(if spec_changed {
        generation + 1
    } else {
        generation.max(1)
    });
}

/// Whether `labels` match a label selector ("a", "!a", "a=b", "a==b", "a!=b", joined
/// by commas).
pub fn selects(selector: &str, labels: &Map<String, Value>) -> bool {
    selector.split(',').filter(|s| !s.is_empty()).all(|term| {
        let value = |k: &str| labels.get(k.trim()).and_then(Value::as_str);
        if let Some((k, v)) = term.split_once("!=") {
            value(k) != Some(v.trim())
        } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
            value(k) == Some(v.trim())
        } else if let Some(k) = term.strip_prefix('!') {
            value(k).is_none()
        } else {
            value(term).is_some()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_selectors() {
        assert!(valid_name("web-0.shop"));
        assert!(!valid_name("Web_0"));
        let labels: Map<String, Value> =
            serde_json::from_value(json!({"app": "web", "flotilla/deployment-id": "x"})).unwrap();
        assert!(selects("flotilla/deployment-id", &labels));
        assert!(selects("app=web,flotilla/deployment-id", &labels));
        assert!(!selects("app!=web", &labels));
        assert!(!selects("tier", &labels));
        assert!(selects("!tier", &labels));
    }

    #[test]
    fn label_values_are_limited_to_63_characters() {
        let mut store = Store::default();
        store.put(
            resource_of_kind("Namespace").unwrap(),
            json!({"metadata": {"name": "default"}}),
        );
        let cm = resource_of_kind("ConfigMap").unwrap();
        let labelled = |v: &str| {
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "labels": {"flotilla/deployment-id": v}}})
        };
        store
            .apply(
                cm,
                "default",
                "c",
                labelled(&"a".repeat(63)),
                "flotilla",
                false,
            )
            .unwrap();
        let error = store
            .apply(
                cm,
                "default",
                "c",
                labelled(&"a".repeat(64)),
                "flotilla",
                false,
            )
            .unwrap_err();
        assert_eq!(
            (error.code, error.reason),
            (422, "Invalid"),
            "{}",
            error.message
        );
    }

    #[test]
    fn apply_conflicts_with_another_manager() {
        let mut store = Store::default();
        let ns = resource_of_kind("Namespace").unwrap();
        store.put(ns, json!({"metadata": {"name": "default"}}));
        let cm = resource_of_kind("ConfigMap").unwrap();
        let config = |v: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": v}});
        store
            .apply(cm, "default", "c", config("1"), "flotilla", false)
            .unwrap();
        // Another manager takes the field over with an update.
        let mut edited = store.objects[&("configmaps", "default".into(), "c".into())].clone();
        edited["data"]["k"] = json!("2");
        store
            .update(cm, "default", "c", edited, "kubectl-edit")
            .unwrap();
        let error = store
            .apply(cm, "default", "c", config("1"), "flotilla", false)
            .unwrap_err();
        assert_eq!(error.code, 409);
        assert!(error.message.contains("kubectl-edit"), "{}", error.message);
        // The same value is no conflict; force takes the field back.
        store
            .apply(cm, "default", "c", config("2"), "flotilla", false)
            .unwrap();
        let forced = store
            .apply(cm, "default", "c", config("3"), "flotilla", true)
            .unwrap();
        assert_eq!(forced["data"]["k"], json!("3"));
        // A field the manager stops applying is removed.
        let fewer = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let after = store
            .apply(cm, "default", "c", fewer, "flotilla", false)
            .unwrap();
        assert!(after.get("data").is_none(), "{after}");
    }
}
