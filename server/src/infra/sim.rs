//! The sim IaaS: zones with a VM capacity, service offerings, hosts that can become
//! unreachable, isolated networks and VMs, kept in its own tables (`sim_*`, migration
//! 0010) so that it survives a server restart as an external IaaS would. Every
//! operation takes the configured latency and is one transaction; faults come from
//! the SimulatorService (out-of-band stops and deletions, zone capacity, unreachable
//! hosts, failing the next calls of an operation).

use std::time::Duration;

use sqlx::Row;
use sqlx::any::AnyRow;
use uuid::Uuid;

use super::{InfraError, InfraResult, Network, Offering, Provider, Vm, VmSpec, VmState, Zone};
use crate::error::{Error, Result};
use crate::store::{Store, Tx, db_error, fetch_all, fetch_optional, now_micros};

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
        for (id, name, capacity) in ZONES {
            sqlx::query(
                "INSERT INTO sim_zones (id, name, capacity) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(*id)
            .bind(*name)
            .bind(*capacity)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        }
        for (id, name, cpus, memory) in OFFERINGS {
            sqlx::query(
                "INSERT INTO sim_offerings (id, name, cpus, memory_mib) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(*id)
            .bind(*name)
            .bind(*cpus)
            .bind(*memory)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        }
        for (id, zone) in HOSTS {
            sqlx::query(
                "INSERT INTO sim_hosts (id, zone_id, reachable) VALUES ($1, $2, 1) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(*id)
            .bind(*zone)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        }
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
        let faulted = sqlx::query(
            "UPDATE sim_faults SET remaining = remaining - 1 \
             WHERE operation = $1 AND remaining > 0",
        )
        .bind(name)
        .execute(&mut *tx)
        .await
        .map_err(db_error)?
        .rows_affected()
            > 0;
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
        if vm_get(&mut tx, id).await?.is_none() {
            return Err(not_found("VM", id));
        }
        set_vm_state(&mut tx, id, VmState::Stopped).await?;
        tx.commit().await
    }

    /// Deletes a VM behind the control plane's back; its capacity is given back.
    pub async fn delete_out_of_band(&self, id: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let Some(vm) = vm_get(&mut tx, id).await? else {
            return Err(not_found("VM", id));
        };
        release_vm(&mut tx, &vm).await?;
        tx.commit().await
    }

    /// Sets how many more VMs a zone accepts.
    pub async fn set_zone_capacity(&self, zone: &str, capacity: i64) -> Result<()> {
        let query = sqlx::query("UPDATE sim_zones SET capacity = $1 WHERE id = $2");
        self.update_one("Zone", zone, query.bind(capacity).bind(zone))
            .await
    }

    /// Makes a host unreachable (or reachable again).
    pub async fn set_host_reachable(&self, host: &str, reachable: bool) -> Result<()> {
        let query = sqlx::query("UPDATE sim_hosts SET reachable = $1 WHERE id = $2");
        self.update_one("Host", host, query.bind(i64::from(reachable)).bind(host))
            .await
    }

    /// Runs an update of the one `kind` named `id`; NOT_FOUND if there is none.
    async fn update_one(
        &self,
        kind: &'static str,
        id: &str,
        query: crate::store::AnyQuery<'_>,
    ) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let changed = query
            .execute(&mut *tx)
            .await
            .map_err(db_error)?
            .rows_affected();
        if changed == 0 {
            return Err(not_found(kind, id));
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
        sqlx::query(
            "INSERT INTO sim_faults (operation, remaining) VALUES ($1, $2) \
             ON CONFLICT (operation) DO UPDATE SET remaining = excluded.remaining",
        )
        .bind(operation)
        .bind(count.max(0))
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
        tx.commit().await
    }

    /// The VMs on a host (what a host failure takes with it).
    pub async fn vms_on_host(&self, host: &str) -> Result<Vec<Vm>> {
        let mut conn = self.store.read().await?;
        fetch_all(
            &mut conn,
            sqlx::query(&format!(
                "SELECT {VM_COLUMNS} FROM sim_vms WHERE host_id = $1 ORDER BY id"
            ))
            .bind(host),
            vm_from_row,
        )
        .await
    }
}

#[tonic::async_trait]
impl Provider for SimIaas {
    async fn zones(&self) -> InfraResult<Vec<Zone>> {
        let mut conn = self.store.read().await?;
        Ok(fetch_all(
            &mut conn,
            sqlx::query("SELECT id, name, capacity FROM sim_zones ORDER BY id"),
            |row| {
                Ok(Zone {
                    id: row.try_get("id").map_err(db_error)?,
                    name: row.try_get("name").map_err(db_error)?,
                    capacity: row.try_get("capacity").map_err(db_error)?,
                })
            },
        )
        .await?)
    }

    async fn offerings(&self) -> InfraResult<Vec<Offering>> {
        let mut conn = self.store.read().await?;
        Ok(fetch_all(
            &mut conn,
            sqlx::query("SELECT id, name, cpus, memory_mib FROM sim_offerings ORDER BY cpus, id"),
            |row| {
                Ok(Offering {
                    id: row.try_get("id").map_err(db_error)?,
                    name: row.try_get("name").map_err(db_error)?,
                    cpus: row.try_get("cpus").map_err(db_error)?,
                    memory_mib: row.try_get("memory_mib").map_err(db_error)?,
                })
            },
        )
        .await?)
    }

    async fn network(&self, id: &str) -> InfraResult<Option<Network>> {
        let mut conn = self.store.read().await?;
        Ok(network_get(&mut conn, id).await?)
    }

    async fn network_named(&self, zone_id: &str, name: &str) -> InfraResult<Option<Network>> {
        let mut conn = self.store.read().await?;
        let sql = format!(
            "SELECT {NETWORK_COLUMNS} FROM sim_networks WHERE zone_id = $1 AND name = $2 ORDER BY id LIMIT 1"
        );
        Ok(fetch_optional(
            &mut conn,
            sqlx::query(&sql).bind(zone_id).bind(name),
            network_from_row,
        )
        .await?)
    }

    async fn create_network(&self, zone_id: &str, name: &str) -> InfraResult<Network> {
        self.operation("create_network", async |tx: &mut Tx| {
            if !zone_exists(tx, zone_id).await? {
                return Err(InfraError::NotFound {
                    kind: "Zone",
                    id: zone_id.to_string(),
                });
            }
            let network = Network {
                id: format!("net-{}", Uuid::now_v7()),
                zone_id: zone_id.to_string(),
                name: name.to_string(),
                source_nat: true,
            };
            sqlx::query(
                "INSERT INTO sim_networks (id, zone_id, name, source_nat) VALUES ($1, $2, $3, 1)",
            )
            .bind(&network.id)
            .bind(&network.zone_id)
            .bind(&network.name)
            .execute(&mut **tx)
            .await
            .map_err(db_error)?;
            Ok(network)
        })
        .await
    }

    async fn delete_network(&self, id: &str) -> InfraResult<()> {
        self.operation("delete_network", async |tx: &mut Tx| {
            let deleted = sqlx::query("DELETE FROM sim_networks WHERE id = $1")
                .bind(id)
                .execute(&mut **tx)
                .await
                .map_err(db_error)?
                .rows_affected();
            if deleted == 0 {
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
            let offering: Option<String> =
                sqlx::query_scalar("SELECT id FROM sim_offerings WHERE id = $1")
                    .bind(&spec.offering_id)
                    .fetch_optional(&mut **tx)
                    .await
                    .map_err(db_error)?;
            if offering.is_none() {
                return Err(InfraError::NotFound {
                    kind: "ServiceOffering",
                    id: spec.offering_id.clone(),
                });
            }
            match network_get(tx, &spec.network_id).await? {
                Some(network) if network.zone_id == spec.zone_id => {}
                _ => {
                    return Err(InfraError::NotFound {
                        kind: "Network",
                        id: spec.network_id.clone(),
                    });
                }
            }
            let taken = sqlx::query(
                "UPDATE sim_zones SET capacity = capacity - 1 WHERE id = $1 AND capacity > 0",
            )
            .bind(&spec.zone_id)
            .execute(&mut **tx)
            .await
            .map_err(db_error)?
            .rows_affected();
            if taken == 0 {
                return Err(if zone_exists(tx, &spec.zone_id).await? {
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
            let host: Option<String> = sqlx::query_scalar(
                "SELECT h.id FROM sim_hosts h WHERE h.zone_id = $1 AND h.reachable = 1 \
                 ORDER BY (SELECT COUNT(*) FROM sim_vms v WHERE v.host_id = h.id), h.id LIMIT 1",
            )
            .bind(&spec.zone_id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(db_error)?;
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
            sqlx::query(
                "INSERT INTO sim_vms (id, name, zone_id, offering_id, network_id, host_id, \
                 state, ip_address, create_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&vm.id)
            .bind(&vm.name)
            .bind(&vm.zone_id)
            .bind(&vm.offering_id)
            .bind(&vm.network_id)
            .bind(&vm.host_id)
            .bind(vm.state.as_str())
            .bind(&vm.ip_address)
            .bind(now_micros())
            .execute(&mut **tx)
            .await
            .map_err(db_error)?;
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
            release_vm(tx, &vm).await?;
            Ok(())
        })
        .await
    }

    async fn vm_named(&self, name: &str) -> InfraResult<Option<Vm>> {
        let mut conn = self.store.read().await?;
        let sql = format!("SELECT {VM_COLUMNS} FROM sim_vms WHERE name = $1 ORDER BY id LIMIT 1");
        Ok(fetch_optional(&mut conn, sqlx::query(&sql).bind(name), vm_from_row).await?)
    }

    async fn vms(&self, ids: &[String]) -> InfraResult<Vec<Vm>> {
        let mut found = Vec::with_capacity(ids.len());
        let mut conn = self.store.read().await?;
        for chunk in ids.chunks(500) {
            let marks = crate::store::placeholders(&conn, 1, chunk.len());
            let sql = format!("SELECT {VM_COLUMNS} FROM sim_vms WHERE id IN {marks}");
            let mut query = sqlx::query(&sql);
            for id in chunk {
                query = query.bind(id.clone());
            }
            found.extend(fetch_all(&mut conn, query, vm_from_row).await?);
        }
        Ok(found)
    }
}

impl SimIaas {
    /// Starts or stops a VM whose host is reachable.
    async fn power(&self, operation: &'static str, id: &str, to: VmState) -> InfraResult<()> {
        self.operation(operation, async |tx: &mut Tx| {
            reachable_vm(tx, id).await?;
            set_vm_state(tx, id, to).await?;
            Ok(())
        })
        .await
    }
}

const VM_COLUMNS: &str = "id, name, zone_id, offering_id, network_id, host_id, state, ip_address";

fn vm_from_row(row: &AnyRow) -> Result<Vm> {
    let text = |column: &str| -> Result<String> { row.try_get(column).map_err(db_error) };
    let state = text("state")?;
    Ok(Vm {
        id: text("id")?,
        name: text("name")?,
        zone_id: text("zone_id")?,
        offering_id: text("offering_id")?,
        network_id: text("network_id")?,
        host_id: text("host_id")?,
        state: VmState::parse(&state)
            .ok_or_else(|| Error::internal(format!("stored VM state {state:?}")))?,
        ip_address: text("ip_address")?,
    })
}

async fn vm_get(conn: &mut sqlx::AnyConnection, id: &str) -> Result<Option<Vm>> {
    fetch_optional(
        conn,
        sqlx::query(&format!("SELECT {VM_COLUMNS} FROM sim_vms WHERE id = $1")).bind(id),
        vm_from_row,
    )
    .await
}

/// The VM, if it exists and its host can be reached.
async fn reachable_vm(tx: &mut Tx, id: &str) -> InfraResult<Vm> {
    let Some(vm) = vm_get(tx, id).await? else {
        return Err(InfraError::NotFound {
            kind: "VM",
            id: id.to_string(),
        });
    };
    let reachable: i64 = sqlx::query_scalar("SELECT reachable FROM sim_hosts WHERE id = $1")
        .bind(&vm.host_id)
        .fetch_optional(&mut **tx)
        .await
        .map_err(db_error)?
        .unwrap_or(0);
    if reachable == 0 {
        return Err(InfraError::HostUnreachable {
            host: vm.host_id.clone(),
        });
    }
    Ok(vm)
}

async fn set_vm_state(conn: &mut sqlx::AnyConnection, id: &str, state: VmState) -> Result<()> {
    sqlx::query("UPDATE sim_vms SET state = $1 WHERE id = $2")
        .bind(state.as_str())
        .bind(id)
        .execute(conn)
        .await
        .map_err(db_error)?;
    Ok(())
}

/// Deletes a VM and gives its zone the capacity back.
async fn release_vm(conn: &mut sqlx::AnyConnection, vm: &Vm) -> Result<()> {
    sqlx::query("DELETE FROM sim_vms WHERE id = $1")
        .bind(&vm.id)
        .execute(&mut *conn)
        .await
        .map_err(db_error)?;
    sqlx::query("UPDATE sim_zones SET capacity = capacity + 1 WHERE id = $1")
        .bind(&vm.zone_id)
        .execute(conn)
        .await
        .map_err(db_error)?;
    Ok(())
}

async fn zone_exists(conn: &mut sqlx::AnyConnection, id: &str) -> Result<bool> {
    let found: Option<String> = sqlx::query_scalar("SELECT id FROM sim_zones WHERE id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await
        .map_err(db_error)?;
    Ok(found.is_some())
}

const NETWORK_COLUMNS: &str = "id, zone_id, name, source_nat";

fn network_from_row(row: &AnyRow) -> Result<Network> {
    Ok(Network {
        id: row.try_get("id").map_err(db_error)?,
        zone_id: row.try_get("zone_id").map_err(db_error)?,
        name: row.try_get("name").map_err(db_error)?,
        source_nat: row.try_get::<i64, _>("source_nat").map_err(db_error)? != 0,
    })
}

async fn network_get(conn: &mut sqlx::AnyConnection, id: &str) -> Result<Option<Network>> {
    let sql = format!("SELECT {NETWORK_COLUMNS} FROM sim_networks WHERE id = $1");
    fetch_optional(conn, sqlx::query(&sql).bind(id), network_from_row).await
}

fn not_found(kind: &'static str, id: &str) -> Error {
    Error::NotFound {
        kind,
        name: id.to_string(),
        field: None,
    }
}
