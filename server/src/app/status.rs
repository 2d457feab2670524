//! Cluster status: ingest of ResourceBundleStates, rsync outcomes, connectivity, the
//! conditions they drive, and the status queries (seed 000's table).
//!
//! Every change of a resource's status updates the aggregates (`status_counts`) and
//! the owner's conditions in the same transaction.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::status_tree::{StatusTrees, Tree, TreePage};
use crate::domain::conditions::{self, Condition, Severity, SummaryOptions};
use crate::domain::lifecycle::{DigState, NetworkState};
use crate::domain::manifest::Gvk;
use crate::domain::names::{CLUSTER, DEPLOYMENT_INTENT_GROUP, ResourceName};
use crate::domain::readiness::{ClusterStatus, Readiness, is_monitored, readiness};
use crate::domain::render::deployment_id;
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Result};
use crate::ids::InstanceId;
use crate::store::carry::{carried_keys, has_cluster_only};
use crate::store::cluster::cluster_set_connectivity;
use crate::store::dig::{dig_set_conditions, dig_status};
use crate::store::instance::{
    InstanceRow, instance_clusters, instance_find, instance_of_base, instance_settle_late_applies,
};
use crate::store::network::{cluster_network_status, cluster_set_conditions};
use crate::store::rsync_resource::{
    ResourceFilter, ResourceKey, RsyncResource, rsync_resources_list,
};
use crate::store::status::{
    ClusterResourceRow, CountDeltas, Dimension, IngestWrites, ObservedRsyncRow, RsyncWork, Scope,
    StatusMove, applied_deployments, cluster_resources_for_bundles, cluster_resources_page,
    clusters_with_rsync_status, counts_for_names, counts_sum, instance_apps, owners_placed_on,
    placed_connectivity, rsync_bulk_transition, rsync_rows_for_bundles, rsync_set_statuses,
};
use crate::store::watch::{Body, NewEvent, Statuses};
use crate::store::{Backend, RowLock, Store, Tx, now_micros};

/// A ResourceBundleState: what a cluster holds for one deployment id.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub deployment_id: String,
    pub resources: Vec<Reported>,
}

/// One resource of a bundle state, as ingest uses it: its identity, its readiness
/// and its body, both derived when the report arrives (outside any transaction), the
/// body kept as JSON text while the state waits to be ingested.
#[derive(Debug, Clone)]
pub struct Reported {
    pub gvk: Gvk,
    pub namespace: String,
    pub name: String,
    pub readiness: Readiness,
    pub body: Body,
    /// Whether a controller owns it (`metadata.ownerReferences`): a resource no
    /// rendered one matches is cluster-only (a Deployment's Pod) only if owned; an
    /// unowned one is what an older instance of the same deployment rendered and rsync
    /// is deleting (an update dropped it), not part of this instance.
    pub owned: bool,
}

impl Reported {
    pub fn new(
        gvk: Gvk,
        namespace: String,
        name: String,
        metadata: &Value,
        spec: &Value,
        status: &Value,
    ) -> Reported {
        Reported {
            owned: is_owned(metadata),
            readiness: readiness(&gvk.kind, spec, status),
            body: Body::of(metadata, spec, status),
            gvk,
            namespace,
            name,
        }
    }
}

/// Whether `metadata` names an owner (a non-empty `ownerReferences`).
fn is_owned(metadata: &Value) -> bool {
    metadata
        .get("ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|owners| !owners.is_empty())
}

/// Whether an owner in `metadata`'s `ownerReferences` (same namespace) is kept.
fn owned_by_kept(
    metadata: &Value,
    namespace: &str,
    is_kept: &impl Fn(&str, &str, &str, &str) -> bool,
) -> bool {
    let owners = metadata.get("ownerReferences").and_then(Value::as_array);
    owners.into_iter().flatten().any(|o| {
        let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or_default();
        let group = text("apiVersion")
            .rsplit_once('/')
            .map_or("", |(group, _)| group);
        let kind = text("kind");
        let name = text("name");
        // Owner references may leave apiVersion out (the sim does): any group then.
        is_kept(kind, group, namespace, name)
            || (text("apiVersion").is_empty()
                && ["apps", "batch", ""]
                    .iter()
                    .any(|g| is_kept(kind, g, namespace, name)))
    })
}

/// The outcome of one rsync operation.
#[derive(Debug, Clone)]
pub enum Outcome {
    Succeeded,
    Rejected(String),
}

/// How much a status query returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Summary,
    All,
    Detail,
    Rsync,
}

/// A status query.
#[derive(Debug, Clone)]
pub struct StatusQuery {
    pub output: Output,
    pub apps: Vec<String>,
    /// Cluster ids or names.
    pub clusters: Vec<String>,
    pub resources: Vec<String>,
    pub instance: Option<InstanceId>,
    pub page_size: usize,
    pub after: Option<ResourceKey>,
}

impl StatusQuery {
    /// An unfiltered ALL page of `page_size` entries after `after`.
    pub fn all_page(
        instance: Option<InstanceId>,
        page_size: usize,
        after: Option<ResourceKey>,
    ) -> StatusQuery {
        StatusQuery {
            output: Output::All,
            apps: Vec::new(),
            clusters: Vec::new(),
            resources: Vec::new(),
            instance,
            page_size,
            after,
        }
    }
}

/// One resource of the status tree.
#[derive(Debug, Clone)]
pub struct StatusEntry {
    pub key: ResourceKey,
    pub version: String,
    /// None for cluster-only resources.
    pub rsync_status: Option<RsyncStatus>,
    /// None for RSYNC output.
    pub cluster_status: Option<ClusterStatus>,
    pub readiness: Readiness,
    pub metadata: Option<Value>,
    pub spec: Option<Value>,
    pub status: Option<Value>,
}

/// The answer of a status query.
#[derive(Debug, Clone)]
pub struct StatusResult {
    pub owner: ResourceName,
    pub state: String,
    pub composite_profile: String,
    pub instance: Option<InstanceRow>,
    /// (dimension, value) -> count.
    pub counts: BTreeMap<(String, String), i64>,
    /// The page's entries, when read from SQL.
    pub entries: Vec<StatusEntry>,
    /// The page's entries, when read from the group's status tree (then `entries` is
    /// empty).
    pub tree_page: Option<TreePage>,
    pub next: Option<ResourceKey>,
    pub conditions: Vec<Condition>,
}

/// The status use cases.
#[derive(Clone)]
pub struct StatusApp {
    store: Store,
    /// Unfiltered summaries of intent groups, each valid until its group's next commit
    /// (status events, lifecycle verbs and spec updates all signal the group).
    summaries: Arc<std::sync::Mutex<HashMap<String, CachedSummary>>>,
    /// In-memory `all` trees of queried intent groups (None: off).
    trees: Option<Arc<StatusTrees>>,
}

struct CachedSummary {
    changes: tokio::sync::watch::Receiver<u64>,
    result: StatusResult,
}

/// Cached summaries at most; past it the cache starts over.
const SUMMARY_CACHE: usize = 10_000;

/// Parses `<instance uuid>-<app>`.
pub fn parse_deployment_id(id: &str) -> Result<(InstanceId, String)> {
    let invalid = || {
        Error::invalid(
            "bundle_state.deployment_id",
            format!("{id:?} is not <instance>-<app>"),
        )
    };
    if id.len() < 38 || !id.is_char_boundary(36) || id.as_bytes()[36] != b'-' {
        return Err(invalid());
    }
    let instance = id[..36].parse().map_err(|_| invalid())?;
    Ok((instance, id[37..].to_string()))
}

/// Namespaces as matched between rendered and reported resources ("" is "default").
fn same_namespace(a: &str, b: &str) -> bool {
    let norm = |n: &str| if n.is_empty() { "default" } else { n }.to_string();
    norm(a) == norm(b)
}

impl StatusApp {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            summaries: Arc::default(),
            trees: None,
        }
    }

    /// Keeps in-memory status trees of queried intent groups, up to `max_entries`
    /// resources in all (0: none); their warmers stop at `shutdown`.
    pub fn with_trees(mut self, max_entries: usize, shutdown: CancellationToken) -> Self {
        self.trees = (max_entries > 0).then(|| StatusTrees::new(max_entries, shutdown));
        self
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Records a cluster's connectivity and refreshes the conditions that depend on it.
    pub async fn connectivity_changed(&self, cluster: &str, connectivity: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let owners = owners_placed_on(&mut tx, cluster).await?;
        lock_owners(&mut tx, owners.iter().cloned(), [cluster]).await?;
        if cluster_set_connectivity(&mut tx, cluster, connectivity).await? {
            refresh_conditions(&mut tx, cluster).await?;
            for owner in &owners {
                refresh_conditions(&mut tx, owner).await?;
            }
            emit_connectivity(&mut tx, cluster, connectivity).await?;
        }
        tx.commit().await
    }

    /// Ingests a bundle state of `cluster`: derives the cluster status and readiness of
    /// each rendered resource, records cluster-only resources, updates the aggregates.
    /// A malformed deployment id is INVALID_ARGUMENT; a bundle of an unknown instance or
    /// of an instance not placed on the cluster is ignored.
    pub async fn ingest_bundle(&self, cluster: &str, bundle: Bundle) -> Result<()> {
        self.ingest_bundles(cluster, std::slice::from_ref(&bundle))
            .await
    }

    /// Ingests several bundle states of `cluster` in one transaction (the aggregates
    /// and conditions of each owner are written once for all of them).
    pub async fn ingest_bundles(&self, cluster: &str, bundles: &[Bundle]) -> Result<()> {
        self.ingest_clusters(&[(cluster, bundles)]).await
    }

    /// Ingests the bundle states of several clusters in one transaction: a group
    /// commit of what many agent sessions reported at about the same time. The
    /// transaction's fixed costs (owner locks, aggregates, conditions, the event
    /// log's revision, the commit) are paid once for all of them.
    pub async fn ingest_clusters(&self, batches: &[(&str, &[Bundle])]) -> Result<()> {
        // The last state of each deployment of a cluster wins: the writes of one batch
        // are made together, so one deployment must not appear twice in them.
        let mut latest: BTreeMap<&str, BTreeMap<(InstanceId, String), &Bundle>> = BTreeMap::new();
        for (cluster, bundles) in batches {
            let of_cluster = latest.entry(*cluster).or_default();
            for bundle in *bundles {
                of_cluster.insert(parse_deployment_id(&bundle.deployment_id)?, bundle);
            }
        }
        let mut tx = self.store.begin().await?;
        // A bundle names the base of its deployment's instances: it describes the
        // newest instance of that base (an update keeps the base of what it replaces).
        let mut rows: HashMap<InstanceId, Option<(InstanceRow, Vec<String>)>> = HashMap::new();
        let mut bases: Vec<InstanceId> = Vec::new();
        for of_cluster in latest.values() {
            bases.extend(of_cluster.keys().map(|(base, _)| *base));
        }
        for base in bases {
            if rows.contains_key(&base) {
                continue;
            }
            let found = match instance_of_base(&mut tx, base).await? {
                Some(row) => {
                    let clusters = instance_clusters(&mut tx, row.id).await?;
                    Some((row, clusters))
                }
                None => None,
            };
            rows.insert(base, found);
        }
        // The owner of each (cluster, instance) placed there; bundles of other
        // instances are ignored.
        let mut parsed: Vec<(&str, InstanceId, String, &Bundle)> = Vec::new();
        let mut owners: BTreeMap<(&str, InstanceId), Option<String>> = BTreeMap::new();
        for (cluster, of_cluster) in latest {
            for ((base, app), bundle) in of_cluster {
                let Some(Some((row, clusters))) = rows.get(&base) else {
                    continue;
                };
                let placed = clusters.iter().any(|c| c == cluster);
                owners.insert((cluster, row.id), placed.then(|| row.owner.clone()));
                parsed.push((cluster, row.id, app, bundle));
            }
        }
        if owners.values().all(Option::is_none) {
            return Ok(());
        }
        lock_owners(
            &mut tx,
            owners.values().flatten().cloned(),
            owners
                .iter()
                .filter(|(_, owner)| owner.is_some())
                .map(|((cluster, _), _)| *cluster),
        )
        .await?;
        // On PostgreSQL a rollout may have committed a newer instance of a base while
        // this waited for the owner locks: its state was carried over from what was
        // stored before, so this report belongs to it. Retried (the hub requeues an
        // aborted ingest), it finds the new instance.
        if tx.backend() == Backend::Postgres {
            for (base, row) in &rows {
                let Some((row, _)) = row else { continue };
                let newest = instance_of_base(&mut tx, *base).await?.map(|r| r.id);
                if newest != Some(row.id) {
                    return Err(Error::Aborted {
                        reason: "INSTANCE_REPLACED",
                        message: format!(
                            "deployment base {base} has a newer instance than {}",
                            row.id
                        ),
                    });
                }
            }
        }
        // What is stored for the batch's deployments: two reads per cluster and
        // instance.
        let mut stored = BTreeMap::new();
        for ((cluster, instance), owner) in &owners {
            if owner.is_none() {
                continue;
            }
            let apps: Vec<&str> = parsed
                .iter()
                .filter(|(c, i, _, _)| c == cluster && i == instance)
                .map(|(_, _, app, _)| app.as_str())
                .collect();
            let rendered = rsync_rows_for_bundles(&mut tx, *instance, cluster, &apps).await?;
            let reported =
                cluster_resources_for_bundles(&mut tx, *instance, cluster, &apps).await?;
            stored.insert((*cluster, *instance), (rendered, reported));
        }
        let mut deltas = CountDeltas::default();
        let mut writes = IngestWrites::default();
        let mut touched = BTreeSet::new();
        for (cluster, instance, app, bundle) in &parsed {
            let Some(owner) = &owners[&(*cluster, *instance)] else {
                continue;
            };
            let (rendered, reported) = &stored[&(*cluster, *instance)];
            let deployment = Deployment {
                cluster,
                instance: *instance,
                owner,
                app,
                rendered: rendered.get(app).map(Vec::as_slice).unwrap_or_default(),
                reported: reported.get(app).map(Vec::as_slice).unwrap_or_default(),
            };
            ingest_one(&mut tx, &deployment, bundle, &mut deltas, &mut writes);
            touched.insert(owner.clone());
        }
        writes.apply(&mut tx).await?;
        if !deltas.is_empty() {
            deltas.apply(&mut tx).await?;
            for owner in &touched {
                refresh_conditions(&mut tx, owner).await?;
            }
        }
        tx.commit().await
    }

    /// Records the outcomes of rsync operations on `cluster`.
    pub async fn record_outcomes(&self, outcomes: &[(RsyncWork, Outcome)]) -> Result<()> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin().await?;
        let mut owners = BTreeMap::new();
        for instance in outcomes
            .iter()
            .map(|(w, _)| w.instance)
            .collect::<BTreeSet<_>>()
        {
            if let Some(row) = instance_find(&mut tx, instance).await? {
                owners.insert(instance, row.owner);
            }
        }
        lock_owners(
            &mut tx,
            owners.values().cloned(),
            outcomes.iter().map(|(w, _)| w.key.cluster.as_str()),
        )
        .await?;
        let mut deltas = CountDeltas::default();
        let mut instances = BTreeSet::new();
        let mut moves = Vec::with_capacity(outcomes.len());
        for (work, outcome) in outcomes {
            let to = match (work.delete, outcome) {
                (false, Outcome::Succeeded) => RsyncStatus::Applied,
                (true, Outcome::Succeeded) => RsyncStatus::Terminated,
                (_, Outcome::Rejected(_)) => RsyncStatus::Failed,
            };
            // An apply that raced a terminate: the resource is on the cluster now, so it
            // must be Applied for rsync to delete it.
            let expected: &[RsyncStatus] = if work.delete {
                &[RsyncStatus::Applied, RsyncStatus::Retrying]
            } else {
                &[
                    RsyncStatus::Pending,
                    RsyncStatus::Retrying,
                    RsyncStatus::Terminated,
                ]
            };
            let Some(owner) = owners.get(&work.instance) else {
                continue;
            };
            moves.push(StatusMove {
                owner,
                instance: work.instance,
                key: &work.key,
                expected,
                to,
            });
            instances.insert(work.instance);
        }
        rsync_set_statuses(&mut tx, &moves, &mut deltas).await?;
        deltas.apply(&mut tx).await?;
        let applied: BTreeSet<InstanceId> = outcomes
            .iter()
            .filter(|(w, _)| !w.delete)
            .map(|(w, _)| w.instance)
            .collect();
        instance_settle_late_applies(&mut tx, &applied.into_iter().collect::<Vec<_>>()).await?;
        for instance in instances {
            refresh_conditions(&mut tx, &owners[&instance]).await?;
        }
        tx.commit().await
    }

    /// Reconciles a new session with what the agent holds: resources recorded Applied
    /// for deployment ids (their instance's base and app) the agent does not report are
    /// re-sent (marked Retrying).
    pub async fn reconcile_session(&self, cluster: &str, held: &[String]) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let owners = owners_placed_on(&mut tx, cluster).await?;
        lock_owners(&mut tx, owners, [cluster]).await?;
        let lock = tx.for_update();
        let missing: Vec<InstanceId> = applied_deployments(&mut tx, cluster)
            .await?
            .into_iter()
            .filter(|(_, base, app)| !held.contains(&deployment_id(*base, app)))
            .map(|(instance, _, _)| instance)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for instance in &missing {
            rsync_bulk_transition(
                &mut tx,
                lock,
                Scope::InstanceOn(*instance, cluster),
                &[RsyncStatus::Applied],
                RsyncStatus::Retrying,
            )
            .await?;
            if let Some(row) = instance_find(&mut tx, *instance).await? {
                refresh_conditions(&mut tx, &row.owner).await?;
            }
        }
        tx.commit().await
    }

    /// Marks what rsync cannot deliver to an unreachable cluster as Retrying.
    pub async fn mark_unreachable(&self, cluster: &str) -> Result<i64> {
        let mut tx = self.store.begin().await?;
        let mut owners: BTreeSet<String> = owners_placed_on(&mut tx, cluster)
            .await?
            .into_iter()
            .collect();
        owners.insert(cluster.to_string());
        lock_owners(&mut tx, owners, [cluster]).await?;
        let lock = tx.for_update();
        let moved = rsync_bulk_transition(
            &mut tx,
            lock,
            Scope::Cluster(cluster),
            &[RsyncStatus::Pending, RsyncStatus::Applied],
            RsyncStatus::Retrying,
        )
        .await?;
        let changed = moved > 0 && cluster_set_connectivity(&mut tx, cluster, "Retrying").await?;
        if changed {
            emit_connectivity(&mut tx, cluster, "Retrying").await?;
        }
        if moved > 0 || changed {
            refresh_conditions(&mut tx, cluster).await?;
            for owner in owners_placed_on(&mut tx, cluster).await? {
                refresh_conditions(&mut tx, &owner).await?;
            }
        }
        tx.commit().await?;
        Ok(moved)
    }

    /// The status of a deployment intent group or of a cluster's network intents.
    pub async fn query(&self, owner: &ResourceName, query: &StatusQuery) -> Result<StatusResult> {
        let cacheable = query.output == Output::Summary
            && query.apps.is_empty()
            && query.clusters.is_empty()
            && query.resources.is_empty()
            && query.instance.is_none()
            && owner.kind() == &DEPLOYMENT_INTENT_GROUP;
        let (tree, untracked) = match &self.trees {
            Some(trees) if owner.kind() == &DEPLOYMENT_INTENT_GROUP => match trees.touch(owner) {
                Ok(tree) => (tree, None),
                Err(_) => (None, Some(trees)),
            },
            _ => (None, None),
        };
        let result = self.query_cached(owner, query, cacheable, tree).await?;
        // The group exists (the query found it): follow it from now on.
        if let Some(trees) = untracked {
            trees.track(self, owner);
        }
        Ok(result)
    }

    /// [`StatusApp::query`] past the status trees: the summary cache, else SQL.
    async fn query_cached(
        &self,
        owner: &ResourceName,
        query: &StatusQuery,
        cacheable: bool,
        tree: Option<Arc<Tree>>,
    ) -> Result<StatusResult> {
        if !cacheable {
            let mut conn = self.store.read().await?;
            return self.query_with(&mut conn, owner, query, tree).await;
        }
        let key = owner.to_string();
        if let Some(cached) = self.summaries.lock().expect("summary cache").get(&key)
            && !cached.changes.has_changed().unwrap_or(true)
        {
            return Ok(cached.result.clone());
        }
        // Listen before reading, so a commit in between invalidates what we read.
        let mut changes = self.store.signals().subscribe(&key);
        changes.borrow_and_update();
        let result = {
            let mut conn = self.store.read().await?;
            self.query_on(&mut conn, owner, query).await?
        };
        let mut cache = self.summaries.lock().expect("summary cache");
        if cache.len() >= SUMMARY_CACHE {
            cache.clear();
        }
        cache.insert(
            key,
            CachedSummary {
                changes,
                result: result.clone(),
            },
        );
        Ok(result)
    }

    /// [`StatusApp::query`] on a given connection (a snapshot transaction for watches).
    pub async fn query_on(
        &self,
        conn: &mut sqlx::AnyConnection,
        owner: &ResourceName,
        query: &StatusQuery,
    ) -> Result<StatusResult> {
        self.query_with(conn, owner, query, None).await
    }

    /// [`StatusApp::query_on`], taking the page from `tree` when it holds the queried
    /// instance and is still current once everything else has been read.
    async fn query_with(
        &self,
        conn: &mut sqlx::AnyConnection,
        owner: &ResourceName,
        query: &StatusQuery,
        tree: Option<Arc<Tree>>,
    ) -> Result<StatusResult> {
        let (state, current, composite_profile, conditions) =
            if owner.kind() == &DEPLOYMENT_INTENT_GROUP {
                let status = dig_status(conn, owner, "").await?.ok_or_else(|| {
                    Error::not_found(DEPLOYMENT_INTENT_GROUP.type_name, owner.to_string())
                })?;
                let object: crate::store::object::Object<crate::domain::resources::DigSpec> =
                    crate::store::object::object_get(conn, owner).await?;
                (
                    status.state.to_string(),
                    status.current_instance,
                    object.spec.composite_profile,
                    status.conditions,
                )
            } else {
                let status = cluster_network_status(conn, owner, "")
                    .await?
                    .ok_or_else(|| Error::not_found(CLUSTER.type_name, owner.to_string()))?;
                (
                    status.state.to_string(),
                    status.current_instance,
                    String::new(),
                    status.conditions,
                )
            };
        let mut result = StatusResult {
            owner: owner.clone(),
            state,
            composite_profile,
            instance: None,
            counts: BTreeMap::new(),
            entries: Vec::new(),
            tree_page: None,
            next: None,
            conditions,
        };
        let instance_id = match query.instance.or(current) {
            Some(id) => id,
            None if query.apps.is_empty() && query.clusters.is_empty() => return Ok(result),
            None => {
                let field = if query.apps.is_empty() {
                    "clusters"
                } else {
                    "apps"
                };
                return Err(Error::invalid(
                    field,
                    format!("{owner} has no instance to filter"),
                ));
            }
        };
        let instance = instance_find(conn, instance_id)
            .await?
            .filter(|row| row.owner == owner.to_string())
            .ok_or_else(|| {
                Error::not_found(
                    "flotilla.v1.Instance",
                    format!("{owner}/instances/{instance_id}"),
                )
            })?;
        // A query of a named instance reports that instance's state: an instance that
        // is not the group's running one was terminated (a group instantiates again
        // only after terminate), whatever the group went on to do.
        if query.instance.is_some() && instance.terminate_time.is_some() {
            result.state = "TERMINATED".to_string();
        }
        let filter = self.resolve_filter(conn, instance_id, query).await?;
        // The tree answers the page (and, unfiltered, the counts) if it holds this
        // instance and no commit came since it was built: checked after every other read.
        let tree = tree.filter(|tree| {
            tree.instance == instance_id
                && query.output == Output::All
                && filter.names.is_empty()
                && tree.is_current()
        });
        let unfiltered = filter.apps.is_empty() && filter.clusters.is_empty();
        result.counts = match &tree {
            Some(tree) if unfiltered => tree.counts.clone(),
            _ if filter.names.is_empty() => counts_sum(conn, instance_id, &filter).await?,
            _ => counts_for_names(conn, instance_id, &filter).await?,
        };
        result.counts.retain(|(dimension, _), count| {
            *count != 0 && (query.output != Output::Rsync || dimension == "rsync")
        });
        result.instance = Some(instance);
        if query.output != Output::Summary {
            match tree {
                Some(tree) => {
                    let (page, next) = tree.page(&filter, query);
                    result.tree_page = Some(page);
                    result.next = next;
                }
                None => {
                    let (entries, next) = self.page(conn, instance_id, &filter, query).await?;
                    result.entries = entries;
                    result.next = next;
                }
            }
        }
        Ok(result)
    }

    /// Validates the filters: apps and clusters must belong to the instance.
    async fn resolve_filter(
        &self,
        conn: &mut sqlx::AnyConnection,
        instance: InstanceId,
        query: &StatusQuery,
    ) -> Result<ResourceFilter> {
        if query.apps.is_empty() && query.clusters.is_empty() {
            return Ok(ResourceFilter {
                names: query.resources.clone(),
                ..ResourceFilter::default()
            });
        }
        let apps = instance_apps(conn, instance).await?;
        for (index, app) in query.apps.iter().enumerate() {
            if !apps.contains(app) {
                return Err(Error::invalid(
                    format!("apps[{index}]"),
                    format!(
                        "app {app:?} is not part of this instance (apps: {})",
                        apps.join(", ")
                    ),
                ));
            }
        }
        let placed = instance_clusters(conn, instance).await?;
        let mut clusters = Vec::new();
        for (index, wanted) in query.clusters.iter().enumerate() {
            match placed
                .iter()
                .find(|c| *c == wanted || c.rsplit('/').next() == Some(wanted.as_str()))
            {
                Some(cluster) => clusters.push(cluster.clone()),
                None => {
                    return Err(Error::invalid(
                        format!("clusters[{index}]"),
                        format!("cluster {wanted:?} is not part of this instance"),
                    ));
                }
            }
        }
        Ok(ResourceFilter {
            apps: query.apps.clone(),
            clusters,
            names: query.resources.clone(),
        })
    }

    /// One page of the resource tree: rendered resources merged with cluster resources
    /// in key order.
    pub(crate) async fn page(
        &self,
        conn: &mut sqlx::AnyConnection,
        instance: InstanceId,
        filter: &ResourceFilter,
        query: &StatusQuery,
    ) -> Result<(Vec<StatusEntry>, Option<ResourceKey>)> {
        let limit = query.page_size as i64 + 1;
        let started = std::time::Instant::now();
        let rendered = rsync_resources_list(
            conn,
            instance,
            filter,
            query.after.as_ref(),
            limit,
            query.output == Output::Rsync,
        )
        .await?;
        let observed = if query.output == Output::Rsync {
            Vec::new()
        } else {
            cluster_resources_page(
                conn,
                instance,
                filter,
                query.after.as_ref(),
                limit,
                query.output == Output::Detail,
            )
            .await?
        };
        let read = started.elapsed();
        // Both lists come in key order (sorted here too: the database's collation
        // may differ from byte order); merge them, a resource's rendered and observed
        // rows side by side.
        fn observed_key(c: &ClusterResourceRow) -> (&str, &str, &str, &str, &str, &str) {
            (
                &c.app,
                &c.cluster,
                &c.gvk.kind,
                &c.gvk.group,
                &c.namespace,
                &c.name,
            )
        }
        fn rendered_key(r: &RsyncResource) -> (&str, &str, &str, &str, &str, &str) {
            (
                &r.app,
                &r.cluster,
                &r.gvk.kind,
                &r.gvk.group,
                &r.namespace,
                &r.name,
            )
        }
        let (mut rendered, mut observed) = (rendered, observed);
        rendered.sort_unstable_by(|a, b| rendered_key(a).cmp(&rendered_key(b)));
        observed.sort_unstable_by(|a, b| observed_key(a).cmp(&observed_key(b)));
        let mut rendered = rendered.into_iter().peekable();
        let mut observed = observed.into_iter().peekable();
        let mut entries: Vec<StatusEntry> = Vec::with_capacity(query.page_size.min(10_000) + 1);
        while entries.len() <= query.page_size {
            let order = match (rendered.peek(), observed.peek()) {
                (None, None) => break,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(r), Some(o)) => rendered_key(r).cmp(&observed_key(o)),
            };
            let (r, o) = match order {
                std::cmp::Ordering::Less => (rendered.next(), None),
                std::cmp::Ordering::Greater => (None, observed.next()),
                std::cmp::Ordering::Equal => (rendered.next(), observed.next()),
            };
            let key = match (&r, &o) {
                (Some(r), _) => r.key(),
                (None, Some(c)) => c.key(),
                (None, None) => unreachable!("one side is present"),
            };
            entries.push(entry(key, r, o, query.output));
        }
        let more = entries.len() > query.page_size;
        entries.truncate(query.page_size);
        let next = if more {
            entries.last().map(|e| e.key.clone())
        } else {
            None
        };
        tracing::debug!(
            entries = entries.len(),
            read_us = read.as_micros() as u64,
            merge_us = (started.elapsed() - read).as_micros() as u64,
            "status page"
        );
        Ok((entries, next))
    }
}

fn cluster_row(
    app: &str,
    cluster: &str,
    gvk: &Gvk,
    namespace: &str,
    o: &Reported,
    rsync_backed: bool,
    present: bool,
) -> ClusterResourceRow {
    ClusterResourceRow {
        app: app.to_string(),
        cluster: cluster.to_string(),
        gvk: Gvk {
            version: o.gvk.version.clone(),
            ..gvk.clone()
        },
        namespace: namespace.to_string(),
        name: o.name.clone(),
        rsync_backed,
        present,
        readiness: o.readiness.as_str().to_string(),
        body: o.body.text().to_string(),
    }
}

/// A status tree entry from a rendered resource and/or what its cluster reported.
pub(crate) fn entry(
    key: ResourceKey,
    rendered: Option<RsyncResource>,
    observed: Option<ClusterResourceRow>,
    output: Output,
) -> StatusEntry {
    let body: Option<Value> = observed
        .as_ref()
        .and_then(|o| serde_json::from_str(&o.body).ok());
    let version = rendered
        .as_ref()
        .map(|r| r.gvk.version.clone())
        .or_else(|| observed.as_ref().map(|o| o.gvk.version.clone()))
        .unwrap_or_default();
    let (cluster_status, ready) = match (&rendered, &observed) {
        (Some(r), _) => (
            ClusterStatus::parse(&r.cluster_status).unwrap_or(ClusterStatus::Unknown),
            Readiness::parse(&r.readiness).unwrap_or(Readiness::None),
        ),
        (None, Some(o)) => (
            if o.present {
                ClusterStatus::Present
            } else {
                ClusterStatus::NotPresent
            },
            Readiness::parse(&o.readiness).unwrap_or(Readiness::None),
        ),
        (None, None) => (ClusterStatus::Unknown, Readiness::None),
    };
    let mut entry = StatusEntry {
        key,
        version,
        rsync_status: rendered.as_ref().map(|r| r.status),
        cluster_status: Some(cluster_status),
        readiness: ready,
        metadata: None,
        spec: None,
        status: None,
    };
    match output {
        Output::Rsync => {
            let manifest: Value = rendered
                .as_ref()
                .and_then(|r| serde_json::from_str(&r.manifest).ok())
                .unwrap_or_default();
            entry.metadata = manifest.get("metadata").cloned();
            entry.spec = manifest.get("spec").cloned();
            entry.cluster_status = None;
            entry.readiness = Readiness::None;
        }
        Output::Detail => {
            if let Some(body) = body {
                entry.metadata = body.get("metadata").cloned();
                entry.spec = body.get("spec").cloned();
                entry.status = body.get("status").cloned().filter(|s| !s.is_null());
            }
        }
        Output::All | Output::Summary => {}
    }
    entry
}

/// Tells the watchers of `cluster` and of every owner placed on it that its
/// connectivity changed.
async fn emit_connectivity(tx: &mut Tx, cluster: &str, connectivity: &str) -> Result<()> {
    let mut targets = owners_placed_on(tx, cluster).await?;
    targets.push(cluster.to_string());
    for target in targets {
        tx.emit(NewEvent::connectivity(&target, cluster, connectivity));
    }
    Ok(())
}

/// One deployment of an ingest batch with what is stored for it.
struct Deployment<'a> {
    cluster: &'a str,
    instance: InstanceId,
    owner: &'a str,
    app: &'a str,
    /// Its rendered resources with their cluster status.
    rendered: &'a [ObservedRsyncRow],
    /// Its cluster resources as last reported.
    reported: &'a [ClusterResourceRow],
}

/// Compares one bundle state with what is stored for its deployment; collects the
/// writes, aggregate deltas and events that bring the store to it.
fn ingest_one(
    tx: &mut Tx,
    deployment: &Deployment<'_>,
    bundle: &Bundle,
    deltas: &mut CountDeltas,
    writes: &mut IngestWrites,
) {
    let Deployment {
        cluster,
        instance,
        owner,
        app,
        rendered,
        reported: old_rows,
    } = *deployment;
    let mut matched = vec![false; bundle.resources.len()];
    let mut rows = Vec::new();
    for r in rendered {
        let mut observed_body = None;
        let found = bundle.resources.iter().position(|o| {
            o.gvk.kind == r.gvk.kind
                && o.gvk.group == r.gvk.group
                && o.name == r.name
                && same_namespace(&o.namespace, &r.namespace)
        });
        let (cluster_status, ready) = match found {
            Some(index) => {
                matched[index] = true;
                let o = &bundle.resources[index];
                observed_body = Some(o.body.clone());
                rows.push(cluster_row(
                    app,
                    cluster,
                    &r.gvk,
                    &r.namespace,
                    o,
                    true,
                    true,
                ));
                (ClusterStatus::Present, o.readiness)
            }
            None if is_monitored(&r.gvk.kind) => (ClusterStatus::NotPresent, Readiness::None),
            None => (ClusterStatus::Unknown, Readiness::None),
        };
        if cluster_status.as_str() != r.cluster_status || ready.as_str() != r.readiness {
            let old = Statuses {
                rsync: r.rsync_status.clone(),
                cluster: r.cluster_status.clone(),
                readiness: r.readiness.clone(),
            };
            let new = Statuses {
                cluster: cluster_status.as_str().to_string(),
                readiness: ready.as_str().to_string(),
                ..old.clone()
            };
            let key = ResourceKey {
                app: app.to_string(),
                cluster: cluster.to_string(),
                kind: r.gvk.kind.clone(),
                group: r.gvk.group.clone(),
                namespace: r.namespace.clone(),
                name: r.name.clone(),
            };
            writes.set_cluster_status(
                instance,
                key.clone(),
                cluster_status.as_str(),
                ready.as_str(),
            );
            tx.emit(NewEvent::resource(
                owner,
                &instance.to_string(),
                &key,
                &r.gvk.version,
                true,
                Some(old),
                new,
                observed_body,
            ));
            deltas.moved(
                instance,
                app,
                cluster,
                Dimension::Cluster,
                &r.cluster_status,
                cluster_status.as_str(),
            );
            deltas.moved(
                instance,
                app,
                cluster,
                Dimension::Readiness,
                &r.readiness,
                ready.as_str(),
            );
        }
    }
    // Cluster-only resources: counted too; remembered as NotPresent when they vanish.
    for old in old_rows.iter().filter(|o| !o.rsync_backed) {
        deltas.add(
            instance,
            app,
            cluster,
            Dimension::Cluster,
            if old.present { "Present" } else { "NotPresent" },
            -1,
        );
        deltas.add(
            instance,
            app,
            cluster,
            Dimension::Readiness,
            &old.readiness,
            -1,
        );
    }
    let mut seen = BTreeSet::new();
    for (o, _) in bundle
        .resources
        .iter()
        .zip(&matched)
        .filter(|(o, m)| !**m && o.owned)
    {
        seen.insert((
            o.gvk.kind.clone(),
            o.gvk.group.clone(),
            o.namespace.clone(),
            o.name.clone(),
        ));
        rows.push(cluster_row(
            app,
            cluster,
            &o.gvk,
            &o.namespace,
            o,
            false,
            true,
        ));
    }
    for old in old_rows.iter().filter(|o| !o.rsync_backed) {
        let key = (
            old.gvk.kind.clone(),
            old.gvk.group.clone(),
            old.namespace.clone(),
            old.name.clone(),
        );
        if !seen.contains(&key) {
            rows.push(ClusterResourceRow {
                present: false,
                readiness: String::new(),
                ..old.clone()
            });
        }
    }
    for new in rows.iter().filter(|r| !r.rsync_backed) {
        let statuses = |r: &ClusterResourceRow| Statuses {
            rsync: String::new(),
            cluster: if r.present { "Present" } else { "NotPresent" }.to_string(),
            readiness: r.readiness.clone(),
        };
        let before = old_rows
            .iter()
            .find(|o| {
                !o.rsync_backed
                    && o.gvk.kind == new.gvk.kind
                    && o.gvk.group == new.gvk.group
                    && o.namespace == new.namespace
                    && o.name == new.name
            })
            .map(statuses);
        let after = statuses(new);
        if before.as_ref() != Some(&after) {
            tx.emit(NewEvent::resource(
                owner,
                &instance.to_string(),
                &new.key(),
                &new.gvk.version,
                false,
                before,
                after,
                Body::from_text(new.body.clone()),
            ));
        }
        deltas.add(
            instance,
            app,
            cluster,
            Dimension::Cluster,
            if new.present { "Present" } else { "NotPresent" },
            1,
        );
        deltas.add(
            instance,
            app,
            cluster,
            Dimension::Readiness,
            &new.readiness,
            1,
        );
    }
    writes.sync_cluster_resources(instance, old_rows, &rows);
}

/// Gives `instance`, which replaces `previous` under the same base (an update, rollback
/// or migrate, in its transaction, after the lifecycle event that announced it), the
/// cluster-only resources (pods and the like) `previous` last saw of the controllers
/// it carried over (`store::carry::carry_applied`, before that event, carried the
/// rendered resources themselves), ingested as if its agent had just reported them:
/// watchers see them appear as ordinary events of the new instance. Then refreshes the
/// owner's conditions.
pub(crate) async fn carry_over(
    tx: &mut Tx,
    owner: &str,
    previous: InstanceId,
    instance: InstanceId,
) -> Result<()> {
    let mut deltas = CountDeltas::default();
    let mut writes = IngestWrites::default();
    if has_cluster_only(tx, previous).await? {
        let carried = carried_keys(tx, instance).await?;
        // (app, cluster, kind, group, namespace, name) of what is carried.
        let kept: HashSet<[&str; 6]> = carried.iter().map(ResourceKey::columns).collect();
        let apps = instance_apps(tx, instance).await?;
        let apps: Vec<&str> = apps.iter().map(String::as_str).collect();
        for cluster in instance_clusters(tx, instance).await? {
            let seen = cluster_resources_for_bundles(tx, previous, &cluster, &apps).await?;
            for (app, rows) in &seen {
                let is_kept = |kind: &str, group: &str, namespace: &str, name: &str| {
                    kept.contains(&[app.as_str(), &cluster, kind, group, namespace, name])
                };
                // What the carried controllers make; a changed controller's pods are
                // left to the agent's report after the apply.
                let resources: Vec<Reported> = rows
                    .iter()
                    .filter(|r| r.present && !r.rsync_backed)
                    .filter_map(|r| {
                        let body = Body::from_text(r.body.clone())?;
                        let metadata = &body.value()["metadata"];
                        let keep =
                            is_owned(metadata) && owned_by_kept(metadata, &r.namespace, &is_kept);
                        keep.then(|| Reported {
                            gvk: r.gvk.clone(),
                            namespace: r.namespace.clone(),
                            name: r.name.clone(),
                            readiness: Readiness::parse(&r.readiness).unwrap_or(Readiness::None),
                            owned: true,
                            body,
                        })
                    })
                    .collect();
                if resources.is_empty() {
                    continue;
                }
                let bundle = Bundle {
                    deployment_id: String::new(),
                    resources,
                };
                let deployment = Deployment {
                    cluster: &cluster,
                    instance,
                    owner,
                    app,
                    rendered: &[],
                    reported: &[],
                };
                ingest_one(tx, &deployment, &bundle, &mut deltas, &mut writes);
            }
        }
    }
    writes.apply(tx).await?;
    deltas.apply(tx).await?;
    refresh_conditions(tx, owner).await
}

/// Takes, on PostgreSQL, the row locks every transaction that changes statuses takes
/// before it touches resources: `clusters` (those whose resources it writes) and the
/// clusters among `owners` with NO KEY UPDATE, then the intent groups among `owners`
/// with KEY SHARE, each kind in name order.
///
/// Status writes of one cluster therefore run one after the other (they write the same
/// rows), while those of different clusters run side by side, up to where they refresh
/// their owners' conditions (`refresh_conditions` promotes the owner lock to NO KEY
/// UPDATE; PostgreSQL lets a transaction promote a lock it holds without queueing
/// behind waiters, so the promotion cannot deadlock). A lifecycle verb takes its intent
/// group FOR UPDATE, which conflicts with KEY SHARE: verbs and status writes of one
/// group still exclude each other, in the same order, so they cannot deadlock.
async fn lock_owners<'c>(
    tx: &mut Tx,
    owners: impl IntoIterator<Item = String>,
    clusters: impl IntoIterator<Item = &'c str>,
) -> Result<()> {
    if tx.for_update().is_empty() {
        return Ok(());
    }
    let owners: BTreeSet<String> = owners.into_iter().collect();
    let mut locked: BTreeSet<&str> = BTreeSet::new();
    let mut digs = Vec::new();
    for cluster in clusters {
        locked.insert(cluster);
    }
    for owner in &owners {
        if owner.starts_with("clusterProviders/") {
            locked.insert(owner);
        } else {
            digs.push(owner);
        }
    }
    let lock = tx.row_lock(RowLock::NoKeyUpdate);
    for cluster in locked {
        let name = ResourceName::parse(&CLUSTER, "owner", cluster)
            .map_err(|v| Error::internal(v.description))?;
        cluster_network_status(tx, &name, lock).await?;
    }
    let lock = tx.row_lock(RowLock::KeyShare);
    for dig in digs {
        let name = ResourceName::parse(&DEPLOYMENT_INTENT_GROUP, "owner", dig)
            .map_err(|v| Error::internal(v.description))?;
        dig_status(tx, &name, lock).await?;
    }
    Ok(())
}

/// Recomputes and stores the conditions of `owner` (an intent group or a cluster).
pub async fn refresh_conditions(tx: &mut Tx, owner: &str) -> Result<()> {
    let now = now_micros();
    // On PostgreSQL, lock the owner's row first: concurrent transactions then recompute
    // one after the other, each seeing the aggregates the previous one committed. NO KEY
    // UPDATE, the lock the conditions' UPDATE takes anyway: a status write promotes its
    // KEY SHARE owner lock (see `lock_owners`); a verb already holds FOR UPDATE.
    let lock = tx.row_lock(RowLock::NoKeyUpdate);
    if let Ok(dig) = ResourceName::parse(&DEPLOYMENT_INTENT_GROUP, "owner", owner) {
        let Some(status) = dig_status(tx, &dig, lock).await? else {
            return Ok(());
        };
        let mut list = status.conditions.clone();
        let instantiated = status.state == DigState::Instantiated;
        match status.current_instance.filter(|_| instantiated) {
            Some(instance) => {
                let counts = counts_sum(tx, instance, &ResourceFilter::default()).await?;
                let at = worst_clusters(tx, instance, &counts).await?;
                conditions::set(
                    &mut list,
                    applied_condition("ResourcesApplied", &counts, &at),
                    now,
                );
                conditions::set(&mut list, ready_condition(&counts), now);
                let placed = placed_connectivity(tx, instance).await?;
                conditions::set(&mut list, reachable_condition(&placed), now);
            }
            None => {
                for type_ in ["ResourcesApplied", "ResourcesReady", "ClustersReachable"] {
                    conditions::set(
                        &mut list,
                        Condition::unknown(
                            type_,
                            "NotInstantiated",
                            format!("the group is {}", status.state),
                        ),
                        now,
                    );
                }
            }
        }
        let ready = conditions::summary(&list, SummaryOptions { step_counter: true });
        conditions::set(&mut list, ready, now);
        dig_set_conditions(tx, owner, &list).await
    } else if let Ok(cluster) = ResourceName::parse(&CLUSTER, "owner", owner) {
        let Some(network) = cluster_network_status(tx, &cluster, lock).await? else {
            return Ok(());
        };
        let mut list = network.conditions.clone();
        let agent = match network.connectivity.as_str() {
            "Available" => Condition::true_("AgentConnected"),
            "Retrying" => Condition::false_(
                "AgentConnected",
                Severity::Warning,
                "AgentDisconnected",
                "the agent session is down; rsync retries",
            ),
            _ => Condition::unknown("AgentConnected", "NeverConnected", "no agent session yet"),
        };
        conditions::set(&mut list, agent, now);
        match (network.state, network.current_instance) {
            (NetworkState::Applied, Some(instance)) => {
                let counts = counts_sum(tx, instance, &ResourceFilter::default()).await?;
                conditions::set(
                    &mut list,
                    applied_condition("NetworkIntentsApplied", &counts, &[]),
                    now,
                );
            }
            _ => conditions::set(&mut list, Condition::true_("NetworkIntentsApplied"), now),
        }
        let ready = conditions::summary(&list, SummaryOptions::default());
        conditions::set(&mut list, ready, now);
        cluster_set_conditions(tx, owner, &list).await
    } else {
        Ok(())
    }
}

fn count(counts: &BTreeMap<(String, String), i64>, dimension: &str, value: &str) -> i64 {
    counts
        .get(&(dimension.to_string(), value.to_string()))
        .copied()
        .unwrap_or(0)
}

/// The clusters holding the resources that make ResourcesApplied false (Failed, else
/// Retrying), read only when there are such resources.
async fn worst_clusters(
    tx: &mut Tx,
    instance: InstanceId,
    counts: &BTreeMap<(String, String), i64>,
) -> Result<Vec<String>> {
    for status in [RsyncStatus::Failed, RsyncStatus::Retrying] {
        if count(counts, "rsync", status.as_str()) > 0 {
            return clusters_with_rsync_status(tx, instance, status, 4).await;
        }
    }
    Ok(Vec::new())
}

/// " on a, b" naming where (empty when unknown).
fn on_clusters(at: &[String]) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!(" on {}", at.join(", "))
    }
}

/// The applied condition of counts; `at` names the clusters of the worst status.
fn applied_condition(
    type_: &str,
    counts: &BTreeMap<(String, String), i64>,
    at: &[String],
) -> Condition {
    let c = |v| count(counts, "rsync", v);
    let total: i64 = RsyncStatus::ALL.iter().map(|s| c(s.as_str())).sum();
    let (failed, retrying, pending, applied) =
        (c("Failed"), c("Retrying"), c("Pending"), c("Applied"));
    if failed > 0 {
        Condition::false_(
            type_,
            Severity::Error,
            "ApplyFailed",
            format!(
                "{failed} of {total} resources were rejected by their cluster{}",
                on_clusters(at)
            ),
        )
    } else if retrying > 0 {
        Condition::false_(
            type_,
            Severity::Warning,
            "Retrying",
            format!(
                "{retrying} of {total} resources wait for an unreachable cluster{}",
                on_clusters(at)
            ),
        )
    } else if pending > 0 {
        Condition::false_(
            type_,
            Severity::Info,
            "Applying",
            format!("{applied} of {total} resources applied"),
        )
    } else {
        Condition::true_(type_)
    }
}

fn ready_condition(counts: &BTreeMap<(String, String), i64>) -> Condition {
    let c = |v| count(counts, "cluster", v);
    let (present, not_present, unknown) = (c("Present"), c("NotPresent"), c("Unknown"));
    let ready = count(counts, "readiness", "Ready");
    let not_ready = count(counts, "readiness", "NotReady");
    let total = present + not_present + unknown;
    if not_present > 0 {
        Condition::false_(
            "ResourcesReady",
            Severity::Warning,
            "NotPresent",
            format!("{not_present} of {total} resources are missing from their cluster"),
        )
    } else if unknown > 0 {
        Condition::false_(
            "ResourcesReady",
            Severity::Info,
            "WaitingForClusterStatus",
            format!("{} of {total} resources reported", total - unknown),
        )
    } else if not_ready > 0 {
        Condition::false_(
            "ResourcesReady",
            Severity::Info,
            "NotReady",
            format!("{ready} of {} resources ready", ready + not_ready),
        )
    } else {
        Condition::true_("ResourcesReady")
    }
}

fn reachable_condition(placed: &[(String, String)]) -> Condition {
    let down: Vec<&str> = placed
        .iter()
        .filter(|(_, c)| c == "Retrying")
        .map(|(n, _)| n.as_str())
        .collect();
    let unknown = placed.iter().filter(|(_, c)| c == "Unknown").count();
    if !down.is_empty() {
        Condition::false_(
            "ClustersReachable",
            Severity::Warning,
            "ClusterUnreachable",
            format!("unreachable: {}", down.join(", ")),
        )
    } else if unknown > 0 {
        Condition::false_(
            "ClustersReachable",
            Severity::Info,
            "WaitingForAgents",
            format!("{unknown} of {} clusters not yet connected", placed.len()),
        )
    } else {
        Condition::true_("ClustersReachable")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deployment_ids_parse() {
        let instance = InstanceId::new();
        let (parsed, app) = parse_deployment_id(&format!("{instance}-collectd")).unwrap();
        assert_eq!((parsed, app.as_str()), (instance, "collectd"));
        for bad in [
            "",
            "nope",
            &format!("{instance}"),
            &format!("{instance}x"),
            "0192-app",
        ] {
            assert!(parse_deployment_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn applied_condition_prefers_the_worst() {
        let counts = |pairs: &[(&str, i64)]| {
            pairs
                .iter()
                .map(|(v, n)| (("rsync".to_string(), v.to_string()), *n))
                .collect::<BTreeMap<_, _>>()
        };
        assert_eq!(
            applied_condition("A", &counts(&[("Applied", 3)]), &[]).status,
            conditions::Status::True
        );
        let c = applied_condition(
            "A",
            &counts(&[("Applied", 1), ("Failed", 1), ("Retrying", 1)]),
            &["clusterProviders/edge/clusters/c2".to_string()],
        );
        assert_eq!(
            (c.severity, c.reason.as_str(), c.message.as_str()),
            (
                Severity::Error,
                "ApplyFailed",
                "1 of 3 resources were rejected by their cluster on clusterProviders/edge/clusters/c2"
            )
        );
        let c = applied_condition("A", &counts(&[("Applied", 1), ("Pending", 2)]), &[]);
        assert_eq!(
            (c.severity, c.message.as_str()),
            (Severity::Info, "1 of 3 resources applied")
        );
    }
}
