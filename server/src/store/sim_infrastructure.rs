//! Infrastructure objects of the sim provider (`simInfrastructures/{id}`, seed 004;
//! migration 0013): the provider-specific spec of a container cluster, its owner and
//! the status its provider reports. Every change is a compare-and-swap on generation.

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{fetch_all, fetch_by_id};
use crate::domain::cluster_workflow::Phase;
use crate::domain::conditions::Condition;
use crate::error::{Error, Result};

/// What the sim provider provisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfraSpec {
    pub zone_id: String,
    pub service_offering_id: String,
    pub size: i64,
    /// "" = an isolated network is provisioned for the cluster.
    #[serde(default)]
    pub network_id: String,
}

/// What the provider reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct InfraStatus {
    #[serde(default)]
    pub ready: bool,
    #[serde(default)]
    pub endpoint: String,
    #[serde(default)]
    pub phase: Phase,
    #[serde(default)]
    pub failure_reason: String,
    #[serde(default)]
    pub failure_message: String,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// A stored infrastructure object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InfraRecord {
    pub id: String,
    pub spec: InfraSpec,
    /// `containerClusters/{id}`, or "" while no cluster owns it.
    pub owner: String,
    pub status: InfraStatus,
    pub generation: i64,
    pub create_time: i64,
    pub update_time: i64,
}

impl InfraRecord {
    /// `simInfrastructures/{id}`.
    pub fn name(&self) -> String {
        format!("simInfrastructures/{}", self.id)
    }
}

const COLUMNS: &str = "id, spec, owner, status, generation, create_time, update_time";

fn from_row(row: &AnyRow) -> Result<InfraRecord> {
    let text = |column: &str| -> Result<String> { row.try_get(column).map_err(Error::from) };
    let int = |column: &str| -> Result<i64> { row.try_get(column).map_err(Error::from) };
    let (spec, status) = (text("spec")?, text("status")?);
    let bad = |what: &str, value: &str| Error::internal(format!("stored {what} {value:?}"));
    Ok(InfraRecord {
        id: text("id")?,
        spec: serde_json::from_str(&spec).map_err(|_| bad("infrastructure spec", &spec))?,
        owner: text("owner")?,
        status: serde_json::from_str(&status).map_err(|_| bad("infrastructure status", &status))?,
        generation: int("generation")?,
        create_time: int("create_time")?,
        update_time: int("update_time")?,
    })
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("book-keeping serializes")
}

/// Inserts a new object; false if the id is taken.
pub async fn infra_insert(conn: &mut AnyConnection, r: &InfraRecord) -> Result<bool> {
    let sql = format!(
        "INSERT INTO sim_infrastructures ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (id) DO NOTHING"
    );
    let inserted = sqlx::query(&sql)
        .bind(&r.id)
        .bind(json(&r.spec))
        .bind(&r.owner)
        .bind(json(&r.status))
        .bind(r.generation)
        .bind(r.create_time)
        .bind(r.update_time)
        .execute(conn)
        .await?
        .rows_affected();
    Ok(inserted == 1)
}

/// An object by id.
pub async fn infra_get(conn: &mut AnyConnection, id: &str) -> Result<Option<InfraRecord>> {
    fetch_by_id(conn, "sim_infrastructures", COLUMNS, id, from_row).await
}

/// The infrastructure object of `cluster`, if it has one.
pub async fn cluster_infra(
    conn: &mut AnyConnection,
    cluster: &crate::store::container_cluster::ContainerClusterRecord,
) -> Result<Option<InfraRecord>> {
    match cluster.infra_id() {
        Some(id) => infra_get(conn, id).await,
        None => Ok(None),
    }
}

/// Writes `r` over the stored object if its generation is still `expected`.
pub async fn infra_update(
    conn: &mut AnyConnection,
    r: &InfraRecord,
    expected: i64,
) -> Result<bool> {
    let changed = sqlx::query(
        "UPDATE sim_infrastructures SET spec = $1, owner = $2, status = $3, generation = $4, \
         update_time = $5 WHERE id = $6 AND generation = $7",
    )
    .bind(json(&r.spec))
    .bind(&r.owner)
    .bind(json(&r.status))
    .bind(r.generation)
    .bind(r.update_time)
    .bind(&r.id)
    .bind(expected)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(changed == 1)
}

/// A page of objects in id order after `after`.
pub async fn infra_list(
    conn: &mut AnyConnection,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<InfraRecord>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM sim_infrastructures WHERE id > $1 ORDER BY id LIMIT {limit}"
    );
    fetch_all(conn, sqlx::query(&sql).bind(after.unwrap_or("")), from_row).await
}

/// Deletes the object if its generation is still `expected` and nobody owns it (or
/// `owner` does, when a destroyed cluster takes its object with it).
pub async fn infra_delete(
    conn: &mut AnyConnection,
    id: &str,
    expected: i64,
    owner: &str,
) -> Result<bool> {
    let deleted = sqlx::query(
        "DELETE FROM sim_infrastructures WHERE id = $1 AND generation = $2 AND owner = $3",
    )
    .bind(id)
    .bind(expected)
    .bind(owner)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(deleted == 1)
}
