//! The sim IaaS's tables (`sim_*`, migration 0010): zones with a VM capacity, service
//! offerings, hosts that can become unreachable, networks, VMs and injected faults.
//! `infra::sim` runs its operations over these, one transaction each.

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::json_query::{json_in, json_rows};
use super::{fetch_all, fetch_by_id, fetch_optional, run, wrote};
use crate::domain::iaas::{Network, Offering, Vm, VmState, Zone};
use crate::error::{Error, Result};

/// Adds the zones (id, name, capacity), offerings (id, name, cpus, memory) and hosts
/// (id, zone) that are not stored yet.
pub async fn seed(
    conn: &mut AnyConnection,
    zones: &[(&str, &str, i64)],
    offerings: &[(&str, &str, i64, i64)],
    hosts: &[(&str, &str)],
) -> Result<()> {
    for (id, name, capacity) in zones {
        sqlx::query(
            "INSERT INTO sim_zones (id, name, capacity) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
        )
        .bind(*id)
        .bind(*name)
        .bind(*capacity)
        .execute(&mut *conn)
        .await?;
    }
    for (id, name, cpus, memory) in offerings {
        sqlx::query(
            "INSERT INTO sim_offerings (id, name, cpus, memory_mib) VALUES ($1, $2, $3, $4) \
             ON CONFLICT DO NOTHING",
        )
        .bind(*id)
        .bind(*name)
        .bind(*cpus)
        .bind(*memory)
        .execute(&mut *conn)
        .await?;
    }
    for (id, zone) in hosts {
        sqlx::query(
            "INSERT INTO sim_hosts (id, zone_id, reachable) VALUES ($1, $2, 1) \
             ON CONFLICT DO NOTHING",
        )
        .bind(*id)
        .bind(*zone)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Uses up one injected failure of `operation`; true if there was one.
pub async fn fault_take(conn: &mut AnyConnection, operation: &str) -> Result<bool> {
    let sql = "UPDATE sim_faults SET remaining = remaining - 1 \
               WHERE operation = $1 AND remaining > 0";
    wrote(conn, sqlx::query(sql).bind(operation)).await
}

/// Makes the next `count` calls of `operation` fail.
pub async fn fault_set(conn: &mut AnyConnection, operation: &str, count: i64) -> Result<()> {
    let sql = "INSERT INTO sim_faults (operation, remaining) VALUES ($1, $2) \
               ON CONFLICT (operation) DO UPDATE SET remaining = excluded.remaining";
    let query = sqlx::query(sql).bind(operation).bind(count);
    run(conn, query).await
}

pub async fn zones(conn: &mut AnyConnection) -> Result<Vec<Zone>> {
    let rows: Vec<(String, String, i64)> =
        sqlx::query_as("SELECT id, name, capacity FROM sim_zones ORDER BY id")
            .fetch_all(conn)
            .await?;
    Ok(rows
        .into_iter()
        .map(|(id, name, capacity)| Zone { id, name, capacity })
        .collect())
}

pub async fn zone_exists(conn: &mut AnyConnection, id: &str) -> Result<bool> {
    exists(conn, "sim_zones", id).await
}

/// Sets a zone's capacity; false if there is no such zone.
pub async fn zone_set_capacity(conn: &mut AnyConnection, id: &str, capacity: i64) -> Result<bool> {
    let sql = "UPDATE sim_zones SET capacity = $1 WHERE id = $2";
    wrote(conn, sqlx::query(sql).bind(capacity).bind(id)).await
}

/// Takes one VM's capacity of a zone; false if the zone has none left (or is missing).
pub async fn zone_take_capacity(conn: &mut AnyConnection, id: &str) -> Result<bool> {
    let sql = "UPDATE sim_zones SET capacity = capacity - 1 WHERE id = $1 AND capacity > 0";
    wrote(conn, sqlx::query(sql).bind(id)).await
}

pub async fn offerings(conn: &mut AnyConnection) -> Result<Vec<Offering>> {
    let rows: Vec<(String, String, i64, i64)> =
        sqlx::query_as("SELECT id, name, cpus, memory_mib FROM sim_offerings ORDER BY cpus, id")
            .fetch_all(conn)
            .await?;
    Ok(rows
        .into_iter()
        .map(|(id, name, cpus, memory_mib)| Offering {
            id,
            name,
            cpus,
            memory_mib,
        })
        .collect())
}

pub async fn offering_exists(conn: &mut AnyConnection, id: &str) -> Result<bool> {
    exists(conn, "sim_offerings", id).await
}

/// Whether `table` has a row of this id.
async fn exists(conn: &mut AnyConnection, table: &'static str, id: &str) -> Result<bool> {
    let sql = format!("SELECT id FROM {table} WHERE id = $1");
    let found: Option<String> = sqlx::query_scalar(&sql)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    Ok(found.is_some())
}

pub async fn host_set_reachable(
    conn: &mut AnyConnection,
    id: &str,
    reachable: bool,
) -> Result<bool> {
    let sql = "UPDATE sim_hosts SET reachable = $1 WHERE id = $2";
    wrote(conn, sqlx::query(sql).bind(i64::from(reachable)).bind(id)).await
}

/// Whether a host exists and is reachable.
pub async fn host_reachable(conn: &mut AnyConnection, id: &str) -> Result<bool> {
    let reachable: Option<i64> =
        sqlx::query_scalar("SELECT reachable FROM sim_hosts WHERE id = $1")
            .bind(id)
            .fetch_optional(conn)
            .await?;
    Ok(reachable.unwrap_or(0) != 0)
}

/// The reachable host of a zone with the fewest VMs.
pub async fn host_least_loaded(conn: &mut AnyConnection, zone: &str) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "SELECT h.id FROM sim_hosts h WHERE h.zone_id = $1 AND h.reachable = 1 \
         ORDER BY (SELECT COUNT(*) FROM sim_vms v WHERE v.host_id = h.id), h.id LIMIT 1",
    )
    .bind(zone)
    .fetch_optional(conn)
    .await?)
}

const NETWORK_COLUMNS: &str = "id, zone_id, name, source_nat";

fn network_from_row(row: &AnyRow) -> Result<Network> {
    Ok(Network {
        id: row.try_get("id")?,
        zone_id: row.try_get("zone_id")?,
        name: row.try_get("name")?,
        source_nat: row.try_get::<i64, _>("source_nat")? != 0,
    })
}

pub async fn network_get(conn: &mut AnyConnection, id: &str) -> Result<Option<Network>> {
    fetch_by_id(conn, "sim_networks", NETWORK_COLUMNS, id, network_from_row).await
}

/// The first network of a zone with this name.
pub async fn network_named(
    conn: &mut AnyConnection,
    zone: &str,
    name: &str,
) -> Result<Option<Network>> {
    let sql = format!(
        "SELECT {NETWORK_COLUMNS} FROM sim_networks WHERE zone_id = $1 AND name = $2 \
         ORDER BY id LIMIT 1"
    );
    fetch_optional(
        conn,
        sqlx::query(&sql).bind(zone).bind(name),
        network_from_row,
    )
    .await
}

pub async fn network_insert(conn: &mut AnyConnection, network: &Network) -> Result<()> {
    let sql = "INSERT INTO sim_networks (id, zone_id, name, source_nat) VALUES ($1, $2, $3, $4)";
    let query = sqlx::query(sql)
        .bind(&network.id)
        .bind(&network.zone_id)
        .bind(&network.name)
        .bind(i64::from(network.source_nat));
    run(conn, query).await
}

/// Deletes a network; false if there was none.
pub async fn network_delete(conn: &mut AnyConnection, id: &str) -> Result<bool> {
    wrote(
        conn,
        sqlx::query("DELETE FROM sim_networks WHERE id = $1").bind(id),
    )
    .await
}

const VM_COLUMNS: &str = "id, name, zone_id, offering_id, network_id, host_id, state, ip_address";

fn vm_from_row(row: &AnyRow) -> Result<Vm> {
    let text = |column: &str| -> Result<String> { Ok(row.try_get(column)?) };
    let state = text("state")?;
    Ok(Vm {
        id: text("id")?,
        name: text("name")?,
        zone_id: text("zone_id")?,
        offering_id: text("offering_id")?,
        network_id: text("network_id")?,
        host_id: text("host_id")?,
        state: state.parse().map_err(Error::internal)?,
        ip_address: text("ip_address")?,
    })
}

pub async fn vm_get(conn: &mut AnyConnection, id: &str) -> Result<Option<Vm>> {
    fetch_by_id(conn, "sim_vms", VM_COLUMNS, id, vm_from_row).await
}

/// The first VM with this name.
pub async fn vm_named(conn: &mut AnyConnection, name: &str) -> Result<Option<Vm>> {
    let sql = format!("SELECT {VM_COLUMNS} FROM sim_vms WHERE name = $1 ORDER BY id LIMIT 1");
    fetch_optional(conn, sqlx::query(&sql).bind(name), vm_from_row).await
}

/// Ids per statement of the bulk VM reads (one JSON bind each).
const VMS_PER_READ: usize = 10_000;

/// The states of the VMs of these ids that exist, in id order: a whole state sync
/// pass's (100,000 VMs for 10,000 clusters). Read through [`json_rows`]: one row per
/// statement instead of one per VM, which through sqlx's Any rows was most of the pass.
pub async fn vm_states(conn: &mut AnyConnection, ids: &[String]) -> Result<Vec<(String, VmState)>> {
    let select = format!(
        "SELECT id, state FROM sim_vms WHERE {}",
        json_in(conn, "id", 1)
    );
    let mut found = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(VMS_PER_READ) {
        let ids = serde_json::to_string(chunk).map_err(Error::internal)?;
        let rows: Vec<(String, String)> = json_rows(
            conn,
            &select,
            "id, state",
            "id",
            vec![ids],
            |a: &(String, String), b| a.0.cmp(&b.0),
        )
        .await?;
        for (id, state) in rows {
            found.push((id, state.parse().map_err(Error::internal)?));
        }
    }
    Ok(found)
}

/// The VMs on a host.
pub async fn vms_on_host(conn: &mut AnyConnection, host: &str) -> Result<Vec<Vm>> {
    let sql = format!("SELECT {VM_COLUMNS} FROM sim_vms WHERE host_id = $1 ORDER BY id");
    fetch_all(conn, sqlx::query(&sql).bind(host), vm_from_row).await
}

pub async fn vm_insert(conn: &mut AnyConnection, vm: &Vm, create_time: i64) -> Result<()> {
    let sql = "INSERT INTO sim_vms (id, name, zone_id, offering_id, network_id, host_id, \
               state, ip_address, create_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
    let query = sqlx::query(sql)
        .bind(&vm.id)
        .bind(&vm.name)
        .bind(&vm.zone_id)
        .bind(&vm.offering_id)
        .bind(&vm.network_id)
        .bind(&vm.host_id)
        .bind(vm.state.as_str())
        .bind(&vm.ip_address)
        .bind(create_time);
    run(conn, query).await
}

pub async fn vm_set_state(conn: &mut AnyConnection, id: &str, state: VmState) -> Result<()> {
    let sql = "UPDATE sim_vms SET state = $1 WHERE id = $2";
    let query = sqlx::query(sql).bind(state.as_str()).bind(id);
    run(conn, query).await
}

/// Deletes a VM and gives its zone the capacity back.
pub async fn vm_release(conn: &mut AnyConnection, vm: &Vm) -> Result<()> {
    sqlx::query("DELETE FROM sim_vms WHERE id = $1")
        .bind(&vm.id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("UPDATE sim_zones SET capacity = capacity + 1 WHERE id = $1")
        .bind(&vm.zone_id)
        .execute(conn)
        .await?;
    Ok(())
}
