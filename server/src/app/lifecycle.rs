//! The LifecycleService use cases: CRUD of the EMCO resources, the deployment intent
//! group and cluster network intents verbs, and rendering at instantiate/apply.
//!
//! Invariants kept here:
//! - a change of a group, its intents, or the apps and profiles it uses moves an
//!   APPROVED or TERMINATED group back to CREATED (and is refused while INSTANTIATED),
//!   in the same transaction as the change;
//! - an instance is rendered and persisted in one transaction with the state change,
//!   so a refused or failed instantiate writes nothing.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{RequestKey, check_etag, idempotent};
use crate::domain::lifecycle::{
    DigOp, DigState, NetworkOp, NetworkState, Transition, dig_transition, network_transition,
};
use crate::domain::names::{
    APP, APP_PROFILE, CLUSTER, CLUSTER_PROVIDER, COMPOSITE_APP, COMPOSITE_PROFILE,
    DEPLOYMENT_INTENT_GROUP, Kind, NETWORK_INTENT, PLACEMENT_INTENT, PROJECT, ResourceName,
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
use crate::error::{Error, Result};
use crate::ids::InstanceId;
use crate::store::cluster::cluster_set_token_hash;
use crate::store::dig::{
    DigChange, DigStatus, dig_insert, dig_list_users, dig_status, dig_update_state,
};
use crate::store::history::{HistoryEntry, history_append, history_delete, history_list};
use crate::store::instance::{
    InstanceRow, instance_clusters, instance_delete_for_owner, instance_find, instance_insert,
    instance_instantiated_user_of_cluster, instance_terminate,
};
use crate::store::network::{
    NetworkStatus, cluster_insert, cluster_network_status, cluster_update_network_state,
};
use crate::store::object::{
    Object, new_object, object_delete, object_find, object_first_child, object_get, object_insert,
    object_list, object_list_under, object_require, object_update,
};
use crate::store::rsync_resource::{
    ResourceFilter, ResourceKey, RsyncResource, rsync_resources_active_on_cluster,
    rsync_resources_awaiting_delete, rsync_resources_insert, rsync_resources_list,
};
use crate::store::status::{rsync_bulk_transition, status_delete_for_owner};
use crate::store::{Store, Tx, now_micros};

/// A deployment intent group as returned by the API.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DigView {
    pub object: Object<DigSpec>,
    pub status: DigStatus,
    pub history: Vec<HistoryEntry>,
}

/// A cluster as returned by the API.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClusterView {
    pub object: Object<ClusterSpec>,
    pub network: NetworkStatus,
    pub history: Vec<HistoryEntry>,
    /// A new agent token, only in the responses of create and rotate. Never serialized,
    /// so the idempotency record of a create does not keep it in clear.
    #[serde(skip)]
    pub agent_token: Option<String>,
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
}

impl Lifecycle {
    pub fn new(store: Store) -> Self {
        Self { store, hooks: None }
    }

    /// Tells `hooks` about committed changes that other parts of the server act on.
    pub fn with_hooks(store: Store, hooks: std::sync::Arc<dyn super::Hooks>) -> Self {
        Self {
            store,
            hooks: Some(hooks),
        }
    }

    /// Wakes rsync for the clusters of `instance` (after a verb committed).
    async fn work_changed(&self, instance: Option<InstanceId>) {
        let (Some(hooks), Some(instance)) = (&self.hooks, instance) else {
            return;
        };
        let clusters = match self.store.read().await {
            Ok(mut conn) => instance_clusters(&mut conn, instance)
                .await
                .unwrap_or_default(),
            Err(_) => Vec::new(),
        };
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
            object_require(&mut conn, parent, "parent").await?;
        }
        let parent = parent.map(ToString::to_string).unwrap_or_default();
        let mut items = object_list(&mut conn, kind, &parent, after, page_size as i64 + 1).await?;
        let more = items.len() > page_size;
        items.truncate(page_size);
        Ok(Page { items, more })
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
    pub async fn update<S>(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        merge: impl FnOnce(&Object<S>) -> Result<S>,
    ) -> Result<Object<S>>
    where
        S: Serialize + DeserializeOwned + Clone,
    {
        let mut tx = self.store.begin().await?;
        let current: Object<S> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        let spec = merge(&current)?;
        self.check_references(&mut tx, name, &json!(spec)).await?;
        let (generation, update_time) =
            object_update(&mut tx, name, &spec, current.generation).await?;
        self.after_write(&mut tx, name).await?;
        tx.commit().await?;
        Ok(Object {
            spec,
            generation,
            update_time,
            ..current
        })
    }

    /// Deletes a resource of a plain kind; refused while it has children or is used.
    pub async fn delete(&self, name: &ResourceName, etag: Option<i64>) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let current: Object<serde_json::Value> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        self.refuse_if_children(&mut tx, name).await?;
        self.refuse_if_used(&mut tx, name).await?;
        object_delete(&mut tx, name, current.generation).await?;
        self.after_write(&mut tx, name).await?;
        tx.commit().await
    }

    async fn require_parent(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
        let kind = name.kind();
        if kind.parent_pairs == 0 {
            return Ok(());
        }
        let parent_kind = PARENTS
            .iter()
            .find(|(child, _)| *child == kind)
            .map(|(_, parent)| *parent)
            .expect("every nested kind has a parent");
        object_require(tx, &name.ancestor(parent_kind), "parent").await
    }

    /// Refuses to delete a resource that still has children.
    async fn refuse_if_children(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
        for (child_kind, parent_kind) in PARENTS {
            if parent_kind != name.kind() {
                continue;
            }
            if let Some(child) = object_first_child(tx, child_kind, name).await? {
                return Err(Error::precondition(
                    "HAS_CHILDREN",
                    "CHILDREN",
                    child.clone(),
                    format!(
                        "{} {name} still has {}s (e.g. {child}); delete them first",
                        name.kind().human,
                        child_kind.human
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses to delete an app or composite profile that other resources refer to.
    async fn refuse_if_used(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
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
            if let Some((user, _)) = dig_list_users(tx, &version, Some(name.id()), "")
                .await?
                .into_iter()
                .next()
            {
                return Err(in_use(name, &user));
            }
        }
        Ok(())
    }

    /// Checks that the resources a spec refers to exist (apps, composite profiles,
    /// cluster providers), naming the request field otherwise.
    async fn check_references(
        &self,
        tx: &mut Tx,
        name: &ResourceName,
        spec: &serde_json::Value,
    ) -> Result<()> {
        let kind = name.kind();
        let text = |key: &str| spec[key].as_str().unwrap_or_default().to_string();
        if kind == &APP_PROFILE {
            let version = name.ancestor(&COMPOSITE_APP);
            let app = text("app");
            object_require(tx, &child_of(&APP, &version, &app), "app_profile.app").await?;
            let profile = name.ancestor(&COMPOSITE_PROFILE).to_string();
            let siblings: Vec<Object<AppProfileSpec>> =
                object_list_under(tx, &APP_PROFILE, &profile).await?;
            if let Some(other) = siblings
                .iter()
                .find(|p| p.spec.app == app && p.name != *name)
            {
                return Err(Error::precondition(
                    "APP_PROFILE_EXISTS",
                    "UNIQUE",
                    other.name.to_string(),
                    format!(
                        "composite profile {profile} already has app profile {} for app {app:?}",
                        other.name
                    ),
                ));
            }
        } else if kind == &DEPLOYMENT_INTENT_GROUP {
            let version = name.ancestor(&COMPOSITE_APP);
            let profile = text("composite_profile");
            object_require(
                tx,
                &child_of(&COMPOSITE_PROFILE, &version, &profile),
                "deployment_intent_group.composite_profile",
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
                object_require(tx, &child_of(&APP, &version, app), &field).await?;
            }
        } else if kind == &PLACEMENT_INTENT {
            let version = name.ancestor(&COMPOSITE_APP);
            object_require(
                tx,
                &child_of(&APP, &version, &text("app")),
                "placement_intent.app",
            )
            .await?;
            let provider =
                ResourceName::child(&CLUSTER_PROVIDER, None, &[&text("cluster_provider")]);
            object_require(tx, &provider, "placement_intent.cluster_provider").await?;
        }
        Ok(())
    }

    /// The consequences of creating, changing or deleting `name`: content changes reset
    /// approvals; network intent edits are checked against the cluster's state.
    async fn after_write(&self, tx: &mut Tx, name: &ResourceName) -> Result<()> {
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
    async fn content_changed(
        &self,
        tx: &mut Tx,
        version: &str,
        composite_profile: Option<&str>,
    ) -> Result<()> {
        let lock = tx.for_update();
        for (dig, _) in dig_list_users(tx, version, composite_profile, lock).await? {
            let dig = ResourceName::parse(&DEPLOYMENT_INTENT_GROUP, "name", &dig)
                .map_err(|v| Error::internal(v.description))?;
            self.dig_changed(tx, &dig, None).await?;
        }
        Ok(())
    }

    /// A group's content changed: apply the Update transition (CAS) and bump its
    /// revision; records CREATED in the history when the state changed.
    async fn dig_changed(
        &self,
        tx: &mut Tx,
        dig: &ResourceName,
        composite_profile: Option<String>,
    ) -> Result<()> {
        let lock = tx.for_update();
        let status = dig_status(tx, dig, lock)
            .await?
            .ok_or_else(|| Error::not_found(DEPLOYMENT_INTENT_GROUP.type_name, dig.to_string()))?;
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
            history_append(tx, &dig.to_string(), next.as_str(), "", revision).await?;
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------
    // Deployment intent groups
    // -----------------------------------------------------------------------------

    async fn dig_view(
        &self,
        conn: &mut sqlx::AnyConnection,
        name: &ResourceName,
    ) -> Result<DigView> {
        let object = object_get(conn, name).await?;
        let status = dig_status(conn, name, "")
            .await?
            .ok_or_else(|| Error::not_found(DEPLOYMENT_INTENT_GROUP.type_name, name.to_string()))?;
        let history = history_list(conn, &name.to_string()).await?;
        Ok(DigView {
            object,
            status,
            history,
        })
    }

    pub async fn create_dig(
        &self,
        name: ResourceName,
        spec: DigSpec,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        idempotent(&self.store, key, async |tx: &mut Tx| {
            self.require_parent(tx, &name).await?;
            self.check_references(tx, &name, &json!(spec)).await?;
            let object = new_object(name.clone(), spec);
            dig_insert(tx, &object).await?;
            history_append(tx, &name.to_string(), DigState::Created.as_str(), "", 1).await?;
            self.dig_view(tx, &name).await
        })
        .await
    }

    pub async fn get_dig(&self, name: &ResourceName) -> Result<DigView> {
        let mut conn = self.store.read().await?;
        self.dig_view(&mut conn, name).await
    }

    pub async fn list_digs(
        &self,
        parent: &ResourceName,
        after: &str,
        page_size: usize,
    ) -> Result<Page<DigView>> {
        let page: Page<Object<DigSpec>> = self
            .list(&DEPLOYMENT_INTENT_GROUP, Some(parent), after, page_size)
            .await?;
        let mut conn = self.store.read().await?;
        let mut items = Vec::with_capacity(page.items.len());
        for object in page.items {
            items.push(self.dig_view(&mut conn, &object.name).await?);
        }
        Ok(Page {
            items,
            more: page.more,
        })
    }

    pub async fn update_dig(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        merge: impl FnOnce(&DigSpec) -> Result<DigSpec>,
    ) -> Result<DigView> {
        let mut tx = self.store.begin().await?;
        let current: Object<DigSpec> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        let spec = merge(&current.spec)?;
        self.check_references(&mut tx, name, &json!(spec)).await?;
        object_update(&mut tx, name, &spec, current.generation).await?;
        self.dig_changed(&mut tx, name, Some(spec.composite_profile.clone()))
            .await?;
        let view = self.dig_view(&mut tx, name).await?;
        tx.commit().await?;
        Ok(view)
    }

    pub async fn delete_dig(&self, name: &ResourceName, etag: Option<i64>) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let lock = tx.for_update();
        let status = dig_status(&mut tx, name, lock)
            .await?
            .ok_or_else(|| Error::not_found(DEPLOYMENT_INTENT_GROUP.type_name, name.to_string()))?;
        let current: Object<DigSpec> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        let terminating = match status.current_instance {
            Some(instance) => rsync_resources_awaiting_delete(&mut tx, instance).await? > 0,
            None => false,
        };
        if let Err(refusal) = dig_transition(status.state, DigOp::Delete, terminating) {
            return Err(Error::invalid_transition(
                &name.to_string(),
                status.state,
                "delete",
                refusal.why,
            ));
        }
        self.refuse_if_children(&mut tx, name).await?;
        let owner = name.to_string();
        status_delete_for_owner(&mut tx, &owner).await?;
        instance_delete_for_owner(&mut tx, &owner).await?;
        history_delete(&mut tx, &owner).await?;
        object_delete(&mut tx, name, current.generation).await?;
        tx.commit().await
    }

    /// Runs a verb on a group: reads its state under lock, asks the state machine,
    /// and applies the transition with `apply` (which returns the state change).
    async fn dig_verb(
        &self,
        name: &ResourceName,
        op: DigOp,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        idempotent(&self.store, key, async |tx: &mut Tx| {
            let lock = tx.for_update();
            let status = dig_status(tx, name, lock).await?.ok_or_else(|| {
                Error::not_found(DEPLOYMENT_INTENT_GROUP.type_name, name.to_string())
            })?;
            let object: Object<DigSpec> = object_get(tx, name).await?;
            check_etag(name, etag, object.generation)?;
            let next = match dig_transition(status.state, op, false) {
                Ok(Transition::To(next)) => next,
                Ok(Transition::NoOp | Transition::Keep) => return self.dig_view(tx, name).await,
                Err(refusal) => {
                    return Err(Error::invalid_transition(
                        &name.to_string(),
                        status.state,
                        op.verb(),
                        refusal.why,
                    ));
                }
            };
            let owner = name.to_string();
            let (change, instance) = match op {
                DigOp::Approve => {
                    let hash = content_hash(&self.dig_content(tx, &object).await?.json);
                    let change = DigChange {
                        approved_hash: Some(hash),
                        ..Default::default()
                    };
                    (change, String::new())
                }
                DigOp::Instantiate => {
                    let instance = self.instantiate(tx, &object, &status).await?;
                    let change = DigChange {
                        current_instance: Some(instance),
                        ..Default::default()
                    };
                    (change, instance.to_string())
                }
                DigOp::Terminate => {
                    let instance = status.current_instance.ok_or_else(|| {
                        Error::internal(format!("{name} is instantiated without an instance"))
                    })?;
                    terminate_instance(tx, instance).await?;
                    (DigChange::default(), instance.to_string())
                }
                DigOp::Update | DigOp::Delete => unreachable!("not verbs"),
            };
            let revision = dig_update_state(tx, name, status.state, next, change).await?;
            history_append(tx, &owner, next.as_str(), &instance, revision).await?;
            self.dig_view(tx, name).await
        })
        .await
    }

    /// Runs a verb, then wakes rsync for the clusters of the resulting instance.
    async fn dig_verb_and_wake(
        &self,
        name: &ResourceName,
        op: DigOp,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        let view = self.dig_verb(name, op, etag, key).await?;
        self.work_changed(view.status.current_instance).await;
        Ok(view)
    }

    pub async fn approve_dig(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        self.dig_verb(name, DigOp::Approve, etag, key).await
    }

    pub async fn instantiate_dig(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        self.dig_verb_and_wake(name, DigOp::Instantiate, etag, key)
            .await
    }

    pub async fn terminate_dig(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        self.dig_verb_and_wake(name, DigOp::Terminate, etag, key)
            .await
    }

    /// Everything a group's rendering depends on, and its JSON (hashed by approval).
    async fn dig_content(&self, tx: &mut Tx, dig: &Object<DigSpec>) -> Result<DigContent> {
        let version = dig.name.ancestor(&COMPOSITE_APP);
        let profile = child_of(&COMPOSITE_PROFILE, &version, &dig.spec.composite_profile);
        let apps: Vec<Object<AppSpec>> = object_list_under(tx, &APP, &version.to_string()).await?;
        let app_profiles: Vec<Object<AppProfileSpec>> =
            object_list_under(tx, &APP_PROFILE, &profile.to_string()).await?;
        let intents: Vec<Object<PlacementIntentSpec>> =
            object_list_under(tx, &PLACEMENT_INTENT, &dig.name.to_string()).await?;
        let profile_object: Option<Object<serde_json::Value>> = object_find(tx, &profile).await?;
        let json = json!({
            "deployment_intent_group": dig.spec,
            "composite_profile": profile_object.map(|p| p.spec),
            "apps": apps.iter().map(|a| (a.name.to_string(), &a.spec)).collect::<Vec<_>>(),
            "app_profiles": app_profiles.iter().map(|p| (p.name.to_string(), &p.spec)).collect::<Vec<_>>(),
            "placement_intents": intents.iter().map(|p| (p.name.to_string(), &p.spec)).collect::<Vec<_>>(),
        });
        Ok(DigContent {
            apps,
            app_profiles,
            intents,
            json,
        })
    }

    /// Renders a new instance of `dig` and persists it with its rsync resources.
    async fn instantiate(
        &self,
        tx: &mut Tx,
        dig: &Object<DigSpec>,
        status: &DigStatus,
    ) -> Result<InstanceId> {
        let content = self.dig_content(tx, dig).await?;
        if content_hash(&content.json) != status.approved_hash {
            return Err(Error::precondition(
                "CONTENT_CHANGED",
                "APPROVAL",
                dig.name.to_string(),
                format!(
                    "{} changed since it was approved; approve it again",
                    dig.name
                ),
            ));
        }
        if content.apps.is_empty() {
            return Err(Error::precondition(
                "NO_APPS",
                "PLACEMENT",
                dig.name.ancestor(&COMPOSITE_APP).to_string(),
                "the composite app version has no apps to instantiate",
            ));
        }
        let candidates = self.cluster_candidates(tx, &content.intents).await?;
        let instance = InstanceId::new();
        let mut resources = Vec::new();
        let mut clusters = std::collections::BTreeSet::new();
        for app in &content.apps {
            let app_id = app.name.id();
            let intents: Vec<&PlacementIntentSpec> = content
                .intents
                .iter()
                .filter(|i| i.spec.app == app_id)
                .map(|i| &i.spec)
                .collect();
            if intents.is_empty() {
                return Err(Error::precondition(
                    "PLACEMENT_MISSING",
                    "PLACEMENT",
                    app.name.to_string(),
                    format!("app {app_id:?} has no placement intent in {}", dig.name),
                ));
            }
            let placed = resolve_placement(app_id, &intents, &candidates)?;
            if placed.is_empty() {
                return Err(Error::precondition(
                    "PLACEMENT_EMPTY",
                    "PLACEMENT",
                    app.name.to_string(),
                    format!("the placement intents of app {app_id:?} match no cluster"),
                ));
            }
            let patches: Vec<&ManifestPatch> = content
                .app_profiles
                .iter()
                .filter(|p| p.spec.app == app_id)
                .flat_map(|p| &p.spec.patches)
                .chain(
                    dig.spec
                        .override_values
                        .iter()
                        .filter(|o| o.app == app_id)
                        .flat_map(|o| &o.patches),
                )
                .collect();
            let documents = render_app(instance, app_id, &app.spec.manifests, &patches)?;
            for (provider, cluster) in placed {
                let cluster = format!("clusterProviders/{provider}/clusters/{cluster}");
                resources.extend(bind(app_id, &cluster, &documents)?);
                clusters.insert(cluster);
            }
        }
        let row = InstanceRow {
            id: instance,
            owner: dig.name.to_string(),
            revision: status.revision,
            resource_count: resources.len() as i64,
            create_time: now_micros(),
            terminate_time: None,
        };
        let clusters: Vec<String> = clusters.into_iter().collect();
        instance_insert(tx, &row, &clusters).await?;
        rsync_resources_insert(tx, instance, &resources).await?;
        Ok(instance)
    }

    async fn cluster_candidates(
        &self,
        tx: &mut Tx,
        intents: &[Object<PlacementIntentSpec>],
    ) -> Result<Vec<ClusterCandidate>> {
        let providers: std::collections::BTreeSet<&str> = intents
            .iter()
            .map(|i| i.spec.cluster_provider.as_str())
            .collect();
        let mut candidates = Vec::new();
        for provider in providers {
            let clusters: Vec<Object<ClusterSpec>> =
                object_list_under(tx, &CLUSTER, &format!("clusterProviders/{provider}")).await?;
            candidates.extend(clusters.into_iter().map(|c| ClusterCandidate {
                provider: provider.to_string(),
                cluster: c.name.id().to_string(),
                labels: c.spec.labels,
            }));
        }
        Ok(candidates)
    }

    // -----------------------------------------------------------------------------
    // Clusters and their network intents
    // -----------------------------------------------------------------------------

    async fn cluster_view(
        &self,
        conn: &mut sqlx::AnyConnection,
        name: &ResourceName,
    ) -> Result<ClusterView> {
        let object = object_get(conn, name).await?;
        let network = cluster_network_status(conn, name, "")
            .await?
            .ok_or_else(|| Error::not_found(CLUSTER.type_name, name.to_string()))?;
        let history = history_list(conn, &name.to_string()).await?;
        Ok(ClusterView {
            object,
            network,
            history,
            agent_token: None,
        })
    }

    pub async fn create_cluster(
        &self,
        name: ResourceName,
        spec: ClusterSpec,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        let view = self.create_cluster_in_tx(name, spec, key).await?;
        if let Some(hooks) = &self.hooks {
            let embedded = view.object.spec.connection_mode == ConnectionMode::EmbeddedSim;
            hooks
                .cluster_created(&view.object.name.to_string(), embedded)
                .await;
        }
        Ok(view)
    }

    async fn create_cluster_in_tx(
        &self,
        name: ResourceName,
        spec: ClusterSpec,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        idempotent(&self.store, key, async |tx: &mut Tx| {
            self.require_parent(tx, &name).await?;
            let agent = spec.connection_mode == ConnectionMode::Agent;
            let object = new_object(name.clone(), spec);
            cluster_insert(tx, &object).await?;
            history_append(tx, &name.to_string(), NetworkState::Created.as_str(), "", 1).await?;
            let token = if agent {
                Some(issue_agent_token(tx, &name.to_string()).await?)
            } else {
                None
            };
            let mut view = self.cluster_view(tx, &name).await?;
            view.agent_token = token;
            Ok(view)
        })
        .await
    }

    /// Issues a new agent token for an AGENT cluster; the old one stops working.
    pub async fn rotate_agent_token(&self, name: &ResourceName) -> Result<ClusterView> {
        let mut tx = self.store.begin().await?;
        let object: Object<ClusterSpec> = object_get(&mut tx, name).await?;
        if object.spec.connection_mode != ConnectionMode::Agent {
            return Err(Error::precondition(
                "NOT_AN_AGENT_CLUSTER",
                "CONNECTION_MODE",
                name.to_string(),
                format!("{name} is served by an embedded sim agent and has no agent token"),
            ));
        }
        let token = issue_agent_token(&mut tx, &name.to_string()).await?;
        let mut view = self.cluster_view(&mut tx, name).await?;
        tx.commit().await?;
        view.agent_token = Some(token);
        Ok(view)
    }

    pub async fn get_cluster(&self, name: &ResourceName) -> Result<ClusterView> {
        let mut conn = self.store.read().await?;
        self.cluster_view(&mut conn, name).await
    }

    pub async fn list_clusters(
        &self,
        parent: &ResourceName,
        selector: &Labels,
        after: &str,
        page_size: usize,
    ) -> Result<Page<ClusterView>> {
        let mut conn = self.store.read().await?;
        object_require(&mut conn, parent, "parent").await?;
        let mut items = Vec::new();
        let mut cursor = after.to_string();
        // Label filtering happens after the keyset read, so read in batches until the
        // page is full or the clusters run out.
        loop {
            let batch: Vec<Object<ClusterSpec>> =
                object_list(&mut conn, &CLUSTER, &parent.to_string(), &cursor, 500).await?;
            let exhausted = batch.len() < 500;
            for object in batch {
                cursor = object.name.to_string();
                if !labels_match(selector, &object.spec.labels) {
                    continue;
                }
                if items.len() == page_size {
                    return Ok(Page { items, more: true });
                }
                items.push(self.cluster_view(&mut conn, &object.name).await?);
            }
            if exhausted {
                return Ok(Page { items, more: false });
            }
        }
    }

    pub async fn update_cluster(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        merge: impl FnOnce(&Object<ClusterSpec>) -> Result<ClusterSpec>,
    ) -> Result<ClusterView> {
        self.update(name, etag, merge).await?;
        self.get_cluster(name).await
    }

    pub async fn delete_cluster(&self, name: &ResourceName, etag: Option<i64>) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let lock = tx.for_update();
        let network = cluster_network_status(&mut tx, name, lock)
            .await?
            .ok_or_else(|| Error::not_found(CLUSTER.type_name, name.to_string()))?;
        let current: Object<ClusterSpec> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        let terminating = match network.current_instance {
            Some(instance) => rsync_resources_awaiting_delete(&mut tx, instance).await? > 0,
            None => false,
        };
        if let Err(refusal) =
            network_transition(network.state, NetworkOp::DeleteCluster, terminating)
        {
            return Err(Error::invalid_transition(
                &name.to_string(),
                network.state,
                NetworkOp::DeleteCluster.verb(),
                refusal.why,
            ));
        }
        self.refuse_if_children(&mut tx, name).await?;
        let cluster = name.to_string();
        if let Some(dig) = instance_instantiated_user_of_cluster(&mut tx, &cluster).await? {
            return Err(Error::precondition(
                "CLUSTER_IN_USE",
                "REFERENCE",
                dig.clone(),
                format!(
                    "instantiated deployment intent group {dig} is placed on {cluster}; terminate it first"
                ),
            ));
        }
        if rsync_resources_active_on_cluster(&mut tx, &cluster).await? {
            return Err(Error::precondition(
                "CLUSTER_IN_USE",
                "REFERENCE",
                cluster.clone(),
                format!(
                    "resources on {cluster} are still being deleted; retry when termination finished"
                ),
            ));
        }
        status_delete_for_owner(&mut tx, &cluster).await?;
        instance_delete_for_owner(&mut tx, &cluster).await?;
        history_delete(&mut tx, &cluster).await?;
        object_delete(&mut tx, name, current.generation).await?;
        tx.commit().await?;
        if let Some(hooks) = &self.hooks {
            hooks.cluster_deleted(&cluster).await;
        }
        Ok(())
    }

    /// A network intent of `cluster` is about to change: refused while APPLIED; bumps the
    /// network revision otherwise.
    async fn network_intents_changed(&self, tx: &mut Tx, cluster: &ResourceName) -> Result<()> {
        let lock = tx.for_update();
        let network = cluster_network_status(tx, cluster, lock)
            .await?
            .ok_or_else(|| Error::not_found(CLUSTER.type_name, cluster.to_string()))?;
        if let Err(refusal) = network_transition(network.state, NetworkOp::EditIntent, false) {
            return Err(Error::invalid_transition(
                &cluster.to_string(),
                network.state,
                NetworkOp::EditIntent.verb(),
                refusal.why,
            ));
        }
        cluster_update_network_state(tx, cluster, network.state, network.state, true, None).await?;
        Ok(())
    }

    async fn network_verb(
        &self,
        name: &ResourceName,
        op: NetworkOp,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        idempotent(&self.store, key, async |tx: &mut Tx| {
            let lock = tx.for_update();
            let network = cluster_network_status(tx, name, lock)
                .await?
                .ok_or_else(|| Error::not_found(CLUSTER.type_name, name.to_string()))?;
            let object: Object<ClusterSpec> = object_get(tx, name).await?;
            check_etag(name, etag, object.generation)?;
            let next = match network_transition(network.state, op, false) {
                Ok(Transition::To(next)) => next,
                Ok(Transition::NoOp | Transition::Keep) => {
                    return self.cluster_view(tx, name).await;
                }
                Err(refusal) => {
                    return Err(Error::invalid_transition(
                        &name.to_string(),
                        network.state,
                        op.verb(),
                        refusal.why,
                    ));
                }
            };
            let (instance, new_current) = match op {
                NetworkOp::Apply => {
                    let instance = self
                        .apply_network_intents(tx, name, network.revision)
                        .await?;
                    (instance, Some(instance))
                }
                NetworkOp::Terminate => {
                    let instance = network.current_instance.ok_or_else(|| {
                        Error::internal(format!("{name} is applied without an instance"))
                    })?;
                    terminate_instance(tx, instance).await?;
                    (instance, None)
                }
                NetworkOp::EditIntent | NetworkOp::DeleteCluster => unreachable!("not verbs"),
            };
            let revision =
                cluster_update_network_state(tx, name, network.state, next, false, new_current)
                    .await?;
            history_append(
                tx,
                &name.to_string(),
                next.as_str(),
                &instance.to_string(),
                revision,
            )
            .await?;
            self.cluster_view(tx, name).await
        })
        .await
    }

    async fn apply_network_intents(
        &self,
        tx: &mut Tx,
        cluster: &ResourceName,
        revision: i64,
    ) -> Result<InstanceId> {
        let intents: Vec<Object<NetworkIntentSpec>> =
            object_list_under(tx, &NETWORK_INTENT, &cluster.to_string()).await?;
        if intents.is_empty() {
            return Err(Error::precondition(
                "NO_NETWORK_INTENTS",
                "NETWORK_INTENTS",
                cluster.to_string(),
                format!("cluster {cluster} has no network intents to apply"),
            ));
        }
        let instance = InstanceId::new();
        let specs: Vec<(String, NetworkIntentSpec)> = intents
            .into_iter()
            .map(|o| (o.name.id().to_string(), o.spec))
            .collect();
        let documents = render_network_intents(instance, &specs);
        let cluster_name = cluster.to_string();
        let resources = bind(NETWORK_INTENTS_APP, &cluster_name, &documents)?;
        let row = InstanceRow {
            id: instance,
            owner: cluster_name.clone(),
            revision,
            resource_count: resources.len() as i64,
            create_time: now_micros(),
            terminate_time: None,
        };
        instance_insert(tx, &row, &[cluster_name]).await?;
        rsync_resources_insert(tx, instance, &resources).await?;
        Ok(instance)
    }

    pub async fn apply_network_intents_verb(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        let view = self.network_verb(name, NetworkOp::Apply, etag, key).await?;
        self.work_changed(view.network.current_instance).await;
        Ok(view)
    }

    pub async fn terminate_network_intents_verb(
        &self,
        name: &ResourceName,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        self.network_verb(name, NetworkOp::Terminate, etag, key)
            .await
    }

    // -----------------------------------------------------------------------------
    // Rendered resources
    // -----------------------------------------------------------------------------

    /// Lists rendered resources of `instance` (or the owner's current instance).
    pub async fn list_rendered(
        &self,
        owner: &ResourceName,
        instance: Option<InstanceId>,
        filter: &ResourceFilter,
        after: Option<&ResourceKey>,
        page_size: usize,
    ) -> Result<RenderedPage> {
        let mut conn = self.store.read().await?;
        let current = if owner.kind() == &DEPLOYMENT_INTENT_GROUP {
            dig_status(&mut conn, owner, "")
                .await?
                .map(|s| s.current_instance)
        } else {
            cluster_network_status(&mut conn, owner, "")
                .await?
                .map(|s| s.current_instance)
        }
        .ok_or_else(|| Error::not_found(owner.kind().type_name, owner.to_string()))?;
        let id = match instance.or(current) {
            Some(id) => id,
            None => {
                return Err(Error::precondition(
                    "NO_INSTANCE",
                    "INSTANCE",
                    owner.to_string(),
                    format!("{owner} has no instance yet"),
                ));
            }
        };
        let row = instance_find(&mut conn, id)
            .await?
            .filter(|row| row.owner == owner.to_string())
            .ok_or_else(|| {
                Error::not_found("flotilla.v1.Instance", format!("{owner}/instances/{id}"))
            })?;
        // Cluster filters may name clusters by id or by full name.
        let placed = instance_clusters(&mut conn, id).await?;
        let mut filter = filter.clone();
        if !filter.clusters.is_empty() {
            filter.clusters = placed
                .iter()
                .filter(|c| {
                    filter
                        .clusters
                        .iter()
                        .any(|wanted| *c == wanted || c.rsplit('/').next() == Some(wanted.as_str()))
                })
                .cloned()
                .collect();
            if filter.clusters.is_empty() {
                return Ok(RenderedPage {
                    instance: row,
                    resources: Vec::new(),
                    more: false,
                });
            }
        }
        let mut resources =
            rsync_resources_list(&mut conn, id, &filter, after, page_size as i64 + 1).await?;
        let more = resources.len() > page_size;
        resources.truncate(page_size);
        Ok(RenderedPage {
            instance: row,
            resources,
            more,
        })
    }
}

/// Everything a group's rendering depends on.
struct DigContent {
    apps: Vec<Object<AppSpec>>,
    app_profiles: Vec<Object<AppProfileSpec>>,
    intents: Vec<Object<PlacementIntentSpec>>,
    json: serde_json::Value,
}

/// (child kind, parent kind) for every nested kind.
static PARENTS: [(&Kind, &Kind); 8] = [
    (&COMPOSITE_APP, &PROJECT),
    (&APP, &COMPOSITE_APP),
    (&COMPOSITE_PROFILE, &COMPOSITE_APP),
    (&APP_PROFILE, &COMPOSITE_PROFILE),
    (&DEPLOYMENT_INTENT_GROUP, &COMPOSITE_APP),
    (&PLACEMENT_INTENT, &DEPLOYMENT_INTENT_GROUP),
    (&CLUSTER, &CLUSTER_PROVIDER),
    (&NETWORK_INTENT, &CLUSTER),
];

/// Generates an agent token for `cluster`, stores its hash, returns the token.
pub async fn issue_agent_token(tx: &mut Tx, cluster: &str) -> Result<String> {
    let token = new_agent_token();
    cluster_set_token_hash(tx, cluster, &hash_agent_token(&token)).await?;
    Ok(token)
}

/// A new random agent token: 244 bits from two v4 UUIDs (the OS random source).
pub fn new_agent_token() -> String {
    format!(
        "flt_{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// The stored form of an agent token (SHA-256, hex).
pub fn hash_agent_token(token: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Terminates an instance: resources rsync never handled (Pending) need no delete and
/// become Terminated at once; applied ones wait for rsync's delete.
async fn terminate_instance(tx: &mut Tx, instance: InstanceId) -> Result<()> {
    let lock = tx.for_update();
    rsync_bulk_transition(
        tx,
        lock,
        Some(instance),
        None,
        &[RsyncStatus::Pending],
        RsyncStatus::Terminated,
    )
    .await?;
    instance_terminate(tx, instance).await
}

fn child_of(kind: &'static Kind, parent: &ResourceName, id: &str) -> ResourceName {
    ResourceName::child(kind, Some(parent), &[id])
}

fn in_use(name: &ResourceName, user: &impl std::fmt::Display) -> Error {
    Error::precondition(
        "IN_USE",
        "REFERENCE",
        user.to_string(),
        format!(
            "{} {name} is used by {user}; change or delete that first",
            name.kind().human
        ),
    )
}

/// Binds rendered documents of `app` to `cluster` as Pending rsync resources.
fn bind(app: &str, cluster: &str, documents: &[RenderedDoc]) -> Result<Vec<RsyncResource>> {
    documents
        .iter()
        .map(|doc| {
            Ok(RsyncResource {
                app: app.to_string(),
                cluster: cluster.to_string(),
                gvk: doc.gvk.clone(),
                namespace: doc.namespace.clone(),
                name: doc.name.clone(),
                manifest: serde_json::to_string(&doc.manifest).map_err(Error::internal)?,
                status: RsyncStatus::Pending,
                cluster_status: "Unknown".to_string(),
                readiness: String::new(),
            })
        })
        .collect()
}
