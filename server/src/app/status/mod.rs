//! Cluster status: ingest of ResourceBundleStates, rsync outcomes and connectivity
//! (`ingest`), the conditions they drive (`health`), and the status queries (seed
//! 000's table, here).
//!
//! Every change of a resource's status updates the aggregates (`status_counts`) and
//! the owner's conditions in the same transaction.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::domain::conditions::{self, Condition, Severity, SummaryOptions};
use crate::domain::lifecycle::{DigState, NetworkState, OwnerState};
use crate::domain::manifest::Gvk;
use crate::domain::names::{CLUSTER, DEPLOYMENT_INTENT_GROUP, ResourceName, names_cluster};
use crate::domain::readiness::{ClusterStatus, Readiness, is_monitored, readiness};
use crate::domain::render::deployment_id;
use crate::domain::status::CountKey;
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Found, Result};
use crate::ids::InstanceId;
use crate::store::carry::carried_keys;
use crate::store::cluster::cluster_set_connectivity;
use crate::store::dig::dig_status;
use crate::store::instance::{
    InstanceRow, instance_clusters, instance_find, instance_list, instance_of_base_placed,
    instance_settle_late_applies, require_newest,
};
use crate::store::network::cluster_network_status;
use crate::store::object::object_set_conditions;
use crate::store::resource_error::{
    resource_error_set, resource_errors_clear, resource_errors_first,
};
use crate::store::rsync_resource::{
    KeyPage, ResourceFilter, ResourceKey, RsyncResource, Shown, rsync_resources_list,
};
use crate::store::status::{
    Announce, BatchReads, ClusterResourceRow, CountDeltas, Dimension, IngestWrites,
    ObservedRsyncRow, RsyncWork, Scope, StatusMove, applied_deployments, cluster_only_of_base,
    cluster_resources_for_bundles, cluster_resources_page, clusters_with_rsync_status,
    counts_from_rows, counts_sum, instance_apps, lock_owners, owners_placed_on,
    placed_connectivity, reported_deployments, rsync_bulk_transition, rsync_rows_for_bundles,
    rsync_set_statuses,
};
use crate::store::watch::{Body, NewEvent, Statuses};
use crate::store::{RowLock, Store, Tx, now_micros};
use tree::{StatusTrees, Tree, TreePage};

mod health;
mod ingest;
pub mod tree;

pub use health::{refresh_conditions, refresh_ready_conditions};
pub(crate) use ingest::carry_over;

/// A ResourceBundleState: what a cluster holds for one deployment id.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub deployment_id: String,
    pub resources: Vec<Reported>,
    /// Whether `resources` are only those that changed since the previous state (the
    /// others are unchanged), not all the deployment holds.
    pub partial: bool,
}

impl Bundle {
    /// Takes in `newer`, a later state of the same deployment id: a full one replaces
    /// this one; a partial one's resources replace or join this one's (which stays
    /// full if it was).
    pub fn absorb(&mut self, newer: Bundle) {
        if !newer.partial {
            *self = newer;
            return;
        }
        for resource in newer.resources {
            match self.resources.iter_mut().find(|r| r.is(&resource)) {
                Some(older) => *older = resource,
                None => self.resources.push(resource),
            }
        }
    }
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

    /// Whether `other` is the same resource (a later state of it, perhaps).
    pub fn is(&self, other: &Reported) -> bool {
        self.gvk.kind == other.gvk.kind
            && self.gvk.group == other.gvk.group
            && self.name == other.name
            && same_namespace(&self.namespace, &other.namespace)
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

/// What a status answer or a status watch selects: the output level, and the apps,
/// clusters and resource names it is narrowed to (each empty: all of them).
#[derive(Debug, Clone)]
pub struct Selection {
    pub output: Output,
    pub apps: Vec<String>,
    /// Cluster ids or full names.
    pub clusters: Vec<String>,
    pub resources: Vec<String>,
}

impl Selection {
    /// Every resource, at `output`.
    pub fn everything(output: Output) -> Selection {
        Selection {
            output,
            apps: Vec::new(),
            clusters: Vec::new(),
            resources: Vec::new(),
        }
    }

    /// Neither apps nor clusters narrow it (resource names may).
    pub fn every_placement(&self) -> bool {
        self.apps.is_empty() && self.clusters.is_empty()
    }

    /// Nothing narrows it.
    pub fn is_unfiltered(&self) -> bool {
        self.every_placement() && self.resources.is_empty()
    }

    /// Whether it selects the cluster of full name `cluster`.
    pub fn has_cluster(&self, cluster: &str) -> bool {
        self.clusters.is_empty() || self.clusters.iter().any(|c| names_cluster(cluster, c))
    }

    /// Whether it selects resource `name` of `app` on the cluster of full name `cluster`.
    pub fn has(&self, app: &str, cluster: &str, name: &str) -> bool {
        (self.apps.is_empty() || self.apps.iter().any(|a| a == app))
            && self.has_cluster(cluster)
            && (self.resources.is_empty() || self.resources.iter().any(|r| r == name))
    }
}

/// A status query.
#[derive(Debug, Clone)]
pub struct StatusQuery {
    pub selection: Selection,
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
            selection: Selection::everything(Output::All),
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
    pub state: OwnerState,
    pub composite_profile: String,
    pub instance: Option<InstanceRow>,
    /// (dimension, value) -> count.
    pub counts: crate::domain::status::Counts,
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
    /// In a replica set: which clusters this replica runs, at which epoch; their
    /// writes are fenced (see [`StatusApp::fenced_out`]). None: a single process.
    fencing: Option<Arc<crate::coord::ownership::Ownership>>,
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
            fencing: None,
        }
    }

    /// Fences this replica's writes for clusters with `ownership` (a replica set).
    pub fn with_fencing(mut self, ownership: Arc<crate::coord::ownership::Ownership>) -> Self {
        self.fencing = ownership.replicated().then_some(ownership);
        self
    }

    /// The clusters among `clusters` this replica must not write for: not run here
    /// now, or taken by a newer owner (their fences, checked in `tx` and share-locked
    /// until it ends). Always empty in a single process.
    pub(crate) async fn fenced_out(
        &self,
        tx: &mut crate::store::Tx,
        clusters: &[&str],
    ) -> Result<BTreeSet<String>> {
        match &self.fencing {
            Some(ownership) => ownership.fenced_out(tx, clusters).await,
            None => Ok(BTreeSet::new()),
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

    /// A page of `owner`'s instances, newest first, older than `before`.
    pub async fn instances(
        &self,
        owner: &str,
        before: Option<&str>,
        limit: usize,
    ) -> Result<Vec<InstanceRow>> {
        let mut conn = self.store.read().await?;
        instance_list(&mut conn, owner, before, limit as i64).await
    }

    /// The status of a deployment intent group or of a cluster's network intents.
    pub async fn query(&self, owner: &ResourceName, query: &StatusQuery) -> Result<StatusResult> {
        let cacheable = query.selection.output == Output::Summary
            && query.selection.is_unfiltered()
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
            // Counts and entries come from one snapshot: read statement by statement, an
            // ingest committing in between gave a response whose counts said nothing was
            // present while its entries listed objects Present (or the other way).
            let mut snapshot = self.store.snapshot().await?;
            let result = self.query_with(&mut snapshot, owner, query, tree).await?;
            snapshot.commit().await?;
            return Ok(result);
        }
        let key = owner.to_string();
        if let Some(cached) = self.summaries.lock().expect("summary cache").get(&key)
            && !cached.changes.has_changed().unwrap_or(true)
            && self.store.signals().trusted()
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
        conn: &mut crate::store::Conn,
        owner: &ResourceName,
        query: &StatusQuery,
    ) -> Result<StatusResult> {
        self.query_with(conn, owner, query, None).await
    }

    /// [`StatusApp::query_on`], taking the page from `tree` when it holds the queried
    /// instance and is still current once everything else has been read.
    async fn query_with(
        &self,
        conn: &mut crate::store::Conn,
        owner: &ResourceName,
        query: &StatusQuery,
        tree: Option<Arc<Tree>>,
    ) -> Result<StatusResult> {
        let (state, current, composite_profile, conditions) =
            if owner.kind() == &DEPLOYMENT_INTENT_GROUP {
                let status = dig_status(conn, owner, RowLock::None).await?.found(owner)?;
                let object: crate::store::object::Object<crate::domain::resources::DigSpec> =
                    crate::store::object::object_get(conn, owner).await?;
                (
                    OwnerState::Group(status.state),
                    status.current_instance,
                    object.spec.composite_profile,
                    status.conditions,
                )
            } else {
                let status = cluster_network_status(conn, owner, RowLock::None)
                    .await?
                    .found(owner)?;
                (
                    OwnerState::Network(status.state),
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
            None if query.selection.every_placement() => return Ok(result),
            None => {
                let field = if query.selection.apps.is_empty() {
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
            result.state = OwnerState::Group(DigState::Terminated);
        }
        let filter = self.resolve_filter(conn, instance_id, query).await?;
        let shown = Shown::of(conn, instance_id).await?;
        // The tree answers the page (and, unfiltered, the counts) if it holds this
        // instance and no commit came since it was built: checked after every other read.
        let tree = tree.filter(|tree| {
            shown == Shown::Own
                && tree.instance == instance_id
                && query.selection.output == Output::All
                && filter.names.is_empty()
                && tree.is_current()
                && self.store.signals().trusted()
        });
        let unfiltered = filter.apps.is_empty() && filter.clusters.is_empty();
        result.counts = match &tree {
            Some(tree) if unfiltered => tree.counts.clone(),
            _ if shown == Shown::Own && filter.names.is_empty() => {
                counts_sum(conn, instance_id, &filter).await?
            }
            _ => counts_from_rows(conn, instance_id, &filter, shown).await?,
        };
        result.counts.retain(|key, count| {
            *count != 0
                && (query.selection.output != Output::Rsync || matches!(key, CountKey::Rsync(_)))
        });
        result.instance = Some(instance);
        if query.selection.output != Output::Summary {
            match tree {
                Some(tree) => {
                    let (page, next) = tree.page(&filter, query);
                    result.tree_page = Some(page);
                    result.next = next;
                }
                None => {
                    let (entries, next) =
                        self.page(conn, instance_id, shown, &filter, query).await?;
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
        conn: &mut crate::store::Conn,
        instance: InstanceId,
        query: &StatusQuery,
    ) -> Result<ResourceFilter> {
        if query.selection.every_placement() {
            return Ok(ResourceFilter {
                names: query.selection.resources.clone(),
                ..ResourceFilter::default()
            });
        }
        // Read only when there are apps to check (a watch of one cluster of a large
        // fleet should not pay for the fleet's apps).
        let apps = if query.selection.apps.is_empty() {
            Vec::new()
        } else {
            instance_apps(conn, instance).await?
        };
        for (index, app) in query.selection.apps.iter().enumerate() {
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
        for (index, wanted) in query.selection.clusters.iter().enumerate() {
            match placed.iter().find(|c| c.is_named(wanted)) {
                Some(cluster) => clusters.push(cluster.to_string()),
                None => {
                    return Err(Error::invalid(
                        format!("clusters[{index}]"),
                        format!("cluster {wanted:?} is not part of this instance"),
                    ));
                }
            }
        }
        Ok(ResourceFilter {
            apps: query.selection.apps.clone(),
            clusters,
            names: query.selection.resources.clone(),
        })
    }

    /// One page of the resource tree: rendered resources merged with cluster resources
    /// in key order.
    pub(crate) async fn page(
        &self,
        conn: &mut crate::store::Conn,
        instance: InstanceId,
        shown: Shown,
        filter: &ResourceFilter,
        query: &StatusQuery,
    ) -> Result<(Vec<StatusEntry>, Option<ResourceKey>)> {
        let limit = query.page_size as i64 + 1;
        let started = std::time::Instant::now();
        let page = KeyPage {
            instance,
            filter,
            after: query.after.as_ref(),
            limit,
        };
        let rendered =
            rsync_resources_list(conn, page, shown, query.selection.output == Output::Rsync)
                .await?;
        let observed = if query.selection.output == Output::Rsync {
            Vec::new()
        } else {
            cluster_resources_page(conn, page, query.selection.output == Output::Detail).await?
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
            entries.push(entry(key, r, o, query.selection.output));
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
        (Some(r), _) => (r.cluster_status, r.readiness),
        (None, Some(o)) => (
            if o.present {
                ClusterStatus::Present
            } else {
                ClusterStatus::NotPresent
            },
            o.readiness,
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

#[cfg(test)]
mod tests {
    use super::health::applied_condition;
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
    fn a_partial_state_joins_the_queued_one_and_a_full_one_replaces_it() {
        let pod = |name: &str, ready: bool| {
            let status = serde_json::json!({"conditions": [
                {"type": "Ready", "status": if ready { "True" } else { "False" }}]});
            Reported::new(
                Gvk {
                    group: String::new(),
                    version: "v1".into(),
                    kind: "Pod".into(),
                },
                String::new(),
                name.into(),
                &serde_json::json!({"name": name}),
                &serde_json::json!({}),
                &status,
            )
        };
        let bundle = |resources, partial| Bundle {
            deployment_id: "d".into(),
            resources,
            partial,
        };
        let states = |b: &Bundle| {
            b.resources
                .iter()
                .map(|r| (r.name.clone(), r.readiness))
                .collect::<Vec<_>>()
        };
        let mut queued = bundle(vec![pod("a", true), pod("b", true)], false);
        queued.absorb(bundle(vec![pod("b", false), pod("c", true)], true));
        assert!(!queued.partial, "a full state stays full");
        assert_eq!(
            states(&queued),
            [
                ("a".to_string(), Readiness::Ready),
                ("b".to_string(), Readiness::NotReady),
                ("c".to_string(), Readiness::Ready)
            ]
        );
        let mut partial = bundle(vec![pod("a", false)], true);
        partial.absorb(bundle(vec![pod("b", false)], true));
        assert!(partial.partial, "partial on partial stays partial");
        assert_eq!(states(&partial).len(), 2);
        partial.absorb(bundle(vec![pod("c", true)], false));
        assert!(!partial.partial);
        assert_eq!(states(&partial), [("c".to_string(), Readiness::Ready)]);
    }

    #[test]
    fn applied_condition_prefers_the_worst() {
        use RsyncStatus::{Applied, Failed, Pending, Retrying};
        let counts = |pairs: &[(RsyncStatus, i64)]| {
            pairs
                .iter()
                .map(|(v, n)| (CountKey::Rsync(*v), *n))
                .collect::<crate::domain::status::Counts>()
        };
        assert_eq!(
            applied_condition("A", &counts(&[(Applied, 3)]), &[], &[]).status,
            conditions::Status::True
        );
        let c = applied_condition(
            "A",
            &counts(&[(Applied, 1), (Failed, 1), (Retrying, 1)]),
            &["clusterProviders/edge/clusters/c2".into()],
            &["ConfigMap shop/c on c2: refused".to_string()],
        );
        assert_eq!(
            (c.severity, c.reason.as_str(), c.message.as_str()),
            (
                Severity::Error,
                "ApplyFailed",
                "1 of 3 resources were rejected by their cluster on clusterProviders/edge/clusters/c2; \
                 ConfigMap shop/c on c2: refused"
            )
        );
        let c = applied_condition("A", &counts(&[(Applied, 1), (Pending, 2)]), &[], &[]);
        assert_eq!(
            (c.severity, c.message.as_str()),
            (Severity::Info, "1 of 3 resources applied")
        );
    }
}
