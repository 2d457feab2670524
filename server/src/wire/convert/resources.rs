//! Conversions of the LifecycleService resources: to proto for responses, from proto
//! with validation for requests, and the update-mask overlays.

use flotilla_api::v1 as pb;
use serde_json::Value;

use super::*;
use crate::domain::lifecycle::{DigEvent, DigState, NetworkState, PendingKind};
use crate::domain::manifest::parse_manifests;
use crate::domain::resources::{
    AppOverride, AppProfileSpec, AppSpec, ClusterProviderSpec, ClusterSpec, CompositeAppSpec,
    CompositeProfileSpec, ConnectionMode, DigSpec, PlacementIntentSpec, ProjectSpec,
};
use crate::error::{Error, Result, Violations};
use crate::store::object::Object;

/// `fn $name(current, incoming, paths)`: the update overlay of a kind, which copies
/// the fields an update mask names from the incoming resource onto the current one.
macro_rules! overlay {
    ($name:ident, $ty:ty, [$($field:ident),+ $(,)?]) => {
        pub fn $name(current: &mut $ty, incoming: $ty, paths: &[&str]) {
            for path in paths {
                match *path {
                    $(stringify!($field) => current.$field = incoming.$field.clone(),)+
                    _ => {}
                }
            }
        }
    };
}

/// A kind whose spec is a copy of checked proto fields (a description, labels): its
/// to-proto, from-proto (`$field` names it in violations) and overlay functions. Each
/// field is checked by its `check_*` function.
macro_rules! copied_fields {
    ($spec:ident => pb::$proto:ident, $field:literal, $to:ident, $from:ident, $overlay:ident,
     { $($f:ident: $check:ident),+ $(,)? }) => {
        pub fn $to(o: &Object<$spec>) -> pb::$proto {
            object_message!(o => pb::$proto {
                $($f: o.spec.$f.clone(),)+
            })
        }

        pub fn $from(p: &pb::$proto) -> Result<$spec> {
            let mut v = Violations::new();
            $($check(&mut v, concat!($field, ".", stringify!($f)), &p.$f);)+
            v.into_result()?;
            Ok($spec {
                $($f: p.$f.clone(),)+
            })
        }

        overlay!($overlay, pb::$proto, [$($f),+]);
    };
}

copied_fields!(ProjectSpec => pb::Project, "project",
    project_to_proto, project_from_proto, project_overlay,
    { description: check_description, labels: check_labels });
copied_fields!(CompositeAppSpec => pb::CompositeApp, "composite_app",
    composite_app_to_proto, composite_app_from_proto, composite_app_overlay,
    { description: check_description });
copied_fields!(CompositeProfileSpec => pb::CompositeProfile, "composite_profile",
    composite_profile_to_proto, composite_profile_from_proto, composite_profile_overlay,
    { description: check_description });
copied_fields!(ClusterProviderSpec => pb::ClusterProvider, "cluster_provider",
    cluster_provider_to_proto, cluster_provider_from_proto, cluster_provider_overlay,
    { description: check_description, labels: check_labels });

pub fn app_to_proto(o: &Object<AppSpec>) -> pb::App {
    object_message!(o => pb::App {
        description: o.spec.description.clone(),
        manifests: o.spec.manifests.clone(),
        document_count: o.spec.document_count as i32,
    })
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

overlay!(app_overlay, pb::App, [description, manifests]);

pub fn app_profile_to_proto(o: &Object<AppProfileSpec>) -> pb::AppProfile {
    object_message!(o => pb::AppProfile {
        description: o.spec.description.clone(),
        app: o.spec.app.clone(),
        patches: patches_to_proto(&o.spec.patches),
    })
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

overlay!(
    app_profile_overlay,
    pb::AppProfile,
    [description, app, patches]
);

pub fn dig_to_proto(view: &crate::app::lifecycle::DigView) -> pb::DeploymentIntentGroup {
    let o = &view.object;
    object_message!(o => pb::DeploymentIntentGroup {
        state: dig_state_to_proto(view.status.state) as i32,
        current_instance: opt_string(view.status.current_instance),
        history: history_to_proto(&view.history, |event, instance, time, revision| {
            pb::DeploymentIntentGroupEvent {
                state: dig_state_to_proto(event.state()) as i32,
                instance,
                time,
                revision,
                kind: dig_event_to_proto(event) as i32,
            }
        }),
        revision: view.status.revision,
        approved_content_hash: view.status.approved_hash.clone(),
        conditions: conditions_to_proto(&view.status.conditions),
        running_revision: view.running_revision,
        pending_changes: view
            .pending
            .iter()
            .map(|c| pb::PendingChange {
                name: c.name.clone(),
                kind: match c.kind {
                    PendingKind::Added => pb::PendingChangeKind::Added,
                    PendingKind::Changed => pb::PendingChangeKind::Changed,
                    PendingKind::Removed => pb::PendingChangeKind::Removed,
                } as i32,
            })
            .collect(),
        pending_approved: view.pending_approved;
        ..dig_spec_to_proto(&o.spec)
    })
}

fn dig_event_to_proto(event: DigEvent) -> pb::DeploymentIntentGroupEventKind {
    use pb::DeploymentIntentGroupEventKind as K;
    match event {
        DigEvent::Created => K::Created,
        DigEvent::Approved => K::Approved,
        DigEvent::Instantiated => K::Instantiated,
        DigEvent::Terminated => K::Terminated,
        DigEvent::RevisionApproved => K::RevisionApproved,
        DigEvent::Updated => K::Updated,
        DigEvent::RolledBack => K::RolledBack,
        DigEvent::MigratedIn => K::MigratedIn,
        DigEvent::MigratedOut => K::MigratedOut,
    }
}

/// A lifecycle history as proto events, each built by `event` from the recorded event,
/// instance, time and revision.
fn history_to_proto<R: Copy, E>(
    history: &[crate::store::history::HistoryEntry<R>],
    event: impl Fn(R, String, Option<prost_types::Timestamp>, i64) -> E,
) -> Vec<E> {
    history
        .iter()
        .map(|h| {
            event(
                h.event,
                opt_string(h.instance),
                timestamp(h.time),
                h.revision,
            )
        })
        .collect()
}

fn dig_state_to_proto(state: DigState) -> pb::DeploymentIntentGroupState {
    match state {
        DigState::Created => pb::DeploymentIntentGroupState::Created,
        DigState::Approved => pb::DeploymentIntentGroupState::Approved,
        DigState::Instantiated => pb::DeploymentIntentGroupState::Instantiated,
        DigState::Terminated => pb::DeploymentIntentGroupState::Terminated,
    }
}

fn network_state_to_proto(state: NetworkState) -> pb::NetworkIntentsState {
    match state {
        NetworkState::Created => pb::NetworkIntentsState::Created,
        NetworkState::Applied => pb::NetworkIntentsState::Applied,
        NetworkState::Terminated => pb::NetworkIntentsState::Terminated,
    }
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
    let field = "deployment_intent_group.override_values";
    let override_values = entries(
        &mut v,
        field,
        &p.override_values,
        MAX_PATCHES,
        |v, path, ov| {
            check_id(v, &format!("{path}.app"), &ov.app);
            if !seen.insert(ov.app.clone()) {
                v.add(
                    format!("{path}.app"),
                    format!("app {:?} is listed twice", ov.app),
                );
            }
            AppOverride {
                app: ov.app.clone(),
                patches: patches_from_proto(v, &format!("{path}.patches"), &ov.patches),
            }
        },
    );
    v.into_result()?;
    Ok(DigSpec {
        description: p.description.clone(),
        composite_profile: p.composite_profile.clone(),
        override_values,
    })
}

overlay!(
    dig_overlay,
    pb::DeploymentIntentGroup,
    [description, composite_profile, override_values]
);

pub fn placement_intent_to_proto(o: &Object<PlacementIntentSpec>) -> pb::PlacementIntent {
    object_message!(o => pb::PlacementIntent {
        description: o.spec.description.clone(),
        app: o.spec.app.clone(),
        cluster_provider: o.spec.cluster_provider.clone(),
        cluster_names: o.spec.cluster_names.clone(),
        cluster_selector: o.spec.cluster_selector.clone(),
    })
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
    let field = "placement_intent.cluster_names";
    let counted = check_count(&mut v, field, p.cluster_names.len(), MAX_LIST);
    for (index, cluster) in p.cluster_names.iter().enumerate().take_while(|_| counted) {
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

overlay!(
    placement_intent_overlay,
    pb::PlacementIntent,
    [
        description,
        app,
        cluster_provider,
        cluster_names,
        cluster_selector
    ]
);

pub fn cluster_to_proto(view: &crate::app::lifecycle::ClusterView) -> pb::Cluster {
    let o = &view.object;
    object_message!(o => pb::Cluster {
        network_intents_state: network_state_to_proto(view.network.state) as i32,
        current_network_instance: opt_string(view.network.current_instance),
        network_history: history_to_proto(&view.history, |state, instance, time, revision| {
            pb::NetworkIntentsEvent {
                state: network_state_to_proto(state) as i32,
                instance,
                time,
                revision,
            }
        }),
        conditions: conditions_to_proto(&view.network.conditions),
        revision: view.network.revision,
        agent_token: view
            .agent_token
            .as_ref()
            .map(|t| t.expose().to_string())
            .unwrap_or_default(),
        connectivity: connectivity_to_proto(view.network.connectivity) as i32,
        agent_backend: view.network.agent.backend.clone(),
        cluster_version: view.network.agent.version.clone(),
        nodes: view.network.agent.nodes.clone();
        ..cluster_spec_to_proto(&o.spec)
    })
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
        container_cluster: String::new(),
    })
}

overlay!(cluster_overlay, pb::Cluster, [description, labels]);
overlay!(
    network_intent_overlay,
    pb::NetworkIntent,
    [description, spec]
);

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
        connection_mode: connection_mode_to_proto(spec.connection_mode) as i32,
        ..Default::default()
    }
}

fn connection_mode_to_proto(mode: ConnectionMode) -> pb::ConnectionMode {
    match mode {
        ConnectionMode::Agent => pb::ConnectionMode::Agent,
        ConnectionMode::EmbeddedSim => pb::ConnectionMode::EmbeddedSim,
    }
}

/// A rendered resource as a proto.
pub fn rendered_to_proto(r: &crate::store::rsync_resource::RsyncResource) -> pb::RenderedResource {
    let (cluster_provider, cluster) = match r.cluster.split('/').collect::<Vec<_>>().as_slice() {
        [_, provider, _, cluster] => (provider.to_string(), cluster.to_string()),
        _ => (String::new(), r.cluster.to_string()),
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
            .map(|manifest| super::json_into_view_struct(manifest, 1)),
        rsync_status: super::rsync_status_to_proto(Some(r.status)),
    }
}

/// A group's fleet row as a proto.
pub fn fleet_group_to_proto(group: &crate::store::fleet::FleetGroup) -> pb::FleetGroup {
    let (rsync_status, cluster_status, readiness) =
        super::status::counts_to_proto(&group.counts, true);
    pb::FleetGroup {
        name: group.name.to_string(),
        project: group.project().to_string(),
        state: dig_state_to_proto(group.state) as i32,
        revision: group.revision,
        current_instance: opt_string(group.current_instance),
        conditions: conditions_to_proto(&group.conditions),
        rsync_status,
        cluster_status,
        readiness,
    }
}

/// A cluster's fleet row as a proto.
pub fn fleet_cluster_to_proto(cluster: &crate::store::fleet::FleetCluster) -> pb::FleetCluster {
    pb::FleetCluster {
        name: cluster.name.to_string(),
        connection_mode: connection_mode_to_proto(cluster.connection_mode) as i32,
        connectivity: connectivity_to_proto(cluster.connectivity) as i32,
        network_intents_state: network_state_to_proto(cluster.network_state) as i32,
        conditions: conditions_to_proto(&cluster.conditions),
        labels: cluster.labels.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(error: Error) -> Vec<String> {
        match error {
            Error::InvalidArgument { violations } => {
                violations.into_iter().map(|v| v.field).collect()
            }
            other => panic!("expected INVALID_ARGUMENT, got {other:?}"),
        }
    }

    fn group(override_values: Vec<pb::AppOverride>) -> pb::DeploymentIntentGroup {
        pb::DeploymentIntentGroup {
            composite_profile: "default".into(),
            override_values,
            ..Default::default()
        }
    }

    fn of(app: &str) -> pb::AppOverride {
        pb::AppOverride {
            app: app.into(),
            ..Default::default()
        }
    }

    #[test]
    fn override_values_are_checked_by_their_paths() {
        let patch = pb::ManifestPatch::default();
        let spec = group(vec![
            of("a"),
            pb::AppOverride {
                patches: vec![patch],
                ..of("a")
            },
        ]);
        assert_eq!(
            fields(dig_from_proto(&spec).unwrap_err()),
            [
                "deployment_intent_group.override_values[1].app",
                "deployment_intent_group.override_values[1].patches[0].merge_patch",
            ]
        );
        let ok = dig_from_proto(&group(vec![of("a"), of("b")])).unwrap();
        assert_eq!(ok.override_values.len(), 2);
        // Too many: one violation for the count, none for the entries.
        let many = (0..=MAX_PATCHES).map(|_| of("x")).collect();
        assert_eq!(
            fields(dig_from_proto(&group(many)).unwrap_err()),
            ["deployment_intent_group.override_values"]
        );
    }
}
