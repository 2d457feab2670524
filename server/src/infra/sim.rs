//! The sim IaaS: zones with a VM capacity, service offerings, hosts that can become
//! unreachable, isolated networks and VMs, kept in its own tables (`sim_*`, migration
//! 0010) so that it survives a server restart as an external IaaS would. Every
//! operation takes the configured latency and is one transaction; faults come from
//! the SimulatorService (out-of-band stops and deletions, zone capacity, unreachable
//! hosts, failing the next calls of an operation).

use std::time::Duration;

use uuid::Uuid;

use super::{InfraError, InfraResult, Network, Offering, Provider, Vm, VmSpec, VmState, Zone};
use crate::error::{Error, Result};
use crate::store::sim_iaas as tables;
use crate::store::{Store, Tx, now_micros};

/// The zones, offerings and hosts a new sim IaaS starts with.
const ZONES: &[(&str, &str, i64)] = &[("zone-a", "Zone A", 1000), ("zone-b", "Zone B", 100)];
const OFFERINGS: &[(&str, &str, i64, i64)] = &[
    ("small", "Small (2 vCPU, 4 GiB)", 2, 4096),
    ("medium", "Medium (4 vCPU, 8 GiB)", 4, 8192),
    ("large", "Large (8 vCPU, 16 GiB)", 8, 16384),
];
const HOSTS: &[(&str, &str)] = &[
    ("host-a1", "zone-a"),
    ("host-a2", "zone-a"),
    ("host-a3", "zone-a"),
    ("host-a4", "zone-a"),
    ("host-b1", "zone-b"),
    ("host-b2", "zone-b"),
];

/// The operations a fault can be injected into.
pub const OPERATIONS: &[&str] = &[
    "create_network",
    "delete_network",
    "create_vm",
    "start_vm",
    "stop_vm",
    "delete_vm",
];

/// The sim IaaS.
#[derive(Clone)]
pub struct SimIaas {
    store: Store,
    latency: Duration,
}

impl SimIaas {
    /// The sim IaaS in `store`'s `sim_*` tables, seeded with the default zones,
    /// offerings and hosts the first time; `latency`: how long each operation takes.
    pub async fn open(store: Store, latency: Duration) -> Result<SimIaas> {
        let mut tx = store.begin().await?;
        tables::seed(&mut tx, ZONES, OFFERINGS, HOSTS).await?;
        tx.commit().await?;
        Ok(SimIaas { store, latency })
    }

    /// One operation: the latency, then `body` in a transaction after the fault check.
    async fn operation<T>(
        &self,
        name: &'static str,
        body: impl AsyncFnOnce(&mut Tx) -> InfraResult<T>,
    ) -> InfraResult<T> {
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency).await;
        }
        let mut tx = self.store.begin().await?;
        let faulted = tables::fault_take(&mut tx, name).await?;
        if faulted {
            tx.commit().await?;
            return Err(InfraError::Injected { operation: name });
        }
        let value = body(&mut tx).await?;
        tx.commit().await?;
        Ok(value)
    }

    // Out of band: what the SimulatorService makes happen in the IaaS.

    /// Stops a VM behind the control plane's back (no latency, no fault, any host).
    pub async fn stop_out_of_band(&self, id: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        if tables::vm_get(&mut tx, id).await?.is_none() {
            return Err(not_found("VM", id));
        }
        tables::vm_set_state(&mut tx, id, VmState::Stopped).await?;
        tx.commit().await
    }

    /// Deletes a VM behind the control plane's back; its capacity is given back.
    pub async fn delete_out_of_band(&self, id: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let Some(vm) = tables::vm_get(&mut tx, id).await? else {
            return Err(not_found("VM", id));
        };
        tables::vm_release(&mut tx, &vm).await?;
        tx.commit().await
    }

    /// Sets how many more VMs a zone accepts.
    pub async fn set_zone_capacity(&self, zone: &str, capacity: i64) -> Result<()> {
        let mut tx = self.store.begin().await?;
        if !tables::zone_set_capacity(&mut tx, zone, capacity).await? {
            return Err(not_found("Zone", zone));
        }
        tx.commit().await
    }

    /// Makes a host unreachable (or reachable again).
    pub async fn set_host_reachable(&self, host: &str, reachable: bool) -> Result<()> {
        let mut tx = self.store.begin().await?;
        if !tables::host_set_reachable(&mut tx, host, reachable).await? {
            return Err(not_found("Host", host));
        }
        tx.commit().await
    }

    /// Makes the next `count` calls of `operation` fail (0 clears the fault).
    pub async fn fail_next(&self, operation: &str, count: i64) -> Result<()> {
        if !OPERATIONS.contains(&operation) {
            return Err(Error::invalid(
                "operation",
                format!("one of {}", OPERATIONS.join(", ")),
            ));
        }
        let mut tx = self.store.begin().await?;
        tables::fault_set(&mut tx, operation, count.max(0)).await?;
        tx.commit().await
    }

    /// The VMs on a host (what a host failure takes with it).
    pub async fn vms_on_host(&self, host: &str) -> Result<Vec<Vm>> {
        let mut conn = self.store.read().await?;
        tables::vms_on_host(&mut conn, host).await
    }
}

#[tonic::async_trait]
impl Provider for SimIaas {
    async fn zones(&self) -> InfraResult<Vec<Zone>> {
        let mut conn = self.store.read().await?;
        Ok(tables::zones(&mut conn).await?)
    }

    async fn offerings(&self) -> InfraResult<Vec<Offering>> {
        let mut conn = self.store.read().await?;
        Ok(tables::offerings(&mut conn).await?)
    }

    async fn network(&self, id: &str) -> InfraResult<Option<Network>> {
        let mut conn = self.store.read().await?;
        Ok(tables::network_get(&mut conn, id).await?)
    }

    async fn network_named(&self, zone_id: &str, name: &str) -> InfraResult<Option<Network>> {
        let mut conn = self.store.read().await?;
        Ok(tables::network_named(&mut conn, zone_id, name).await?)
    }

    async fn create_network(&self, zone_id: &str, name: &str) -> InfraResult<Network> {
        self.operation("create_network", async |tx: &mut Tx| {
            if !tables::zone_exists(tx, zone_id).await? {
                return Err(InfraError::NotFound {
                    kind: "Zone",
                    id: zone_id.to_string(),
                });
            }
            if let Some(network) = tables::network_named(tx, zone_id, name).await? {
                return Ok(network);
            }
            let network = Network {
                id: format!("net-{}", Uuid::now_v7()),
                zone_id: zone_id.to_string(),
                name: name.to_string(),
                source_nat: true,
            };
            tables::network_insert(tx, &network).await?;
            Ok(network)
        })
        .await
    }

    async fn delete_network(&self, id: &str) -> InfraResult<()> {
        self.operation("delete_network", async |tx: &mut Tx| {
            let deleted = tables::network_delete(tx, id).await?;
            if !deleted {
                return Err(InfraError::NotFound {
                    kind: "Network",
                    id: id.to_string(),
                });
            }
            Ok(())
        })
        .await
    }

    async fn create_vm(&self, spec: &VmSpec) -> InfraResult<Vm> {
        self.operation("create_vm", async |tx: &mut Tx| {
            if !tables::offering_exists(tx, &spec.offering_id).await? {
                return Err(InfraError::NotFound {
                    kind: "ServiceOffering",
                    id: spec.offering_id.clone(),
                });
            }
            match tables::network_get(tx, &spec.network_id).await? {
                Some(network) if network.zone_id == spec.zone_id => {}
                _ => {
                    return Err(InfraError::NotFound {
                        kind: "Network",
                        id: spec.network_id.clone(),
                    });
                }
            }
            if let Some(vm) = tables::vm_named(tx, &spec.name).await?
                && vm.network_id == spec.network_id
            {
                return Ok(vm);
            }
            let taken = tables::zone_take_capacity(tx, &spec.zone_id).await?;
            if !taken {
                return Err(if tables::zone_exists(tx, &spec.zone_id).await? {
                    InfraError::NoCapacity {
                        zone: spec.zone_id.clone(),
                    }
                } else {
                    InfraError::NotFound {
                        kind: "Zone",
                        id: spec.zone_id.clone(),
                    }
                });
            }
            // The reachable host of the zone with the fewest VMs.
            let host = tables::host_least_loaded(tx, &spec.zone_id).await?;
            let Some(host) = host else {
                return Err(InfraError::NoCapacity {
                    zone: spec.zone_id.clone(),
                });
            };
            let id = Uuid::now_v7();
            let bytes = id.as_bytes();
            let vm = Vm {
                id: format!("vm-{id}"),
                name: spec.name.clone(),
                zone_id: spec.zone_id.clone(),
                offering_id: spec.offering_id.clone(),
                network_id: spec.network_id.clone(),
                host_id: host,
                state: VmState::Running,
                ip_address: format!("10.{}.{}.{}", bytes[13], bytes[14], bytes[15] % 254 + 1),
            };
            tables::vm_insert(tx, &vm, now_micros()).await?;
            Ok(vm)
        })
        .await
    }

    async fn start_vm(&self, id: &str) -> InfraResult<()> {
        self.power("start_vm", id, VmState::Running).await
    }

    async fn stop_vm(&self, id: &str) -> InfraResult<()> {
        self.power("stop_vm", id, VmState::Stopped).await
    }

    async fn delete_vm(&self, id: &str) -> InfraResult<()> {
        self.operation("delete_vm", async |tx: &mut Tx| {
            let vm = reachable_vm(tx, id).await?;
            tables::vm_release(tx, &vm).await?;
            Ok(())
        })
        .await
    }

    async fn vm_named(&self, name: &str) -> InfraResult<Option<Vm>> {
        let mut conn = self.store.read().await?;
        Ok(tables::vm_named(&mut conn, name).await?)
    }

    async fn vm_states(&self, ids: &[String]) -> InfraResult<Vec<(String, VmState)>> {
        let mut conn = self.store.read().await?;
        Ok(tables::vm_states(&mut conn, ids).await?)
    }
}

impl SimIaas {
    /// Starts or stops a VM whose host is reachable.
    async fn power(&self, operation: &'static str, id: &str, to: VmState) -> InfraResult<()> {
        self.operation(operation, async |tx: &mut Tx| {
            reachable_vm(tx, id).await?;
            tables::vm_set_state(tx, id, to).await?;
            Ok(())
        })
        .await
    }
}

/// The VM, if it exists and its host can be reached.
async fn reachable_vm(tx: &mut Tx, id: &str) -> InfraResult<Vm> {
    let Some(vm) = tables::vm_get(tx, id).await? else {
        return Err(InfraError::NotFound {
            kind: "VM",
            id: id.to_string(),
        });
    };
    if !tables::host_reachable(tx, &vm.host_id).await? {
        return Err(InfraError::HostUnreachable {
            host: vm.host_id.clone(),
        });
    }
    Ok(vm)
}

fn not_found(kind: &'static str, id: &str) -> Error {
    Error::NotFound {
        kind,
        name: id.to_string(),
        field: None,
    }
}
