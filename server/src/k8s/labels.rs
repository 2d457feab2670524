//! The deployment-id label on a real cluster. A deployment id is an instance id and an
//! app id (`{uuid}-{app}`, up to 100 characters), but a Kubernetes label value holds at
//! most 63. An id that fits is the label as it is (`kubectl get -l` finds it); a longer
//! one is bounded in the label — its first characters and a digest of the whole, still
//! unique — and kept whole in the `flotilla/deployment-id` annotation, which is what the
//! monitor reads back. Workload templates carry both down to their pods.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::domain::render::DEPLOYMENT_ID_LABEL;

/// The annotation that holds the whole deployment id when the label cannot.
pub const DEPLOYMENT_ID_ANNOTATION: &str = "flotilla/deployment-id";
/// Kubernetes' bound on a label value.
const LABEL_VALUE_MAX: usize = 63;
/// Hex digits of the digest in a bounded label value.
const DIGEST_HEX: usize = 16;

/// The label value that stands for deployment id `id`.
pub fn label_value(id: &str) -> String {
    if id.len() <= LABEL_VALUE_MAX {
        return id.to_string();
    }
    let digest = hex::encode(Sha256::digest(id.as_bytes()));
    // Ids are ASCII (a UUID and a name); the prefix must end alphanumeric.
    let keep = LABEL_VALUE_MAX - DIGEST_HEX - 1;
    let prefix = id[..keep].trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
    format!("{prefix}-{}", &digest[..DIGEST_HEX])
}

/// The deployment id of an object with these labels and annotations: the annotation
/// when set, else the label.
pub fn deployment_id(
    labels: Option<&std::collections::BTreeMap<String, String>>,
    annotations: Option<&std::collections::BTreeMap<String, String>>,
) -> Option<String> {
    annotations
        .and_then(|a| a.get(DEPLOYMENT_ID_ANNOTATION))
        .or_else(|| labels?.get(DEPLOYMENT_ID_LABEL))
        .cloned()
}

/// Workload kinds whose `spec.template` makes pods (or VM instances).
const TEMPLATED: [&str; 6] = [
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "Job",
    "VirtualMachine",
];

/// `manifest` as it is applied: its deployment-id label bounded (the whole id in the
/// annotation when it had to be), and both in its pod template too, so the pods it
/// makes carry them (the sim's controllers do the same).
pub fn for_cluster(mut manifest: Value) -> Value {
    let Some(id) = manifest
        .pointer("/metadata/labels")
        .and_then(|l| l.get(DEPLOYMENT_ID_LABEL))
        .and_then(Value::as_str)
        .map(String::from)
    else {
        return manifest;
    };
    let label = label_value(&id);
    let annotate = label != id;
    set(&mut manifest, &label, annotate.then_some(id.as_str()));
    let kind = manifest
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !TEMPLATED.contains(&kind) {
        return manifest;
    }
    let Some(spec) = manifest.get_mut("spec").and_then(Value::as_object_mut) else {
        return manifest;
    };
    let template = spec.entry("template").or_insert_with(|| json!({}));
    if template.is_object() {
        set(template, &label, annotate.then_some(id.as_str()));
    }
    manifest
}

/// Sets the label (and the annotation, when given) in `object`'s metadata.
fn set(object: &mut Value, label: &str, annotation: Option<&str>) {
    let Some(object) = object.as_object_mut() else {
        return;
    };
    let metadata = object.entry("metadata").or_insert_with(|| json!({}));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let mut put = |field: &str, key: &str, value: &str| {
        let map = metadata
            .entry(field)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(map) = map.as_object_mut() {
            map.insert(key.into(), Value::String(value.into()));
        }
    };
    put("labels", DEPLOYMENT_ID_LABEL, label);
    if let Some(id) = annotation {
        put("annotations", DEPLOYMENT_ID_ANNOTATION, id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_labels_carry_the_deployment_id() {
        let labelled = for_cluster(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"flotilla/deployment-id": "x-web"}},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}
        }));
        assert_eq!(
            labelled.pointer("/spec/template/metadata/labels"),
            Some(&json!({"app": "web", "flotilla/deployment-id": "x-web"}))
        );
        assert_eq!(labelled.pointer("/metadata/annotations"), None);
        let config = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "labels": {"flotilla/deployment-id": "x-c"}}});
        assert_eq!(for_cluster(config.clone()), config);
    }

    #[test]
    fn long_ids_are_bounded_in_the_label_and_whole_in_the_annotation() {
        let app = "a".repeat(62) + "z";
        let id = format!("0190a3d2-7c4e-7d88-9d6f-2b8c1f7e4a10-{app}");
        assert_eq!(id.len(), 100);
        let label = label_value(&id);
        assert!(label.len() <= 63, "{label}");
        assert!(label.ends_with(|c: char| c.is_ascii_alphanumeric()));
        assert!(id.starts_with(label.rsplit_once('-').unwrap().0));
        // Two ids with the same first characters get different labels.
        assert_ne!(label, label_value(&format!("{}y", &id[..99])));
        let applied = for_cluster(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"flotilla/deployment-id": id}},
            "spec": {"template": {}}
        }));
        for at in ["/metadata", "/spec/template/metadata"] {
            let metadata = applied.pointer(at).unwrap();
            assert_eq!(metadata["labels"][DEPLOYMENT_ID_LABEL], label.as_str());
            assert_eq!(
                metadata["annotations"][DEPLOYMENT_ID_ANNOTATION],
                id.as_str()
            );
        }
        let labels = [(DEPLOYMENT_ID_LABEL.to_string(), label)].into();
        let annotations = [(DEPLOYMENT_ID_ANNOTATION.to_string(), id.clone())].into();
        assert_eq!(deployment_id(Some(&labels), Some(&annotations)), Some(id));
        assert_eq!(
            deployment_id(Some(&labels), None).as_deref(),
            labels.get(DEPLOYMENT_ID_LABEL).map(String::as_str)
        );
    }
}
