//! The workflow driver: carries out the operations verbs recorded, in the background,
//! one IaaS call per step, each step's result committed (compare-and-swap) before the
//! next is planned. What a step does comes from `domain::cluster_workflow::plan` over
//! the book-keeping, so a server killed mid-operation plans the same step after
//! restart and goes on; a step that crashed after its IaaS call but before its commit
//! finds what it made by its deterministic name. An operation past its deadline
//! fails; a failure moves the cluster as the state machine says (a first start that
//! fails cleans up at once).

use std::time::Duration;

use tracing::{debug, warn};

use super::ContainerClusters;
use super::save::save;
use crate::domain::cluster_workflow::{
    Observed, Operation, Plan, Step, VmView, Workflow, network_name, plan, vm_name,
};
use crate::domain::container_cluster::{ClusterState, Event, transition};
use crate::error::{Error, Result};
use crate::ids::ContainerClusterId;
use crate::infra::{InfraError, VmSpec};
use crate::store::container_cluster::{
    ClusterVm, ContainerClusterRecord, cluster_due, cluster_get, cluster_vm_put, cluster_vm_remove,
    cluster_vms,
};
use crate::store::now_micros;

/// Clusters looked at per pass.
const BATCH: usize = 256;

/// What a step did.
enum Outcome {
    /// Committed; plan the next step.
    Next,
    /// The workflow ended (or there is none).
    Ended,
}

impl ContainerClusters {
    /// One pass of the driver: starts driving every cluster whose workflow is due and
    /// that no task of this server drives yet. Returns how many it started.
    pub async fn drive_due(&self) -> Result<usize> {
        let due = {
            let mut conn = self.store.read().await?;
            cluster_due(&mut conn, now_micros(), BATCH).await?
        };
        let mut started = 0;
        for cluster in due {
            if !self.driving.lock().expect("driving set").insert(cluster.id) {
                continue;
            }
            started += 1;
            let this = self.clone();
            tokio::spawn(async move {
                let id = cluster.id;
                this.drive(id).await;
                this.driving.lock().expect("driving set").remove(&id);
            });
        }
        Ok(started)
    }

    /// When the driver has work next (the earliest `next_run`).
    pub async fn next_due(&self) -> Option<i64> {
        let mut conn = self.store.read().await.ok()?;
        cluster_due(&mut conn, i64::MAX, 1)
            .await
            .ok()?
            .first()
            .and_then(|c| c.next_run)
    }

    /// Drives one cluster's workflow to its end. A database failure leaves the
    /// workflow due: the next pass picks it up again.
    async fn drive(&self, id: ContainerClusterId) {
        let Ok(_slot) = self.slots.acquire().await else {
            return;
        };
        loop {
            match self.step(id).await {
                Ok(Outcome::Next) => {}
                Ok(Outcome::Ended) => return,
                Err(error) => {
                    warn!(cluster = %id, %error, "container cluster workflow step failed; retrying later");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    return;
                }
            }
        }
    }

    /// Plans and carries out one step.
    async fn step(&self, id: ContainerClusterId) -> Result<Outcome> {
        self.check_fleet_tasks()?;
        let (record, vms) = {
            let mut conn = self.store.read().await?;
            let Some(record) = cluster_get(&mut conn, id).await? else {
                return Ok(Outcome::Ended);
            };
            let vms = cluster_vms(&mut conn, &[id])
                .await?
                .remove(&id)
                .unwrap_or_default();
            (record, vms)
        };
        let Some(text) = &record.operation else {
            return Ok(Outcome::Ended);
        };
        let workflow: Workflow = serde_json::from_str(text)
            .map_err(|e| Error::internal(format!("stored workflow of {id}: {e}")))?;
        let views: Vec<VmView> = vms
            .iter()
            .map(|vm| VmView {
                vm_id: vm.vm_id.clone(),
                ordinal: vm.ordinal,
                observed: vm.observed,
            })
            .collect();
        let step = plan(&Plan {
            operation: workflow.operation,
            size: record.size,
            network_id: &record.network_id,
            network_cleanup: record.network_cleanup,
            vms: &views,
        });
        // An operation past its deadline fails, unless nothing is left to do.
        if step != Step::Done && now_micros() > workflow.deadline {
            let timeout = Duration::from_micros((workflow.deadline - workflow.started) as u64);
            let message = format!("it did not finish within {} s", timeout.as_secs());
            return self.finish(record, vms, Err(("Timeout", message))).await;
        }
        debug!(cluster = %id, ?step, "container cluster workflow step");
        let id_text = id.to_string();
        let result: std::result::Result<Change, InfraError> = match step {
            Step::Done => return self.finish(record, vms, Ok(())).await,
            Step::Fail { reason, message } => {
                return self.finish(record, vms, Err((reason, message))).await;
            }
            Step::CreateNetwork => {
                let name = network_name(&id_text);
                match self.iaas.network_named(&record.zone_id, &name).await {
                    Ok(Some(network)) => Ok(Change::Network(network.id)),
                    Ok(None) => self
                        .iaas
                        .create_network(&record.zone_id, &name)
                        .await
                        .map(|network| Change::Network(network.id)),
                    Err(error) => Err(error),
                }
            }
            Step::CreateVm { ordinal, replaces } => {
                let name = vm_name(&id_text, ordinal);
                let made = match self.iaas.vm_named(&name).await {
                    Ok(Some(vm)) => Ok(vm),
                    Ok(None) => {
                        self.iaas
                            .create_vm(&VmSpec {
                                name: name.clone(),
                                zone_id: record.zone_id.clone(),
                                offering_id: record.service_offering_id.clone(),
                                network_id: record.network_id.clone(),
                            })
                            .await
                    }
                    Err(error) => Err(error),
                };
                made.map(|vm| Change::PutVm {
                    replaces,
                    vm: ClusterVm {
                        vm_id: vm.id,
                        name: vm.name,
                        ordinal,
                        observed: match vm.state {
                            crate::infra::VmState::Running => Observed::Running,
                            crate::infra::VmState::Stopped => Observed::Stopped,
                        },
                        ip_address: vm.ip_address,
                    },
                })
            }
            Step::StartVm { vm_id } => self
                .iaas
                .start_vm(&vm_id)
                .await
                .map(|()| Change::Power(vm_id, Observed::Running)),
            Step::StopVm { vm_id } => self
                .iaas
                .stop_vm(&vm_id)
                .await
                .map(|()| Change::Power(vm_id, Observed::Stopped)),
            Step::DeleteVm { vm_id } => match self.iaas.delete_vm(&vm_id).await {
                Ok(()) | Err(InfraError::NotFound { .. }) => Ok(Change::RemoveVm(vm_id)),
                Err(error) => Err(error),
            },
            Step::DeleteNetwork { network_id } => {
                match self.iaas.delete_network(&network_id).await {
                    Ok(()) | Err(InfraError::NotFound { .. }) => Ok(Change::NetworkReleased),
                    Err(error) => Err(error),
                }
            }
        };
        match result {
            Ok(change) => self.commit(record, vms, change).await,
            Err(error) => {
                let message = error.to_string();
                self.finish(record, vms, Err((error.reason(), message)))
                    .await
            }
        }
    }

    /// Commits a step's result.
    async fn commit(
        &self,
        mut record: ContainerClusterRecord,
        mut vms: Vec<ClusterVm>,
        change: Change,
    ) -> Result<Outcome> {
        let expected = record.generation;
        let mut tx = self.store.begin().await?;
        self.fleet_fence(&mut tx).await?;
        match &change {
            Change::Network(network) => {
                record.network_id = network.clone();
                record.network_cleanup = true;
            }
            Change::NetworkReleased => record.network_cleanup = false,
            Change::PutVm { replaces, vm } => {
                if let Some(old) = replaces {
                    cluster_vm_remove(&mut tx, record.id, old).await?;
                    vms.retain(|v| &v.vm_id != old);
                }
                cluster_vm_put(&mut tx, record.id, vm).await?;
                vms.push(vm.clone());
            }
            Change::Power(vm_id, observed) => {
                if let Some(vm) = vms.iter_mut().find(|v| &v.vm_id == vm_id) {
                    vm.observed = *observed;
                    cluster_vm_put(&mut tx, record.id, vm).await?;
                }
            }
            Change::RemoveVm(vm_id) => {
                cluster_vm_remove(&mut tx, record.id, vm_id).await?;
                vms.retain(|v| &v.vm_id != vm_id);
            }
        }
        if save(&mut tx, &mut record, expected, &vms).await? {
            tx.commit().await?;
        }
        // A lost compare-and-swap: someone moved the cluster meanwhile; plan again
        // from what is stored (the IaaS call is idempotent or found by name).
        Ok(Outcome::Next)
    }

    /// Ends the workflow: the state machine's move for success or failure.
    async fn finish(
        &self,
        mut record: ContainerClusterRecord,
        vms: Vec<ClusterVm>,
        outcome: std::result::Result<(), (&'static str, String)>,
    ) -> Result<Outcome> {
        let expected = record.generation;
        let workflow: Option<Workflow> = record
            .operation
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok());
        let event = match &outcome {
            Ok(()) => Event::Succeeded,
            Err(_) => Event::Failed,
        };
        let name = record.name();
        record.lifecycle = transition(&record.lifecycle, event)
            .map_err(|refused| Error::internal(format!("{name}: {}", refused.why)))?;
        record.operation = None;
        record.next_run = None;
        match outcome {
            Ok(()) => {
                // A cleanup keeps the failure that made it (why the cluster is gone).
                if workflow.map(|w| w.operation) != Some(Operation::Expunge) {
                    record.status.failure = None;
                }
                if matches!(
                    workflow.map(|w| w.operation),
                    Some(Operation::Start | Operation::Recover { .. })
                ) {
                    record.status.faults.clear();
                }
            }
            Err((reason, message)) => {
                let operation = workflow.map_or("operation", |w| w.operation.as_str());
                let message = format!("the {operation} failed: {message}");
                warn!(cluster = %name, reason, %message, "container cluster operation failed");
                record.status.failure = Some((reason.to_string(), message));
                if let Some(Workflow {
                    operation: Operation::Scale { .. },
                    ..
                }) = workflow
                {
                    // ALERT with the size the cluster really has.
                    record.size = vms.len() as i64;
                }
            }
        }
        let more = record.lifecycle.state == ClusterState::Expunging;
        if more {
            // A first start failed: release what it provisioned.
            self.start_workflow(&mut record, Operation::Expunge, now_micros());
        }
        let mut tx = self.store.begin().await?;
        self.fleet_fence(&mut tx).await?;
        if save(&mut tx, &mut record, expected, &vms).await? {
            tx.commit().await?;
            Ok(if more { Outcome::Next } else { Outcome::Ended })
        } else {
            Ok(Outcome::Next)
        }
    }

    /// GC: moves every EXPUNGE cluster back to EXPUNGING with a cleanup workflow.
    /// Returns how many it retried.
    pub async fn collect_garbage(&self) -> Result<usize> {
        let filter = crate::store::container_cluster::ClusterFilter {
            state: Some(ClusterState::Expunge),
            ..Default::default()
        };
        let mut retried = 0;
        let mut after = None;
        loop {
            let (page, more) = self.list(&filter, after, BATCH).await?;
            after = page.last().map(|v| v.cluster.id);
            for view in page {
                let mut record = view.cluster;
                let expected = record.generation;
                let Ok(lifecycle) = transition(&record.lifecycle, Event::CollectGarbage) else {
                    continue;
                };
                record.lifecycle = lifecycle;
                self.start_workflow(&mut record, Operation::Expunge, now_micros());
                let mut tx = self.store.begin().await?;
                self.fleet_fence(&mut tx).await?;
                if save(&mut tx, &mut record, expected, &view.vms).await? {
                    tx.commit().await?;
                    retried += 1;
                }
            }
            if !more {
                break;
            }
        }
        if retried > 0 {
            self.driver.activate();
        }
        Ok(retried)
    }
}

/// The result of a step, as the book-keeping records it.
enum Change {
    Network(String),
    NetworkReleased,
    PutVm {
        replaces: Option<String>,
        vm: ClusterVm,
    },
    Power(String, Observed),
    RemoveVm(String),
}
