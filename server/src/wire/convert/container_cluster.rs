//! Container clusters and infrastructure objects: proto ↔ domain.

use flotilla_api::v1 as pb;

use super::{conditions_to_proto, etag, timestamp};
use crate::app::container_clusters::View;
use crate::domain::cluster_workflow::{Phase, phase_of};
use crate::domain::container_cluster::ClusterState;
use crate::error::{Error, Result};
use crate::ids::ContainerClusterId;
use crate::store::container_cluster::RecoveryPolicy;
use crate::store::sim_infrastructure::{InfraRecord, InfraSpec, InfraStatus};

pub fn cluster_state_to_proto(state: ClusterState) -> pb::ContainerClusterState {
    use pb::ContainerClusterState as P;
    match state {
        ClusterState::Created => P::Created,
        ClusterState::Starting => P::Starting,
        ClusterState::Running => P::Running,
        ClusterState::Stopping => P::Stopping,
        ClusterState::Stopped => P::Stopped,
        ClusterState::Scaling => P::Scaling,
        ClusterState::Alert => P::Alert,
        ClusterState::Recovering => P::Recovering,
        ClusterState::Expunging => P::Expunging,
        ClusterState::Expunge => P::Expunge,
        ClusterState::Destroyed => P::Destroyed,
    }
}

/// A state of a request (`field` names it); UNSPECIFIED is None.
pub fn cluster_state_from_proto(field: &str, state: i32) -> Result<Option<ClusterState>> {
    let invalid = || Error::invalid(field, format!("{state} is not a container cluster state"));
    let state = pb::ContainerClusterState::try_from(state).map_err(|_| invalid())?;
    if state == pb::ContainerClusterState::Unspecified {
        return Ok(None);
    }
    ClusterState::ALL
        .into_iter()
        .find(|s| cluster_state_to_proto(*s) == state)
        .map(Some)
        .ok_or_else(invalid)
}

pub fn phase_to_proto(phase: Phase) -> pb::InfrastructurePhase {
    match phase {
        Phase::Pending => pb::InfrastructurePhase::Pending,
        Phase::Provisioning => pb::InfrastructurePhase::Provisioning,
        Phase::Provisioned => pb::InfrastructurePhase::Provisioned,
        Phase::Deleting => pb::InfrastructurePhase::Deleting,
        Phase::Failed => pb::InfrastructurePhase::Failed,
    }
}

pub fn policy_to_proto(policy: RecoveryPolicy) -> pb::RecoveryPolicy {
    match policy {
        RecoveryPolicy::None => pb::RecoveryPolicy::None,
        RecoveryPolicy::RestartStopped => pb::RecoveryPolicy::RestartStopped,
        RecoveryPolicy::RestartAndReprovision => pb::RecoveryPolicy::RestartAndReprovision,
    }
}

/// A recovery policy of a request; UNSPECIFIED is the default (restart and
/// re-provision).
pub fn policy_from_proto(field: &str, policy: i32) -> Result<RecoveryPolicy> {
    match pb::RecoveryPolicy::try_from(policy) {
        Ok(pb::RecoveryPolicy::Unspecified) => Ok(RecoveryPolicy::default()),
        Ok(pb::RecoveryPolicy::None) => Ok(RecoveryPolicy::None),
        Ok(pb::RecoveryPolicy::RestartStopped) => Ok(RecoveryPolicy::RestartStopped),
        Ok(pb::RecoveryPolicy::RestartAndReprovision) => Ok(RecoveryPolicy::RestartAndReprovision),
        Err(_) => Err(Error::invalid(
            field,
            format!("{policy} is not a recovery policy"),
        )),
    }
}

fn infra_status_to_proto(status: &InfraStatus) -> pb::InfrastructureStatus {
    pb::InfrastructureStatus {
        ready: status.ready,
        endpoint: status.endpoint.clone(),
        phase: phase_to_proto(status.phase) as i32,
        failure_reason: status.failure_reason.clone(),
        failure_message: status.failure_message.clone(),
        conditions: conditions_to_proto(&status.conditions),
    }
}

/// A cluster as its responses show it (never its credentials).
pub fn container_cluster_to_proto(view: &View) -> pb::ContainerCluster {
    let c = &view.cluster;
    let failed = c.status.failure.is_some();
    pb::ContainerCluster {
        name: c.name(),
        id: c.id.to_string(),
        display_name: c.display_name.clone(),
        description: c.description.clone(),
        zone_id: c.zone_id.clone(),
        service_offering_id: c.service_offering_id.clone(),
        size: c.size as i32,
        account_name: c.account_name.clone(),
        domain_id: c.domain_id.clone(),
        network_id: c.network_id.clone(),
        infrastructure_ref: c.infrastructure_ref.clone(),
        endpoint: c.status.endpoint.clone(),
        console_endpoint: match c.status.endpoint.strip_suffix(":6443") {
            Some(host) => format!("{host}:8443/console"),
            None => String::new(),
        },
        state: cluster_state_to_proto(c.lifecycle.state) as i32,
        phase: phase_to_proto(phase_of(&c.lifecycle, failed)) as i32,
        conditions: conditions_to_proto(&c.status.conditions),
        vms: view
            .vms
            .iter()
            .map(|vm| pb::ContainerClusterVm {
                vm_id: vm.vm_id.clone(),
                name: vm.name.clone(),
                state: vm.observed.as_str().to_string(),
                ip_address: vm.ip_address.clone(),
            })
            .collect(),
        infrastructure_status: view
            .infra
            .as_ref()
            .map(|i| infra_status_to_proto(&i.status)),
        etag: etag(c.generation),
        create_time: timestamp(c.create_time),
        update_time: timestamp(c.update_time),
        recovery_policy: policy_to_proto(c.spec.recovery_policy) as i32,
        auto_recover: c.spec.auto_recover,
        registered_cluster: c.status.registered.clone(),
    }
}

pub fn infra_to_proto(infra: &InfraRecord) -> pb::SimInfrastructure {
    pb::SimInfrastructure {
        name: infra.name(),
        spec: Some(pb::SimInfrastructureSpec {
            zone_id: infra.spec.zone_id.clone(),
            service_offering_id: infra.spec.service_offering_id.clone(),
            size: infra.spec.size as i32,
            network_id: infra.spec.network_id.clone(),
        }),
        owner: infra.owner.clone(),
        status: Some(infra_status_to_proto(&infra.status)),
        etag: etag(infra.generation),
        create_time: timestamp(infra.create_time),
        update_time: timestamp(infra.update_time),
    }
}

pub fn infra_spec_from_proto(spec: &pb::SimInfrastructureSpec) -> InfraSpec {
    InfraSpec {
        zone_id: spec.zone_id.clone(),
        service_offering_id: spec.service_offering_id.clone(),
        size: i64::from(spec.size),
        network_id: spec.network_id.clone(),
    }
}

/// Parses `containerClusters/{uuid}` from request field `field`.
pub fn container_cluster_id(field: &str, name: &str) -> Result<ContainerClusterId> {
    name.strip_prefix("containerClusters/")
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| Error::invalid(field, "must be containerClusters/{id}, with the id a UUID"))
}

/// Parses `simInfrastructures/{id}` from request field `field`.
pub fn sim_infrastructure_id<'a>(field: &str, name: &'a str) -> Result<&'a str> {
    name.strip_prefix("simInfrastructures/")
        .filter(|id| {
            crate::domain::names::validate_id(id).is_ok() || id.parse::<uuid::Uuid>().is_ok()
        })
        .ok_or_else(|| Error::invalid(field, "must be simInfrastructures/{id}"))
}
