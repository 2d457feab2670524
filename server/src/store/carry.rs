//! Carrying over, in bulk, what an instance replacing another (rollout, rollback,
//! migrate) takes from it unchanged: its rows copied inside the database, instead of a
//! status move, an ingest and an event per resource. (The clusters' reports of them are
//! the deployment base's, shared: nothing to copy.)

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use sqlx::Row;

use super::Tx;
use super::rsync_resource::{
    ResourceFilter, ResourceKey, RsyncResource, rsync_resources_each_page_of,
};
use crate::domain::names::DeploymentKey;
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// A document of an app, the same on every cluster the app is placed on:
/// (app, kind, api_group, namespace, name).
type Doc<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

fn doc_of(r: &RsyncResource) -> Doc<'_> {
    (&r.app, &r.gvk.kind, &r.gvk.group, &r.namespace, &r.name)
}

/// Carries over into `instance` (which replaces `previous`; its rows not yet inserted)
/// what `previous` has Applied with the very manifest `resources` renders now: those
/// rows start Applied with the cluster status and readiness `previous` last saw
/// (migration 0018's start statuses), counted. Returns what it carried ([`Carried`]).
///
/// Rendering is per app and the same on every cluster, so the comparison is per
/// document: one grouped read tells, for each document of `previous`, whether all its
/// clusters hold one manifest, and which. The resources of an unchanged document on a
/// cluster where `previous` has every resource of the app Applied (its counts say so)
/// are copied inside the database, one statement per app; a copy that finds other rows
/// than the counts promise fails the transaction. What is left (an unchanged document
/// on a cluster with resources not Applied) is compared row by row, reading only those
/// apps. (A rollout of 100,000 resources read all of `previous` with its manifests,
/// 1.7 s on SQLite, and sent every carried row back to the database.)
pub async fn carry_applied(
    tx: &mut Tx,
    previous: InstanceId,
    instance: InstanceId,
    resources: &mut [RsyncResource],
) -> Result<Carried> {
    let started = std::time::Instant::now();
    let old = document_manifests(tx, previous).await?;
    let (applied, app_totals) = applied_pairs(tx, previous).await?;
    let read = started.elapsed();
    // The manifest each document of `resources` renders, if the same on every cluster.
    let mut rendered: HashMap<Doc<'_>, Option<&str>> = HashMap::new();
    for r in resources.iter() {
        rendered
            .entry(doc_of(r))
            .and_modify(|m| {
                if *m != Some(&*r.manifest) {
                    *m = None;
                }
            })
            .or_insert(Some(&*r.manifest));
    }
    let old: HashMap<Doc<'_>, &str> = old
        .iter()
        .filter_map(|(d, m)| Some(((&*d.0, &*d.1, &*d.2, &*d.3, &*d.4), m.as_deref()?)))
        .collect();
    let unchanged: HashSet<Doc<'_>> = rendered
        .iter()
        .filter(|(doc, m)| m.is_some() && old.get(*doc).copied() == **m)
        .map(|(doc, _)| *doc)
        .collect();
    let applied: HashSet<(&str, &str)> = applied
        .iter()
        .map(|key| (key.app.as_str(), key.cluster.as_str()))
        .collect();
    let copied: Vec<bool> = resources
        .iter()
        .map(|r| unchanged.contains(&doc_of(r)) && applied.contains(&(r.app.as_str(), &r.cluster)))
        .collect();
    // Per app: the clusters and documents to copy.
    let mut copies: BTreeMap<&str, (BTreeSet<&str>, BTreeSet<Doc<'_>>)> = BTreeMap::new();
    for (r, _) in resources.iter().zip(&copied).filter(|(_, c)| **c) {
        let (clusters, docs) = copies.entry(&r.app).or_default();
        clusters.insert(&r.cluster);
        docs.insert(doc_of(r));
    }
    let expected = copied.iter().filter(|c| **c).count() as u64;
    let mut written = 0;
    let mut whole_apps = BTreeSet::new();
    for (app, (clusters, docs)) in &copies {
        let clusters: Vec<&str> = clusters.iter().copied().collect();
        let docs: Vec<Doc<'_>> = docs.iter().copied().collect();
        let mut of_app = 0;
        for clusters in clusters.chunks(COPY_CHUNK) {
            for docs in docs.chunks(COPY_CHUNK) {
                of_app += copy_applied(tx, previous, instance, app, clusters, docs).await?;
            }
        }
        if app_totals.get(*app).copied() == Some(of_app as i64) {
            whole_apps.insert(app.to_string());
        }
        written += of_app;
    }
    if written != expected {
        // `previous`'s counts disagree with its rows: refuse (the transaction rolls
        // back) rather than start the instance without some of its resources.
        return Err(Error::internal(format!(
            "carrying over from {previous}: its counts promise {expected} Applied \
             resources to copy, its rows hold {written}"
        )));
    }
    let mut carried = written as i64;
    let copied_at = started.elapsed();
    if written > 0 {
        count_copied(tx, instance).await?;
    }
    tracing::info!(
        %instance,
        copied = written,
        read_ms = read.as_millis() as u64,
        copy_ms = (copied_at - read).as_millis() as u64,
        count_ms = (started.elapsed() - copied_at).as_millis() as u64,
        "carried over unchanged resources"
    );
    // What is left that may carry: unchanged documents on clusters not wholly Applied.
    let apps: BTreeSet<String> = resources
        .iter()
        .zip(&copied)
        .filter(|(r, c)| !**c && unchanged.contains(&doc_of(r)))
        .map(|(r, _)| r.app.clone())
        .collect();
    if apps.is_empty() {
        return Ok(Carried {
            carried,
            copied,
            whole_apps,
        });
    }
    let index: HashMap<ResourceKey, usize> = resources
        .iter()
        .zip(&copied)
        .enumerate()
        .filter(|(_, (_, c))| !**c)
        .map(|(i, (r, _))| (r.key(), i))
        .collect();
    let filter = ResourceFilter {
        apps: apps.into_iter().collect(),
        ..Default::default()
    };
    rsync_resources_each_page_of(tx, previous, &filter, |page| {
        for old in &page {
            if old.status != RsyncStatus::Applied {
                continue;
            }
            let Some(&i) = index.get(&old.key()) else {
                continue;
            };
            let new = &mut resources[i];
            if new.manifest == old.manifest {
                new.status = RsyncStatus::Applied;
                new.cluster_status = old.cluster_status;
                new.readiness = old.readiness;
                carried += 1;
            }
        }
    })
    .await?;
    Ok(Carried {
        carried,
        copied,
        whole_apps,
    })
}

/// What [`carry_applied`] carried over.
pub struct Carried {
    /// How many resources.
    pub carried: i64,
    /// Per resource given, whether it is already written (the caller inserts the rest).
    pub copied: Vec<bool>,
    /// The apps every row of which (in the replaced instance) was copied: the new
    /// instance renders all of them again.
    pub whole_apps: BTreeSet<String>,
}

/// Clusters and documents per copying statement, at most (binds stay far below the
/// databases' limits).
const COPY_CHUNK: usize = 500;

/// Each document of `instance` with its manifest if every cluster holds the same one.
async fn document_manifests(
    tx: &mut Tx,
    instance: InstanceId,
) -> Result<Vec<((String, String, String, String, String), Option<String>)>> {
    let rows = sqlx::query(
        "SELECT app, kind, api_group, namespace, name, MIN(manifest) AS lo, \
         MAX(manifest) AS hi FROM rsync_resources WHERE instance_id = $1 \
         GROUP BY app, kind, api_group, namespace, name",
    )
    .bind(instance.to_string())
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|r| {
            let get = |c: &str| r.try_get::<String, _>(c).map_err(Error::from);
            let (lo, hi) = (get("lo")?, get("hi")?);
            Ok((
                (
                    get("app")?,
                    get("kind")?,
                    get("api_group")?,
                    get("namespace")?,
                    get("name")?,
                ),
                (lo == hi).then_some(lo),
            ))
        })
        .collect()
}

/// The apps on clusters where every rendered resource of `instance` is Applied, and
/// how many rendered resources each app has, from its counts.
async fn applied_pairs(
    tx: &mut Tx,
    instance: InstanceId,
) -> Result<(Vec<DeploymentKey>, HashMap<String, i64>)> {
    let rows = sqlx::query(
        "SELECT app, cluster, value, count FROM status_counts \
         WHERE instance_id = $1 AND dimension = 'rsync' AND count <> 0",
    )
    .bind(instance.to_string())
    .fetch_all(&mut **tx)
    .await?;
    let mut wholly: BTreeMap<DeploymentKey, bool> = BTreeMap::new();
    let mut totals: HashMap<String, i64> = HashMap::new();
    for r in &rows {
        let value: String = r.try_get("value")?;
        let key = DeploymentKey {
            cluster: r.try_get::<String, _>("cluster")?.into(),
            app: r.try_get("app")?,
        };
        *totals.entry(key.app.clone()).or_default() += r.try_get::<i64, _>("count")?;
        *wholly.entry(key).or_insert(true) &= value == RsyncStatus::Applied.as_str();
    }
    let pairs = wholly
        .into_iter()
        .filter_map(|(key, applied)| applied.then_some(key))
        .collect();
    Ok((pairs, totals))
}

/// Copies the Applied rows of `app`'s `docs` on `clusters` from `previous` into
/// `instance`, started Applied with their statuses; returns how many.
async fn copy_applied(
    tx: &mut Tx,
    previous: InstanceId,
    instance: InstanceId,
    app: &str,
    clusters: &[&str],
    docs: &[Doc<'_>],
) -> Result<u64> {
    let mut binds = vec![
        instance.to_string(),
        previous.to_string(),
        RsyncStatus::Applied.as_str().to_string(),
    ];
    let on = ResourceFilter {
        apps: vec![app.to_string()],
        clusters: clusters.iter().map(|c| c.to_string()).collect(),
        ..Default::default()
    }
    .sql("", &mut binds);
    let mut docs_in = Vec::with_capacity(docs.len());
    for (_, kind, group, namespace, name) in docs {
        let mut bind = |value: &str| {
            binds.push(value.to_string());
            format!("${}", binds.len())
        };
        docs_in.push(format!(
            "({}, {}, {}, {})",
            bind(kind),
            bind(group),
            bind(namespace),
            bind(name)
        ));
    }
    let sql = format!(
        "INSERT INTO rsync_resources (instance_id, app, cluster, kind, api_group, api_version, \
         namespace, name, manifest, rsync_status, cluster_status, readiness, \
         start_cluster_status, start_readiness) \
         SELECT $1, app, cluster, kind, api_group, api_version, namespace, name, manifest, \
         $3, cluster_status, readiness, cluster_status, readiness FROM rsync_resources \
         WHERE instance_id = $2 AND rsync_status = $3{on} \
         AND (kind, api_group, namespace, name) IN (VALUES {})",
        docs_in.join(", ")
    );
    let mut query = sqlx::query(&sql);
    for value in binds {
        query = query.bind(value);
    }
    let done = query.execute(&mut **tx).await?;
    Ok(done.rows_affected())
}

/// Counts the rows [`copy_applied`] wrote into `instance` (the only rows it has yet, so
/// it has no counts yet either) inside the database: its per (app, cluster) aggregates
/// grouped from the rows, then its totals from those. (Reading the groups back and
/// upserting them from here, about 10,000 groups and 300 statements for a carry of
/// 99,000 rows, took 0.45 s on PostgreSQL.)
async fn count_copied(tx: &mut Tx, instance: InstanceId) -> Result<()> {
    let id = instance.to_string();
    sqlx::query(
        "WITH g AS (SELECT app, cluster, cluster_status, readiness, COUNT(*) AS n \
         FROM rsync_resources WHERE instance_id = $1 \
         GROUP BY app, cluster, cluster_status, readiness) \
         INSERT INTO status_counts (instance_id, app, cluster, dimension, value, count) \
         SELECT $1, app, cluster, dimension, value, n FROM ( \
         SELECT app, cluster, 'rsync' AS dimension, $2 AS value, CAST(SUM(n) AS BIGINT) AS n \
         FROM g GROUP BY app, cluster \
         UNION ALL SELECT app, cluster, 'cluster', cluster_status, CAST(SUM(n) AS BIGINT) \
         FROM g WHERE cluster_status <> '' GROUP BY app, cluster, cluster_status \
         UNION ALL SELECT app, cluster, 'readiness', readiness, CAST(SUM(n) AS BIGINT) \
         FROM g WHERE readiness <> '' GROUP BY app, cluster, readiness) AS c WHERE n <> 0 \
         ON CONFLICT (instance_id, app, cluster, dimension, value) \
         DO UPDATE SET count = status_counts.count + excluded.count",
    )
    .bind(&id)
    .bind(RsyncStatus::Applied.as_str())
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO status_totals (instance_id, dimension, value, count) \
         SELECT instance_id, dimension, value, CAST(SUM(count) AS BIGINT) FROM status_counts \
         WHERE instance_id = $1 GROUP BY instance_id, dimension, value \
         ON CONFLICT (instance_id, dimension, value) \
         DO UPDATE SET count = status_totals.count + excluded.count",
    )
    .bind(&id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// After [`carry_applied`] and the insert of `instance`'s resources: records how many
/// it carried. The cluster's reports of them need no copy: every instance of a
/// deployment base reads the base's (`REPORTS_OF_INSTANCE`).
///
/// No events: a watch stream shows the new instance as it started (see
/// `rsync_resources_at_start`) at its lifecycle event. Cluster-only resources (the pods
/// of carried controllers) are counted for it after that event, with events.
pub async fn record_carried(tx: &mut Tx, instance: InstanceId, carried: i64) -> Result<()> {
    if carried == 0 {
        return Ok(());
    }
    sqlx::query("UPDATE instances SET carried = $1 WHERE id = $2")
        .bind(carried)
        .bind(instance.to_string())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// How many resources `instance` carried over from the instance it replaced; None
/// once the instance is gone (expired past `--instance-retention`, or its owner
/// deleted), with its rendered resources.
pub async fn instance_carried(
    conn: &mut sqlx::AnyConnection,
    instance: InstanceId,
) -> Result<Option<i64>> {
    let row = sqlx::query("SELECT carried FROM instances WHERE id = $1")
        .bind(instance.to_string())
        .fetch_optional(conn)
        .await?;
    row.map(|row| row.try_get("carried").map_err(Error::from))
        .transpose()
}

/// The keys of the resources `instance` carried over, in key order.
pub async fn carried_keys(tx: &mut Tx, instance: InstanceId) -> Result<Vec<ResourceKey>> {
    let rows = sqlx::query(
        "SELECT app, cluster, kind, api_group, namespace, name FROM rsync_resources \
         WHERE instance_id = $1 AND start_cluster_status <> '' \
         ORDER BY app, cluster, kind, api_group, namespace, name",
    )
    .bind(instance.to_string())
    .fetch_all(&mut **tx)
    .await?;
    rows.iter().map(ResourceKey::decode).collect()
}

/// Start statuses per (cluster status, readiness) of `instance`'s rendered resources
/// that `filter` selects: what a watch stream counts at the instance's lifecycle event.
pub async fn start_counts(
    conn: &mut sqlx::AnyConnection,
    instance: InstanceId,
    filter: &super::rsync_resource::ResourceFilter,
) -> Result<Vec<(String, String, i64)>> {
    let mut binds = vec![instance.to_string()];
    let mut sql = String::from(
        "SELECT start_cluster_status AS cluster_status, start_readiness AS readiness, \
         COUNT(*) AS n FROM rsync_resources WHERE instance_id = $1",
    );
    sql.push_str(&filter.sql("", &mut binds));
    sql.push_str(" GROUP BY start_cluster_status, start_readiness");
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    query
        .fetch_all(conn)
        .await?
        .iter()
        .map(|row| {
            Ok((
                row.try_get("cluster_status")?,
                row.try_get("readiness")?,
                row.try_get("n")?,
            ))
        })
        .collect()
}
