//! Deployment intent groups: CRUD, the approve/instantiate/terminate verbs, and
//! rendering an instance.

use super::revision::{Persisted, Replacing};
use super::*;
use crate::store::RowLock;

/// A verb on one deployment intent group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Approve,
    Instantiate,
    Terminate,
    /// Renders the approved pending revision and hands rsync the difference.
    Rollout,
    /// Goes back to the rendered content of a revision by the same difference.
    Rollback(i64),
}

impl Verb {
    fn op(self) -> DigOp {
        match self {
            Verb::Approve => DigOp::Approve,
            Verb::Instantiate => DigOp::Instantiate,
            Verb::Terminate => DigOp::Terminate,
            Verb::Rollout => DigOp::Rollout,
            Verb::Rollback(_) => DigOp::Rollback,
        }
    }
}

impl Lifecycle {
    pub(super) async fn dig_view(
        &self,
        conn: &mut crate::store::Conn,
        name: &ResourceName,
    ) -> Result<DigView> {
        let object = object_get(conn, name).await?;
        let status = dig_status(conn, name, RowLock::None).await?.found(name)?;
        let history = history_list(conn, &name.to_string()).await?;
        let running = match status.current_instance {
            Some(id) => instance_find(conn, id).await?,
            None => None,
        };
        let mut view = DigView {
            running_revision: running.as_ref().map_or(0, |r| r.revision),
            object,
            status,
            history,
            pending: Vec::new(),
            pending_approved: false,
        };
        if view.status.state == DigState::Instantiated
            && let Some(running) = running
            && running.revision < view.status.revision
        {
            let content = self.dig_content(conn, &view.object).await?;
            let rendered: std::collections::BTreeMap<String, String> =
                serde_json::from_str(&running.content_digest).unwrap_or_default();
            view.pending = pending_changes(&rendered, &content.digest);
            view.pending_approved = content_hash(&content.json) == view.status.approved_hash;
        }
        Ok(view)
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
            history_append(tx, &name.to_string(), DigEvent::Created, None, 1).await?;
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
        tx.touch(&name.to_string());
        let view = self.dig_view(&mut tx, name).await?;
        tx.commit().await?;
        Ok(view)
    }

    pub async fn delete_dig(&self, name: &ResourceName, etag: Option<i64>) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let lock = RowLock::Update;
        let status = dig_status(&mut tx, name, lock).await?.found(name)?;
        let current: Object<DigSpec> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        let terminating = rsync_resources_awaiting_delete(&mut tx, &name.to_string()).await? > 0;
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
        instance_delete_for_owner(&mut tx, &owner).await?;
        history_delete(&mut tx, &owner).await?;
        object_delete(&mut tx, name, current.generation).await?;
        tx.commit().await
    }

    /// Runs a verb on a group: reads its state under lock, asks the state machine,
    /// and applies the transition (a compare-and-swap on the state read).
    pub(super) async fn dig_verb(
        &self,
        name: &ResourceName,
        verb: Verb,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        idempotent(&self.store, key, async |tx: &mut Tx| {
            let lock = RowLock::Update;
            let status = dig_status(tx, name, lock).await?.found(name)?;
            let object: Object<DigSpec> = object_get(tx, name).await?;
            check_etag(name, etag, object.generation)?;
            let op = verb.op();
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
            let mut change = DigChange {
                revision_read: Some(status.revision),
                ..Default::default()
            };
            let mut persisted = None;
            let instance = match verb {
                Verb::Approve => {
                    let hash = content_hash(&self.dig_content(tx, &object).await?.json);
                    if status.state == DigState::Instantiated && hash == status.approved_hash {
                        // Nothing new to approve.
                        return self.dig_view(tx, name).await;
                    }
                    change.approved_hash = Some(hash);
                    None
                }
                Verb::Instantiate => {
                    persisted = Some(self.instantiate(tx, &object, &status, None).await?);
                    None
                }
                Verb::Terminate => {
                    let running = running_instance(tx, name, &status).await?;
                    terminate_instance(tx, running.id).await?;
                    Some(running)
                }
                Verb::Rollout => {
                    let running = running_instance(tx, name, &status).await?;
                    if running.revision >= status.revision {
                        return Err(precondition!(
                            Precondition::NothingPending,
                            name.to_string(),
                            "{name} runs revision {}, its latest; change the group, its \
                                 intents, apps or profiles (and approve) first",
                            running.revision
                        ));
                    }
                    let replacing = Replacing {
                        previous: &running,
                        migrated_from: None,
                    };
                    persisted = Some(
                        self.instantiate(tx, &object, &status, Some(&replacing))
                            .await?,
                    );
                    Some(running)
                }
                Verb::Rollback(revision) => {
                    let running = running_instance(tx, name, &status).await?;
                    if running.revision == revision {
                        return self.dig_view(tx, name).await;
                    }
                    let earlier = self.instance_of_revision(tx, name, revision).await?;
                    persisted = Some(self.render_again(tx, &earlier, &running).await?);
                    Some(running)
                }
            };
            if let Some(p) = &persisted {
                change.current_instance = Some(p.id);
            }
            let revision = dig_update_state(tx, name, status.state, next, change).await?;
            let event = DigEvent::of(op, next);
            let (recorded_instance, recorded_revision) = match &persisted {
                Some(p) => (Some(p.id), p.revision),
                None => (instance.map(|i| i.id), revision),
            };
            history_append(tx, &owner, event, recorded_instance, recorded_revision).await?;
            if let Some(p) = &persisted {
                p.finish(tx, &owner).await?;
            }
            self.dig_view(tx, name).await
        })
        .await
    }

    /// The newest kept instance of `dig` rendered from `revision`: NOT_FOUND if no
    /// instance was ever rendered from it, FAILED_PRECONDITION if the retention limit
    /// removed it.
    async fn instance_of_revision(
        &self,
        tx: &mut Tx,
        dig: &ResourceName,
        revision: i64,
    ) -> Result<InstanceRow> {
        let owner = dig.to_string();
        let mut before: Option<String> = None;
        loop {
            let page = instance_list(tx, &owner, before.as_deref(), 100).await?;
            if let Some(found) = page.iter().find(|i| i.revision == revision) {
                return Ok(found.clone());
            }
            match page.last() {
                Some(last) if page.len() == 100 => before = Some(last.id.to_string()),
                _ => break,
            }
        }
        let rendered = history_list::<DigEvent>(tx, &owner)
            .await?
            .iter()
            .any(|h| h.revision == revision && h.instance.is_some());
        if rendered {
            Err(precondition!(
                Precondition::RevisionExpired,
                dig.to_string(),
                "the instance of revision {revision} of {dig} was removed by the retention \
                     limit (--instance-retention); roll back to a kept revision (ListInstances)"
            ))
        } else {
            Err(Error::not_found(
                "revision",
                format!("{dig} revision {revision} (no instance was rendered from it)"),
            ))
        }
    }

    /// Runs `verb` on the group `name` (compare-and-swap on `etag`, idempotent under
    /// `key`). A verb that moves instances then wakes rsync for the clusters of the
    /// resulting instance and of the one it replaced (which may have to delete what
    /// the new one dropped).
    pub async fn run_dig_verb(
        &self,
        name: &ResourceName,
        verb: Verb,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        if verb == Verb::Approve {
            return self.dig_verb(name, verb, etag, key).await;
        }
        let started = std::time::Instant::now();
        let before = self.get_dig(name).await.ok();
        let view = self.dig_verb(name, verb, etag, key).await?;
        let committed = started.elapsed();
        let current = view.status.current_instance;
        let previous = before.and_then(|b| b.status.current_instance);
        self.work_changed(&[current, previous]).await;
        if previous != current && matches!(verb, Verb::Rollout | Verb::Rollback(_)) {
            self.reports_wanted(current).await;
        }
        tracing::info!(
            deployment_intent_group = %name,
            verb = verb.op().verb(),
            committed_ms = committed.as_millis() as u64,
            woken_ms = (started.elapsed() - committed).as_millis() as u64,
            "verb done"
        );
        Ok(view)
    }

    /// Everything a group's rendering depends on, and its JSON (hashed by approval).
    pub(super) async fn dig_content(
        &self,
        tx: &mut crate::store::Conn,
        dig: &Object<DigSpec>,
    ) -> Result<DigContent> {
        let version = dig.name.ancestor(&COMPOSITE_APP);
        let profile = child_of(&COMPOSITE_PROFILE, &version, &dig.spec.composite_profile);
        let apps: Vec<Object<AppSpec>> = object_list_under(tx, &APP, &version.to_string()).await?;
        let app_profiles: Vec<Object<AppProfileSpec>> =
            object_list_under(tx, &APP_PROFILE, &profile.to_string()).await?;
        let intents: Vec<Object<PlacementIntentSpec>> =
            object_list_under(tx, &PLACEMENT_INTENT, &dig.name.to_string()).await?;
        let profile_object: Option<Object<serde_json::Value>> = object_find(tx, &profile).await?;
        let mut digest = std::collections::BTreeMap::new();
        digest.insert(dig.name.to_string(), content_hash(&json!(dig.spec)));
        if let Some(p) = &profile_object {
            digest.insert(p.name.to_string(), content_hash(&p.spec));
        }
        for a in &apps {
            digest.insert(a.name.to_string(), content_hash(&json!(a.spec)));
        }
        for p in &app_profiles {
            digest.insert(p.name.to_string(), content_hash(&json!(p.spec)));
        }
        for i in &intents {
            digest.insert(i.name.to_string(), content_hash(&json!(i.spec)));
        }
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
            digest,
        })
    }

    /// Renders a new instance of `dig` and persists it with its rsync resources; with
    /// `replacing`, under the base of the instance it replaces (update, migrate).
    pub(super) async fn instantiate(
        &self,
        tx: &mut Tx,
        dig: &Object<DigSpec>,
        status: &DigStatus,
        replacing: Option<&Replacing<'_>>,
    ) -> Result<Persisted> {
        let content = self.dig_content(tx, dig).await?;
        if content_hash(&content.json) != status.approved_hash {
            return Err(precondition!(
                Precondition::ContentChanged,
                dig.name.to_string(),
                "{} changed since it was approved; approve it again",
                dig.name
            ));
        }
        if content.apps.is_empty() {
            return Err(Error::precondition(
                Precondition::NoApps,
                dig.name.ancestor(&COMPOSITE_APP).to_string(),
                "the composite app version has no apps to instantiate",
            ));
        }
        let started = std::time::Instant::now();
        tracing::info!(deployment_intent_group = %dig.name, "rendering an instance");
        let candidates = self.cluster_candidates(tx, &content.intents).await?;
        let instance = InstanceId::new();
        let base = replacing.map_or(instance, |r| r.previous.base);
        // Rendered per app first (a few documents each), so the resources of every
        // cluster are allocated once: grown by doubling, the vector of an instance of
        // 1,000,000 resources held 1.5 times its size while it moved.
        let mut rendered = Vec::with_capacity(content.apps.len());
        for app in &content.apps {
            let app_id = app.name.id();
            let intents: Vec<&PlacementIntentSpec> = content
                .intents
                .iter()
                .filter(|i| i.spec.app == app_id)
                .map(|i| &i.spec)
                .collect();
            if intents.is_empty() {
                return Err(precondition!(
                    Precondition::PlacementMissing,
                    app.name.to_string(),
                    "app {app_id:?} has no placement intent in {}",
                    dig.name
                ));
            }
            let placed = resolve_placement(app_id, &intents, &candidates)?;
            if placed.is_empty() {
                return Err(precondition!(
                    Precondition::PlacementEmpty,
                    app.name.to_string(),
                    "the placement intents of app {app_id:?} match no cluster"
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
            let documents = render_app(base, app_id, &app.spec.manifests, &patches)?;
            let manifests = serialize(&documents)?;
            rendered.push((app_id, documents, manifests, placed));
        }
        let total = rendered
            .iter()
            .map(|(_, documents, _, placed)| documents.len() * placed.len())
            .sum();
        let mut resources = Vec::with_capacity(total);
        let mut clusters = std::collections::BTreeSet::new();
        for (app_id, documents, manifests, placed) in rendered {
            for (provider, cluster) in placed {
                let cluster = ClusterName::of(&provider, &cluster);
                resources.extend(bind(app_id, &cluster, &documents, &manifests));
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
            base,
            content_digest: serde_json::to_string(&content.digest).map_err(Error::internal)?,
        };
        let clusters: Vec<ClusterName> = clusters.into_iter().collect();
        let rendered = started.elapsed();
        let persisted = self
            .persist_instance(tx, &row, &mut resources, &clusters, replacing)
            .await?;
        tracing::info!(
            deployment_intent_group = %dig.name,
            %instance,
            resources = resources.len(),
            render_ms = rendered.as_millis() as u64,
            persist_ms = (started.elapsed() - rendered).as_millis() as u64,
            "instance rendered"
        );
        Ok(persisted)
    }

    pub(super) async fn cluster_candidates(
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
}

/// The current instance of an instantiated group.
pub(super) async fn running_instance(
    tx: &mut Tx,
    name: &ResourceName,
    status: &DigStatus,
) -> Result<InstanceRow> {
    let id = status
        .current_instance
        .ok_or_else(|| Error::internal(format!("{name} is instantiated without an instance")))?;
    instance_find(tx, id)
        .await?
        .ok_or_else(|| Error::internal(format!("{name}: instance {id} is gone")))
}
