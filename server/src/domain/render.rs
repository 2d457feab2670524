//! Rendering: turns an app's manifests into the rsync resources of an instance. Per
//! app, the app profile's merge patches and then the intent group's override patches
//! are applied to the matching documents, and every document gets the label
//! `flotilla/deployment-id: <instance>-<app>` by which the cluster monitor finds it.
//! Network intents render into the CRs of the built-in app `network-intents`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::manifest::{Gvk, check_document, identity, parse_manifests};
use super::resources::{
    Ipv4Subnet, Labels, ManifestPatch, NetworkIntentKind, NetworkIntentSpec, PlacementIntentSpec,
    ProviderNetworkType, labels_match,
};
use crate::error::{Error, Precondition, Result, precondition};
use crate::ids::InstanceId;

/// The label that ties cluster resources to an instance's app.
pub const DEPLOYMENT_ID_LABEL: &str = "flotilla/deployment-id";
/// The built-in app that carries rendered network intents.
pub const NETWORK_INTENTS_APP: &str = "network-intents";

/// One rendered document of an app, not yet bound to a cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderedDoc {
    pub gvk: Gvk,
    pub namespace: String,
    pub name: String,
    pub manifest: Value,
}

/// The value of the deployment-id label of `app` in the instances of `base` (an
/// instantiate's own id, kept by the updates that follow it).
pub fn deployment_id(base: InstanceId, app: &str) -> String {
    format!("{base}-{app}")
}

/// Whether `patch` targets a document of this kind and name.
fn targets(patch: &ManifestPatch, kind: &str, name: &str) -> bool {
    (patch.target_kind.is_empty() || patch.target_kind == kind)
        && (patch.target_name.is_empty() || patch.target_name == name)
}

/// Renders one app: parses its manifests, applies `patches` in order (profile patches
/// first, then overrides), adds the deployment-id label of `base` and checks the result.
pub fn render_app(
    base: InstanceId,
    app: &str,
    manifests: &str,
    patches: &[&ManifestPatch],
) -> Result<Vec<RenderedDoc>> {
    let documents = parse_manifests(&format!("apps/{app}.manifests"), manifests)
        .map_err(|e| render_error(app, &e.to_string()))?;
    let label = deployment_id(base, app);
    let mut seen = BTreeSet::new();
    let mut rendered = Vec::with_capacity(documents.len());
    for (index, mut document) in documents.into_iter().enumerate() {
        let (gvk, _, name) = identity(&document);
        for patch in patches.iter().filter(|p| targets(p, &gvk.kind, &name)) {
            json_patch::merge(&mut document, &patch.merge_patch);
        }
        let path = format!("document[{index}]");
        if let Some(violation) = check_document(&path, &document).first() {
            return Err(render_error(
                app,
                &format!(
                    "after patches, {}: {}",
                    violation.field, violation.description
                ),
            ));
        }
        set_label(&mut document, DEPLOYMENT_ID_LABEL, &label);
        let (gvk, namespace, name) = identity(&document);
        if !seen.insert((gvk.clone(), namespace.clone(), name.clone())) {
            return Err(render_error(
                app,
                &format!("{path}: {} {namespace}/{name} is defined twice", gvk.kind),
            ));
        }
        rendered.push(RenderedDoc {
            gvk,
            namespace,
            name,
            manifest: document,
        });
    }
    Ok(rendered)
}

/// A rendered manifest (JSON text) with its deployment-id label set to that of `app`
/// under `base`: an earlier instance's resources rendered again by a rollback.
pub fn relabel(manifest: &str, base: InstanceId, app: &str) -> Result<String> {
    let mut document: Value = serde_json::from_str(manifest).map_err(Error::internal)?;
    if !document.is_object() {
        return Err(Error::internal("a stored manifest is not a JSON object"));
    }
    set_label(
        &mut document,
        DEPLOYMENT_ID_LABEL,
        &deployment_id(base, app),
    );
    serde_json::to_string(&document).map_err(Error::internal)
}

fn render_error(app: &str, message: &str) -> Error {
    precondition!(
        Precondition::RenderFailed,
        format!("apps/{app}"),
        "app {app:?} does not render: {message}"
    )
}

fn set_label(document: &mut Value, key: &str, value: &str) {
    let metadata = document
        .as_object_mut()
        .expect("checked documents are objects")
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let labels = metadata
        .as_object_mut()
        .expect("checked metadata is an object")
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if !labels.is_object() {
        *labels = Value::Object(Map::new());
    }
    labels
        .as_object_mut()
        .expect("labels is an object")
        .insert(key.to_string(), Value::String(value.to_string()));
}

/// A candidate cluster for placement: (provider id, cluster id) and its labels.
#[derive(Debug, Clone)]
pub struct ClusterCandidate {
    pub provider: String,
    pub cluster: String,
    pub labels: Labels,
}

/// The clusters `intents` place an app on: the union over its intents, each matching
/// explicit names or a label selector within its provider. Names that do not exist are
/// reported as an error rather than silently dropped.
pub fn resolve_placement(
    app: &str,
    intents: &[&PlacementIntentSpec],
    candidates: &[ClusterCandidate],
) -> Result<BTreeSet<(String, String)>> {
    let mut placed = BTreeSet::new();
    for intent in intents {
        let in_provider = candidates
            .iter()
            .filter(|c| c.provider == intent.cluster_provider);
        if intent.cluster_names.is_empty() {
            placed.extend(
                in_provider
                    .filter(|c| labels_match(&intent.cluster_selector, &c.labels))
                    .map(|c| (c.provider.clone(), c.cluster.clone())),
            );
            continue;
        }
        let known: BTreeMap<&str, &ClusterCandidate> =
            in_provider.map(|c| (c.cluster.as_str(), c)).collect();
        for name in &intent.cluster_names {
            if !known.contains_key(name.as_str()) {
                return Err(precondition!(
                    Precondition::PlacementUnknownCluster,
                    format!(
                        "clusterProviders/{}/clusters/{name}",
                        intent.cluster_provider
                    ),
                    "app {app:?} is placed on cluster {name:?} of provider {:?}, which does not exist",
                    intent.cluster_provider
                ));
            }
            placed.insert((intent.cluster_provider.clone(), name.clone()));
        }
    }
    Ok(placed)
}

/// Renders a cluster's network intents into the CRs of the `network-intents` app.
pub fn render_network_intents(
    instance: InstanceId,
    intents: &[(String, NetworkIntentSpec)],
) -> Vec<RenderedDoc> {
    let label = deployment_id(instance, NETWORK_INTENTS_APP);
    intents
        .iter()
        .map(|(name, spec)| {
            let (kind, spec_value) = match &spec.kind {
                NetworkIntentKind::Network {
                    cni_type,
                    ipv4_subnets,
                } => (
                    "Network",
                    json!({"cniType": cni_type, "ipv4Subnets": subnets_json(ipv4_subnets)}),
                ),
                NetworkIntentKind::ProviderNetwork {
                    cni_type,
                    ipv4_subnets,
                    provider_net_type,
                    vlan,
                } => {
                    let mut value = json!({
                        "cniType": cni_type,
                        "ipv4Subnets": subnets_json(ipv4_subnets),
                        "providerNetType": match provider_net_type {
                            ProviderNetworkType::Vlan => "VLAN",
                            ProviderNetworkType::Direct => "DIRECT",
                        },
                    });
                    if let Some(vlan) = vlan {
                        value["vlan"] = json!({
                            "vlanId": vlan.vlan_id.to_string(),
                            "providerInterfaceName": vlan.provider_interface_name,
                            "logicalInterfaceName": vlan.logical_interface_name,
                            "vlanNodeSelector": vlan.vlan_node_selector,
                            "nodeLabelList": vlan.node_label_list,
                        });
                    }
                    ("ProviderNetwork", value)
                }
            };
            let api_version = "k8s.plugin.opnfv.org/v1alpha1";
            let manifest = json!({
                "apiVersion": api_version,
                "kind": kind,
                "metadata": {"name": name, "labels": {DEPLOYMENT_ID_LABEL: label}},
                "spec": spec_value,
            });
            RenderedDoc {
                gvk: Gvk::from_api_version(api_version, kind),
                namespace: String::new(),
                name: name.clone(),
                manifest,
            }
        })
        .collect()
}

fn subnets_json(subnets: &[Ipv4Subnet]) -> Value {
    subnets
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "subnet": s.subnet,
                "gateway": s.gateway,
                "excludeIps": s.exclude_ips.join(" "),
            })
        })
        .collect()
}

/// A stable hash of any serializable content (JSON object keys are sorted).
pub fn content_hash(content: &Value) -> String {
    let bytes = serde_json::to_vec(content).expect("JSON values serialize");
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const APP: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {tier: front}\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n";

    fn patch(kind: &str, name: &str, patch: Value) -> ManifestPatch {
        ManifestPatch {
            target_kind: kind.into(),
            target_name: name.into(),
            merge_patch: patch,
        }
    }

    #[test]
    fn applies_targeted_patches_in_order_and_labels_every_document() {
        let instance = InstanceId::new();
        let profile = patch("Deployment", "", json!({"spec": {"replicas": 3}}));
        let overrides = patch("Deployment", "web", json!({"spec": {"replicas": 5}}));
        let docs = render_app(instance, "web", APP, &[&profile, &overrides]).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].manifest["spec"]["replicas"], 5);
        assert!(docs[1].manifest.get("spec").is_none(), "service untouched");
        for doc in &docs {
            assert_eq!(
                doc.manifest["metadata"]["labels"][DEPLOYMENT_ID_LABEL],
                format!("{instance}-web")
            );
        }
        assert_eq!(docs[0].manifest["metadata"]["labels"]["tier"], "front");
    }

    #[test]
    fn a_patch_that_breaks_a_document_is_a_render_error() {
        let broken = patch("Service", "", json!({"metadata": {"name": null}}));
        let err = render_app(InstanceId::new(), "web", APP, &[&broken]).unwrap_err();
        assert!(err.to_string().contains("metadata.name"), "{err}");
    }

    #[test]
    fn duplicate_documents_are_a_render_error() {
        let text = format!("{APP}---\n{APP}");
        let err = render_app(InstanceId::new(), "web", &text, &[]).unwrap_err();
        assert!(err.to_string().contains("defined twice"), "{err}");
    }

    #[test]
    fn placement_by_names_and_selector() {
        let candidates: Vec<ClusterCandidate> = [
            ("p", "c1", "east"),
            ("p", "c2", "west"),
            ("q", "c1", "east"),
        ]
        .iter()
        .map(|(p, c, region)| ClusterCandidate {
            provider: p.to_string(),
            cluster: c.to_string(),
            labels: [("region".to_string(), region.to_string())].into(),
        })
        .collect();
        let by_name = PlacementIntentSpec {
            cluster_provider: "p".into(),
            cluster_names: vec!["c2".into()],
            ..Default::default()
        };
        let by_label = PlacementIntentSpec {
            cluster_provider: "q".into(),
            cluster_selector: [("region".to_string(), "east".to_string())].into(),
            ..Default::default()
        };
        let placed = resolve_placement("a", &[&by_name, &by_label], &candidates).unwrap();
        let expected: BTreeSet<_> = [
            ("p".to_string(), "c2".to_string()),
            ("q".to_string(), "c1".to_string()),
        ]
        .into();
        assert_eq!(placed, expected);
        let unknown = PlacementIntentSpec {
            cluster_provider: "p".into(),
            cluster_names: vec!["nope".into()],
            ..Default::default()
        };
        assert!(resolve_placement("a", &[&unknown], &candidates).is_err());
    }

    #[test]
    fn network_intents_render_to_crs() {
        let spec = NetworkIntentSpec {
            description: String::new(),
            kind: NetworkIntentKind::ProviderNetwork {
                cni_type: "ovn4nfv".into(),
                ipv4_subnets: vec![Ipv4Subnet {
                    name: "s1".into(),
                    subnet: "10.0.0.0/24".into(),
                    gateway: "10.0.0.1/24".into(),
                    exclude_ips: vec![],
                }],
                provider_net_type: ProviderNetworkType::Vlan,
                vlan: Some(Default::default()),
            },
        };
        let docs = render_network_intents(InstanceId::new(), &[("pnet".into(), spec)]);
        assert_eq!(docs[0].gvk.kind, "ProviderNetwork");
        assert_eq!(docs[0].manifest["spec"]["providerNetType"], "VLAN");
        assert!(check_document("d", &docs[0].manifest).is_empty());
    }

    fn json_value() -> impl Strategy<Value = Value> {
        crate::domain::json_documents(3, 24, 4)
    }

    proptest! {
        /// RFC 7386: applying a patch twice gives the same result as applying it once,
        /// and the patched document has every non-null member of an object patch.
        #[test]
        fn merge_patch_is_idempotent(target in json_value(), patch in json_value()) {
            let mut once = target.clone();
            json_patch::merge(&mut once, &patch);
            let mut twice = once.clone();
            json_patch::merge(&mut twice, &patch);
            prop_assert_eq!(&once, &twice);
            if let Value::Object(members) = &patch {
                for (key, value) in members {
                    if value.is_null() {
                        prop_assert!(once.get(key).is_none());
                    } else if !value.is_object() {
                        prop_assert_eq!(once.get(key), Some(value));
                    }
                }
            }
        }

        /// Rendering never panics and always labels every document, whatever the patch.
        #[test]
        fn rendering_labels_every_document(patch in json_value(), replicas in 0u32..10) {
            let instance = InstanceId::new();
            let text = format!("{APP}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{replicas}\n");
            let profile = ManifestPatch { merge_patch: patch, ..Default::default() };
            if let Ok(docs) = render_app(instance, "web", &text, &[&profile]) {
                let expected = format!("{instance}-web");
                for doc in docs {
                    prop_assert_eq!(
                        doc.manifest["metadata"]["labels"][DEPLOYMENT_ID_LABEL].as_str(),
                        Some(expected.as_str())
                    );
                }
            }
        }
    }
}
