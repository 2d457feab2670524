//! Instances: renderings of an owner (a deployment intent group, or a cluster's network
//! intents), with the clusters they place resources on.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use sqlx::{AnyConnection, Row};

use super::rsync_resource::{RsyncResource, taken_over};
use super::signals::PODS_GONE;
use super::status::{
    Announce, CountDeltas, Dimension, Scope, rsync_bulk_transition, rsync_let_go_unapplied,
};
use super::{Backend, Tx, fetch_by_id, fetch_optional, now_micros};
use crate::domain::names::{ClusterName, DeploymentKey};
use crate::domain::status::RsyncStatus;
use crate::error::{Conflict, Error, Precondition, Result, precondition};
use crate::ids::InstanceId;

/// A stored instance.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceRow {
    pub id: InstanceId,
    /// The owner's resource name.
    pub owner: String,
    /// The owner's content revision it was rendered from.
    pub revision: i64,
    pub resource_count: i64,
    pub create_time: i64,
    pub terminate_time: Option<i64>,
    /// The id its resources' deployment-id label carries: its own for an instantiate,
    /// the replaced instance's base for an update, rollback or migrate.
    pub base: InstanceId,
    /// What it was rendered from: resource name -> hash of its spec (JSON object).
    pub content_digest: String,
}

/// The columns [`decode_instance`] reads.
const INSTANCE_COLUMNS: &str = "id, owner, revision, resource_count, create_time, terminate_time, deployment_base, content_digest";

fn decode_instance(row: &sqlx::any::AnyRow) -> Result<InstanceRow> {
    let id: String = row.try_get("id")?;
    let base: String = row.try_get("deployment_base")?;
    Ok(InstanceRow {
        id: id.parse().map_err(Error::internal)?,
        owner: row.try_get("owner")?,
        revision: row.try_get("revision")?,
        resource_count: row.try_get("resource_count")?,
        create_time: row.try_get("create_time")?,
        terminate_time: row.try_get("terminate_time")?,
        base: base.parse().map_err(Error::internal)?,
        content_digest: row.try_get("content_digest")?,
    })
}

/// Records a new instance and the clusters it places resources on.
pub async fn instance_insert(
    conn: &mut AnyConnection,
    instance: &InstanceRow,
    clusters: &[ClusterName],
) -> Result<()> {
    sqlx::query(
        "INSERT INTO instances (id, owner, revision, resource_count, create_time, terminate_time, \
         deployment_base, content_digest) VALUES ($1, $2, $3, $4, $5, NULL, $6, $7)",
    )
    .bind(instance.id.to_string())
    .bind(&instance.owner)
    .bind(instance.revision)
    .bind(instance.resource_count)
    .bind(instance.create_time)
    .bind(instance.base.to_string())
    .bind(&instance.content_digest)
    .execute(&mut *conn)
    .await?;
    // rsync stops acting on the owner's older instances.
    sqlx::query(
        "UPDATE instances SET superseded = 1 WHERE owner = $1 AND id <> $2 AND superseded = 0",
    )
    .bind(&instance.owner)
    .bind(instance.id.to_string())
    .execute(&mut *conn)
    .await?;
    for cluster in clusters {
        sqlx::query("INSERT INTO instance_clusters (instance_id, cluster) VALUES ($1, $2)")
            .bind(instance.id.to_string())
            .bind(cluster)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Marks an instance terminated now.
pub async fn instance_terminate(conn: &mut AnyConnection, id: InstanceId) -> Result<()> {
    sqlx::query(
        "UPDATE instances SET terminate_time = $1 WHERE id = $2 AND terminate_time IS NULL",
    )
    .bind(now_micros())
    .bind(id.to_string())
    .execute(conn)
    .await?;
    Ok(())
}

/// Gets an instance.
pub async fn instance_find(
    conn: &mut AnyConnection,
    id: InstanceId,
) -> Result<Option<InstanceRow>> {
    fetch_by_id(
        conn,
        "instances",
        INSTANCE_COLUMNS,
        &id.to_string(),
        decode_instance,
    )
    .await
}

/// The instance that bundle states labelled with `base` describe, the newest of that
/// base (an update renders a new instance under the base of the one it replaces), with
/// those of `among` it places resources on (in byte order): in one read, what a status
/// ingest needs of a reported deployment. Only the clusters asked about are read: an
/// ingest reports a few clusters, and the instance may be placed on thousands.
pub async fn instance_of_base_placed(
    conn: &mut AnyConnection,
    base: InstanceId,
    among: &[&str],
) -> Result<Option<(InstanceRow, Vec<ClusterName>)>> {
    let placed = match Backend::of(conn) {
        Backend::Postgres => "COALESCE(json_agg(cluster), '[]')::text",
        Backend::Sqlite => "json_group_array(cluster)",
    };
    let sql = format!(
        "SELECT {INSTANCE_COLUMNS}, (SELECT {placed} FROM instance_clusters \
         WHERE instance_id = instances.id AND {}) AS placed \
         FROM instances WHERE deployment_base = $1 ORDER BY id DESC LIMIT 1",
        super::json_query::json_in(conn, "cluster", 2)
    );
    let among = serde_json::to_string(among).map_err(Error::internal)?;
    fetch_optional(
        conn,
        sqlx::query(&sql).bind(base.to_string()).bind(among),
        |row| {
            let placed: String = row.try_get("placed")?;
            let mut clusters: Vec<String> =
                serde_json::from_str(&placed).map_err(Error::internal)?;
            clusters.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            Ok((
                decode_instance(row)?,
                clusters.into_iter().map(ClusterName::from).collect(),
            ))
        },
    )
    .await
}

/// After a writer waited for owner locks: each `(base, instance)` read before is still
/// its base's newest instance, else ABORTED (`INSTANCE_REPLACED`; the caller retries
/// and finds the new one). On PostgreSQL a rollout may have committed a newer instance
/// meanwhile, whose state was carried over from what was stored before; on SQLite the
/// one writer read the newest already.
pub async fn require_newest(
    tx: &mut Tx,
    seen: impl IntoIterator<Item = (InstanceId, InstanceId)>,
) -> Result<()> {
    if tx.backend() == Backend::Sqlite {
        return Ok(());
    }
    for (base, instance) in seen {
        let newest: Option<String> = sqlx::query_scalar(
            "SELECT id FROM instances WHERE deployment_base = $1 ORDER BY id DESC LIMIT 1",
        )
        .bind(base.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        let newest = newest
            .map(|id| id.parse::<InstanceId>())
            .transpose()
            .map_err(Error::internal)?;
        if newest != Some(instance) {
            return Err(Error::Aborted {
                reason: Conflict::InstanceReplaced,
                message: format!("deployment base {base} has a newer instance than {instance}"),
            });
        }
    }
    Ok(())
}

/// Deletes the owner's instances beyond its newest `keep` (the retention limit), with
/// their resources and aggregates; returns how many went. Only superseded instances
/// whose deletes are all done go (by their aggregates: nothing `Pending`, `Applied` or
/// `Retrying`), so nothing rsync still has to send is lost; one that waits for an
/// unreachable cluster goes at a later instantiate.
pub async fn instance_expire(tx: &mut Tx, owner: &str, keep: usize) -> Result<usize> {
    let ids: Vec<(String,)> = sqlx::query_as(
        "SELECT id FROM instances WHERE owner = $1 AND superseded = 1 AND NOT EXISTS ( \
           SELECT 1 FROM status_counts s WHERE s.instance_id = instances.id \
           AND s.dimension = 'rsync' AND s.value IN ('Pending', 'Applied', 'Retrying') AND s.count > 0) \
         ORDER BY id DESC",
    )
    .bind(owner)
    .fetch_all(&mut **tx)
    .await?;
    // The current instance counts towards `keep`; ids are UUID v7, newest last.
    let expired: Vec<String> = ids
        .into_iter()
        .skip(keep.saturating_sub(1))
        .map(|(id,)| id)
        .collect();
    for id in &expired {
        delete_instances(tx, "id = $1", id).await?;
    }
    Ok(expired.len())
}

/// Deletes every instance of `owner` with everything kept per instance: rendered and
/// cluster resources, status aggregates, placed clusters.
pub async fn instance_delete_for_owner(tx: &mut Tx, owner: &str) -> Result<()> {
    delete_instances(tx, "owner = $1", owner).await
}

/// Deletes the instances `selection` picks (a condition on `instances` with `$1` bound
/// to `value`) and everything kept per instance, and the cluster resources of the
/// deployment bases no instance is left of; tells the action timer (`PODS_GONE`, after
/// commit) that the pods among them are gone.
async fn delete_instances(tx: &mut Tx, selection: &str, value: &str) -> Result<()> {
    tx.touch(PODS_GONE);
    let conn: &mut AnyConnection = tx;
    sqlx::query(&format!(
        "DELETE FROM cluster_resources WHERE base_id IN \
         (SELECT deployment_base FROM instances WHERE {selection}) \
         AND base_id NOT IN (SELECT deployment_base FROM instances WHERE NOT ({selection}))"
    ))
    .bind(value)
    .execute(&mut *conn)
    .await?;
    for table in [
        "status_counts",
        "status_totals",
        "resource_errors",
        "rsync_resources",
        "instance_clusters",
    ] {
        let sql = format!(
            "DELETE FROM {table} WHERE instance_id IN (SELECT id FROM instances WHERE {selection})"
        );
        sqlx::query(&sql).bind(value).execute(&mut *conn).await?;
    }
    sqlx::query(&format!("DELETE FROM instances WHERE {selection}"))
        .bind(value)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The instantiated deployment intent groups placed on `cluster` (their names).
pub async fn instance_instantiated_users_of_cluster(
    conn: &mut AnyConnection,
    cluster: &ClusterName,
) -> Result<Vec<String>> {
    let sql = "SELECT d.name AS name FROM instance_clusters c \
               JOIN deployment_intent_groups d ON d.current_instance = c.instance_id \
               WHERE c.cluster = $1 AND d.state = 'INSTANTIATED' ORDER BY d.name";
    Ok(sqlx::query_scalar(sql)
        .bind(cluster)
        .fetch_all(conn)
        .await?)
}

/// The clusters an instance places resources on, in order. One row (a JSON array): every
/// status ingest reads them, and a hundred rows through sqlx's Any rows cost more than
/// the rest of the read.
pub async fn instance_clusters(
    conn: &mut AnyConnection,
    id: InstanceId,
) -> Result<Vec<ClusterName>> {
    let rows: Vec<(String,)> = super::json_rows(
        conn,
        "SELECT cluster FROM instance_clusters WHERE instance_id = $1",
        "cluster",
        "cluster",
        vec![id.to_string()],
        |a: &(String,), b: &(String,)| a.0.as_bytes().cmp(b.0.as_bytes()),
    )
    .await?;
    Ok(rows.into_iter().map(|(cluster,)| cluster.into()).collect())
}

/// The instances of `owner`, newest first, before `before` (an instance id).
pub async fn instance_list(
    conn: &mut AnyConnection,
    owner: &str,
    before: Option<&str>,
    limit: i64,
) -> Result<Vec<InstanceRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {INSTANCE_COLUMNS} FROM instances \
         WHERE owner = $1 AND ($2 = '' OR id < $2) ORDER BY id DESC LIMIT $3"
    ))
    .bind(owner)
    .bind(before.unwrap_or_default())
    .bind(limit)
    .fetch_all(conn)
    .await?;
    rows.iter().map(decode_instance).collect()
}

/// Settles who holds the objects `instance` (new, its resources just inserted) renders,
/// one owner per object on a cluster:
///
/// - an object that another owner's instance holds (rsync has applied it or will apply
///   or delete it) refuses the instantiate with FAILED_PRECONDITION `RESOURCE_OWNED`
///   naming that owner: never two owners fighting over one object;
/// - an object an older instance of the same owner holds is taken over: that row ends
///   `Superseded` (no delete, the new instance applies the object in place);
/// - what an older instance holds and the new one does not render is left to rsync,
///   which deletes it (`Pending` ones were never applied and end `Terminated`);
/// - `migrated_from`, the group a migrate moves the deployment from, is treated like
///   the same owner: what it holds and the new instance renders is taken over.
///
/// On PostgreSQL the placed clusters are locked (transaction advisory locks, in name
/// order) first, so two instantiates cannot both find an object free; SQLite
/// serializes writers already.
pub async fn instance_claim(
    tx: &mut Tx,
    instance: &InstanceRow,
    clusters: &[ClusterName],
    migrated_from: Option<&str>,
) -> Result<()> {
    if tx.backend() == Backend::Postgres {
        let mut sorted: Vec<&ClusterName> = clusters.iter().collect();
        sorted.sort();
        for cluster in sorted {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 21))::TEXT AS locked")
                .bind(cluster)
                .fetch_one(&mut **tx)
                .await?;
        }
    }
    if let Some((cluster, kind, namespace, name, holder)) =
        held_elsewhere(tx, instance, clusters, migrated_from).await?
    {
        let object = if namespace.is_empty() {
            format!("{kind} {name}")
        } else {
            format!("{kind} {namespace}/{name}")
        };
        return Err(precondition!(
            Precondition::ResourceOwned,
            holder.clone(),
            "{object} on {cluster} belongs to {holder}; terminate it there (and let its \
                 delete finish) or render another name"
        ));
    }
    let owner = instance.owner.as_str();
    let by = instance.id;
    // The owner's streams switch to `instance` at this transaction's lifecycle event:
    // its older rows move silently. A migrate's source keeps its streams (its instance
    // stays current there, TERMINATED): its rows are announced.
    let takeovers = std::iter::once((owner, Announce::Silently))
        .chain(migrated_from.map(|source| (source, Announce::EachResource)));
    for (owner, announce) in takeovers {
        let scope = Scope::RenderedBy { owner, by };
        let (from, to) = (&RsyncStatus::HOLDING, RsyncStatus::Superseded);
        rsync_bulk_transition(tx, scope, from, to, announce).await?;
    }
    // What the owner's older instances hold that `by` does not render: deleted.
    rsync_let_go_unapplied(tx, Scope::NotRenderedBy { owner, by }).await?;
    Ok(())
}

/// An object on a cluster: (cluster, kind, api_group, namespace, name).
type ObjectKey<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

fn object_of(r: &RsyncResource) -> ObjectKey<'_> {
    (&r.cluster, &r.gvk.kind, &r.gvk.group, &r.namespace, &r.name)
}

/// Rows per statement marking rows `removed` (five binds each).
const REMOVED_CHUNK: usize = 500;

/// Supersedes `previous`, the running instance that `by` (of the same owner) replaces
/// in a rollout or rollback, without writing the rows `by` takes over: `previous` is
/// marked `taken_over`, and its Applied rows show as `Superseded` (see `taken_over`),
/// except those marked `removed` here, which `by` does not render (`rendered`, by
/// object) and rsync deletes. Only the apps not in `whole_apps` (those `by` did not
/// carry over whole) are compared, one read of their Applied keys each. The aggregates
/// move in bulk: `previous`'s Applied count becomes Superseded, less what was removed.
/// (A rollout of 100,000 resources wrote `Superseded` into each of them.) Call after
/// `by`'s rows are written and before [`instance_claim`], which marks the rest of what
/// `by` takes over (rows not Applied).
pub async fn instance_supersede(
    tx: &mut Tx,
    previous: InstanceId,
    whole_apps: &BTreeSet<String>,
    rendered: &[RsyncResource],
) -> Result<()> {
    let apps: Vec<(String,)> = sqlx::query_as(
        "SELECT DISTINCT app FROM status_counts WHERE instance_id = $1 AND dimension = 'rsync' \
         AND value = 'Applied' AND count <> 0 ORDER BY app",
    )
    .bind(previous.to_string())
    .fetch_all(&mut **tx)
    .await?;
    let apps: Vec<String> = apps
        .into_iter()
        .map(|(app,)| app)
        .filter(|app| !whole_apps.contains(app))
        .collect();
    let objects: HashSet<ObjectKey<'_>> = if apps.is_empty() {
        HashSet::new()
    } else {
        rendered.iter().map(object_of).collect()
    };
    let prev = previous.to_string();
    let mut removed: BTreeMap<DeploymentKey, i64> = BTreeMap::new();
    for app in &apps {
        type Key = (String, String, String, String, String);
        let keys: Vec<Key> = sqlx::query_as(
            "SELECT cluster, kind, api_group, namespace, name FROM rsync_resources \
             WHERE instance_id = $1 AND app = $2 AND rsync_status = 'Applied'",
        )
        .bind(&prev)
        .bind(app)
        .fetch_all(&mut **tx)
        .await?;
        let gone: Vec<&Key> = keys
            .iter()
            .filter(|(c, k, g, ns, n)| !objects.contains(&(&**c, &**k, &**g, &**ns, &**n)))
            .collect();
        for chunk in gone.chunks(REMOVED_CHUNK) {
            let mut binds: Vec<&str> = vec![&prev, app];
            let mut rows = Vec::with_capacity(chunk.len());
            for (c, k, g, ns, n) in chunk {
                let at = binds.len();
                binds.extend([c.as_str(), k.as_str(), g.as_str(), ns.as_str(), n.as_str()]);
                rows.push(format!(
                    "(${}, ${}, ${}, ${}, ${})",
                    at + 1,
                    at + 2,
                    at + 3,
                    at + 4,
                    at + 5
                ));
            }
            let sql = format!(
                "UPDATE rsync_resources SET removed = 1 WHERE instance_id = $1 AND app = $2 \
                 AND (cluster, kind, api_group, namespace, name) IN (VALUES {})",
                rows.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for bind in binds {
                query = query.bind(bind.to_string());
            }
            query.execute(&mut **tx).await?;
        }
        for (cluster, ..) in gone {
            let key = DeploymentKey {
                cluster: cluster.as_str().into(),
                app: app.clone(),
            };
            *removed.entry(key).or_default() += 1;
        }
    }
    let (applied, superseded) = (
        RsyncStatus::Applied.as_str(),
        RsyncStatus::Superseded.as_str(),
    );
    for table in ["status_counts", "status_totals"] {
        let (key, conflict) = if table == "status_counts" {
            (
                "instance_id, app, cluster, dimension",
                "instance_id, app, cluster, dimension, value",
            )
        } else {
            ("instance_id, dimension", "instance_id, dimension, value")
        };
        sqlx::query(&format!(
            "INSERT INTO {table} ({key}, value, count) SELECT {key}, $3, count FROM {table} \
             WHERE instance_id = $1 AND dimension = 'rsync' AND value = $2 AND count <> 0 \
             ON CONFLICT ({conflict}) DO UPDATE SET count = {table}.count + excluded.count"
        ))
        .bind(previous.to_string())
        .bind(applied)
        .bind(superseded)
        .execute(&mut **tx)
        .await?;
        sqlx::query(&format!(
            "UPDATE {table} SET count = 0 WHERE instance_id = $1 AND dimension = 'rsync' \
             AND value = $2 AND count <> 0"
        ))
        .bind(previous.to_string())
        .bind(applied)
        .execute(&mut **tx)
        .await?;
    }
    sqlx::query("UPDATE instances SET taken_over = 1 WHERE id = $1")
        .bind(previous.to_string())
        .execute(&mut **tx)
        .await?;
    let mut deltas = CountDeltas::default();
    for (DeploymentKey { cluster, app }, n) in removed {
        deltas.add(previous, &app, &cluster, Dimension::Rsync, superseded, -n);
        deltas.add(previous, &app, &cluster, Dimension::Rsync, applied, n);
    }
    deltas.apply(tx).await
}

/// The first object `instance` renders that an instance of another owner (not
/// `migrated_from`) holds: (cluster, kind, namespace, name, that owner). Skipped, with
/// one indexed read, when no other owner has ever placed anything on these clusters.
async fn held_elsewhere(
    tx: &mut Tx,
    instance: &InstanceRow,
    clusters: &[ClusterName],
    migrated_from: Option<&str>,
) -> Result<Option<(String, String, String, String, String)>> {
    let migrated_from = migrated_from.unwrap_or(&instance.owner);
    let mut others = false;
    for cluster in clusters {
        let row = sqlx::query(
            "SELECT 1 AS one FROM instance_clusters c JOIN instances i ON i.id = c.instance_id \
             WHERE c.cluster = $1 AND i.owner <> $2 AND i.owner <> $3 LIMIT 1",
        )
        .bind(cluster)
        .bind(&instance.owner)
        .bind(migrated_from)
        .fetch_optional(&mut **tx)
        .await?;
        if row.is_some() {
            others = true;
            break;
        }
    }
    if !others {
        return Ok(None);
    }
    let row = sqlx::query(&format!(
        "SELECT o.cluster AS cluster, o.kind AS kind, o.namespace AS namespace, o.name AS name, \
         i.owner AS owner FROM rsync_resources n \
         JOIN rsync_resources o ON o.cluster = n.cluster AND o.kind = n.kind \
           AND o.api_group = n.api_group AND o.namespace = n.namespace AND o.name = n.name \
         JOIN instances i ON i.id = o.instance_id \
         WHERE n.instance_id = $1 AND o.instance_id <> $1 AND i.owner <> $2 AND i.owner <> $6 \
           AND o.rsync_status IN ($3, $4, $5) AND NOT {} \
         ORDER BY o.cluster, o.kind, o.namespace, o.name LIMIT 1",
        taken_over("o.")
    ))
    .bind(instance.id.to_string())
    .bind(&instance.owner)
    .bind(RsyncStatus::Pending.as_str())
    .bind(RsyncStatus::Applied.as_str())
    .bind(RsyncStatus::Retrying.as_str())
    .bind(migrated_from)
    .fetch_optional(&mut **tx)
    .await?;
    row.map(|r| {
        Ok((
            r.try_get("cluster")?,
            r.try_get("kind")?,
            r.try_get("namespace")?,
            r.try_get("name")?,
            r.try_get("owner")?,
        ))
    })
    .transpose()
}

/// Settles applies that raced a re-instantiate: rsync may have sent an apply of an
/// instance just before a newer instance of its owner took over (the row was then
/// `Terminated` or `Pending`, and the late result made it `Applied`, and `removed` in
/// an instance a rollout replaced: see `rsync_set_statuses`). Of `instances`, those now
/// superseded give such rows to their owner's current instance the way
/// [`instance_claim`] does (`Superseded`); the rest stay for rsync to delete.
pub async fn instance_settle_late_applies(tx: &mut Tx, instances: &[InstanceId]) -> Result<()> {
    for instance in instances {
        let row = sqlx::query(
            "SELECT o.owner AS owner, n.id AS current FROM instances o \
             JOIN instances n ON n.owner = o.owner AND n.superseded = 0 \
             WHERE o.id = $1 AND o.superseded = 1",
        )
        .bind(instance.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        let Some(row) = row else { continue };
        let owner: String = row.try_get("owner")?;
        let current: String = row.try_get("current")?;
        let by: InstanceId = current.parse().map_err(Error::internal)?;
        rsync_bulk_transition(
            tx,
            Scope::RenderedBy { owner: &owner, by },
            &RsyncStatus::HOLDING,
            RsyncStatus::Superseded,
            Announce::EachResource,
        )
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn row(id: InstanceId, base: InstanceId) -> InstanceRow {
        InstanceRow {
            id,
            owner: "projects/p/compositeApps/a/versions/v1/deploymentIntentGroups/g".into(),
            revision: 1,
            resource_count: 0,
            create_time: 0,
            terminate_time: None,
            base,
            content_digest: String::new(),
        }
    }

    /// A base's newest instance comes with those of the clusters asked about it is
    /// placed on, in byte order; a base without instances is None.
    async fn the_newest_instance_of_a_base_comes_with_its_clusters(url: &str) {
        let store = Store::connect(url).await.unwrap();
        let base = InstanceId::new();
        let newer = InstanceId::new();
        let mut tx = store.begin().await.unwrap();
        instance_insert(&mut tx, &row(base, base), &["c2".into()])
            .await
            .unwrap();
        let placed: Vec<ClusterName> = vec!["c1".into(), "c10".into(), "C3".into()];
        instance_insert(&mut tx, &row(newer, base), &placed)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let mut conn = store.read().await.unwrap();
        let all = ["c10", "c1", "C3", "c2", "c9"];
        let (found, clusters) = instance_of_base_placed(&mut conn, base, &all)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.id, newer);
        assert_eq!(clusters, ["C3", "c1", "c10"].map(ClusterName::from));
        // Only the clusters asked about: c2 is the older instance's, c9 nobody's.
        let (_, clusters) = instance_of_base_placed(&mut conn, base, &["c2", "c10", "c9"])
            .await
            .unwrap()
            .unwrap();
        assert_eq!(clusters, [ClusterName::from("c10")]);
        let (found, clusters) = instance_of_base_placed(&mut conn, base, &[])
            .await
            .unwrap()
            .unwrap();
        assert_eq!((found.id, clusters), (newer, vec![]));
        let other = InstanceId::new();
        assert!(
            instance_of_base_placed(&mut conn, other, &all)
                .await
                .unwrap()
                .is_none()
        );
        drop(conn);
        store.close().await;
    }

    on_both_backends!(
        the_newest_instance_of_a_base_comes_with_its_clusters_sqlite,
        the_newest_instance_of_a_base_comes_with_its_clusters_postgres,
        the_newest_instance_of_a_base_comes_with_its_clusters
    );
}
