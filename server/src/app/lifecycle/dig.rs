//! Deployment intent groups: CRUD, the approve/instantiate/terminate verbs, and
//! rendering an instance.

use super::*;

impl Lifecycle {
    pub(super) async fn dig_view(
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
        tx.touch(&name.to_string());
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
    /// and applies the transition with `apply` (which returns the state change).
    pub(super) async fn dig_verb(
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
    pub(super) async fn dig_verb_and_wake(
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
    pub(super) async fn dig_content(
        &self,
        tx: &mut Tx,
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
    pub(super) async fn instantiate(
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
        let started = std::time::Instant::now();
        tracing::info!(deployment_intent_group = %dig.name, "rendering an instance");
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
        refuse_duplicate_objects(&resources)?;
        let rendered = started.elapsed();
        instance_insert(tx, &row, &clusters).await?;
        rsync_resources_insert(tx, instance, &resources).await?;
        instance_claim(tx, &row, &clusters).await?;
        instance_expire(tx, &row.owner, self.instance_retention).await?;
        tracing::info!(
            deployment_intent_group = %dig.name,
            %instance,
            resources = resources.len(),
            render_ms = rendered.as_millis() as u64,
            persist_ms = (started.elapsed() - rendered).as_millis() as u64,
            "instance rendered"
        );
        Ok(instance)
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
