//! The fleet at a glance (WatchFleet): every deployment intent group with its
//! lifecycle columns and its current instance's summary counts, and every cluster
//! with its connectivity and conditions, each read in a few statements whatever the
//! fleet's size.

use std::collections::BTreeMap;

use sqlx::{AnyConnection, Row};

use super::dig::decode_status;
use super::object::stored_name;
use super::rsync_resource::{ResourceFilter, Shown};
use super::status::counts_from_rows;
use crate::domain::conditions::Condition;
use crate::domain::lifecycle::{DigState, NetworkState};
use crate::domain::names::{CLUSTER, DEPLOYMENT_INTENT_GROUP, ResourceName};
use crate::domain::readiness::Connectivity;
use crate::domain::resources::{ClusterSpec, ConnectionMode, Labels};
use crate::domain::status::{CountKey, Counts};
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// A deployment intent group as the fleet shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetGroup {
    pub name: ResourceName,
    pub state: DigState,
    pub revision: i64,
    pub current_instance: Option<InstanceId>,
    pub conditions: Vec<Condition>,
    /// The current instance's summary counts (empty before the first instance).
    pub counts: Counts,
}

impl FleetGroup {
    /// The project id the group belongs to.
    pub fn project(&self) -> &str {
        self.name.id_at(0)
    }
}

/// A cluster as the fleet shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetCluster {
    pub name: ResourceName,
    pub connection_mode: ConnectionMode,
    pub connectivity: Connectivity,
    pub network_state: NetworkState,
    pub conditions: Vec<Condition>,
    pub labels: Labels,
}

fn conditions(row: &sqlx::any::AnyRow) -> Result<Vec<Condition>> {
    let text: String = row.try_get("conditions")?;
    serde_json::from_str(&text).map_err(|e| Error::internal(format!("stored conditions: {e}")))
}

/// Every group, in name order, with the counts a SUMMARY status query of its current
/// instance answers: the instance totals, or (for an instance another one took over
/// from, which ingest no longer keeps up to date) counted from its rows.
pub async fn fleet_groups(conn: &mut AnyConnection) -> Result<Vec<FleetGroup>> {
    let rows = sqlx::query(
        "SELECT name, state, revision, approved_hash, current_instance, conditions \
         FROM deployment_intent_groups ORDER BY name",
    )
    .fetch_all(&mut *conn)
    .await?;
    let mut groups = Vec::with_capacity(rows.len());
    for row in &rows {
        let status = decode_status(row)?;
        groups.push(FleetGroup {
            name: stored_name(&DEPLOYMENT_INTENT_GROUP, row)?,
            state: status.state,
            revision: status.revision,
            current_instance: status.current_instance,
            conditions: status.conditions,
            counts: Counts::new(),
        });
    }
    let mut totals = current_totals(conn).await?;
    let shared = current_shared(conn).await?;
    for group in &mut groups {
        let Some(instance) = group.current_instance else {
            continue;
        };
        group.counts = if shared.contains(&instance) {
            counts_from_rows(conn, instance, &ResourceFilter::default(), Shown::Shared).await?
        } else {
            totals.remove(&instance).unwrap_or_default()
        };
        group.counts.retain(|_, count| *count != 0);
    }
    Ok(groups)
}

/// The totals of every group's current instance.
async fn current_totals(conn: &mut AnyConnection) -> Result<BTreeMap<InstanceId, Counts>> {
    let rows = sqlx::query(
        "SELECT t.instance_id, t.dimension, t.value, t.count FROM status_totals t \
         JOIN deployment_intent_groups g ON g.current_instance = t.instance_id",
    )
    .fetch_all(conn)
    .await?;
    let mut totals: BTreeMap<InstanceId, Counts> = BTreeMap::new();
    for row in &rows {
        let instance: String = row.try_get("instance_id")?;
        let instance: InstanceId = instance.parse().map_err(Error::internal)?;
        let dimension: String = row.try_get("dimension")?;
        let value: String = row.try_get("value")?;
        if let Some(key) = CountKey::parse(&dimension, &value) {
            *totals.entry(instance).or_default().entry(key).or_default() +=
                row.try_get::<i64, _>("count")?;
        }
    }
    Ok(totals)
}

/// The current instances that show [`Shown::Shared`] (see [`Shown::of`]).
async fn current_shared(conn: &mut AnyConnection) -> Result<Vec<InstanceId>> {
    let sql = format!(
        "SELECT i.id FROM instances i JOIN deployment_intent_groups g \
         ON g.current_instance = i.id WHERE {}",
        Shown::SHARED
    );
    let ids: Vec<String> = sqlx::query_scalar(&sql).fetch_all(conn).await?;
    ids.iter()
        .map(|id| id.parse().map_err(Error::internal))
        .collect()
}

/// Every cluster, in name order.
pub async fn fleet_clusters(conn: &mut AnyConnection) -> Result<Vec<FleetCluster>> {
    let rows = sqlx::query(
        "SELECT name, body, connectivity, network_state, conditions FROM clusters ORDER BY name",
    )
    .fetch_all(conn)
    .await?;
    let mut clusters = Vec::with_capacity(rows.len());
    for row in &rows {
        let name = stored_name(&CLUSTER, row)?;
        let body: String = row.try_get("body")?;
        let spec: ClusterSpec = serde_json::from_str(&body)
            .map_err(|e| Error::internal(format!("stored cluster {name}: {e}")))?;
        let state: String = row.try_get("network_state")?;
        clusters.push(FleetCluster {
            connection_mode: spec.connection_mode,
            labels: spec.labels,
            connectivity: row.try_get("connectivity")?,
            network_state: state.parse().map_err(Error::internal)?,
            conditions: conditions(row)?,
            name,
        });
    }
    Ok(clusters)
}
