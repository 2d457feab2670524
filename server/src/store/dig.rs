//! Deployment intent groups: the lifecycle columns of `deployment_intent_groups`.
//! Every state change is a compare-and-swap on the state that was read.

use sqlx::{AnyConnection, Row};

use super::object::{ExtraValue, Object, object_insert};
use super::{RowLock, now_micros};
use crate::domain::conditions::Condition;
use crate::domain::lifecycle::DigState;
use crate::domain::names::ResourceName;
use crate::domain::resources::DigSpec;
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// The lifecycle columns of a deployment intent group.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DigStatus {
    pub state: DigState,
    /// Content revision.
    pub revision: i64,
    /// Hash pinned by the last approval; empty if never approved.
    pub approved_hash: String,
    /// The last instance.
    pub current_instance: Option<InstanceId>,
    /// Conditions: ResourcesApplied, ResourcesReady, ClustersReachable, Ready.
    pub conditions: Vec<Condition>,
}

/// Inserts a new group in state CREATED, revision 1.
pub async fn dig_insert(conn: &mut AnyConnection, object: &Object<DigSpec>) -> Result<()> {
    object_insert(
        conn,
        object,
        &[
            ("state", ExtraValue::Text(DigState::Created.as_str().into())),
            ("revision", ExtraValue::Int(1)),
            ("approved_hash", ExtraValue::Text(String::new())),
            (
                "composite_profile",
                ExtraValue::Text(object.spec.composite_profile.clone()),
            ),
        ],
    )
    .await
}

/// An instance column: NULL before the first instance.
pub(crate) fn parse_instance(column: Option<String>) -> Result<Option<InstanceId>> {
    column
        .map(|id| id.parse().map_err(Error::internal))
        .transpose()
}

/// The lifecycle columns of a `deployment_intent_groups` row.
pub(super) fn decode_status(row: &sqlx::any::AnyRow) -> Result<DigStatus> {
    let state: String = row.try_get("state")?;
    let current: Option<String> = row.try_get("current_instance")?;
    let conditions: String = row.try_get("conditions")?;
    Ok(DigStatus {
        conditions: serde_json::from_str(&conditions).map_err(Error::internal)?,
        state: state.parse().map_err(Error::internal)?,
        revision: row.try_get("revision")?,
        approved_hash: row.try_get("approved_hash")?,
        current_instance: parse_instance(current)?,
    })
}

/// Reads the lifecycle columns; `lock` appends `FOR UPDATE` on PostgreSQL.
pub async fn dig_status(
    conn: &mut AnyConnection,
    name: &ResourceName,
    lock: RowLock,
) -> Result<Option<DigStatus>> {
    let lock = lock.on(conn);
    let sql = format!(
        "SELECT state, revision, approved_hash, current_instance, conditions \
         FROM deployment_intent_groups WHERE name = $1{lock}"
    );
    let row = sqlx::query(&sql)
        .bind(name.to_string())
        .fetch_optional(conn)
        .await?;
    row.map(|r| decode_status(&r)).transpose()
}

/// What a state change writes besides the state.
#[derive(Debug, Default)]
pub struct DigChange {
    /// Bump the content revision (the content changed).
    pub bump_revision: bool,
    /// Pin this content hash (approve).
    pub approved_hash: Option<String>,
    /// Make this the current instance (instantiate).
    pub current_instance: Option<InstanceId>,
    /// The new composite profile reference (spec update).
    pub composite_profile: Option<String>,
    /// The content revision the verb read: the swap also fails if it moved.
    pub revision_read: Option<i64>,
}

/// Moves a group from `expected` to `next` if it is still in `expected`; ABORTED if a
/// concurrent verb changed it first. Bumps the generation (etag). Returns the revision.
pub async fn dig_update_state(
    conn: &mut AnyConnection,
    name: &ResourceName,
    expected: DigState,
    next: DigState,
    change: DigChange,
) -> Result<i64> {
    let sql = "UPDATE deployment_intent_groups SET state = $1, \
               revision = revision + $2, \
               approved_hash = COALESCE($3, approved_hash), \
               current_instance = COALESCE($4, current_instance), \
               composite_profile = COALESCE($5, composite_profile), \
               generation = generation + 1, update_time = $6 \
               WHERE name = $7 AND state = $8 AND ($9 < 0 OR revision = $9) RETURNING revision";
    sqlx::query_scalar::<_, i64>(sql)
        .bind(next.as_str())
        .bind(i64::from(change.bump_revision))
        .bind(change.approved_hash)
        .bind(change.current_instance.map(|id| id.to_string()))
        .bind(change.composite_profile)
        .bind(now_micros())
        .bind(name.to_string())
        .bind(expected.as_str())
        .bind(change.revision_read.unwrap_or(-1))
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| {
            Error::concurrent_transition(format_args!(
                "deployment intent group {name} left state {expected} (or its content changed)"
            ))
        })
}

/// The groups of a composite app version, optionally only those using one composite
/// profile, with their states (locked for update on PostgreSQL).
pub async fn dig_list_users(
    conn: &mut AnyConnection,
    version: &str,
    composite_profile: Option<&str>,
    lock: RowLock,
) -> Result<Vec<(String, DigState)>> {
    let lock = lock.on(conn);
    let sql = format!(
        "SELECT name, state FROM deployment_intent_groups \
         WHERE parent = $1 AND ($2 = '' OR composite_profile = $2) ORDER BY name{lock}"
    );
    let rows = sqlx::query(&sql)
        .bind(version)
        .bind(composite_profile.unwrap_or_default())
        .fetch_all(conn)
        .await?;
    rows.iter()
        .map(|row| {
            let name: String = row.try_get("name")?;
            let state: String = row.try_get("state")?;
            Ok((name, state.parse().map_err(Error::internal)?))
        })
        .collect()
}

/// The first placement intent (by name) that places apps on `provider` (an id), if
/// any. Intents keep their spec as JSON: a LIKE narrows the rows, the parsed spec
/// decides (ids are RFC 1123 labels, so they hold no LIKE wildcards).
pub async fn placement_intent_using_provider(
    conn: &mut AnyConnection,
    provider: &str,
) -> Result<Option<String>> {
    let rows =
        sqlx::query("SELECT name, body FROM placement_intents WHERE body LIKE $1 ORDER BY name")
            .bind(format!("%\"{provider}\"%"))
            .fetch_all(conn)
            .await?;
    for row in rows {
        let body: String = row.try_get("body")?;
        let spec: crate::domain::resources::PlacementIntentSpec =
            serde_json::from_str(&body).map_err(Error::internal)?;
        if spec.cluster_provider == provider {
            return Ok(Some(row.try_get("name")?));
        }
    }
    Ok(None)
}
