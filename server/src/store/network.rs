//! Cluster network intents: the lifecycle columns of `clusters`.

use sqlx::{AnyConnection, Row};

use super::object::{ExtraValue, Object, object_insert};
use super::{RowLock, now_micros};
use crate::domain::conditions::Condition;
use crate::domain::lifecycle::NetworkState;
use crate::domain::names::ResourceName;
use crate::domain::readiness::Connectivity;
use crate::domain::resources::ClusterSpec;
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// The network intents columns of a cluster.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NetworkStatus {
    pub state: NetworkState,
    /// Content revision of the cluster's network intents.
    pub revision: i64,
    /// The last network intents instance.
    pub current_instance: Option<InstanceId>,
    /// Unknown | Available | Retrying.
    pub connectivity: Connectivity,
    /// Conditions: AgentConnected, NetworkIntentsApplied, Ready.
    pub conditions: Vec<Condition>,
    /// What the cluster's last agent said of it.
    #[serde(default)]
    pub agent: AgentFacts,
}

/// What a cluster's last agent said of it in its hello.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgentFacts {
    /// The node names.
    pub nodes: Vec<String>,
    /// `sim` or `kube` ("" before any agent).
    pub backend: String,
    /// The cluster's version (a Kubernetes API server's gitVersion; "" for sim).
    pub version: String,
}

/// Inserts a new cluster with network intents CREATED.
pub async fn cluster_insert(conn: &mut AnyConnection, object: &Object<ClusterSpec>) -> Result<()> {
    object_insert(
        conn,
        object,
        &[
            (
                "network_state",
                ExtraValue::Text(NetworkState::Created.as_str().into()),
            ),
            ("network_revision", ExtraValue::Int(1)),
        ],
    )
    .await
}

/// Reads the network columns; `lock` appends `FOR UPDATE` on PostgreSQL.
pub async fn cluster_network_status(
    conn: &mut AnyConnection,
    name: &ResourceName,
    lock: RowLock,
) -> Result<Option<NetworkStatus>> {
    let lock = lock.on(conn);
    let sql = format!(
        "SELECT network_state, network_revision, current_network_instance, connectivity, conditions, \
         nodes, agent_backend, cluster_version FROM clusters WHERE name = $1{lock}"
    );
    let row = sqlx::query(&sql)
        .bind(name.to_string())
        .fetch_optional(conn)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let state: String = row.try_get("network_state")?;
    let current: Option<String> = row.try_get("current_network_instance")?;
    let conditions: String = row.try_get("conditions")?;
    let nodes: String = row.try_get("nodes")?;
    Ok(Some(NetworkStatus {
        connectivity: row.try_get("connectivity")?,
        agent: AgentFacts {
            nodes: serde_json::from_str(&nodes).map_err(Error::internal)?,
            backend: row.try_get("agent_backend")?,
            version: row.try_get("cluster_version")?,
        },
        conditions: serde_json::from_str(&conditions).map_err(Error::internal)?,
        state: state.parse().map_err(Error::internal)?,
        revision: row.try_get("network_revision")?,
        current_instance: super::dig::parse_instance(current)?,
    }))
}

/// Moves the cluster's network intents from `expected` to `next` (compare-and-swap),
/// optionally recording a new current instance and bumping the revision. Returns the
/// revision.
pub async fn cluster_update_network_state(
    conn: &mut AnyConnection,
    name: &ResourceName,
    expected: NetworkState,
    next: NetworkState,
    bump_revision: bool,
    current_instance: Option<InstanceId>,
) -> Result<i64> {
    let sql = "UPDATE clusters SET network_state = $1, \
               network_revision = network_revision + $2, \
               current_network_instance = COALESCE($3, current_network_instance), \
               generation = generation + 1, update_time = $4 \
               WHERE name = $5 AND network_state = $6 RETURNING network_revision";
    sqlx::query_scalar::<_, i64>(sql)
        .bind(next.as_str())
        .bind(i64::from(bump_revision))
        .bind(current_instance.map(|id| id.to_string()))
        .bind(now_micros())
        .bind(name.to_string())
        .bind(expected.as_str())
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| {
            Error::concurrent_transition(format_args!(
                "network intents of cluster {name} left state {expected}"
            ))
        })
}
