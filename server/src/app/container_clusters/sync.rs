//! State sync (seed 001's ClusterStateScanner): compares what every settled cluster
//! (RUNNING, STOPPED, ALERT with no workflow in flight) should have with what the IaaS
//! has — the count of VMs, their running state, VMs stopped or deleted out of band —
//! records what it saw in the VM map (a VM the IaaS lost stays, as Missing), moves a
//! cluster that differs to ALERT with a condition naming each VM and what differs,
//! and returns an ALERT cluster whose VMs all agree again to its state. A cluster
//! whose policy says so is recovered at once when sync raises its ALERT.

use std::collections::HashMap;

use serde::Serialize;

use super::ContainerClusters;
use super::save::save;
use crate::domain::cluster_workflow::{Observed, Operation};
use crate::domain::container_cluster::{ClusterState, Desired, Event, Verb, transition};
use crate::error::Result;
use crate::infra::VmState;
use crate::store::container_cluster::{
    ClusterVm, ContainerClusterRecord, RecoveryPolicy, cluster_settled, cluster_vms,
    cluster_vms_put,
};
use crate::store::now_micros;

/// What a pass did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// Clusters compared.
    pub clusters: usize,
    /// VMs compared.
    pub vms: usize,
    /// Clusters written (anything they report changed).
    pub changed: usize,
    /// Clusters moved to ALERT, returned from it, and recovered automatically.
    pub alerted: usize,
    pub agreed: usize,
    pub recovering: usize,
}

impl ContainerClusters {
    /// One state sync pass over every settled cluster.
    pub async fn sync_states(&self) -> Result<SyncReport> {
        let (clusters, mut maps) = {
            let mut conn = self.store.read().await?;
            let clusters = cluster_settled(&mut conn).await?;
            let ids: Vec<_> = clusters.iter().map(|c| c.id).collect();
            let maps = cluster_vms(&mut conn, &ids).await?;
            (clusters, maps)
        };
        let ids: Vec<String> = maps.values().flatten().map(|vm| vm.vm_id.clone()).collect();
        let actual: HashMap<String, VmState> =
            self.iaas.vm_states(&ids).await?.into_iter().collect();
        let mut report = SyncReport {
            clusters: clusters.len(),
            vms: ids.len(),
            ..SyncReport::default()
        };
        let mut writes = Vec::new();
        for mut record in clusters {
            let mut vms = maps.remove(&record.id).unwrap_or_default();
            let changed_vms = observe(&mut vms, &actual);
            let faults = faults_of(&record, &vms);
            let before = record.lifecycle;
            let event = if faults.is_empty() {
                Event::Agreed
            } else {
                Event::FaultsDetected
            };
            let Ok(mut lifecycle) = transition(&before, event) else {
                continue;
            };
            let raised =
                before.state != ClusterState::Alert && lifecycle.state == ClusterState::Alert;
            let auto = raised
                && record.spec.auto_recover
                && lifecycle.desired == Desired::Running
                && record.spec.recovery_policy != RecoveryPolicy::None;
            let mut operation = None;
            // The ALERT is recorded (and streamed) before the recovery that follows it:
            // a watcher sees RUNNING → ALERT → RECOVERING, as state sync raised it.
            let mut alert = None;
            if auto && let Ok(recovering) = transition(&lifecycle, Event::Request(Verb::Recover)) {
                let mut raised = record.clone();
                raised.lifecycle = lifecycle;
                raised.status.faults = faults.clone();
                alert = Some(raised);
                lifecycle = recovering;
                operation = Some(Operation::Recover {
                    reprovision: record.spec.recovery_policy
                        == RecoveryPolicy::RestartAndReprovision,
                });
            }
            if lifecycle == before && faults == record.status.faults && changed_vms.is_empty() {
                continue;
            }
            report.alerted += usize::from(raised);
            report.agreed += usize::from(
                before.state == ClusterState::Alert
                    && lifecycle.state != ClusterState::Alert
                    && operation.is_none(),
            );
            report.recovering += usize::from(operation.is_some());
            record.lifecycle = lifecycle;
            if lifecycle.state != before.state && faults.is_empty() {
                record.status.failure = None;
            }
            record.status.faults = faults;
            if let Some(operation) = operation {
                self.start_workflow(&mut record, operation, now_micros());
            }
            writes.push((alert, record, vms, changed_vms));
        }
        if writes.is_empty() {
            return Ok(report);
        }
        let mut tx = self.store.begin().await?;
        self.fleet_fence(&mut tx).await?;
        let mut seen = Vec::new();
        for (alert, record, vms, changed_vms) in &mut writes {
            let mut expected = record.generation;
            if let Some(alert) = alert {
                // A cluster a verb moved since the read is left to the next pass.
                if !save(&mut tx, alert, expected, vms).await? {
                    continue;
                }
                expected = alert.generation;
                record.status.conditions = alert.status.conditions.clone();
            }
            // A cluster a verb moved since the read is left to the next pass.
            if save(&mut tx, record, expected, vms).await? {
                seen.extend(changed_vms.iter().map(|index| (record.id, &vms[*index])));
                report.changed += 1;
            }
        }
        cluster_vms_put(&mut tx, &seen).await?;
        tx.commit().await?;
        if report.recovering > 0 {
            self.driver.activate();
        }
        Ok(report)
    }
}

/// Records what the IaaS has in the VM map; the indexes of the VMs that changed.
fn observe(vms: &mut [ClusterVm], actual: &HashMap<String, VmState>) -> Vec<usize> {
    let mut changed = Vec::new();
    for (index, vm) in vms.iter_mut().enumerate() {
        let now = match actual.get(&vm.vm_id) {
            Some(VmState::Running) => Observed::Running,
            Some(VmState::Stopped) => Observed::Stopped,
            None => Observed::Missing,
        };
        if vm.observed != now {
            vm.observed = now;
            changed.push(index);
        }
    }
    changed
}

/// What differs between the cluster and its VMs, one entry per VM (and one for the
/// count).
fn faults_of(record: &ContainerClusterRecord, vms: &[ClusterVm]) -> Vec<String> {
    let mut faults = Vec::new();
    let wanted = Observed::from(record.lifecycle.desired);
    for vm in vms {
        let what = match (vm.observed, wanted) {
            (Observed::Missing, _) => "deleted out of band",
            (Observed::Stopped, Observed::Running) => "stopped out of band",
            (Observed::Running, Observed::Stopped) => "running while the cluster is stopped",
            _ => continue,
        };
        faults.push(format!("VM {} ({}): {what}", vm.name, vm.vm_id));
    }
    if vms.len() as i64 != record.size {
        faults.push(format!(
            "the cluster has {} VMs of the {} it should have",
            vms.len(),
            record.size
        ));
    }
    faults
}
