//! The LifecycleService use cases: CRUD of the EMCO resources, the deployment intent
//! group and cluster network intents verbs, and rendering at instantiate/apply.
//!
//! Invariants kept here:
//! - a change of a group, its intents, or the apps and profiles it uses moves an
//!   APPROVED or TERMINATED group back to CREATED (and is refused while INSTANTIATED),
//!   in the same transaction as the change;
//! - an instance is rendered and persisted in one transaction with the state change,
//!   so a refused or failed instantiate writes nothing.

mod cluster;
mod dig;
mod revision;

pub use dig::Verb;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::access::{Secret, issue_agent_token, revoke_agent_tokens};
use super::{RequestKey, check_etag, cpu, idempotent};
use crate::domain::lifecycle::{
    DigEvent, DigOp, DigState, NetworkOp, NetworkState, PendingChange, Transition, dig_transition,
    network_transition, pending_changes,
};
use crate::domain::names::{
    APP, APP_PROFILE, CLUSTER, CLUSTER_PROVIDER, COMPOSITE_APP, COMPOSITE_PROFILE, ClusterName,
    DEPLOYMENT_INTENT_GROUP, KINDS, Kind, NETWORK_INTENT, PLACEMENT_INTENT, PROJECT, ResourceName,
};
use crate::domain::render::{
    ClusterCandidate, NETWORK_INTENTS_APP, RenderedDoc, content_hash, render_app,
    render_network_intents, resolve_placement,
};
use crate::domain::resources::{
    AppProfileSpec, AppSpec, ClusterSpec, ConnectionMode, DigSpec, Labels, ManifestPatch,
    NetworkIntentSpec, PlacementIntentSpec, labels_match,
};
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Found, Precondition, Result, precondition};
use crate::ids::InstanceId;
use crate::store::dig::{
    DigChange, DigStatus, dig_insert, dig_list_users, dig_status, dig_update_state,
    placement_intent_using_provider,
};
use crate::store::history::{
    HistoryEntry, history_append, history_delete, history_list, revision_changed,
};
use crate::store::instance::{
    InstanceRow, instance_claim, instance_clusters, instance_delete_for_owner, instance_expire,
    instance_find, instance_insert, instance_instantiated_users_of_cluster, instance_list,
    instance_supersede, instance_terminate,
};
use crate::store::network::{
    NetworkStatus, cluster_insert, cluster_network_status, cluster_update_network_state,
};
use crate::store::object::{
    Object, new_object, object_delete, object_find, object_first_child, object_get,
    object_get_locked, object_insert, object_list, object_list_under, object_require,
    object_update,
};
use crate::store::rsync_resource::{
    KeyPage, ResourceFilter, ResourceKey, RsyncResource, Shown, rsync_resources_active_on_cluster,
    rsync_resources_awaiting_delete, rsync_resources_insert, rsync_resources_list,
};
use crate::store::status::{Scope, rsync_let_go_unapplied};
use crate::store::{RowLock, Store, Tx, now_micros};

/// A deployment intent group as returned by the API.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DigView {
    pub object: Object<DigSpec>,
    pub status: DigStatus,
    pub history: Vec<HistoryEntry<DigEvent>>,
    /// The content revision the current instance was rendered from (0: none).
    #[serde(default)]
    pub running_revision: i64,
    /// While INSTANTIATED: what changed since the current instance was rendered.
    #[serde(default)]
    pub pending: Vec<PendingChange>,
    /// Whether the pending revision is approved.
    #[serde(default)]
    pub pending_approved: bool,
}

/// A cluster as returned by the API.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClusterView {
    pub object: Object<ClusterSpec>,
    pub network: NetworkStatus,
    pub history: Vec<HistoryEntry<NetworkState>>,
    /// A new agent token, only in the responses of create and rotate. Never serialized,
    /// so the idempotency record of a create does not keep it in clear.
    #[serde(skip)]
    pub agent_token: Option<Secret>,
}

/// A page of results.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Whether more items follow.
    pub more: bool,
}

/// The rendered resources of an instance, one page.
#[derive(Debug, Clone)]
pub struct RenderedPage {
    pub instance: InstanceRow,
    pub resources: Vec<RsyncResource>,
    pub more: bool,
}

/// The LifecycleService use cases.
#[derive(Clone)]
pub struct Lifecycle {
    store: Store,
    hooks: Option<std::sync::Arc<dyn super::Hooks>>,
    /// Whether EMBEDDED_SIM clusters may be created (the server runs sim backends).
    sim: bool,
    /// How many instances an owner keeps (its current one included).
    instance_retention: usize,
}

/// The default of `--instance-retention`.
pub const DEFAULT_INSTANCE_RETENTION: usize = 10;

impl Lifecycle {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            hooks: None,
            sim: true,
            instance_retention: DEFAULT_INSTANCE_RETENTION,
        }
    }

    /// Tells `hooks` about committed changes that other parts of the server act on.
    pub fn with_hooks(store: Store, hooks: std::sync::Arc<dyn super::Hooks>) -> Self {
        Self {
            store,
            hooks: Some(hooks),
            sim: true,
            instance_retention: DEFAULT_INSTANCE_RETENTION,
        }
    }

    /// Whether the server runs sim backends (EMBEDDED_SIM clusters are refused without).
    pub fn with_sim(mut self, sim: bool) -> Self {
        self.sim = sim;
        self
    }

    /// Keeps the last `keep` instances of each owner (at least 1, the current one).
    pub fn with_instance_retention(mut self, keep: usize) -> Self {
        self.instance_retention = keep.max(1);
        self
    }

    /// Wakes rsync for the clusters of `instances` (after a verb committed; an instance
    /// named twice is read once). Every cluster is read before any is woken: a woken
    /// worker reads its work at once, and a hundred of them would stand between this
    /// read and the database.
    pub(super) async fn work_changed(&self, instances: &[Option<InstanceId>]) {
        let Some(hooks) = &self.hooks else {
            return;
        };
        let instances: std::collections::BTreeSet<InstanceId> =
            instances.iter().flatten().copied().collect();
        let mut clusters = std::collections::BTreeSet::new();
        if let Ok(mut conn) = self.store.read().await {
            for instance in &instances {
                clusters.extend(
                    instance_clusters(&mut conn, *instance)
                        .await
                        .unwrap_or_default(),
                );
            }
        }
        let clusters: Vec<String> = clusters.into_iter().map(ClusterName::into_string).collect();
        hooks.work_changed(&clusters).await;
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    // -----------------------------------------------------------------------------
    // Generic CRUD
    // -----------------------------------------------------------------------------

    /// Gets a resource of any plain kind.
    pub async fn get<S: DeserializeOwned>(&self, name: &ResourceName) -> Result<Object<S>> {
        let mut conn = self.store.read().await?;
        object_get(&mut conn, name).await
    }

    /// Lists the resources of `kind` under `parent` after `after`; NOT_FOUND if the
    /// parent does not exist.
    pub async fn list<S: DeserializeOwned>(
        &self,
        kind: &'static Kind,
        parent: Option<&ResourceName>,
        after: &str,
        page_size: usize,
    ) -> Result<Page<Object<S>>> {
        let mut conn = self.store.read().await?;
        if let Some(parent) = parent {
            object_require(&mut conn, parent, "parent", RowLock::None).await?;
        }
        let parent = parent.map(ToString::to_string).unwrap_or_default();
        let mut items = object_list(&mut conn, kind, &parent, after, page_size as i64 + 1).await?;
        let more = items.len() > page_size;
        items.truncate(page_size);
        Ok(Page { items, more })
    }

    /// Lists the projects among `ids` that exist, in name order, after `after` (the
    /// project list of a token confined to projects).
    pub async fn list_projects_among<S: DeserializeOwned>(
        &self,
        ids: &[String],
        after: &str,
        page_size: usize,
    ) -> Result<Page<Object<S>>> {
        let mut names: Vec<ResourceName> = ids
            .iter()
            .map(|id| ResourceName::child(&PROJECT, None, &[id]))
            .filter(|name| name.to_string().as_str() > after)
            .collect();
        names.sort_by_key(ToString::to_string);
        let mut conn = self.store.read().await?;
        let mut items = Vec::new();
        for name in names {
            if let Some(object) = object_find(&mut conn, &name).await? {
                if items.len() == page_size {
                    return Ok(Page { items, more: true });
                }
                items.push(object);
            }
        }
        Ok(Page { items, more: false })
    }

    /// Creates a resource of a plain kind (no lifecycle columns) under `parent`.
    pub async fn create<S>(
        &self,
        name: ResourceName,
        spec: S,
        key: Option<&RequestKey>,
    ) -> Result<Object<S>>
    where
        S: Serialize + DeserializeOwned + Clone,
    {
        idempotent(&self.store, key, async |tx: &mut Tx| {
            self.require_parent(tx, &name).await?;
            self.check_references(tx, &name, &json!(spec)).await?;
            let object = new_object(name.clone(), spec);
            object_insert(tx, &object, &[]).await?;
            self.after_write(tx, &name).await?;
            Ok(object)
        })
        .await
    }

    /// Updates a resource of a plain kind: `merge` computes the new spec from the
    /// current one (applying the update mask). `etag` is the generation the caller read.
    ///
    /// `merge` (which parses and validates, `weight` bytes of caller input) runs before
    /// the write transaction and off the executor, so a large manifest never holds the
    /// writer (SQLite has one) while it is parsed. The write then checks the
    /// generation merged from: a concurrent change in between merges again, unless
    /// the caller named an etag, who is told (ABORTED) as always.
    pub async fn update<S>(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        weight: usize,
        merge: impl Fn(&Object<S>) -> Result<S>,
    ) -> Result<Object<S>>
    where
        S: Serialize + DeserializeOwned + Clone,
    {
        const ATTEMPTS: usize = 5;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let current: Object<S> = object_get(&mut *self.store.read().await?, name).await?;
            check_etag(name, etag, current.generation)?;
            let spec = cpu::off_executor(weight, || merge(&current)).await?;
            let mut tx = self.store.begin().await?;
            self.check_references(&mut tx, name, &json!(spec)).await?;
            let (generation, update_time) =
                match object_update(&mut tx, name, &spec, current.generation).await {
                    Err(Error::Aborted { .. }) if etag.is_none() && attempt < ATTEMPTS => {
                        continue;
                    }
                    outcome => outcome?,
                };
            self.after_write(&mut tx, name).await?;
            tx.commit().await?;
            return Ok(Object {
                spec,
                generation,
                update_time,
                ..current
            });
        }
    }

    /// Deletes a resource of a plain kind; refused while it has children or is used.
    pub async fn delete(&self, name: &ResourceName, etag: Option<i64>) -> Result<()> {
        let mut tx = self.store.begin().await?;
        // Locked first, so a create of a child or a reference that raced ahead has
        // committed (and is seen below) or waits and then finds no row.
        let lock = RowLock::Update;
        let current: Object<serde_json::Value> = object_get_locked(&mut tx, name, lock).await?;
        check_etag(name, etag, current.generation)?;
        self.refuse_if_children(&mut tx, name).await?;
        self.refuse_if_used(&mut tx, name).await?;
        object_delete(&mut tx, name, current.generation).await?;
        self.after_write(&mut tx, name).await?;
        tx.commit().await
    }

    pub(super) async fn require_parent(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
        let kind = name.kind();
        if kind.parent_pairs == 0 {
            return Ok(());
        }
        let parent_kind = kind.parent.expect("every nested kind has a parent");
        let lock = RowLock::KeyShare;
        object_require(tx, &name.ancestor(parent_kind), "parent", lock).await
    }

    /// Refuses to delete a resource that still has children.
    pub(super) async fn refuse_if_children(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
        for child_kind in KINDS {
            if child_kind.parent != Some(name.kind()) {
                continue;
            }
            if let Some(child) = object_first_child(tx, child_kind, name).await? {
                return Err(precondition!(
                    Precondition::HasChildren,
                    child.clone(),
                    "{} {name} still has {}s (e.g. {child}); delete them first",
                    name.kind().human,
                    child_kind.human
                ));
            }
        }
        Ok(())
    }

    /// Refuses to delete an app, composite profile or cluster provider that other
    /// resources refer to.
    pub(super) async fn refuse_if_used(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
        let kind = name.kind();
        if kind == &APP {
            let version = name.ancestor(&COMPOSITE_APP).to_string();
            let profiles: Vec<Object<AppProfileSpec>> =
                object_list_under(tx, &APP_PROFILE, &version).await?;
            if let Some(user) = profiles.iter().find(|p| p.spec.app == name.id()) {
                return Err(in_use(name, &user.name));
            }
            let intents: Vec<Object<PlacementIntentSpec>> =
                object_list_under(tx, &PLACEMENT_INTENT, &version).await?;
            if let Some(user) = intents.iter().find(|p| p.spec.app == name.id()) {
                return Err(in_use(name, &user.name));
            }
        } else if kind == &COMPOSITE_PROFILE {
            let version = name.ancestor(&COMPOSITE_APP).to_string();
            if let Some((user, _)) = dig_list_users(tx, &version, Some(name.id()), RowLock::None)
                .await?
                .into_iter()
                .next()
            {
                return Err(in_use(name, &user));
            }
        } else if kind == &CLUSTER_PROVIDER
            && let Some(user) = placement_intent_using_provider(tx, name.id()).await?
        {
            return Err(in_use(name, &user));
        }
        Ok(())
    }

    /// Checks that the resources a spec refers to exist (apps, composite profiles,
    /// cluster providers), naming the request field otherwise.
    pub(super) async fn check_references(
        &self,
        tx: &mut Tx,
        name: &ResourceName,
        spec: &serde_json::Value,
    ) -> Result<()> {
        let kind = name.kind();
        let text = |key: &str| spec[key].as_str().unwrap_or_default().to_string();
        let lock = RowLock::KeyShare;
        if kind == &APP_PROFILE {
            let version = name.ancestor(&COMPOSITE_APP);
            let app = text("app");
            object_require(tx, &child_of(&APP, &version, &app), "app_profile.app", lock).await?;
            let profile = name.ancestor(&COMPOSITE_PROFILE).to_string();
            let siblings: Vec<Object<AppProfileSpec>> =
                object_list_under(tx, &APP_PROFILE, &profile).await?;
            if let Some(other) = siblings
                .iter()
                .find(|p| p.spec.app == app && p.name != *name)
            {
                return Err(precondition!(
                    Precondition::AppProfileExists,
                    other.name.to_string(),
                    "composite profile {profile} already has app profile {} for app {app:?}",
                    other.name
                ));
            }
        } else if kind == &DEPLOYMENT_INTENT_GROUP {
            let version = name.ancestor(&COMPOSITE_APP);
            let profile = text("composite_profile");
            object_require(
                tx,
                &child_of(&COMPOSITE_PROFILE, &version, &profile),
                "deployment_intent_group.composite_profile",
                lock,
            )
            .await?;
            let overrides: Vec<String> = spec["override_values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o["app"].as_str().map(str::to_string))
                .collect();
            for (index, app) in overrides.iter().enumerate() {
                let field = format!("deployment_intent_group.override_values[{index}].app");
                object_require(tx, &child_of(&APP, &version, app), &field, lock).await?;
            }
        } else if kind == &PLACEMENT_INTENT {
            let version = name.ancestor(&COMPOSITE_APP);
            object_require(
                tx,
                &child_of(&APP, &version, &text("app")),
                "placement_intent.app",
                lock,
            )
            .await?;
            let provider =
                ResourceName::child(&CLUSTER_PROVIDER, None, &[&text("cluster_provider")]);
            object_require(tx, &provider, "placement_intent.cluster_provider", lock).await?;
        }
        Ok(())
    }

    /// The consequences of creating, changing or deleting `name`: content changes reset
    /// approvals; network intent edits are checked against the cluster's state.
    pub(super) async fn after_write(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
        let kind = name.kind();
        let version = || name.ancestor(&COMPOSITE_APP).to_string();
        if kind == &APP {
            self.content_changed(tx, &version(), None).await
        } else if kind == &COMPOSITE_PROFILE {
            self.content_changed(tx, &version(), Some(name.id())).await
        } else if kind == &APP_PROFILE {
            let profile = name.ancestor(&COMPOSITE_PROFILE);
            self.content_changed(tx, &version(), Some(profile.id()))
                .await
        } else if kind == &PLACEMENT_INTENT {
            self.dig_changed(tx, &name.ancestor(&DEPLOYMENT_INTENT_GROUP), None)
                .await
        } else if kind == &NETWORK_INTENT {
            self.network_intents_changed(tx, &name.ancestor(&CLUSTER))
                .await
        } else {
            Ok(())
        }
    }

    /// The apps or profiles of a composite app version changed: every group using them
    /// goes back to CREATED (refused if one is INSTANTIATED).
    pub(super) async fn content_changed(
        &self,
        tx: &mut Tx,
        version: &str,
        composite_profile: Option<&str>,
    ) -> Result<()> {
        // NO KEY UPDATE, not FOR UPDATE: see `dig_changed`.
        let lock = RowLock::NoKeyUpdate;
        for (dig, _) in dig_list_users(tx, version, composite_profile, lock).await? {
            let dig = ResourceName::parse(&DEPLOYMENT_INTENT_GROUP, "name", &dig)
                .map_err(|v| Error::internal(v.description))?;
            self.dig_changed(tx, &dig, None).await?;
        }
        Ok(())
    }

    /// A group's content changed: apply the Update transition (CAS) and bump its
    /// revision; records CREATED in the history when the state changed.
    pub(super) async fn dig_changed(
        &self,
        tx: &mut Tx,
        dig: &ResourceName,
        composite_profile: Option<String>,
    ) -> Result<()> {
        // NO KEY UPDATE serializes the content changes of one group but does not
        // conflict with the key-share lock a placement intent create holds on its parent
        // group (FOR UPDATE would deadlock two creates, or a create and an app delete).
        let lock = RowLock::NoKeyUpdate;
        let status = dig_status(tx, dig, lock).await?.found(dig)?;
        let next = match dig_transition(status.state, DigOp::Update, false) {
            Ok(Transition::To(next)) => next,
            Ok(_) => status.state,
            Err(refusal) => {
                return Err(Error::invalid_transition(
                    &dig.to_string(),
                    status.state,
                    "update",
                    refusal.why,
                ));
            }
        };
        let change = DigChange {
            bump_revision: true,
            composite_profile,
            ..Default::default()
        };
        let revision = dig_update_state(tx, dig, status.state, next, change).await?;
        if next != status.state {
            let event = DigEvent::of(DigOp::Update, next);
            history_append(tx, &dig.to_string(), event, None, revision).await?;
        } else {
            let owner = dig.to_string();
            revision_changed(tx, &owner, next.as_str(), status.current_instance);
        }
        Ok(())
    }
}

/// Everything a group's rendering depends on.
pub(super) struct DigContent {
    apps: Vec<Object<AppSpec>>,
    app_profiles: Vec<Object<AppProfileSpec>>,
    intents: Vec<Object<PlacementIntentSpec>>,
    json: serde_json::Value,
    /// Resource name -> hash of its spec, for every resource above (and the group and
    /// its composite profile): what a pending revision lists as changed.
    digest: std::collections::BTreeMap<String, String>,
}

/// Terminates an instance: resources rsync never handled (Pending) need no delete and
/// become Terminated at once; applied ones wait for rsync's delete, and so do those
/// never applied (Pending, Failed) whose object an older instance had handed over to
/// it (the object is on the cluster from that instance's apply).
pub(super) async fn terminate_instance(tx: &mut Tx, instance: InstanceId) -> Result<()> {
    rsync_let_go_unapplied(tx, Scope::Instance(instance)).await?;
    instance_terminate(tx, instance).await
}

pub(super) fn child_of(kind: &'static Kind, parent: &ResourceName, id: &str) -> ResourceName {
    ResourceName::child(kind, Some(parent), &[id])
}

pub(super) fn in_use(name: &ResourceName, user: &impl std::fmt::Display) -> Error {
    precondition!(
        Precondition::InUse,
        user.to_string(),
        "{} {name} is used by {user}; change or delete that first",
        name.kind().human
    )
}

/// Refuses a rendering in which two apps put the same object (group, kind, namespace,
/// name) on one cluster: they would overwrite each other on every apply.
pub(super) fn refuse_duplicate_objects(resources: &[RsyncResource]) -> Result<()> {
    // An app renders an object the same on every cluster, so two resources can name
    // one object on a cluster only if two apps render it, or one app twice (under two
    // API versions). Those objects are found from the documents (a few per app) first;
    // only theirs are then looked for per cluster. A map of every (cluster, object)
    // cost 200 MB for an instance of 1,000,000 resources.
    type Object<'r> = (&'r str, &'r str, &'r str, &'r str);
    fn object(r: &RsyncResource) -> Object<'_> {
        (&r.gvk.group, &r.gvk.kind, &r.namespace, &r.name)
    }
    use std::collections::{HashMap, HashSet};
    let mut renders: HashMap<(&str, Object<'_>), usize> = HashMap::new();
    let mut clusters: HashMap<&str, HashSet<&str>> = HashMap::new();
    for r in resources {
        *renders.entry((&r.app, object(r))).or_default() += 1;
        clusters.entry(&r.app).or_default().insert(&r.cluster);
    }
    let mut renderer: HashMap<Object<'_>, &str> = HashMap::new();
    let mut shared = HashSet::new();
    for ((app, object), n) in renders {
        if n > clusters[app].len() || *renderer.entry(object).or_insert(app) != app {
            shared.insert(object);
        }
    }
    if shared.is_empty() {
        return Ok(());
    }
    let mut seen = HashMap::new();
    for r in resources.iter().filter(|r| shared.contains(&object(r))) {
        let key = (&r.cluster, object(r));
        if let Some(first) = seen.insert(key, &r.app) {
            return Err(precondition!(
                Precondition::DuplicateObject,
                format!("apps/{first}"),
                "apps {first:?} and {:?} both render {} {}/{} on {}; one object has one owner",
                r.app,
                r.gvk.kind,
                r.namespace,
                r.name,
                r.cluster
            ));
        }
    }
    Ok(())
}

/// The rendered documents of an app as JSON text, once for all the clusters they are
/// bound to.
pub(super) fn serialize(documents: &[RenderedDoc]) -> Result<Vec<std::sync::Arc<str>>> {
    documents
        .iter()
        .map(|doc| {
            serde_json::to_string(&doc.manifest)
                .map(Into::into)
                .map_err(Error::internal)
        })
        .collect()
}

/// Binds rendered documents of `app` (with their JSON from [`serialize`]) to `cluster`
/// as Pending rsync resources.
pub(super) fn bind(
    app: &str,
    cluster: &ClusterName,
    documents: &[RenderedDoc],
    manifests: &[std::sync::Arc<str>],
) -> Vec<RsyncResource> {
    documents
        .iter()
        .zip(manifests)
        .map(|(doc, manifest)| RsyncResource {
            app: app.to_string(),
            cluster: cluster.clone(),
            gvk: doc.gvk.clone(),
            namespace: doc.namespace.clone(),
            name: doc.name.clone(),
            manifest: manifest.clone(),
            status: RsyncStatus::Pending,
            cluster_status: crate::domain::readiness::ClusterStatus::Unknown,
            readiness: crate::domain::readiness::Readiness::None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::manifest::Gvk;

    fn resource(app: &str, cluster: &str, version: &str, name: &str) -> RsyncResource {
        RsyncResource {
            app: app.into(),
            cluster: ClusterName::from(cluster),
            gvk: Gvk {
                group: "apps".into(),
                version: version.into(),
                kind: "Deployment".into(),
            },
            namespace: "default".into(),
            name: name.into(),
            manifest: "{}".into(),
            status: RsyncStatus::Pending,
            cluster_status: crate::domain::readiness::ClusterStatus::Unknown,
            readiness: crate::domain::readiness::Readiness::None,
        }
    }

    fn refused(resources: &[RsyncResource]) -> Option<String> {
        refuse_duplicate_objects(resources)
            .err()
            .map(|e| e.to_string())
    }

    /// Every way two resources can name one object on one cluster, and the ways that
    /// look alike and are not.
    #[test]
    fn one_object_on_one_cluster_has_one_owner() {
        // Each app's objects on each of its clusters: nothing shared.
        let fleet: Vec<RsyncResource> = ["a", "b"]
            .iter()
            .flat_map(|app| {
                ["c1", "c2", "c3"].map(|c| resource(app, c, "v1", &format!("{app}-web")))
            })
            .collect();
        assert_eq!(refused(&fleet), None);
        // Two apps render one object, on clusters they do not share: no conflict.
        let apart = [
            resource("a", "c1", "v1", "web"),
            resource("a", "c2", "v1", "web"),
            resource("b", "c3", "v1", "web"),
        ];
        assert_eq!(refused(&apart), None);
        // ... on a cluster they share: refused, naming both apps and the cluster.
        let shared = [
            resource("a", "c1", "v1", "web"),
            resource("a", "c2", "v1", "web"),
            resource("b", "c3", "v1", "web"),
            resource("b", "c2", "v1", "web"),
        ];
        let why = refused(&shared).expect("refused");
        assert!(why.contains("\"a\" and \"b\""), "{why}");
        assert!(why.contains("c2"), "{why}");
        // One app rendering the object under two API versions, on every cluster.
        let versions = [
            resource("a", "c1", "v1", "web"),
            resource("a", "c1", "v1beta1", "web"),
            resource("a", "c2", "v1", "web"),
            resource("a", "c2", "v1beta1", "web"),
        ];
        let why = refused(&versions).expect("refused");
        assert!(why.contains("\"a\" and \"a\""), "{why}");
    }
}
