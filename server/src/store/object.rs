//! The columns every resource table shares, and the repository functions over them:
//! insert, get, list (keyset pagination by name), compare-and-swap update and delete.
//! Kind-specific columns (lifecycle state) live in `dig.rs` and `network.rs`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use sqlx::{AnyConnection, Row};

use super::{RowLock, db_error, is_unique_violation, now_micros, run, wrote};
use crate::domain::names::{KINDS, Kind, ResourceName};
use crate::error::{Conflict, Error, Found, Result};
use crate::ids::ResourceUid;

/// A stored resource: the shared columns and the kind's spec.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Object<S> {
    #[serde(with = "name_serde")]
    pub name: ResourceName,
    pub uid: ResourceUid,
    pub spec: S,
    /// Bumped by every write; the etag.
    pub generation: i64,
    pub create_time: i64,
    pub update_time: i64,
}

const COLUMNS: &str = "name, uid, body, generation, create_time, update_time";

/// The `name` column of `row`, a resource name of `kind`.
pub(super) fn stored_name(kind: &'static Kind, row: &sqlx::any::AnyRow) -> Result<ResourceName> {
    let name: String = row.try_get("name")?;
    ResourceName::parse(kind, "name", &name)
        .map_err(|v| Error::internal(format!("stored name {name:?}: {}", v.description)))
}

fn decode<S: DeserializeOwned>(kind: &'static Kind, row: &sqlx::any::AnyRow) -> Result<Object<S>> {
    let name: String = row.try_get("name")?;
    let uid: String = row.try_get("uid")?;
    let body: String = row.try_get("body")?;
    Ok(Object {
        name: stored_name(kind, row)?,
        uid: uid
            .parse()
            .map_err(|e| Error::internal(format!("stored uid of {name}: {e}")))?,
        spec: serde_json::from_str(&body)
            .map_err(|e| Error::internal(format!("stored body of {name}: {e}")))?,
        generation: row.try_get("generation")?,
        create_time: row.try_get("create_time")?,
        update_time: row.try_get("update_time")?,
    })
}

fn encode<S: Serialize>(spec: &S) -> Result<String> {
    serde_json::to_string(spec).map_err(Error::internal)
}

/// Inserts a new resource (generation 1). ALREADY_EXISTS if the name is taken.
/// `extra` adds kind-specific columns with their values (all text or integers).
pub async fn object_insert<S: Serialize>(
    conn: &mut AnyConnection,
    object: &Object<S>,
    extra: &[(&str, ExtraValue)],
) -> Result<()> {
    let kind = object.name.kind();
    let mut columns = String::from("name, parent, uid, body, generation, create_time, update_time");
    let mut placeholders = String::from("$1, $2, $3, $4, $5, $6, $7");
    for (index, (column, _)) in extra.iter().enumerate() {
        columns.push_str(", ");
        columns.push_str(column);
        placeholders.push_str(&format!(", ${}", index + 8));
    }
    let sql = format!(
        "INSERT INTO {} ({columns}) VALUES ({placeholders})",
        kind.table
    );
    let mut query = sqlx::query(&sql)
        .bind(object.name.to_string())
        .bind(object.name.parent())
        .bind(object.uid.to_string())
        .bind(encode(&object.spec)?)
        .bind(object.generation)
        .bind(object.create_time)
        .bind(object.update_time);
    for (_, value) in extra {
        query = match value {
            ExtraValue::Text(text) => query.bind(text.clone()),
            ExtraValue::Int(number) => query.bind(*number),
        };
    }
    query.execute(conn).await.map_err(|e| {
        if is_unique_violation(&e) {
            Error::AlreadyExists {
                kind: kind.type_name,
                name: object.name.to_string(),
            }
        } else {
            db_error(e)
        }
    })?;
    Ok(())
}

/// A value of a kind-specific column.
#[derive(Debug, Clone)]
pub enum ExtraValue {
    Text(String),
    Int(i64),
}

/// A new object of generation 1, created now.
pub fn new_object<S>(name: ResourceName, spec: S) -> Object<S> {
    let now = now_micros();
    Object {
        name,
        uid: ResourceUid::new(),
        spec,
        generation: 1,
        create_time: now,
        update_time: now,
    }
}

/// Gets a resource, or None.
pub async fn object_find<S: DeserializeOwned>(
    conn: &mut AnyConnection,
    name: &ResourceName,
) -> Result<Option<Object<S>>> {
    object_find_locked(conn, name, RowLock::None).await
}

/// Gets a resource, or None, taking `lock` on its row.
pub async fn object_find_locked<S: DeserializeOwned>(
    conn: &mut AnyConnection,
    name: &ResourceName,
    lock: RowLock,
) -> Result<Option<Object<S>>> {
    let lock = lock.on(conn);
    let kind = name.kind();
    let sql = format!("SELECT {COLUMNS} FROM {} WHERE name = $1{lock}", kind.table);
    let row = sqlx::query(&sql)
        .bind(name.to_string())
        .fetch_optional(conn)
        .await?;
    row.map(|row| decode(kind, &row)).transpose()
}

/// Gets a resource; NOT_FOUND if it does not exist.
pub async fn object_get<S: DeserializeOwned>(
    conn: &mut AnyConnection,
    name: &ResourceName,
) -> Result<Object<S>> {
    object_get_locked(conn, name, RowLock::None).await
}

/// Gets a resource taking `lock` on its row; NOT_FOUND if it does not exist.
pub async fn object_get_locked<S: DeserializeOwned>(
    conn: &mut AnyConnection,
    name: &ResourceName,
    lock: RowLock,
) -> Result<Object<S>> {
    object_find_locked(conn, name, lock).await?.found(name)
}

/// Checks that a resource exists; NOT_FOUND naming `field` otherwise. `lock` (or
/// `RowLock::None`) keeps it existing until the transaction ends: a
/// writer that creates a child or a reference holds the parent's or the referenced
/// row with a key-share lock, which a racing delete (that locks the row for update
/// before it looks for children and users) waits for, and vice versa.
pub async fn object_require(
    conn: &mut AnyConnection,
    name: &ResourceName,
    field: &str,
    lock: RowLock,
) -> Result<()> {
    let lock = lock.on(conn);
    let sql = format!(
        "SELECT 1 AS one FROM {} WHERE name = $1{lock}",
        name.kind().table
    );
    let found = sqlx::query(&sql)
        .bind(name.to_string())
        .fetch_optional(conn)
        .await?;
    match found {
        Some(_) => Ok(()),
        None => Err(Error::NotFound {
            kind: name.kind().type_name,
            name: name.to_string(),
            field: Some(field.to_string()),
        }),
    }
}

/// Lists the resources of `kind` under `parent` with names after `after`, in name
/// order, at most `limit`.
pub async fn object_list<S: DeserializeOwned>(
    conn: &mut AnyConnection,
    kind: &'static Kind,
    parent: &str,
    after: &str,
    limit: i64,
) -> Result<Vec<Object<S>>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM {} WHERE parent = $1 AND name > $2 ORDER BY name LIMIT $3",
        kind.table
    );
    let rows = sqlx::query(&sql)
        .bind(parent)
        .bind(after)
        .bind(limit)
        .fetch_all(conn)
        .await?;
    rows.iter().map(|row| decode(kind, row)).collect()
}

/// Every resource of `kind` whose name starts with `prefix` + "/", in name order
/// (e.g. all placement intents of a composite app version).
pub async fn object_list_under<S: DeserializeOwned>(
    conn: &mut AnyConnection,
    kind: &'static Kind,
    prefix: &str,
) -> Result<Vec<Object<S>>> {
    // Names are ASCII and '0' follows '/', so [prefix/, prefix0) holds exactly the
    // names under prefix; a range scan uses the primary key index.
    let sql = format!(
        "SELECT {COLUMNS} FROM {} WHERE name > $1 AND name < $2 ORDER BY name",
        kind.table
    );
    let rows = sqlx::query(&sql)
        .bind(format!("{prefix}/"))
        .bind(format!("{prefix}0"))
        .fetch_all(conn)
        .await?;
    rows.iter().map(|row| decode(kind, row)).collect()
}

/// Replaces the spec of a resource if its generation is still `expected`. Returns the
/// new generation; ABORTED if another write came first, NOT_FOUND if it is gone.
pub async fn object_update<S: Serialize>(
    conn: &mut AnyConnection,
    name: &ResourceName,
    spec: &S,
    expected: i64,
) -> Result<(i64, i64)> {
    let now = now_micros();
    let sql = format!(
        "UPDATE {} SET body = $1, generation = generation + 1, update_time = $2 \
         WHERE name = $3 AND generation = $4",
        name.kind().table
    );
    let result = sqlx::query(&sql)
        .bind(encode(spec)?)
        .bind(now)
        .bind(name.to_string())
        .bind(expected)
        .execute(&mut *conn)
        .await?;
    if result.rows_affected() == 1 {
        return Ok((expected + 1, now));
    }
    Err(stale_or_missing(conn, name).await)
}

/// Bumps the generation of a resource whose kind-specific columns changed.
pub async fn object_touch(conn: &mut AnyConnection, name: &ResourceName) -> Result<()> {
    let sql = format!(
        "UPDATE {} SET generation = generation + 1, update_time = $1 WHERE name = $2",
        name.kind().table
    );
    let query = sqlx::query(&sql).bind(now_micros()).bind(name.to_string());
    run(conn, query).await
}

/// Deletes a resource if its generation is still `expected`.
pub async fn object_delete(
    conn: &mut AnyConnection,
    name: &ResourceName,
    expected: i64,
) -> Result<()> {
    let sql = format!(
        "DELETE FROM {} WHERE name = $1 AND generation = $2",
        name.kind().table
    );
    let result = sqlx::query(&sql)
        .bind(name.to_string())
        .bind(expected)
        .execute(&mut *conn)
        .await?;
    if result.rows_affected() == 1 {
        return Ok(());
    }
    Err(stale_or_missing(conn, name).await)
}

/// After a compare-and-swap touched no row: NOT_FOUND if the resource is gone, else
/// ABORTED because a concurrent write changed it.
async fn stale_or_missing(conn: &mut AnyConnection, name: &ResourceName) -> Error {
    match object_require(conn, name, "name", RowLock::None).await {
        Ok(()) => Error::Aborted {
            reason: Conflict::ConcurrentModification,
            message: format!(
                "{} {name} was changed concurrently; read it again and retry",
                name.kind().human
            ),
        },
        Err(error) => error,
    }
}

/// The first child of `kind` under `parent`, if any.
pub async fn object_first_child(
    conn: &mut AnyConnection,
    kind: &'static Kind,
    parent: &ResourceName,
) -> Result<Option<String>> {
    let sql = format!(
        "SELECT name FROM {} WHERE parent = $1 ORDER BY name LIMIT 1",
        kind.table
    );
    sqlx::query_scalar(&sql)
        .bind(parent.to_string())
        .fetch_optional(conn)
        .await
        .map_err(Error::from)
}

mod name_serde {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::domain::names::ResourceName;

    pub fn serialize<S: Serializer>(name: &ResourceName, s: S) -> Result<S::Ok, S::Error> {
        (name.kind().type_name, name.to_string()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ResourceName, D::Error> {
        let (type_name, name): (String, String) = Deserialize::deserialize(d)?;
        let kind = super::KINDS
            .iter()
            .find(|k| k.type_name == type_name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown kind {type_name}")))?;
        ResourceName::parse(kind, "name", &name)
            .map_err(|v| serde::de::Error::custom(v.description))
    }
}

/// Stores the conditions of a resource whose table has a `conditions` column (an intent
/// group, a cluster); whether they differed from the stored ones. Conditions that are
/// already stored are not written again: nearly every status report leaves its group's
/// conditions as they were, and rewriting the row would cost a new row version and its
/// log for nothing.
pub async fn object_set_conditions(
    conn: &mut AnyConnection,
    name: &ResourceName,
    conditions: &[crate::domain::conditions::Condition],
) -> Result<bool> {
    let sql = format!(
        "UPDATE {} SET conditions = $1 WHERE name = $2 AND conditions <> $1",
        name.kind().table
    );
    let query = sqlx::query(&sql)
        .bind(serde_json::to_string(conditions).map_err(Error::internal)?)
        .bind(name.to_string());
    wrote(conn, query).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conditions::Condition;
    use crate::domain::names::CLUSTER;
    use crate::store::Store;
    use crate::store::action::tests::insert_cluster;

    /// Conditions are written when they differ from the stored ones, and only then;
    /// a resource that does not exist is not written either.
    async fn unchanged_conditions_are_not_written(url: &str) {
        let store = Store::connect(url).await.unwrap();
        insert_cluster(&store, "clusterProviders/p/clusters/c1", &["n0"]).await;
        let name = ResourceName::parse(&CLUSTER, "name", "clusterProviders/p/clusters/c1");
        let name = name.unwrap_or_else(|_| panic!("a cluster name"));
        let ready = [Condition::true_("Ready")];
        let mut tx = store.begin().await.unwrap();
        assert!(object_set_conditions(&mut tx, &name, &ready).await.unwrap());
        assert!(!object_set_conditions(&mut tx, &name, &ready).await.unwrap());
        let other = [
            Condition::true_("Ready"),
            Condition::true_("AgentConnected"),
        ];
        assert!(object_set_conditions(&mut tx, &name, &other).await.unwrap());
        tx.commit().await.unwrap();
        let stored: String =
            sqlx::query_scalar("SELECT conditions FROM clusters WHERE name LIKE '%/c1'")
                .fetch_one(store.pool())
                .await
                .unwrap();
        assert_eq!(stored, serde_json::to_string(&other).unwrap());
        let mut tx = store.begin().await.unwrap();
        assert!(!object_set_conditions(&mut tx, &name, &other).await.unwrap());
        let gone = ResourceName::parse(&CLUSTER, "name", "clusterProviders/p/clusters/nope");
        let gone = gone.unwrap_or_else(|_| panic!("a cluster name"));
        assert!(!object_set_conditions(&mut tx, &gone, &other).await.unwrap());
        tx.commit().await.unwrap();
        store.close().await;
    }

    on_both_backends!(
        unchanged_conditions_are_not_written_sqlite,
        unchanged_conditions_are_not_written_postgres,
        unchanged_conditions_are_not_written
    );
}
