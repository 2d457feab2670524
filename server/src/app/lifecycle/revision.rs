//! Changing a running deployment: rollout (EMCO's update), rollback and migrate. Each
//! renders a new instance under the base of the instance it replaces (so the
//! deployment-id label of what it leaves unchanged is the one the clusters already
//! have) and hands rsync only the difference: what the replaced instance applied
//! exactly as rendered now is carried over as Applied, changed and new resources are
//! Pending, and what the new instance no longer renders stays with the replaced one,
//! which rsync deletes. The replaced instance's rows the new one renders again end
//! `Superseded` ([`instance_claim`]).

use super::*;
use crate::app::status::carry_over;
use crate::domain::render::{deployment_id, relabel};
use crate::store::RowLock;
use crate::store::carry::{carry_applied, record_carried};
use crate::store::rsync_resource::{rsync_resources_each_page, rsync_unobserved_deployments};

/// What a new instance replaces.
pub(super) struct Replacing<'a> {
    pub previous: &'a InstanceRow,
    /// The group a migrate moves the deployment from.
    pub migrated_from: Option<&'a str>,
}

/// A persisted instance, and what it takes over from the instance it replaces once
/// its lifecycle event is out.
pub(super) struct Persisted {
    pub id: InstanceId,
    /// The content revision it was rendered from.
    pub revision: i64,
    /// Its deployment base.
    base: InstanceId,
    /// The instance it replaces.
    replaced: Option<InstanceId>,
    retention: usize,
}

impl Persisted {
    /// Carries over the cluster-only resources of the controllers it carried over (see
    /// [`carry_over`]), then applies the retention limit (after: the replaced instance
    /// may be one it removes); call after the history entry announcing the instance.
    pub(super) async fn finish(&self, tx: &mut Tx, owner: &str) -> Result<()> {
        if self.replaced.is_some() {
            carry_over(tx, owner, self.id, self.base).await?;
        }
        instance_expire(tx, owner, self.retention).await?;
        Ok(())
    }
}

impl Lifecycle {
    /// After a rollout, rollback or migrate committed `instance`: asks the agents for
    /// the state of its deployments that were not carried over whole (what changed is
    /// Unknown until reported, and an apply that changes nothing on the cluster — the
    /// cluster already had it — would bring no report).
    pub(super) async fn reports_wanted(&self, instance: Option<InstanceId>) {
        let (Some(hooks), Some(instance)) = (&self.hooks, instance) else {
            return;
        };
        let found = async {
            let mut conn = self.store.read().await?;
            let row = instance_find(&mut conn, instance).await?;
            let deployments = rsync_unobserved_deployments(&mut conn, instance).await?;
            Ok::<_, Error>(row.map(|row| (row.base, deployments)))
        };
        let Ok(Some((base, deployments))) = found.await else {
            return;
        };
        let mut by_cluster: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for deployment in deployments {
            by_cluster
                .entry(deployment.cluster.into_string())
                .or_default()
                .push(deployment_id(base, &deployment.app));
        }
        for (cluster, ids) in by_cluster {
            hooks.report_wanted(&cluster, ids).await;
        }
    }

    /// Persists a rendered instance: its resources (Pending), the clusters it places
    /// them on, and who holds each object ([`Persisted::finish`] applies the retention
    /// limit). With `replacing`, the resources the replaced instance applied exactly as
    /// rendered now start Applied, carried over ([`carry_applied`], [`record_carried`])
    /// before the replaced instance's rows are superseded. The clusters' reports are
    /// the deployment base's, shared by both instances: nothing of them is copied.
    pub(super) async fn persist_instance(
        &self,
        tx: &mut Tx,
        row: &InstanceRow,
        resources: &mut [RsyncResource],
        clusters: &[ClusterName],
        replacing: Option<&Replacing<'_>>,
    ) -> Result<Persisted> {
        refuse_duplicate_objects(resources)?;
        let started = std::time::Instant::now();
        instance_insert(tx, row, clusters).await?;
        let carry = match replacing {
            Some(r) => Some(carry_applied(tx, r.previous.id, row.id, resources).await?),
            None => None,
        };
        let (carried, copied) = carry
            .as_ref()
            .map(|c| (c.carried, c.copied.as_slice()))
            .unwrap_or((0, &[]));
        let planned = started.elapsed();
        let rest = resources
            .iter()
            .enumerate()
            .filter(|(i, _)| !copied.get(*i).copied().unwrap_or(false))
            .map(|(_, r)| r);
        rsync_resources_insert(tx, row.id, rest).await?;
        let inserted = started.elapsed();
        record_carried(tx, row.id, carried).await?;
        let carried_at = started.elapsed();
        // The running instance of the same owner that this one replaces: what it
        // renders again is taken over without a write (before the claim, which marks
        // the rest of what it takes over).
        if let (Some(r), Some(carry)) = (replacing, &carry)
            && r.migrated_from.is_none()
        {
            instance_supersede(tx, r.previous.id, &carry.whole_apps, resources).await?;
        }
        instance_claim(tx, row, clusters, replacing.and_then(|r| r.migrated_from)).await?;
        tracing::info!(
            instance = %row.id,
            replaced = ?replacing.map(|r| r.previous.id.to_string()),
            resources = resources.len(),
            carried,
            carry_ms = planned.as_millis() as u64,
            insert_ms = (inserted - planned).as_millis() as u64,
            recorded_ms = (carried_at - inserted).as_millis() as u64,
            claim_ms = (started.elapsed() - carried_at).as_millis() as u64,
            "persisted an instance"
        );
        Ok(Persisted {
            id: row.id,
            base: row.base,
            revision: row.revision,
            replaced: replacing.map(|r| r.previous.id),
            retention: self.instance_retention,
        })
    }

    /// Renders `earlier` (an instance of `owner`) again as a new instance replacing
    /// `running`: the same resources, labelled under `running`'s base.
    pub(super) async fn render_again(
        &self,
        tx: &mut Tx,
        earlier: &InstanceRow,
        running: &InstanceRow,
    ) -> Result<Persisted> {
        let mut resources = all_rendered(tx, earlier.id).await?;
        for r in &mut resources {
            r.manifest = relabel(&r.manifest, running.base, &r.app)?.into();
            r.status = RsyncStatus::Pending;
            r.cluster_status = crate::domain::readiness::ClusterStatus::Unknown;
            r.readiness = crate::domain::readiness::Readiness::None;
        }
        let clusters = instance_clusters(tx, earlier.id).await?;
        let id = InstanceId::new();
        let row = InstanceRow {
            id,
            owner: running.owner.clone(),
            revision: earlier.revision,
            resource_count: resources.len() as i64,
            create_time: now_micros(),
            terminate_time: None,
            base: running.base,
            content_digest: earlier.content_digest.clone(),
        };
        let replacing = Replacing {
            previous: running,
            migrated_from: None,
        };
        self.persist_instance(tx, &row, &mut resources, &clusters, Some(&replacing))
            .await
    }
}

/// Every rendered resource of `instance`, with its manifest, in key order.
async fn all_rendered(tx: &mut Tx, instance: InstanceId) -> Result<Vec<RsyncResource>> {
    let mut all = Vec::new();
    rsync_resources_each_page(tx, instance, |page| all.extend(page)).await?;
    Ok(all)
}

impl Lifecycle {
    /// EMCO's migrate: renders `target` (a group of the same composite app, APPROVED or
    /// TERMINATED) under the base of `source`'s running instance, so what both render
    /// alike stays on the clusters untouched; `target` becomes INSTANTIATED, `source`
    /// TERMINATED, and rsync deletes only what `target` does not render. Both groups are
    /// locked (in name order) and swapped on the state and revision read.
    pub async fn migrate_dig(
        &self,
        source: &ResourceName,
        target: &ResourceName,
        etag: Option<i64>,
        key: Option<&RequestKey>,
    ) -> Result<DigView> {
        let composite_app = |name: &ResourceName| {
            let version = name.ancestor(&COMPOSITE_APP).to_string();
            version
                .rsplit_once("/versions/")
                .map(|(app, _)| app.to_string())
                .unwrap_or(version)
        };
        if source == target || composite_app(source) != composite_app(target) {
            return Err(Error::invalid(
                "target",
                format!(
                    "must be another deployment intent group of {} (any version)",
                    composite_app(source)
                ),
            ));
        }
        let (previous, view) = idempotent(&self.store, key, async |tx: &mut Tx| {
            let lock = RowLock::Update;
            let mut statuses = std::collections::BTreeMap::new();
            let mut ordered = [source, target];
            ordered.sort_by_key(|n| n.to_string());
            for name in ordered {
                let status = dig_status(tx, name, lock).await?.found(name)?;
                statuses.insert(name.to_string(), status);
            }
            let from = statuses[&source.to_string()].clone();
            let to = statuses[&target.to_string()].clone();
            let source_object: Object<DigSpec> = object_get(tx, source).await?;
            check_etag(source, etag, source_object.generation)?;
            let target_object: Object<DigSpec> = object_get(tx, target).await?;
            let refuse = |name: &ResourceName, state, op: DigOp, why| {
                Error::invalid_transition(&name.to_string(), state, op.verb(), why)
            };
            let source_next = match dig_transition(from.state, DigOp::MigrateOut, false) {
                Ok(Transition::To(next)) => next,
                Ok(_) => unreachable!("migrate always moves the source"),
                Err(r) => return Err(refuse(source, from.state, DigOp::MigrateOut, r.why)),
            };
            let target_next = match dig_transition(to.state, DigOp::MigrateIn, false) {
                Ok(Transition::To(next)) => next,
                Ok(_) => unreachable!("migrate always moves the target"),
                Err(r) => return Err(refuse(target, to.state, DigOp::MigrateIn, r.why)),
            };
            let running = super::dig::running_instance(tx, source, &from).await?;
            let replacing = Replacing {
                previous: &running,
                migrated_from: Some(&running.owner),
            };
            let persisted = self
                .instantiate(tx, &target_object, &to, Some(&replacing))
                .await?;
            // The source's rows the target took over are Superseded by now; what is
            // left is deleted by rsync as for any terminate.
            terminate_instance(tx, running.id).await?;
            let change = DigChange {
                revision_read: Some(from.revision),
                ..Default::default()
            };
            let revision = dig_update_state(tx, source, from.state, source_next, change).await?;
            let event = DigEvent::of(DigOp::MigrateOut, source_next);
            let (source_owner, target_owner) = (source.to_string(), target.to_string());
            history_append(tx, &source_owner, event, Some(running.id), revision).await?;
            let change = DigChange {
                revision_read: Some(to.revision),
                current_instance: Some(persisted.id),
                ..Default::default()
            };
            let revision = dig_update_state(tx, target, to.state, target_next, change).await?;
            let event = DigEvent::of(DigOp::MigrateIn, target_next);
            history_append(tx, &target_owner, event, Some(persisted.id), revision).await?;
            persisted.finish(tx, &target_owner).await?;
            Ok((running.id, self.dig_view(tx, target).await?))
        })
        .await?;
        self.work_changed(&[view.status.current_instance, Some(previous)])
            .await;
        self.reports_wanted(view.status.current_instance).await;
        Ok(view)
    }
}
