//! Clusters, agent tokens and the cluster network intents verbs; listing rendered
//! resources.

use super::*;
use crate::app::actions::emit as emit_action;
use crate::store::RowLock;
use crate::store::action::{ActionFilter, action_delete_of_cluster, action_list};
use crate::store::watch::ActionChange;

impl Lifecycle {
    pub(super) async fn cluster_view(
        &self,
        conn: &mut crate::store::Conn,
        name: &ResourceName,
    ) -> Result<ClusterView> {
        let object = object_get(conn, name).await?;
        let network = cluster_network_status(conn, name, RowLock::None)
            .await?
            .found(name)?;
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

    pub(super) async fn create_cluster_in_tx(
        &self,
        name: ResourceName,
        spec: ClusterSpec,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        if spec.connection_mode == ConnectionMode::EmbeddedSim && !self.sim {
            return Err(Error::precondition(
                Precondition::SimDisabled,
                name.to_string(),
                "EMBEDDED_SIM clusters need a server started with --sim (or --demo)",
            ));
        }
        idempotent(&self.store, key, async |tx: &mut Tx| {
            self.require_parent(tx, &name).await?;
            let agent = spec.connection_mode == ConnectionMode::Agent;
            let object = new_object(name.clone(), spec);
            cluster_insert(tx, &object).await?;
            history_append(tx, &name.to_string(), NetworkState::Created, None, 1).await?;
            let token = if agent {
                // A new cluster has no earlier token to revoke.
                Some(issue_agent_token(tx, &ClusterName::from(&name)).await?.0)
            } else {
                None
            };
            let mut view = self.cluster_view(tx, &name).await?;
            view.agent_token = token;
            Ok(view)
        })
        .await
    }

    /// Issues a new agent token for an AGENT cluster; the old one stops working, and the
    /// session that holds it ends.
    pub async fn rotate_agent_token(&self, name: &ResourceName) -> Result<ClusterView> {
        let mut tx = self.store.begin().await?;
        // Locked, so a racing DeleteCluster either commits first (NOT_FOUND here) or
        // waits for this token and revokes it.
        let lock = RowLock::Update;
        let object: Object<ClusterSpec> = object_get_locked(&mut tx, name, lock).await?;
        if object.spec.connection_mode != ConnectionMode::Agent {
            return Err(precondition!(
                Precondition::NotAnAgentCluster,
                name.to_string(),
                "{name} is served by an embedded sim agent and has no agent token"
            ));
        }
        let (token, revoked) = issue_agent_token(&mut tx, &ClusterName::from(name)).await?;
        let mut view = self.cluster_view(&mut tx, name).await?;
        tx.commit().await?;
        if let Some(hooks) = &self.hooks {
            hooks.tokens_revoked(&revoked).await;
        }
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
        object_require(&mut conn, parent, "parent", RowLock::None).await?;
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
        merge: impl Fn(&Object<ClusterSpec>) -> Result<ClusterSpec>,
    ) -> Result<ClusterView> {
        // A cluster's spec is its description and labels: small, merged in place.
        self.update(name, etag, 0, merge).await?;
        self.get_cluster(name).await
    }

    pub async fn delete_cluster(&self, name: &ResourceName, etag: Option<i64>) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let lock = RowLock::Update;
        let network = cluster_network_status(&mut tx, name, lock)
            .await?
            .found(name)?;
        let current: Object<ClusterSpec> = object_get(&mut tx, name).await?;
        check_etag(name, etag, current.generation)?;
        let terminating = rsync_resources_awaiting_delete(&mut tx, &name.to_string()).await? > 0;
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
        let cluster = ClusterName::from(name);
        if let Some(dig) = instance_instantiated_users_of_cluster(&mut tx, &cluster)
            .await?
            .into_iter()
            .next()
        {
            return Err(precondition!(
                Precondition::ClusterInUse,
                dig.clone(),
                "instantiated deployment intent group {dig} is placed on {cluster}; terminate it first"
            ));
        }
        if rsync_resources_active_on_cluster(&mut tx, &cluster).await? {
            return Err(precondition!(
                Precondition::ClusterInUse,
                cluster.to_string(),
                "resources on {cluster} are still being deleted; retry when termination finished"
            ));
        }
        // Actions are the cluster's own: an open one (which an agent may be running)
        // refuses the delete; finished ones go with the cluster, so a cluster that
        // takes its name later starts with none. Action creates hold the cluster's
        // row until they commit (see `app::actions`), so none slips in meanwhile.
        let filter = ActionFilter {
            cluster: Some(cluster.clone()),
            open_only: true,
            ..Default::default()
        };
        if let Some(open) = action_list(&mut tx, &filter, None, 1).await?.first() {
            return Err(precondition!(
                Precondition::ClusterInUse,
                open.name(),
                "{} is still {} on {cluster}; cancel it or wait for it to finish",
                open.name(),
                open.state
            ));
        }
        for action in action_delete_of_cluster(&mut tx, &cluster).await? {
            emit_action(&mut tx, &action, ActionChange::Deleted);
        }
        instance_delete_for_owner(&mut tx, &cluster).await?;
        history_delete(&mut tx, &cluster).await?;
        object_delete(&mut tx, name, current.generation).await?;
        let revoked = revoke_agent_tokens(&mut tx, &cluster).await?;
        tx.commit().await?;
        if let Some(hooks) = &self.hooks {
            hooks.tokens_revoked(&revoked).await;
            hooks.cluster_deleted(&cluster).await;
        }
        Ok(())
    }

    /// A network intent of `cluster` is about to change: refused while APPLIED; bumps the
    /// network revision otherwise.
    pub(super) async fn network_intents_changed(
        &self,
        tx: &mut Tx,
        cluster: &ResourceName,
    ) -> Result<()> {
        // NO KEY UPDATE: it serializes the edits of one cluster's intents without
        // conflicting with the key-share lock a network intent create already holds on
        // its parent cluster (FOR UPDATE there would deadlock two such creates).
        let lock = RowLock::NoKeyUpdate;
        let network = cluster_network_status(tx, cluster, lock)
            .await?
            .found(cluster)?;
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

    /// Applies or terminates the network intents of cluster `name`; applying wakes
    /// rsync for the new instance.
    pub async fn network_intents_verb(
        &self,
        name: &ResourceName,
        op: NetworkOp,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<ClusterView> {
        let view = idempotent(&self.store, key, async |tx: &mut Tx| {
            let lock = RowLock::Update;
            let network = cluster_network_status(tx, name, lock).await?.found(name)?;
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
                NetworkOp::EditIntent | NetworkOp::DeleteCluster => {
                    return Err(Error::internal(format!(
                        "{} is not a verb of network intents",
                        op.verb()
                    )));
                }
            };
            let revision =
                cluster_update_network_state(tx, name, network.state, next, false, new_current)
                    .await?;
            history_append(tx, &name.to_string(), next, Some(instance), revision).await?;
            self.cluster_view(tx, name).await
        })
        .await?;
        if op == NetworkOp::Apply {
            self.work_changed(&[view.network.current_instance]).await;
        }
        Ok(view)
    }

    pub(super) async fn apply_network_intents(
        &self,
        tx: &mut Tx,
        cluster: &ResourceName,
        revision: i64,
    ) -> Result<InstanceId> {
        let intents: Vec<Object<NetworkIntentSpec>> =
            object_list_under(tx, &NETWORK_INTENT, &cluster.to_string()).await?;
        if intents.is_empty() {
            return Err(precondition!(
                Precondition::NoNetworkIntents,
                cluster.to_string(),
                "cluster {cluster} has no network intents to apply"
            ));
        }
        let instance = InstanceId::new();
        let specs: Vec<(String, NetworkIntentSpec)> = intents
            .into_iter()
            .map(|o| (o.name.id().to_string(), o.spec))
            .collect();
        let documents = render_network_intents(instance, &specs);
        let cluster_name = ClusterName::from(cluster);
        let manifests = serialize(&documents)?;
        let resources = bind(NETWORK_INTENTS_APP, &cluster_name, &documents, &manifests);
        let row = InstanceRow {
            id: instance,
            owner: cluster_name.to_string(),
            revision,
            resource_count: resources.len() as i64,
            create_time: now_micros(),
            terminate_time: None,
            base: instance,
            content_digest: "{}".to_string(),
        };
        let clusters = [cluster_name];
        instance_insert(tx, &row, &clusters).await?;
        rsync_resources_insert(tx, instance, &resources).await?;
        instance_claim(tx, &row, &clusters, None).await?;
        instance_expire(tx, &row.owner, self.instance_retention).await?;
        Ok(instance)
    }

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
            dig_status(&mut conn, owner, RowLock::None)
                .await?
                .map(|s| s.current_instance)
        } else {
            cluster_network_status(&mut conn, owner, RowLock::None)
                .await?
                .map(|s| s.current_instance)
        }
        .found(owner)?;
        let id = match instance.or(current) {
            Some(id) => id,
            None => {
                return Err(precondition!(
                    Precondition::NoInstance,
                    owner.to_string(),
                    "{owner} has no instance yet"
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
                .filter(|c| filter.clusters.iter().any(|wanted| c.is_named(wanted)))
                .map(ToString::to_string)
                .collect();
            if filter.clusters.is_empty() {
                return Ok(RenderedPage {
                    instance: row,
                    resources: Vec::new(),
                    more: false,
                });
            }
        }
        let shown = Shown::of(&mut conn, id).await?;
        let page = KeyPage {
            instance: id,
            filter: &filter,
            after,
            limit: page_size as i64 + 1,
        };
        let mut resources = rsync_resources_list(&mut conn, page, shown, true).await?;
        let more = resources.len() > page_size;
        resources.truncate(page_size);
        Ok(RenderedPage {
            instance: row,
            resources,
            more,
        })
    }
}
