//! Conversions between proto messages and domain types. Conversions *from* proto
//! validate: every problem becomes a field violation naming the request field, and
//! all violations of a request are reported together.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

use flotilla_api::v1 as pb;
use prost_types::{FieldMask, Timestamp, value::Kind as ValueKind};
use serde_json::Value;

use crate::domain::manifest::parse_manifests;
use crate::domain::names::{Kind, ResourceName, validate_id};
use crate::domain::resources::{
    AppOverride, AppProfileSpec, AppSpec, ClusterProviderSpec, ClusterSpec, CompositeAppSpec,
    CompositeProfileSpec, ConnectionMode, DigSpec, Ipv4Subnet, Labels, ManifestPatch,
    NetworkIntentKind, NetworkIntentSpec, PlacementIntentSpec, ProjectSpec, ProviderNetworkType,
    Vlan,
};
use crate::error::{Error, FieldViolation, Result, Violations};
use crate::store::object::Object;

/// The longest accepted description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;
/// The most labels a resource may carry.
pub const MAX_LABELS: usize = 64;

// ---------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------

pub fn timestamp(micros: i64) -> Option<Timestamp> {
    Some(Timestamp {
        seconds: micros.div_euclid(1_000_000),
        nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
    })
}

/// The etag of a generation.
pub fn etag(generation: i64) -> String {
    generation.to_string()
}

/// Parses an optional etag ("" = none).
pub fn parse_etag(field: &str, etag: &str) -> Result<Option<i64>> {
    if etag.is_empty() {
        return Ok(None);
    }
    etag.trim_matches('"')
        .parse::<i64>()
        .map(Some)
        .map_err(|_| {
            Error::invalid(
                field,
                format!("{etag:?} is not an etag returned by the server"),
            )
        })
}

/// Parses a resource name of `kind` from request field `field`.
pub fn name(kind: &'static Kind, field: &str, value: &str) -> Result<ResourceName> {
    ResourceName::parse(kind, field, value).map_err(|v| Error::InvalidArgument {
        violations: vec![v],
    })
}

/// Validates a new resource id.
pub fn id(field: &str, value: &str) -> Result<()> {
    validate_id(value).map_err(|why| Error::invalid(field, why))
}

fn check_id(violations: &mut Violations, field: &str, value: &str) {
    if let Err(why) = validate_id(value) {
        violations.add(field, why);
    }
}

fn check_description(violations: &mut Violations, field: &str, value: &str) {
    if value.chars().count() > MAX_DESCRIPTION_CHARS {
        violations.add(
            field,
            format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
        );
    }
}

/// Kubernetes label syntax: keys are `[prefix/]name`, names and values at most 63
/// characters of `[A-Za-z0-9._-]` starting and ending alphanumeric (values may be empty).
fn check_labels(violations: &mut Violations, field: &str, labels: &BTreeMap<String, String>) {
    if labels.len() > MAX_LABELS {
        violations.add(field, format!("at most {MAX_LABELS} labels"));
    }
    let segment_ok = |s: &str| {
        s.len() <= 63
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && s.chars().next().is_none_or(|c| c.is_ascii_alphanumeric())
            && s.chars().last().is_none_or(|c| c.is_ascii_alphanumeric())
    };
    for (key, value) in labels {
        let (prefix, name) = match key.rsplit_once('/') {
            Some((prefix, name)) => (Some(prefix), name),
            None => (None, key.as_str()),
        };
        let prefix_ok = prefix.is_none_or(|p| {
            !p.is_empty() && p.len() <= 253 && p.split('.').all(|part| validate_id(part).is_ok())
        });
        if name.is_empty() || !segment_ok(name) || !prefix_ok {
            violations.add(
                format!("{field}[{key:?}]"),
                "is not a valid label key ([prefix/]name, name at most 63 of [A-Za-z0-9._-])",
            );
        }
        if !segment_ok(value) {
            violations.add(
                format!("{field}[{key:?}]"),
                "is not a valid label value (at most 63 of [A-Za-z0-9._-])",
            );
        }
    }
}

/// The paths of an update mask, checked against the updatable fields; empty or `*`
/// means every updatable field.
pub fn mask_paths(
    mask: Option<&FieldMask>,
    updatable: &[&'static str],
) -> Result<Vec<&'static str>> {
    let paths = mask.map(|m| m.paths.as_slice()).unwrap_or_default();
    if paths.is_empty() || paths == ["*"] {
        return Ok(updatable.to_vec());
    }
    let mut violations = Violations::new();
    let mut selected = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        match updatable.iter().find(|u| **u == path) {
            Some(u) => selected.push(*u),
            None => violations.add(
                format!("update_mask.paths[{index}]"),
                format!(
                    "{path:?} is not an updatable field (one of {})",
                    updatable.join(", ")
                ),
            ),
        }
    }
    violations.into_result()?;
    Ok(selected)
}

// ---------------------------------------------------------------------------------
// JSON <-> google.protobuf.Struct
// ---------------------------------------------------------------------------------

/// A protobuf Value as JSON. Whole numbers come back as integers (protobuf has only
/// doubles), so `replicas: 3` stays `3`, not `3.0`.
pub fn value_to_json(value: &prost_types::Value) -> Value {
    match &value.kind {
        None | Some(ValueKind::NullValue(_)) => Value::Null,
        Some(ValueKind::BoolValue(b)) => Value::Bool(*b),
        Some(ValueKind::NumberValue(n)) => {
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                Value::from(*n as i64)
            } else {
                serde_json::Number::from_f64(*n)
                    .map(Value::Number)
                    .unwrap_or(Value::Null)
            }
        }
        Some(ValueKind::StringValue(s)) => Value::String(s.clone()),
        Some(ValueKind::ListValue(list)) => {
            Value::Array(list.values.iter().map(value_to_json).collect())
        }
        Some(ValueKind::StructValue(s)) => struct_to_json(s),
    }
}

pub fn struct_to_json(s: &prost_types::Struct) -> Value {
    Value::Object(
        s.fields
            .iter()
            .map(|(k, v)| (k.clone(), value_to_json(v)))
            .collect(),
    )
}

pub fn json_to_value(value: &Value) -> prost_types::Value {
    let kind = match value {
        Value::Null => ValueKind::NullValue(0),
        Value::Bool(b) => ValueKind::BoolValue(*b),
        Value::Number(n) => ValueKind::NumberValue(n.as_f64().unwrap_or_default()),
        Value::String(s) => ValueKind::StringValue(s.clone()),
        Value::Array(items) => ValueKind::ListValue(prost_types::ListValue {
            values: items.iter().map(json_to_value).collect(),
        }),
        Value::Object(_) => ValueKind::StructValue(json_to_struct(value)),
    };
    prost_types::Value { kind: Some(kind) }
}

/// A JSON object as a Struct (non-objects give an empty Struct).
pub fn json_to_struct(value: &Value) -> prost_types::Struct {
    prost_types::Struct {
        fields: value
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), json_to_value(v)))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

// ---------------------------------------------------------------------------------
// Manifest patches
// ---------------------------------------------------------------------------------

fn patches_from_proto(
    violations: &mut Violations,
    field: &str,
    patches: &[pb::ManifestPatch],
) -> Vec<ManifestPatch> {
    patches
        .iter()
        .enumerate()
        .map(|(index, patch)| {
            let path = format!("{field}[{index}]");
            let merge_patch = match &patch.merge_patch {
                Some(s) => struct_to_json(s),
                None => {
                    violations.add(format!("{path}.merge_patch"), "is required");
                    Value::Null
                }
            };
            if patch.target_kind.len() > 63 {
                violations.add(
                    format!("{path}.target_kind"),
                    "must be at most 63 characters",
                );
            }
            if patch.target_name.len() > 253 {
                violations.add(
                    format!("{path}.target_name"),
                    "must be at most 253 characters",
                );
            }
            ManifestPatch {
                target_kind: patch.target_kind.clone(),
                target_name: patch.target_name.clone(),
                merge_patch,
            }
        })
        .collect()
}

fn patches_to_proto(patches: &[ManifestPatch]) -> Vec<pb::ManifestPatch> {
    patches
        .iter()
        .map(|p| pb::ManifestPatch {
            target_kind: p.target_kind.clone(),
            target_name: p.target_name.clone(),
            merge_patch: Some(json_to_struct(&p.merge_patch)),
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------

pub fn project_to_proto(o: &Object<ProjectSpec>) -> pb::Project {
    pb::Project {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        labels: o.spec.labels.clone(),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn project_from_proto(p: &pb::Project) -> Result<ProjectSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "project.description", &p.description);
    check_labels(&mut v, "project.labels", &p.labels);
    v.into_result()?;
    Ok(ProjectSpec {
        description: p.description.clone(),
        labels: p.labels.clone(),
    })
}

pub fn project_overlay(current: &mut pb::Project, incoming: pb::Project, paths: &[&str]) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "labels" => current.labels = incoming.labels.clone(),
            _ => {}
        }
    }
}

pub fn composite_app_to_proto(o: &Object<CompositeAppSpec>) -> pb::CompositeApp {
    pb::CompositeApp {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn composite_app_from_proto(p: &pb::CompositeApp) -> Result<CompositeAppSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "composite_app.description", &p.description);
    v.into_result()?;
    Ok(CompositeAppSpec {
        description: p.description.clone(),
    })
}

pub fn app_to_proto(o: &Object<AppSpec>) -> pb::App {
    pb::App {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        manifests: o.spec.manifests.clone(),
        document_count: o.spec.document_count as i32,
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn app_from_proto(p: &pb::App) -> Result<AppSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "app.description", &p.description);
    v.into_result()?;
    if p.manifests.trim().is_empty() {
        return Err(Error::invalid("app.manifests", "is required"));
    }
    let documents = parse_manifests("app.manifests", &p.manifests)?;
    Ok(AppSpec {
        description: p.description.clone(),
        manifests: p.manifests.clone(),
        document_count: documents.len(),
    })
}

pub fn app_overlay(current: &mut pb::App, incoming: pb::App, paths: &[&str]) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "manifests" => current.manifests = incoming.manifests.clone(),
            _ => {}
        }
    }
}

pub fn composite_profile_to_proto(o: &Object<CompositeProfileSpec>) -> pb::CompositeProfile {
    pb::CompositeProfile {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn composite_profile_from_proto(p: &pb::CompositeProfile) -> Result<CompositeProfileSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "composite_profile.description", &p.description);
    v.into_result()?;
    Ok(CompositeProfileSpec {
        description: p.description.clone(),
    })
}

pub fn app_profile_to_proto(o: &Object<AppProfileSpec>) -> pb::AppProfile {
    pb::AppProfile {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        app: o.spec.app.clone(),
        patches: patches_to_proto(&o.spec.patches),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn app_profile_from_proto(p: &pb::AppProfile) -> Result<AppProfileSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "app_profile.description", &p.description);
    check_id(&mut v, "app_profile.app", &p.app);
    let patches = patches_from_proto(&mut v, "app_profile.patches", &p.patches);
    v.into_result()?;
    Ok(AppProfileSpec {
        description: p.description.clone(),
        app: p.app.clone(),
        patches,
    })
}

pub fn app_profile_overlay(current: &mut pb::AppProfile, incoming: pb::AppProfile, paths: &[&str]) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "app" => current.app = incoming.app.clone(),
            "patches" => current.patches = incoming.patches.clone(),
            _ => {}
        }
    }
}

pub fn dig_to_proto(view: &crate::app::lifecycle::DigView) -> pb::DeploymentIntentGroup {
    let o = &view.object;
    pb::DeploymentIntentGroup {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        composite_profile: o.spec.composite_profile.clone(),
        override_values: o
            .spec
            .override_values
            .iter()
            .map(|ov| pb::AppOverride {
                app: ov.app.clone(),
                patches: patches_to_proto(&ov.patches),
            })
            .collect(),
        state: match view.status.state {
            crate::domain::lifecycle::DigState::Created => pb::DeploymentIntentGroupState::Created,
            crate::domain::lifecycle::DigState::Approved => {
                pb::DeploymentIntentGroupState::Approved
            }
            crate::domain::lifecycle::DigState::Instantiated => {
                pb::DeploymentIntentGroupState::Instantiated
            }
            crate::domain::lifecycle::DigState::Terminated => {
                pb::DeploymentIntentGroupState::Terminated
            }
        } as i32,
        current_instance: view
            .status
            .current_instance
            .map(|i| i.to_string())
            .unwrap_or_default(),
        history: history_to_proto(&view.history),
        revision: view.status.revision,
        approved_content_hash: view.status.approved_hash.clone(),
        conditions: conditions_to_proto(&view.status.conditions),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

fn history_to_proto(history: &[crate::store::history::HistoryEntry]) -> Vec<pb::LifecycleEvent> {
    history
        .iter()
        .map(|h| pb::LifecycleEvent {
            state: h.state.clone(),
            instance: h.instance.clone(),
            time: timestamp(h.time),
            revision: h.revision,
        })
        .collect()
}

pub fn dig_from_proto(p: &pb::DeploymentIntentGroup) -> Result<DigSpec> {
    let mut v = Violations::new();
    check_description(
        &mut v,
        "deployment_intent_group.description",
        &p.description,
    );
    check_id(
        &mut v,
        "deployment_intent_group.composite_profile",
        &p.composite_profile,
    );
    let mut seen = std::collections::BTreeSet::new();
    let override_values = p
        .override_values
        .iter()
        .enumerate()
        .map(|(index, ov)| {
            let field = format!("deployment_intent_group.override_values[{index}]");
            check_id(&mut v, &format!("{field}.app"), &ov.app);
            if !seen.insert(ov.app.clone()) {
                v.add(
                    format!("{field}.app"),
                    format!("app {:?} is listed twice", ov.app),
                );
            }
            AppOverride {
                app: ov.app.clone(),
                patches: patches_from_proto(&mut v, &format!("{field}.patches"), &ov.patches),
            }
        })
        .collect();
    v.into_result()?;
    Ok(DigSpec {
        description: p.description.clone(),
        composite_profile: p.composite_profile.clone(),
        override_values,
    })
}

pub fn dig_overlay(
    current: &mut pb::DeploymentIntentGroup,
    incoming: pb::DeploymentIntentGroup,
    paths: &[&str],
) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "composite_profile" => current.composite_profile = incoming.composite_profile.clone(),
            "override_values" => current.override_values = incoming.override_values.clone(),
            _ => {}
        }
    }
}

pub fn placement_intent_to_proto(o: &Object<PlacementIntentSpec>) -> pb::PlacementIntent {
    pb::PlacementIntent {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        app: o.spec.app.clone(),
        cluster_provider: o.spec.cluster_provider.clone(),
        cluster_names: o.spec.cluster_names.clone(),
        cluster_selector: o.spec.cluster_selector.clone(),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn placement_intent_from_proto(p: &pb::PlacementIntent) -> Result<PlacementIntentSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "placement_intent.description", &p.description);
    check_id(&mut v, "placement_intent.app", &p.app);
    check_id(
        &mut v,
        "placement_intent.cluster_provider",
        &p.cluster_provider,
    );
    match (p.cluster_names.is_empty(), p.cluster_selector.is_empty()) {
        (true, true) => v.add(
            "placement_intent.cluster_names",
            "one of cluster_names and cluster_selector is required",
        ),
        (false, false) => v.add(
            "placement_intent.cluster_selector",
            "cluster_names and cluster_selector are exclusive",
        ),
        _ => {}
    }
    let mut seen = std::collections::BTreeSet::new();
    for (index, cluster) in p.cluster_names.iter().enumerate() {
        let field = format!("placement_intent.cluster_names[{index}]");
        check_id(&mut v, &field, cluster);
        if !seen.insert(cluster) {
            v.add(field, format!("cluster {cluster:?} is listed twice"));
        }
    }
    check_labels(
        &mut v,
        "placement_intent.cluster_selector",
        &p.cluster_selector,
    );
    v.into_result()?;
    Ok(PlacementIntentSpec {
        description: p.description.clone(),
        app: p.app.clone(),
        cluster_provider: p.cluster_provider.clone(),
        cluster_names: p.cluster_names.clone(),
        cluster_selector: p.cluster_selector.clone(),
    })
}

pub fn placement_intent_overlay(
    current: &mut pb::PlacementIntent,
    incoming: pb::PlacementIntent,
    paths: &[&str],
) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "app" => current.app = incoming.app.clone(),
            "cluster_provider" => current.cluster_provider = incoming.cluster_provider.clone(),
            "cluster_names" => current.cluster_names = incoming.cluster_names.clone(),
            "cluster_selector" => current.cluster_selector = incoming.cluster_selector.clone(),
            _ => {}
        }
    }
}

pub fn cluster_provider_to_proto(o: &Object<ClusterProviderSpec>) -> pb::ClusterProvider {
    pb::ClusterProvider {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        labels: o.spec.labels.clone(),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn cluster_provider_from_proto(p: &pb::ClusterProvider) -> Result<ClusterProviderSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "cluster_provider.description", &p.description);
    check_labels(&mut v, "cluster_provider.labels", &p.labels);
    v.into_result()?;
    Ok(ClusterProviderSpec {
        description: p.description.clone(),
        labels: p.labels.clone(),
    })
}

pub fn cluster_provider_overlay(
    current: &mut pb::ClusterProvider,
    incoming: pb::ClusterProvider,
    paths: &[&str],
) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "labels" => current.labels = incoming.labels.clone(),
            _ => {}
        }
    }
}

pub fn cluster_to_proto(view: &crate::app::lifecycle::ClusterView) -> pb::Cluster {
    use crate::domain::lifecycle::NetworkState;
    let o = &view.object;
    pb::Cluster {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        labels: o.spec.labels.clone(),
        connection_mode: match o.spec.connection_mode {
            ConnectionMode::Agent => pb::ConnectionMode::Agent,
            ConnectionMode::EmbeddedSim => pb::ConnectionMode::EmbeddedSim,
        } as i32,
        network_intents_state: match view.network.state {
            NetworkState::Created => pb::NetworkIntentsState::Created,
            NetworkState::Applied => pb::NetworkIntentsState::Applied,
            NetworkState::Terminated => pb::NetworkIntentsState::Terminated,
        } as i32,
        current_network_instance: view
            .network
            .current_instance
            .map(|i| i.to_string())
            .unwrap_or_default(),
        network_history: history_to_proto(&view.history),
        conditions: conditions_to_proto(&view.network.conditions),
        revision: view.network.revision,
        agent_token: view.agent_token.clone().unwrap_or_default(),
        connectivity: connectivity_to_proto(&view.network.connectivity) as i32,
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

pub fn cluster_from_proto(p: &pb::Cluster) -> Result<ClusterSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "cluster.description", &p.description);
    check_labels(&mut v, "cluster.labels", &p.labels);
    let connection_mode = match pb::ConnectionMode::try_from(p.connection_mode) {
        Ok(pb::ConnectionMode::Agent) => ConnectionMode::Agent,
        Ok(pb::ConnectionMode::EmbeddedSim) => ConnectionMode::EmbeddedSim,
        Ok(pb::ConnectionMode::Unspecified) => {
            v.add(
                "cluster.connection_mode",
                "is required (AGENT or EMBEDDED_SIM)",
            );
            ConnectionMode::Agent
        }
        Err(_) => {
            v.add(
                "cluster.connection_mode",
                format!("unknown enum value {}", p.connection_mode),
            );
            ConnectionMode::Agent
        }
    };
    v.into_result()?;
    Ok(ClusterSpec {
        description: p.description.clone(),
        labels: p.labels.clone(),
        connection_mode,
    })
}

pub fn cluster_overlay(current: &mut pb::Cluster, incoming: pb::Cluster, paths: &[&str]) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "labels" => current.labels = incoming.labels.clone(),
            _ => {}
        }
    }
}

pub fn network_intent_to_proto(o: &Object<NetworkIntentSpec>) -> pb::NetworkIntent {
    let subnets = |subnets: &[Ipv4Subnet]| -> Vec<pb::Ipv4Subnet> {
        subnets
            .iter()
            .map(|s| pb::Ipv4Subnet {
                name: s.name.clone(),
                subnet: s.subnet.clone(),
                gateway: s.gateway.clone(),
                exclude_ips: s.exclude_ips.clone(),
            })
            .collect()
    };
    let spec = match &o.spec.kind {
        NetworkIntentKind::Network {
            cni_type,
            ipv4_subnets,
        } => pb::network_intent::Spec::Network(pb::NetworkSpec {
            cni_type: cni_type.clone(),
            ipv4_subnets: subnets(ipv4_subnets),
        }),
        NetworkIntentKind::ProviderNetwork {
            cni_type,
            ipv4_subnets,
            provider_net_type,
            vlan,
        } => pb::network_intent::Spec::ProviderNetwork(pb::ProviderNetworkSpec {
            cni_type: cni_type.clone(),
            ipv4_subnets: subnets(ipv4_subnets),
            provider_net_type: match provider_net_type {
                ProviderNetworkType::Vlan => pb::ProviderNetworkType::Vlan,
                ProviderNetworkType::Direct => pb::ProviderNetworkType::Direct,
            } as i32,
            vlan: vlan.as_ref().map(|vlan| pb::Vlan {
                vlan_id: vlan.vlan_id,
                provider_interface_name: vlan.provider_interface_name.clone(),
                logical_interface_name: vlan.logical_interface_name.clone(),
                vlan_node_selector: vlan.vlan_node_selector.clone(),
                node_label_list: vlan.node_label_list.clone(),
            }),
        }),
    };
    pb::NetworkIntent {
        name: o.name.to_string(),
        uid: o.uid.to_string(),
        description: o.spec.description.clone(),
        spec: Some(spec),
        etag: etag(o.generation),
        create_time: timestamp(o.create_time),
        update_time: timestamp(o.update_time),
    }
}

fn parse_cidr(value: &str) -> Result<(Ipv4Addr, u8), String> {
    let (address, prefix) = value
        .split_once('/')
        .ok_or_else(|| format!("{value:?} is not in CIDR notation (a.b.c.d/n)"))?;
    let address: Ipv4Addr = address
        .parse()
        .map_err(|_| format!("{address:?} is not an IPv4 address"))?;
    let prefix: u8 = prefix
        .parse()
        .ok()
        .filter(|p| *p <= 32)
        .ok_or_else(|| format!("{prefix:?} is not a prefix length (0-32)"))?;
    Ok((address, prefix))
}

fn in_subnet(address: Ipv4Addr, network: Ipv4Addr, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    u32::from(address) & mask == u32::from(network) & mask
}

fn subnets_from_proto(
    v: &mut Violations,
    field: &str,
    subnets: &[pb::Ipv4Subnet],
) -> Vec<Ipv4Subnet> {
    if subnets.is_empty() {
        v.add(field, "at least one subnet is required");
    }
    subnets
        .iter()
        .enumerate()
        .map(|(index, s)| {
            let path = format!("{field}[{index}]");
            check_id(v, &format!("{path}.name"), &s.name);
            let subnet = v.check(
                parse_cidr(&s.subnet)
                    .map_err(|why| FieldViolation::new(format!("{path}.subnet"), why)),
            );
            let gateway = v.check(
                parse_cidr(&s.gateway)
                    .map_err(|why| FieldViolation::new(format!("{path}.gateway"), why)),
            );
            if let (Some((network, prefix)), Some((gateway, _))) = (subnet, gateway)
                && !in_subnet(gateway, network, prefix)
            {
                v.add(
                    format!("{path}.gateway"),
                    format!("{gateway} is outside {}", s.subnet),
                );
            }
            for (i, exclude) in s.exclude_ips.iter().enumerate() {
                let ok = exclude
                    .split("..")
                    .all(|part| part.parse::<Ipv4Addr>().is_ok())
                    && exclude.split("..").count() <= 2;
                if !ok {
                    v.add(
                        format!("{path}.exclude_ips[{i}]"),
                        format!("{exclude:?} is not an address or range (a.b.c.d..a.b.c.e)"),
                    );
                }
            }
            Ipv4Subnet {
                name: s.name.clone(),
                subnet: s.subnet.clone(),
                gateway: s.gateway.clone(),
                exclude_ips: s.exclude_ips.clone(),
            }
        })
        .collect()
}

pub fn network_intent_from_proto(p: &pb::NetworkIntent) -> Result<NetworkIntentSpec> {
    let mut v = Violations::new();
    check_description(&mut v, "network_intent.description", &p.description);
    let kind = match &p.spec {
        None => {
            v.add(
                "network_intent.spec",
                "one of network and provider_network is required",
            );
            None
        }
        Some(pb::network_intent::Spec::Network(n)) => {
            if n.cni_type.is_empty() {
                v.add(
                    "network_intent.network.cni_type",
                    "is required, e.g. \"ovn4nfv\"",
                );
            }
            Some(NetworkIntentKind::Network {
                cni_type: n.cni_type.clone(),
                ipv4_subnets: subnets_from_proto(
                    &mut v,
                    "network_intent.network.ipv4_subnets",
                    &n.ipv4_subnets,
                ),
            })
        }
        Some(pb::network_intent::Spec::ProviderNetwork(n)) => {
            let field = "network_intent.provider_network";
            if n.cni_type.is_empty() {
                v.add(format!("{field}.cni_type"), "is required, e.g. \"ovn4nfv\"");
            }
            let ipv4_subnets =
                subnets_from_proto(&mut v, &format!("{field}.ipv4_subnets"), &n.ipv4_subnets);
            let provider_net_type = match pb::ProviderNetworkType::try_from(n.provider_net_type) {
                Ok(pb::ProviderNetworkType::Vlan) => ProviderNetworkType::Vlan,
                Ok(pb::ProviderNetworkType::Direct) => ProviderNetworkType::Direct,
                Ok(pb::ProviderNetworkType::Unspecified) => {
                    v.add(
                        format!("{field}.provider_net_type"),
                        "is required (VLAN or DIRECT)",
                    );
                    ProviderNetworkType::Direct
                }
                Err(_) => {
                    v.add(
                        format!("{field}.provider_net_type"),
                        format!("unknown enum value {}", n.provider_net_type),
                    );
                    ProviderNetworkType::Direct
                }
            };
            let vlan = n.vlan.as_ref().map(|vlan| Vlan {
                vlan_id: vlan.vlan_id,
                provider_interface_name: vlan.provider_interface_name.clone(),
                logical_interface_name: vlan.logical_interface_name.clone(),
                vlan_node_selector: vlan.vlan_node_selector.clone(),
                node_label_list: vlan.node_label_list.clone(),
            });
            match (&vlan, provider_net_type) {
                (None, ProviderNetworkType::Vlan) => v.add(
                    format!("{field}.vlan"),
                    "is required for VLAN provider networks",
                ),
                (Some(vlan), _) => {
                    if !(1..=4094).contains(&vlan.vlan_id) {
                        v.add(
                            format!("{field}.vlan.vlan_id"),
                            "must be between 1 and 4094",
                        );
                    }
                    if vlan.provider_interface_name.is_empty() {
                        v.add(
                            format!("{field}.vlan.provider_interface_name"),
                            "is required",
                        );
                    }
                    match vlan.vlan_node_selector.as_str() {
                        "all" => {}
                        "specific" if vlan.node_label_list.is_empty() => v.add(
                            format!("{field}.vlan.node_label_list"),
                            "is required when vlan_node_selector is \"specific\"",
                        ),
                        "specific" => {}
                        other => v.add(
                            format!("{field}.vlan.vlan_node_selector"),
                            format!("{other:?} is not \"all\" or \"specific\""),
                        ),
                    }
                    for (i, label) in vlan.node_label_list.iter().enumerate() {
                        if !label.contains('=') {
                            v.add(
                                format!("{field}.vlan.node_label_list[{i}]"),
                                format!("{label:?} is not key=value"),
                            );
                        }
                    }
                }
                (None, ProviderNetworkType::Direct) => {}
            }
            Some(NetworkIntentKind::ProviderNetwork {
                cni_type: n.cni_type.clone(),
                ipv4_subnets,
                provider_net_type,
                vlan,
            })
        }
    };
    v.into_result()?;
    Ok(NetworkIntentSpec {
        description: p.description.clone(),
        kind: kind.expect("set when there are no violations"),
    })
}

pub fn network_intent_overlay(
    current: &mut pb::NetworkIntent,
    incoming: pb::NetworkIntent,
    paths: &[&str],
) {
    for path in paths {
        match *path {
            "description" => current.description = incoming.description.clone(),
            "spec" => current.spec = incoming.spec.clone(),
            _ => {}
        }
    }
}

/// Labels from a proto map (already validated).
pub fn labels(map: &BTreeMap<String, String>) -> Labels {
    map.clone()
}

/// The spec fields of a group as a proto (for update-mask overlays).
pub fn dig_spec_to_proto(spec: &DigSpec) -> pb::DeploymentIntentGroup {
    pb::DeploymentIntentGroup {
        description: spec.description.clone(),
        composite_profile: spec.composite_profile.clone(),
        override_values: spec
            .override_values
            .iter()
            .map(|ov| pb::AppOverride {
                app: ov.app.clone(),
                patches: patches_to_proto(&ov.patches),
            })
            .collect(),
        ..Default::default()
    }
}

/// The spec fields of a cluster as a proto (for update-mask overlays).
pub fn cluster_spec_to_proto(spec: &ClusterSpec) -> pb::Cluster {
    pb::Cluster {
        description: spec.description.clone(),
        labels: spec.labels.clone(),
        connection_mode: match spec.connection_mode {
            ConnectionMode::Agent => pb::ConnectionMode::Agent,
            ConnectionMode::EmbeddedSim => pb::ConnectionMode::EmbeddedSim,
        } as i32,
        ..Default::default()
    }
}

/// A rendered resource as a proto.
pub fn rendered_to_proto(r: &crate::store::rsync_resource::RsyncResource) -> pb::RenderedResource {
    use crate::domain::status::RsyncStatus;
    let (cluster_provider, cluster) = match r.cluster.split('/').collect::<Vec<_>>().as_slice() {
        [_, provider, _, cluster] => (provider.to_string(), cluster.to_string()),
        _ => (String::new(), r.cluster.clone()),
    };
    pb::RenderedResource {
        app: r.app.clone(),
        cluster,
        cluster_provider,
        gvk: Some(pb::GroupVersionKind {
            group: r.gvk.group.clone(),
            version: r.gvk.version.clone(),
            kind: r.gvk.kind.clone(),
        }),
        namespace: r.namespace.clone(),
        resource_name: r.name.clone(),
        manifest: serde_json::from_str::<Value>(&r.manifest)
            .ok()
            .map(|v| json_to_struct(&v)),
        rsync_status: match r.status {
            RsyncStatus::Pending => pb::RsyncStatus::Pending,
            RsyncStatus::Applied => pb::RsyncStatus::Applied,
            RsyncStatus::Failed => pb::RsyncStatus::Failed,
            RsyncStatus::Retrying => pb::RsyncStatus::Retrying,
            RsyncStatus::Terminated => pb::RsyncStatus::Terminated,
        } as i32,
    }
}

/// Conditions as protos.
pub fn conditions_to_proto(
    conditions: &[crate::domain::conditions::Condition],
) -> Vec<pb::Condition> {
    use crate::domain::conditions::{Severity, Status};
    conditions
        .iter()
        .map(|c| pb::Condition {
            r#type: c.type_.clone(),
            status: match c.status {
                Status::True => pb::ConditionStatus::True,
                Status::False => pb::ConditionStatus::False,
                Status::Unknown => pb::ConditionStatus::Unknown,
            } as i32,
            severity: match c.severity {
                Severity::Error => pb::ConditionSeverity::Error,
                Severity::Warning => pb::ConditionSeverity::Warning,
                Severity::Info => pb::ConditionSeverity::Info,
                Severity::None => pb::ConditionSeverity::Unspecified,
            } as i32,
            last_transition_time: timestamp(c.last_transition_time),
            reason: c.reason.clone(),
            message: c.message.clone(),
        })
        .collect()
}

/// A stored connectivity as its proto enum.
pub fn connectivity_to_proto(connectivity: &str) -> pb::Connectivity {
    match connectivity {
        "Available" => pb::Connectivity::Available,
        "Retrying" => pb::Connectivity::Retrying,
        _ => pb::Connectivity::Unknown,
    }
}
