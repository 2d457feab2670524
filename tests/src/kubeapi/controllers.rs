//! The emulator's KubeVirt controllers, reduced to what VM actions need: a running
//! VirtualMachine has its VirtualMachineInstance, which has a virt-launcher pod placed
//! on a node that turns Running and Ready after the kubelet's delay; a
//! VirtualMachineSnapshot completes with its content and VolumeSnapshot. The garbage
//! collector removes what an owner that went owned.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::store::{Key, RESOURCES, Resource, Store, resource_of_kind};

fn res(kind: &str) -> &'static Resource {
    resource_of_kind(kind).expect("served kind")
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn hash(value: &Value) -> String {
    let digest = Sha256::digest(value.to_string().as_bytes());
    digest
        .iter()
        .take(5)
        .map(|b| format!("{:02x}", b))
        .collect::<String>()[..10]
        .to_string()
}

/// Objects of `plural` owned (controller reference) by `uid`.
fn owned(store: &Store, plural: &str, uid: &str) -> Vec<(Key, Value)> {
    store
        .objects
        .iter()
        .filter(|((p, _, _), o)| {
            *p == plural
                && o.pointer("/metadata/ownerReferences")
                    .and_then(Value::as_array)
                    .is_some_and(|refs| refs.iter().any(|r| text(r, "/uid") == uid))
        })
        .map(|(k, o)| (k.clone(), o.clone()))
        .collect()
}

fn owner_ref(kind: &str, object: &Value) -> Value {
    json!([{
        "apiVersion": res(kind).api_version(), "kind": kind,
        "name": text(object, "/metadata/name"), "uid": text(object, "/metadata/uid"),
        "controller": true, "blockOwnerDeletion": true
    }])
}

fn is_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|c| text(c, "/type") == "Ready" && text(c, "/status") == "True")
        })
}

fn deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some()
}

/// A pod status: phase and readiness.
pub fn pod_status(phase: &str, ready: bool) -> Value {
    json!({
        "phase": phase,
        "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
    })
}

/// Puts `object` only if it changed.
fn put_if_changed(store: &mut Store, kind: &str, object: Value) {
    let key: Key = (
        res(kind).plural,
        text(&object, "/metadata/namespace").to_string(),
        text(&object, "/metadata/name").to_string(),
    );
    let mut same = object.clone();
    if let Some(stored) = store.objects.get(&key) {
        same["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"].clone();
        if *stored == same {
            return;
        }
    }
    store.put(res(kind), object);
}

/// The nodes' names.
fn nodes(store: &Store) -> Vec<String> {
    store
        .objects
        .keys()
        .filter(|(p, _, _)| *p == "nodes")
        .map(|(_, _, n)| n.clone())
        .collect()
}

/// Makes a pod for `owner` (kind `owner_kind`) named `name` from `template`.
fn new_pod(
    store: &mut Store,
    owner_kind: &str,
    owner: &Value,
    name: &str,
    template: &Value,
    node: String,
    extra: &[(&str, String)],
) -> (Key, String) {
    let mut labels = template
        .pointer("/metadata/labels")
        .cloned()
        .unwrap_or_else(|| json!({}));
    for (k, v) in extra {
        labels[*k] = json!(v);
    }
    let mut spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    spec["nodeName"] = json!(node);
    let namespace = text(owner, "/metadata/namespace").to_string();
    let pod = json!({
        "metadata": {"name": name, "namespace": namespace, "labels": labels,
                     "ownerReferences": owner_ref(owner_kind, owner)},
        "spec": spec,
        "status": pod_status("Pending", false),
    });
    let stored = store.put(res("Pod"), pod);
    let uid = text(&stored, "/metadata/uid").to_string();
    (("pods", namespace, name.to_string()), uid)
}

/// What a reconcile started that finishes later: pods for the kubelet to start and
/// VM snapshots to take, as (key, uid).
#[derive(Default)]
pub struct Started {
    pub pods: Vec<(Key, String)>,
    pub snapshots: Vec<(Key, String)>,
}

/// Brings every controller in line with its spec.
pub fn reconcile(store: &mut Store, counter: &mut u64) -> Started {
    let mut started = Started::default();
    let controllers: Vec<(Key, Value)> = store
        .objects
        .iter()
        .filter(|((p, _, _), o)| {
            matches!(
                *p,
                "virtualmachines" | "virtualmachineinstances" | "virtualmachinesnapshots"
            ) && !deleting(o)
        })
        .map(|(k, o)| (k.clone(), o.clone()))
        .collect();
    for ((plural, namespace, name), object) in controllers {
        let uid = text(&object, "/metadata/uid").to_string();
        match plural {
            "virtualmachines" => vm(store, &namespace, &name, &object),
            "virtualmachineinstances" => {
                vmi(store, &namespace, &name, &object, counter, &mut started)
            }
            "virtualmachinesnapshots" if object.pointer("/status/phase").is_none() => {
                let mut snapshot = object.clone();
                snapshot["status"] = json!({"phase": "InProgress", "readyToUse": false});
                store.put(res("VirtualMachineSnapshot"), snapshot);
                started.snapshots.push(((plural, namespace, name), uid));
            }
            _ => {}
        }
    }
    started
}

/// KubeVirt's VM controller: a running VM has its VirtualMachineInstance.
fn vm(store: &mut Store, namespace: &str, name: &str, object: &Value) {
    let running = object
        .pointer("/spec/running")
        .and_then(Value::as_bool)
        .unwrap_or(false)
        || text(object, "/spec/runStrategy") == "Always";
    let key: Key = (
        "virtualmachineinstances",
        namespace.to_string(),
        name.to_string(),
    );
    let instance = store.objects.get(&key).cloned();
    if running && instance.is_none() {
        let template = object
            .pointer("/spec/template")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let mut labels = template
            .pointer("/metadata/labels")
            .cloned()
            .unwrap_or_else(|| json!({}));
        labels["kubevirt.io/domain"] = json!(name);
        labels["vm.kubevirt.io/name"] = json!(name);
        store.put(
            res("VirtualMachineInstance"),
            json!({"metadata": {"name": name, "namespace": namespace, "labels": labels,
                                "ownerReferences": owner_ref("VirtualMachine", object)},
                   "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
                   "status": {"phase": "Scheduling"}}),
        );
    } else if !running && instance.is_some() {
        remove_tree(store, &key);
    }
    let ready = store
        .objects
        .get(&key)
        .is_some_and(|i| text(i, "/status/phase") == "Running");
    let mut vm = object.clone();
    vm["status"] = json!({"ready": ready, "printableStatus": if ready { "Running" } else if running { "Starting" } else { "Stopped" }});
    put_if_changed(store, "VirtualMachine", vm);
}

/// KubeVirt's VMI controller: a virt-launcher pod per instance.
fn vmi(
    store: &mut Store,
    namespace: &str,
    name: &str,
    object: &Value,
    counter: &mut u64,
    started: &mut Started,
) {
    let uid = text(object, "/metadata/uid").to_string();
    let pods = owned(store, "pods", &uid);
    if pods.is_empty() {
        *counter += 1;
        let suffix = &hash(&json!(*counter))[..5];
        let node = nodes(store).first().cloned().unwrap_or_default();
        let template = json!({"metadata": {"labels": object.pointer("/metadata/labels").cloned().unwrap_or_else(|| json!({}))},
                              "spec": {"containers": [{"name": "compute", "image": "virt-launcher"}]}});
        let extra = [("kubevirt.io", "virt-launcher".to_string())];
        started.pods.push(new_pod(
            store,
            "VirtualMachineInstance",
            object,
            &format!("virt-launcher-{name}-{suffix}"),
            &template,
            node,
            &extra,
        ));
    }
    let running = owned(store, "pods", &uid).iter().any(|(_, p)| is_ready(p));
    let mut instance = object.clone();
    instance["status"] = json!({"phase": if running { "Running" } else { "Scheduling" }});
    put_if_changed(store, "VirtualMachineInstance", instance);
    let _ = namespace;
}

/// KubeVirt's snapshot controller, when the snapshot is taken: the volume snapshot (its
/// restoreSize: the VM's memory request, else 1Gi), the content, and Succeeded; Failed
/// when the VM does not exist.
pub fn finish_snapshot(store: &mut Store, key: &Key, uid: &str) {
    let Some(mut snapshot) = store.objects.get(key).cloned() else {
        return;
    };
    if text(&snapshot, "/metadata/uid") != uid {
        return;
    }
    let namespace = key.1.clone();
    let source = text(&snapshot, "/spec/source/name").to_string();
    let Some(vm) = store
        .objects
        .get(&("virtualmachines", namespace.clone(), source.clone()))
        .cloned()
    else {
        snapshot["status"] = json!({"phase": "Failed", "readyToUse": false,
            "error": {"message": format!("VirtualMachine {source} does not exist")}});
        store.put(res("VirtualMachineSnapshot"), snapshot);
        return;
    };
    let size = vm
        .pointer("/spec/template/spec/domain/resources/requests/memory")
        .and_then(Value::as_str)
        .unwrap_or("1Gi")
        .to_string();
    let short = &uid[uid.len().saturating_sub(8)..];
    let volume = format!("vmsnapshot-{short}-volume-rootdisk");
    let content = format!("vmsnapshot-content-{short}");
    store.put(
        res("VolumeSnapshot"),
        json!({"metadata": {"name": volume, "namespace": namespace},
               "status": {"readyToUse": true, "restoreSize": size}}),
    );
    store.put(
        res("VirtualMachineSnapshotContent"),
        json!({"metadata": {"name": content, "namespace": namespace},
               "status": {"readyToUse": true, "volumeSnapshotStatus": [{"volumeSnapshotName": volume, "readyToUse": true}]}}),
    );
    snapshot["status"] = json!({"phase": "Succeeded", "readyToUse": true,
        "virtualMachineSnapshotContentName": content});
    store.put(res("VirtualMachineSnapshot"), snapshot);
}

/// Removes an object and, first, everything it owns (recursively).
pub fn remove_tree(store: &mut Store, key: &Key) {
    let Some(object) = store.objects.get(key).cloned() else {
        return;
    };
    let uid = text(&object, "/metadata/uid").to_string();
    for plural in RESOURCES.iter().map(|r| r.plural) {
        for (dependent, _) in owned(store, plural, &uid) {
            remove_tree(store, &dependent);
        }
    }
    store.remove(key);
}

/// The kubelet's part: the pod `key` (if still the one with `uid`) runs, Ready.
pub fn start_pod(store: &mut Store, key: &Key, uid: &str) -> bool {
    let Some(pod) = store.objects.get(key).cloned() else {
        return false;
    };
    if text(&pod, "/metadata/uid") != uid || deleting(&pod) {
        return false;
    }
    let job = pod
        .pointer("/metadata/ownerReferences/0/kind")
        .and_then(Value::as_str)
        == Some("Job");
    let mut pod = pod;
    pod["status"] = if job {
        pod_status("Succeeded", false)
    } else {
        pod_status("Running", true)
    };
    store.put(res("Pod"), pod);
    true
}
