//! Container clusters' book-keeping (migration 0012): the clusters, with every move a
//! compare-and-swap on `generation`; the cluster↔VM map, which keeps a VM's record
//! after the IaaS lost it; the sealed details (credentials).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::json_query::{execute_for_rows, json_in, json_rows, json_table};
use super::{fetch_all, fetch_by_id, placeholders, run};
use crate::domain::cluster_workflow::Observed;
use crate::domain::conditions::Condition;
use crate::domain::container_cluster::{ClusterState, Lifecycle};
use crate::error::{Error, Result};
use crate::ids::ContainerClusterId;

/// What recovery does for a cluster in ALERT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum RecoveryPolicy {
    None,
    RestartStopped,
    #[default]
    RestartAndReprovision,
}

/// The user's settings beyond the IaaS fields (the `spec` column).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ClusterSpec {
    #[serde(default)]
    pub recovery_policy: RecoveryPolicy,
    #[serde(default)]
    pub auto_recover: bool,
}

/// What the cluster reports (the `status` column).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ClusterStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub endpoint: String,
    /// What state sync found wrong, one entry per VM.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<String>,
    /// The Flotilla cluster it is registered as (RegisterContainerCluster), if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub registered: String,
    /// The last operation's failure: (reason, message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<(String, String)>,
}

/// A stored container cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerClusterRecord {
    pub id: ContainerClusterId,
    pub display_name: String,
    pub description: String,
    pub account_name: String,
    pub domain_id: String,
    pub zone_id: String,
    pub service_offering_id: String,
    /// The number of VMs the cluster should have.
    pub size: i64,
    /// Empty until a network is provisioned (or the one given at create).
    pub network_id: String,
    /// Whether the network was provisioned for the cluster (released with it).
    pub network_cleanup: bool,
    pub infrastructure_ref: String,
    pub lifecycle: Lifecycle,
    pub spec: ClusterSpec,
    pub status: ClusterStatus,
    /// The workflow in flight (JSON, the workflow engine's), None when settled.
    pub operation: Option<String>,
    /// When background work looks at the cluster next (microseconds).
    pub next_run: Option<i64>,
    pub generation: i64,
    pub create_time: i64,
    pub update_time: i64,
}

impl ContainerClusterRecord {
    /// `containerClusters/{id}`.
    pub fn name(&self) -> String {
        format!("containerClusters/{}", self.id)
    }

    /// The id of its infrastructure object (`simInfrastructures/{id}`), if it has one.
    pub fn infra_id(&self) -> Option<&str> {
        self.infrastructure_ref.strip_prefix("simInfrastructures/")
    }
}

/// A VM in the cluster↔VM map, as last observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterVm {
    pub vm_id: String,
    pub name: String,
    /// Its place in the cluster (names are `{cluster}-{ordinal}`); scale-down releases
    /// the highest first.
    pub ordinal: i64,
    /// As last observed (Missing: the IaaS lost it).
    pub observed: Observed,
    pub ip_address: String,
}

/// Filters of a list (all given ones must hold).
#[derive(Debug, Clone, Default)]
pub struct ClusterFilter {
    pub state: Option<ClusterState>,
    pub zone_id: Option<String>,
    pub account_name: Option<String>,
}

/// The columns an update may change, in the order `bind_mutable` binds them.
const MUTABLE_COLUMNS: [&str; 12] = [
    "size",
    "network_id",
    "network_cleanup",
    "state",
    "desired",
    "provisioned",
    "spec",
    "status",
    "operation",
    "next_run",
    "generation",
    "update_time",
];

const COLUMNS: &str = "id, display_name, description, account_name, domain_id, zone_id, \
    service_offering_id, infrastructure_ref, create_time, size, network_id, network_cleanup, \
    state, desired, provisioned, spec, status, operation, next_run, generation, update_time";

/// Binds `c`'s mutable columns (`MUTABLE_COLUMNS`) to `query`, in order.
fn bind_mutable<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    c: &'q ContainerClusterRecord,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    query
        .bind(c.size)
        .bind(&c.network_id)
        .bind(i64::from(c.network_cleanup))
        .bind(c.lifecycle.state.as_str())
        .bind(c.lifecycle.desired.as_str())
        .bind(i64::from(c.lifecycle.provisioned))
        .bind(json(&c.spec))
        .bind(json(&c.status))
        .bind(c.operation.clone())
        .bind(c.next_run)
        .bind(c.generation)
        .bind(c.update_time)
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("book-keeping serializes")
}

/// A stored row, its columns in [`COLUMNS`] order: read from a row, or from one
/// element of a [`json_rows`] array (serde reads a struct from an array in field
/// order).
#[derive(Deserialize)]
struct Stored {
    id: String,
    display_name: String,
    description: String,
    account_name: String,
    domain_id: String,
    zone_id: String,
    service_offering_id: String,
    infrastructure_ref: String,
    create_time: i64,
    size: i64,
    network_id: String,
    network_cleanup: i64,
    state: String,
    desired: String,
    provisioned: i64,
    spec: String,
    status: String,
    operation: Option<String>,
    next_run: Option<i64>,
    generation: i64,
    update_time: i64,
}

fn from_row(row: &AnyRow) -> Result<ContainerClusterRecord> {
    let text = |column: &str| -> Result<String> { row.try_get(column).map_err(Error::from) };
    let int = |column: &str| -> Result<i64> { row.try_get(column).map_err(Error::from) };
    Stored {
        id: text("id")?,
        display_name: text("display_name")?,
        description: text("description")?,
        account_name: text("account_name")?,
        domain_id: text("domain_id")?,
        zone_id: text("zone_id")?,
        service_offering_id: text("service_offering_id")?,
        infrastructure_ref: text("infrastructure_ref")?,
        create_time: int("create_time")?,
        size: int("size")?,
        network_id: text("network_id")?,
        network_cleanup: int("network_cleanup")?,
        state: text("state")?,
        desired: text("desired")?,
        provisioned: int("provisioned")?,
        spec: text("spec")?,
        status: text("status")?,
        operation: row.try_get("operation")?,
        next_run: row.try_get("next_run")?,
        generation: int("generation")?,
        update_time: int("update_time")?,
    }
    .record()
}

impl Stored {
    fn record(self) -> Result<ContainerClusterRecord> {
        let bad = |what: &str, value: &str| Error::internal(format!("stored {what} {value:?}"));
        let s = self;
        Ok(ContainerClusterRecord {
            id: s
                .id
                .parse()
                .map_err(|_| bad("container cluster id", &s.id))?,
            display_name: s.display_name,
            description: s.description,
            account_name: s.account_name,
            domain_id: s.domain_id,
            zone_id: s.zone_id,
            service_offering_id: s.service_offering_id,
            size: s.size,
            network_id: s.network_id,
            network_cleanup: s.network_cleanup != 0,
            infrastructure_ref: s.infrastructure_ref,
            lifecycle: Lifecycle {
                state: s.state.parse().map_err(|_| bad("state", &s.state))?,
                desired: s
                    .desired
                    .parse()
                    .map_err(|_| bad("desired state", &s.desired))?,
                provisioned: s.provisioned != 0,
            },
            spec: serde_json::from_str(&s.spec).map_err(|_| bad("spec", &s.spec))?,
            status: serde_json::from_str(&s.status).map_err(|_| bad("status", &s.status))?,
            operation: s.operation,
            next_run: s.next_run,
            generation: s.generation,
            create_time: s.create_time,
            update_time: s.update_time,
        })
    }
}

/// Inserts a new cluster.
pub async fn cluster_insert(conn: &mut AnyConnection, c: &ContainerClusterRecord) -> Result<()> {
    let sql = format!(
        "INSERT INTO container_clusters ({COLUMNS}) VALUES {}",
        placeholders(conn, 1, 21)
    );
    let query = sqlx::query(&sql)
        .bind(c.id.to_string())
        .bind(&c.display_name)
        .bind(&c.description)
        .bind(&c.account_name)
        .bind(&c.domain_id)
        .bind(&c.zone_id)
        .bind(&c.service_offering_id)
        .bind(&c.infrastructure_ref)
        .bind(c.create_time);
    bind_mutable(query, c).execute(conn).await?;
    Ok(())
}

/// A cluster by id.
pub async fn cluster_get(
    conn: &mut AnyConnection,
    id: ContainerClusterId,
) -> Result<Option<ContainerClusterRecord>> {
    fetch_by_id(
        conn,
        "container_clusters",
        COLUMNS,
        &id.to_string(),
        from_row,
    )
    .await
}

/// The stored state of a cluster (as stored: the event of a change carries it).
pub async fn cluster_state(
    conn: &mut AnyConnection,
    id: ContainerClusterId,
) -> Result<Option<ClusterState>> {
    Ok(
        sqlx::query_scalar("SELECT state FROM container_clusters WHERE id = $1")
            .bind(id.to_string())
            .fetch_optional(conn)
            .await?,
    )
}

/// Writes `c` over the stored cluster if its generation is still `expected`; false if
/// it changed meanwhile (the caller answers ABORTED).
pub async fn cluster_update(
    conn: &mut AnyConnection,
    c: &ContainerClusterRecord,
    expected: i64,
) -> Result<bool> {
    let set: Vec<String> = MUTABLE_COLUMNS
        .iter()
        .enumerate()
        .map(|(i, column)| format!("{column} = ${}", i + 1))
        .collect();
    let sql = format!(
        "UPDATE container_clusters SET {} WHERE id = ${} AND generation = ${}",
        set.join(", "),
        MUTABLE_COLUMNS.len() + 1,
        MUTABLE_COLUMNS.len() + 2,
    );
    let changed = bind_mutable(sqlx::query(&sql), c)
        .bind(c.id.to_string())
        .bind(expected)
        .execute(conn)
        .await?
        .rows_affected();
    Ok(changed == 1)
}

/// A page of clusters in id order after `after`, filtered.
pub async fn cluster_list(
    conn: &mut AnyConnection,
    filter: &ClusterFilter,
    after: Option<ContainerClusterId>,
    limit: usize,
) -> Result<Vec<ContainerClusterRecord>> {
    let mut clauses = Vec::new();
    let mut binds: Vec<String> = Vec::new();
    let mut add = |clause: &str, value: String| {
        binds.push(value);
        clauses.push(format!("{clause} = ${}", binds.len()));
    };
    if let Some(state) = filter.state {
        add("state", state.as_str().to_string());
    }
    if let Some(zone) = &filter.zone_id {
        add("zone_id", zone.clone());
    }
    if let Some(account) = &filter.account_name {
        add("account_name", account.clone());
    }
    if filter.state.is_none() {
        // Destroyed clusters are kept (their record and VM map) but listed only when
        // asked for.
        clauses.push("state <> 'DESTROYED'".to_string());
    }
    if let Some(after) = after {
        binds.push(after.to_string());
        clauses.push(format!("id > ${}", binds.len()));
    }
    let filter = if clauses.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", clauses.join(" AND "))
    };
    let sql =
        format!("SELECT {COLUMNS} FROM container_clusters {filter} ORDER BY id LIMIT {limit}");
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    fetch_all(conn, query, from_row).await
}

/// The settled clusters (RUNNING, STOPPED or ALERT with no workflow in flight): what
/// a state sync pass judges, all of them (10,000 at issue 61's scale). Read through
/// [`json_rows`]: one row instead of one per cluster.
pub async fn cluster_settled(conn: &mut AnyConnection) -> Result<Vec<ContainerClusterRecord>> {
    let select = format!(
        "SELECT {COLUMNS} FROM container_clusters \
         WHERE state IN ('RUNNING', 'STOPPED', 'ALERT') AND operation IS NULL"
    );
    let rows: Vec<Stored> = json_rows(conn, &select, COLUMNS, "id", Vec::new(), |a: &Stored, b| {
        a.id.cmp(&b.id)
    })
    .await?;
    rows.into_iter().map(Stored::record).collect()
}

/// Clusters whose background work is due by `now`, soonest first.
pub async fn cluster_due(
    conn: &mut AnyConnection,
    now: i64,
    limit: usize,
) -> Result<Vec<ContainerClusterRecord>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM container_clusters WHERE next_run <= $1 \
         ORDER BY next_run LIMIT {limit}"
    );
    fetch_all(conn, sqlx::query(&sql).bind(now), from_row).await
}

/// Clusters per statement of [`cluster_vms`] (one JSON bind each).
const MAPS_PER_READ: usize = 1_000;

/// The VM maps of `clusters`, each in ordinal order: a whole state sync pass's. Read
/// through [`json_rows`], one row per statement instead of one per VM (through sqlx's
/// Any rows, 100,000 VMs took 650 ms of a pass over 10,000 clusters).
pub async fn cluster_vms(
    conn: &mut AnyConnection,
    clusters: &[ContainerClusterId],
) -> Result<HashMap<ContainerClusterId, Vec<ClusterVm>>> {
    type Fields = (String, String, String, i64, String, String);
    const FIELDS: &str = "cluster_id, vm_id, name, ordinal, observed, ip_address";
    let select = format!(
        "SELECT {FIELDS} FROM container_cluster_vms WHERE {}",
        json_in(conn, "cluster_id", 1)
    );
    let mut map: HashMap<ContainerClusterId, Vec<ClusterVm>> = HashMap::new();
    for chunk in clusters.chunks(MAPS_PER_READ) {
        let ids: Vec<String> = chunk.iter().map(ToString::to_string).collect();
        let ids = serde_json::to_string(&ids).map_err(Error::internal)?;
        let order = |a: &Fields, b: &Fields| (&a.0, a.3).cmp(&(&b.0, b.3));
        let rows: Vec<Fields> = json_rows(
            conn,
            &select,
            FIELDS,
            "cluster_id, ordinal",
            vec![ids],
            order,
        )
        .await?;
        for (cluster, vm_id, name, ordinal, observed, ip_address) in rows {
            let id = cluster
                .parse()
                .map_err(|_| Error::internal(format!("stored cluster id {cluster:?}")))?;
            map.entry(id).or_default().push(ClusterVm {
                vm_id,
                name,
                ordinal,
                observed: observed.parse().map_err(Error::internal)?,
                ip_address,
            });
        }
    }
    Ok(map)
}

/// Records a VM of `cluster` (or its new observation).
pub async fn cluster_vm_put(
    conn: &mut AnyConnection,
    cluster: ContainerClusterId,
    vm: &ClusterVm,
) -> Result<()> {
    cluster_vms_put(conn, &[(cluster, vm)]).await
}

/// Records the VMs of many clusters (or their new observations) in a few statements:
/// what a state sync pass saw change (1,000 VMs at issue 61's scale, a round trip
/// each when written one at a time).
pub async fn cluster_vms_put(
    conn: &mut AnyConnection,
    vms: &[(ContainerClusterId, &ClusterVm)],
) -> Result<()> {
    let rows: Vec<_> = vms
        .iter()
        .map(|(cluster, vm)| {
            serde_json::json!([
                cluster.to_string(),
                vm.vm_id,
                vm.name,
                vm.ordinal,
                vm.observed.as_str(),
                vm.ip_address
            ])
        })
        .collect();
    // SQLite needs the WHERE before an upsert's ON CONFLICT.
    let sql = format!(
        "INSERT INTO container_cluster_vms (cluster_id, vm_id, name, ordinal, observed, \
         ip_address) SELECT c, v, n, CAST(o AS BIGINT), s, ip FROM {} AS r WHERE true \
         ON CONFLICT (cluster_id, vm_id) \
         DO UPDATE SET observed = excluded.observed, ip_address = excluded.ip_address",
        json_table(conn, 1, &["c", "v", "n", "o", "s", "ip"])
    );
    execute_for_rows(conn, &sql, &rows).await
}

/// Forgets a VM the cluster released.
pub async fn cluster_vm_remove(
    conn: &mut AnyConnection,
    cluster: ContainerClusterId,
    vm_id: &str,
) -> Result<()> {
    let sql = "DELETE FROM container_cluster_vms WHERE cluster_id = $1 AND vm_id = $2";
    let query = sqlx::query(sql).bind(cluster.to_string()).bind(vm_id);
    run(conn, query).await
}

/// Stores the cluster's sealed credentials (replacing any).
pub async fn cluster_details_put(
    conn: &mut AnyConnection,
    cluster: ContainerClusterId,
    sealed: &str,
) -> Result<()> {
    let sql = "INSERT INTO container_cluster_details (cluster_id, credentials) VALUES ($1, $2) \
               ON CONFLICT (cluster_id) DO UPDATE SET credentials = excluded.credentials";
    let query = sqlx::query(sql).bind(cluster.to_string()).bind(sealed);
    run(conn, query).await
}

/// The cluster's sealed credentials.
pub async fn cluster_details_get(
    conn: &mut AnyConnection,
    cluster: ContainerClusterId,
) -> Result<Option<String>> {
    sqlx::query_scalar("SELECT credentials FROM container_cluster_details WHERE cluster_id = $1")
        .bind(cluster.to_string())
        .fetch_optional(conn)
        .await
        .map_err(Error::from)
}
