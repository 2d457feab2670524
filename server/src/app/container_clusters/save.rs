//! The one write path of a cluster: derive what the cluster reports from its lifecycle
//! and VM map (the infrastructure object's status as the sim provider reports it, the
//! conditions, the endpoint once the object is ready), then compare-and-swap the
//! cluster and its object in the caller's transaction.

use crate::domain::cluster_workflow::{Observed, infrastructure_ready, phase_of};
use crate::domain::conditions;
use crate::domain::container_cluster::{ClusterState, Observed as Seen, conditions_of};
use crate::error::{Error, Result};
use crate::store::container_cluster::{
    ClusterVm, ContainerClusterRecord, cluster_state, cluster_update,
};
use crate::store::sim_infrastructure::{infra_delete, infra_get, infra_update};
use crate::store::watch::{ActionChange, Body, NewEvent, Payload};
use crate::store::{Tx, now_micros};

use super::{CLUSTERS_TARGET, View};

/// Writes `record` (with its derived status) if the stored generation is still
/// `expected`; `vms` is its VM map after the change. False if the cluster changed
/// meanwhile. A DESTROYED cluster takes its infrastructure object with it.
pub async fn save(
    tx: &mut Tx,
    record: &mut ContainerClusterRecord,
    expected: i64,
    vms: &[ClusterVm],
) -> Result<bool> {
    let now = now_micros();
    let failure = record
        .status
        .failure
        .as_ref()
        .map(|(r, m)| (r.as_str(), m.as_str()));
    let phase = phase_of(&record.lifecycle, failure.is_some());
    let ready = infrastructure_ready(phase, failure);
    let infra_id = record.infra_id().map(str::to_string);
    let endpoint = endpoint_of(record, vms);
    // The provider's report on its object.
    let mut mirrored = ready.clone();
    let mut object = None;
    if let Some(id) = &infra_id
        && let Some(mut infra) = infra_get(tx, id).await?
    {
        let name = infra.name();
        let expected_infra = infra.generation;
        if record.lifecycle.state == ClusterState::Destroyed {
            if !infra_delete(tx, id, expected_infra, &record.name()).await? {
                return Err(changed(&name));
            }
        } else {
            let mut status = infra.status.clone();
            status.phase = phase;
            status.ready = phase == crate::domain::cluster_workflow::Phase::Provisioned;
            if status.ready && status.endpoint.is_empty() {
                status.endpoint = endpoint.clone();
            }
            let (reason, message) = failure.unwrap_or(("", ""));
            status.failure_reason = reason.to_string();
            status.failure_message = message.to_string();
            conditions::set(&mut status.conditions, ready, now);
            let mut spec = infra.spec.clone();
            spec.size = record.size;
            if status != infra.status || spec != infra.spec {
                infra.status = status;
                infra.spec = spec;
                infra.generation += 1;
                infra.update_time = now;
                if !infra_update(tx, &infra, expected_infra).await? {
                    return Err(changed(&name));
                }
            }
            if let Some(condition) = infra.status.conditions.iter().find(|c| c.type_ == "Ready") {
                mirrored = condition.clone();
            }
            // The endpoint is copied once the object reports it (seed 004).
            if infra.status.ready && record.status.endpoint.is_empty() {
                record.status.endpoint = infra.status.endpoint.clone();
            }
            object = Some(infra);
        }
    }
    let wanted = Observed::from(record.lifecycle.desired);
    let faults = record.status.faults.clone();
    let observed = Seen {
        state: record.lifecycle.state,
        infrastructure_ready: Some(&mirrored),
        vms_completed: vms.iter().filter(|vm| vm.observed == wanted).count(),
        vms_wanted: record.size.max(0) as usize,
        faults: &faults,
        failure,
    };
    conditions_of(&mut record.status.conditions, &observed, now);
    let previous = cluster_state(tx, record.id).await?;
    record.generation = expected + 1;
    record.update_time = now;
    if !cluster_update(tx, record, expected).await? {
        return Ok(false);
    }
    let change = if expected == 0 {
        ActionChange::Added
    } else if record.lifecycle.state == ClusterState::Destroyed {
        ActionChange::Deleted
    } else {
        ActionChange::Modified
    };
    let view = View {
        cluster: record.clone(),
        vms: vms.to_vec(),
        infra: object,
    };
    let text = serde_json::to_string(&view).map_err(Error::internal)?;
    tx.emit(NewEvent {
        target: CLUSTERS_TARGET.to_string(),
        instance: String::new(),
        app: String::new(),
        cluster: String::new(),
        name: record.id.to_string(),
        payload: Payload::ContainerCluster {
            change,
            previous: previous.filter(|_| expected != 0),
            record: Body::from_text(text)
                .ok_or_else(|| Error::internal("a cluster event is not JSON"))?,
        },
    });
    Ok(true)
}

/// `https://{address of the lowest running VM}:6443` once the cluster has one.
fn endpoint_of(record: &ContainerClusterRecord, vms: &[ClusterVm]) -> String {
    if !record.status.endpoint.is_empty() {
        return record.status.endpoint.clone();
    }
    vms.iter()
        .filter(|vm| vm.observed == Observed::Running && !vm.ip_address.is_empty())
        .min_by_key(|vm| vm.ordinal)
        .map(|vm| format!("https://{}:6443", vm.ip_address))
        .unwrap_or_default()
}

fn changed(name: &str) -> Error {
    Error::changed_meanwhile(name)
}
