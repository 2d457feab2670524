//! The specs of the EMCO resources, as stored (JSON) and as the domain sees them.
//! The proto messages are converted to and from these types at the API boundary,
//! where they are validated.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Labels: sorted, so hashes and encodings are deterministic.
pub type Labels = BTreeMap<String, String>;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectSpec {
    pub description: String,
    pub labels: Labels,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompositeAppSpec {
    pub description: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AppSpec {
    pub description: String,
    /// The manifests exactly as given (multi-document YAML or a JSON list).
    pub manifests: String,
    /// How many documents `manifests` holds (validated on write).
    pub document_count: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompositeProfileSpec {
    pub description: String,
}

/// A JSON merge patch (RFC 7386) aimed at some documents of an app.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ManifestPatch {
    /// Only documents of this kind ("" = any).
    pub target_kind: String,
    /// Only documents with this metadata.name ("" = any).
    pub target_name: String,
    /// The merge patch, a JSON object.
    pub merge_patch: Value,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AppProfileSpec {
    pub description: String,
    /// The app id this profile patches.
    pub app: String,
    pub patches: Vec<ManifestPatch>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AppOverride {
    pub app: String,
    pub patches: Vec<ManifestPatch>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DigSpec {
    pub description: String,
    /// The composite profile id (same composite app version).
    pub composite_profile: String,
    pub override_values: Vec<AppOverride>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlacementIntentSpec {
    pub description: String,
    pub app: String,
    pub cluster_provider: String,
    /// Explicit cluster ids; exclusive with `cluster_selector`.
    pub cluster_names: Vec<String>,
    /// Match labels; exclusive with `cluster_names`.
    pub cluster_selector: Labels,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterProviderSpec {
    pub description: String,
    pub labels: Labels,
}

/// How the server reaches a member cluster.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConnectionMode {
    #[default]
    Agent,
    EmbeddedSim,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterSpec {
    pub description: String,
    pub labels: Labels,
    pub connection_mode: ConnectionMode,
    /// The container cluster (its id) this cluster was registered from
    /// (RegisterContainerCluster): its embedded sim agent's nodes are that cluster's
    /// VMs, and it is connected only while that cluster runs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub container_cluster: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ipv4Subnet {
    pub name: String,
    pub subnet: String,
    pub gateway: String,
    pub exclude_ips: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProviderNetworkType {
    Vlan,
    Direct,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Vlan {
    pub vlan_id: i32,
    pub provider_interface_name: String,
    pub logical_interface_name: String,
    pub vlan_node_selector: String,
    pub node_label_list: Vec<String>,
}

/// What a network intent describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum NetworkIntentKind {
    Network {
        cni_type: String,
        ipv4_subnets: Vec<Ipv4Subnet>,
    },
    ProviderNetwork {
        cni_type: String,
        ipv4_subnets: Vec<Ipv4Subnet>,
        provider_net_type: ProviderNetworkType,
        vlan: Option<Vlan>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkIntentSpec {
    pub description: String,
    pub kind: NetworkIntentKind,
}

/// True when every pair of `selector` is in `labels` (an empty selector matches all).
pub fn labels_match(selector: &Labels, labels: &Labels) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}
