//! Ingest: what agents and rsync report (bundle states, apply/delete outcomes,
//! connectivity) brought into the store with the aggregates and events it moves, and
//! the carry-over of a replaced instance's pods.

use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::time::Instant;

use tracing::debug;

use super::*;
use crate::domain::names::{ClusterName, DeploymentKey};
use crate::domain::readiness::Connectivity;
use crate::store::rsync_resource::rsync_unobserved_deployments;

impl StatusApp {
    /// A write transaction for `cluster` with the owners placed on it locked (and
    /// returned); None when this replica must not write for it (see `fenced_out`).
    async fn begin_for(
        &self,
        cluster: &ClusterName,
    ) -> Result<Option<(crate::store::Tx, Vec<String>)>> {
        let mut tx = self.store.begin().await?;
        let stale = self.fenced_out(&mut tx, &[cluster.as_str()]).await?;
        if !stale.is_empty() {
            return Ok(None);
        }
        let owners = owners_placed_on(&mut tx, cluster).await?;
        lock_owners(&mut tx, owners.iter().cloned(), [cluster.as_str()]).await?;
        Ok(Some((tx, owners)))
    }

    /// Records a cluster's connectivity and refreshes the conditions that depend on it.
    pub async fn connectivity_changed(
        &self,
        cluster: &ClusterName,
        connectivity: Connectivity,
    ) -> Result<()> {
        let Some((mut tx, owners)) = self.begin_for(cluster).await? else {
            return Ok(());
        };
        if let Some(previous) = cluster_set_connectivity(&mut tx, cluster, connectivity).await? {
            refresh_conditions(&mut tx, cluster).await?;
            for owner in &owners {
                refresh_conditions(&mut tx, owner).await?;
            }
            emit_connectivity(&mut tx, cluster, previous, connectivity).await?;
        }
        tx.commit().await
    }

    /// Ingests a bundle state of `cluster`: derives the cluster status and readiness of
    /// each rendered resource, records cluster-only resources, updates the aggregates.
    /// A malformed deployment id is INVALID_ARGUMENT; a bundle of an unknown instance or
    /// of an instance not placed on the cluster is ignored.
    pub async fn ingest_bundle(&self, cluster: &ClusterName, bundle: Bundle) -> Result<()> {
        self.ingest_bundles(cluster, std::slice::from_ref(&bundle))
            .await
    }

    /// Ingests several bundle states of `cluster` in one transaction (the aggregates
    /// and conditions of each owner are written once for all of them).
    pub async fn ingest_bundles(&self, cluster: &ClusterName, bundles: &[Bundle]) -> Result<()> {
        self.ingest_clusters(&[(cluster, bundles)]).await
    }

    /// Ingests the bundle states of several clusters in one transaction: a group
    /// commit of what many agent sessions reported at about the same time. The
    /// transaction's fixed costs (owner locks, aggregates, conditions, the event
    /// log's revision, the commit) are paid once for all of them.
    pub async fn ingest_clusters(&self, batches: &[(&ClusterName, &[Bundle])]) -> Result<()> {
        // The states of one deployment of a cluster are taken together, the later on
        // top: the writes of one batch are made together, so one deployment must not
        // appear twice in them.
        let mut latest: BTreeMap<&ClusterName, BTreeMap<(InstanceId, String), Cow<'_, Bundle>>> =
            BTreeMap::new();
        for (cluster, bundles) in batches {
            let of_cluster = latest.entry(*cluster).or_default();
            for bundle in *bundles {
                match of_cluster.entry(parse_deployment_id(&bundle.deployment_id)?) {
                    Entry::Occupied(mut older) if bundle.partial => {
                        older.get_mut().to_mut().absorb(bundle.clone())
                    }
                    Entry::Occupied(mut older) => *older.get_mut() = Cow::Borrowed(bundle),
                    Entry::Vacant(slot) => {
                        slot.insert(Cow::Borrowed(bundle));
                    }
                }
            }
        }
        let started = Instant::now();
        let mut tx = self.store.begin().await?;
        let began = started.elapsed();
        let clusters: Vec<&str> = latest.keys().map(|c| c.as_str()).collect();
        let stale = self.fenced_out(&mut tx, &clusters).await?;
        latest.retain(|cluster, _| !stale.contains(cluster.as_str()));
        // A bundle names the base of its deployment's instances: it describes the
        // newest instance of that base (an update keeps the base of what it replaces).
        let mut rows: HashMap<InstanceId, Option<(InstanceRow, Vec<ClusterName>)>> = HashMap::new();
        let mut bases: Vec<InstanceId> = Vec::new();
        for of_cluster in latest.values() {
            bases.extend(of_cluster.keys().map(|(base, _)| *base));
        }
        // Which of the batch's clusters each instance is placed on: the batch's few,
        // not the instance's whole placement (a fleet's worth of names every ingest).
        let batch: Vec<&str> = latest.keys().map(|c| c.as_str()).collect();
        for base in bases {
            if rows.contains_key(&base) {
                continue;
            }
            rows.insert(base, instance_of_base_placed(&mut tx, base, &batch).await?);
        }
        // The owner of each (cluster, instance) placed there; bundles of other
        // instances are ignored.
        let mut parsed: Vec<(&ClusterName, InstanceId, InstanceId, String, &Bundle)> = Vec::new();
        let mut owners: BTreeMap<(&ClusterName, InstanceId), Option<String>> = BTreeMap::new();
        for (cluster, of_cluster) in &latest {
            for ((base, app), bundle) in of_cluster {
                let Some(Some((row, clusters))) = rows.get(base) else {
                    continue;
                };
                let placed = clusters.iter().any(|c| c == *cluster);
                owners.insert((cluster, row.id), placed.then(|| row.owner.clone()));
                parsed.push((cluster, row.id, *base, app.clone(), bundle));
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
                .map(|((cluster, _), _)| cluster.as_str()),
        )
        .await?;
        // A rollout may have committed a newer instance while this waited for the
        // locks: this report belongs to it (retried, the hub requeues it).
        let seen: Vec<(InstanceId, InstanceId)> = rows
            .iter()
            .filter_map(|(base, row)| row.as_ref().map(|(row, _)| (*base, row.id)))
            .collect();
        require_newest(&mut tx, seen).await?;
        // What is stored for the batch's deployments: two reads per instance (a batch
        // nearly always has one), whatever the number of clusters.
        let mut wanted: Wanted<'_> = BTreeMap::new();
        for ((cluster, instance), owner) in &owners {
            if owner.is_none() {
                continue;
            }
            let of_deployment: Vec<_> = parsed
                .iter()
                .filter(|(c, i, _, _, _)| c == cluster && i == instance)
                .collect();
            // Every bundle of one instance names the same base.
            let Some((_, _, base, _, _)) = of_deployment.first() else {
                continue;
            };
            let reads = wanted.entry((*instance, *base)).or_default();
            let mut apps = Vec::new();
            for (_, _, _, app, bundle) in of_deployment {
                if !bundle.partial {
                    apps.push(app.as_str());
                    continue;
                }
                // What a partial state lists, under either spelling of the default
                // namespace (ingest matches them as one).
                for r in &bundle.resources {
                    let key = |namespace| {
                        [
                            *cluster,
                            app.as_str(),
                            &r.gvk.kind,
                            &r.gvk.group,
                            namespace,
                            &r.name,
                        ]
                    };
                    reads.listed.push(key(&r.namespace));
                    match r.namespace.as_str() {
                        "" => reads.listed.push(key("default")),
                        "default" => reads.listed.push(key("")),
                        _ => {}
                    }
                }
            }
            if !apps.is_empty() {
                reads.whole.push((*cluster, apps));
            }
        }
        let mut rendered = BTreeMap::new();
        let mut reported = BTreeMap::new();
        for ((instance, base), deployments) in &wanted {
            for (deployment, rows) in
                rsync_rows_for_bundles(&mut tx, *instance, deployments).await?
            {
                rendered.insert((*instance, deployment), rows);
            }
            for (deployment, rows) in
                cluster_resources_for_bundles(&mut tx, *base, deployments).await?
            {
                reported.insert((*instance, deployment), rows);
            }
        }
        let read = started.elapsed();
        let mut deltas = CountDeltas::default();
        let mut writes = IngestWrites::default();
        let mut touched = BTreeSet::new();
        for (cluster, instance, base, app, bundle) in &parsed {
            let Some(owner) = &owners[&(*cluster, *instance)] else {
                continue;
            };
            let key = (
                *instance,
                DeploymentKey {
                    cluster: (*cluster).clone(),
                    app: app.clone(),
                },
            );
            let deployment = Deployment {
                cluster,
                instance: *instance,
                base: *base,
                owner,
                app,
                rendered: rendered.get(&key).map(Vec::as_slice).unwrap_or_default(),
                reported: reported.get(&key).map(Vec::as_slice).unwrap_or_default(),
            };
            ingest_one(&mut tx, &deployment, bundle, &mut deltas, &mut writes);
            touched.insert(owner.clone());
        }
        writes.apply(&mut tx).await?;
        if !deltas.is_empty() {
            deltas.apply(&mut tx).await?;
            for owner in &touched {
                refresh_ready_conditions(&mut tx, owner).await?;
            }
        }
        let written = started.elapsed();
        tx.commit().await?;
        // Where an ingest's time goes: waiting for the writer, then holding it.
        debug!(
            bundles = parsed.len(),
            slot_wait_us = began.as_micros() as u64,
            read_us = (read - began).as_micros() as u64,
            write_us = (written - read).as_micros() as u64,
            commit_us = (started.elapsed() - written).as_micros() as u64,
            "bundle states ingested"
        );
        Ok(())
    }

    /// Records the outcomes of rsync operations, batches of one or more clusters (a
    /// group commit of the rsync workers', see `rsync::RsyncEngine`), in one
    /// transaction.
    pub async fn record_outcomes(&self, batches: &[&[(RsyncWork, Outcome)]]) -> Result<()> {
        let mut outcomes: Vec<&(RsyncWork, Outcome)> = batches.iter().copied().flatten().collect();
        if outcomes.is_empty() {
            return Ok(());
        }
        let mut tx = self.store.begin().await?;
        let clusters: BTreeSet<&str> = outcomes
            .iter()
            .map(|(w, _)| w.key.cluster.as_str())
            .collect();
        let stale = self
            .fenced_out(&mut tx, &clusters.into_iter().collect::<Vec<_>>())
            .await?;
        outcomes.retain(|(w, _)| !stale.contains(w.key.cluster.as_str()));
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
        for (work, outcome) in outcomes.iter().copied() {
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
        // What the clusters said of what they refused; applied ones are forgotten.
        let mut applied_keys: BTreeMap<InstanceId, Vec<&ResourceKey>> = BTreeMap::new();
        for (work, outcome) in outcomes.iter().copied() {
            match outcome {
                Outcome::Rejected(error) => {
                    resource_error_set(&mut tx, work.instance, &work.key, error).await?;
                }
                Outcome::Succeeded if !work.delete => {
                    applied_keys
                        .entry(work.instance)
                        .or_default()
                        .push(&work.key);
                }
                Outcome::Succeeded => {}
            }
        }
        for (instance, keys) in &applied_keys {
            resource_errors_clear(&mut tx, *instance, keys).await?;
        }
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
    /// re-sent (marked Retrying); and a deployment the cluster was last heard to hold
    /// something of but holds nothing of now (its objects went while no session was
    /// open: the agent reports only what it holds) is taken as reported empty, so that
    /// no pod is believed present that is gone.
    pub async fn reconcile_session(&self, cluster: &ClusterName, held: &[String]) -> Result<()> {
        let gone: Vec<Bundle> = {
            let mut conn = self.store.read().await?;
            reported_deployments(&mut conn, cluster)
                .await?
                .into_iter()
                .map(|(base, app)| deployment_id(base, &app))
                .filter(|id| !held.contains(id))
                .map(|deployment_id| Bundle {
                    deployment_id,
                    resources: Vec::new(),
                    partial: false,
                })
                .collect()
        };
        if !gone.is_empty() {
            self.ingest_bundles(cluster, &gone).await?;
        }
        let Some((mut tx, _)) = self.begin_for(cluster).await? else {
            return Ok(());
        };
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
                Scope::InstanceOn(*instance, cluster),
                &[RsyncStatus::Applied],
                RsyncStatus::Retrying,
                Announce::EachResource,
            )
            .await?;
            if let Some(row) = instance_find(&mut tx, *instance).await? {
                refresh_conditions(&mut tx, &row.owner).await?;
            }
        }
        tx.commit().await
    }

    /// Marks what rsync cannot deliver to an unreachable cluster as Retrying.
    pub async fn mark_unreachable(&self, cluster: &ClusterName) -> Result<i64> {
        let Some((mut tx, owners)) = self.begin_for(cluster).await? else {
            return Ok(0);
        };
        let moved = rsync_bulk_transition(
            &mut tx,
            Scope::Cluster(cluster),
            &[RsyncStatus::Pending, RsyncStatus::Applied],
            RsyncStatus::Retrying,
            Announce::EachResource,
        )
        .await?;
        let previous = match moved {
            0 => None,
            _ => cluster_set_connectivity(&mut tx, cluster, Connectivity::Retrying).await?,
        };
        if let Some(previous) = previous {
            emit_connectivity(&mut tx, cluster, previous, Connectivity::Retrying).await?;
        }
        if moved > 0 || previous.is_some() {
            refresh_conditions(&mut tx, cluster).await?;
            for owner in &owners {
                refresh_conditions(&mut tx, owner).await?;
            }
        }
        tx.commit().await?;
        Ok(moved)
    }
}

fn cluster_row(
    app: &str,
    cluster: &ClusterName,
    gvk: &Gvk,
    namespace: &str,
    o: &Reported,
    rsync_backed: bool,
    present: bool,
) -> ClusterResourceRow {
    ClusterResourceRow {
        app: app.to_string(),
        cluster: cluster.clone(),
        gvk: Gvk {
            version: o.gvk.version.clone(),
            ..gvk.clone()
        },
        namespace: namespace.to_string(),
        name: o.name.clone(),
        rsync_backed,
        present,
        readiness: o.readiness,
        body: o.body.text().to_string(),
    }
}

/// Tells the watchers of `cluster` and of every owner placed on it that its
/// connectivity changed from `previous`.
async fn emit_connectivity(
    tx: &mut Tx,
    cluster: &ClusterName,
    previous: Connectivity,
    connectivity: Connectivity,
) -> Result<()> {
    let mut targets = owners_placed_on(tx, cluster).await?;
    targets.push(cluster.to_string());
    for target in targets {
        tx.emit(NewEvent::connectivity(
            &target,
            cluster,
            Some(previous),
            connectivity,
        ));
    }
    Ok(())
}

/// What an ingest batch reads, by (instance, deployment base): each cluster with
/// its apps reported whole, and the resources partial states list.
type Wanted<'a> = BTreeMap<(InstanceId, InstanceId), BatchReads<'a>>;

/// One deployment of an ingest batch with what is stored for it.
struct Deployment<'a> {
    cluster: &'a ClusterName,
    instance: InstanceId,
    /// The instance's deployment base (whose cluster resources it reads and writes).
    base: InstanceId,
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
        base,
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
            // A partial state leaves what it does not list as it was.
            None if bundle.partial => {
                rows.extend(
                    old_rows
                        .iter()
                        .find(|o| {
                            o.rsync_backed
                                && o.gvk.kind == r.gvk.kind
                                && o.gvk.group == r.gvk.group
                                && o.namespace == r.namespace
                                && o.name == r.name
                        })
                        .cloned(),
                );
                continue;
            }
            None if is_monitored(&r.gvk.kind) => (ClusterStatus::NotPresent, Readiness::None),
            None => (ClusterStatus::Unknown, Readiness::None),
        };
        if cluster_status != r.cluster_status || ready != r.readiness {
            let old = Statuses {
                rsync: Some(r.rsync_status),
                cluster: Some(r.cluster_status),
                readiness: r.readiness,
            };
            let new = Statuses {
                cluster: Some(cluster_status),
                readiness: ready,
                ..old.clone()
            };
            let key = ResourceKey::of(app, cluster, &r.gvk, &r.namespace, &r.name);
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
                r.cluster_status.as_str(),
                cluster_status.as_str(),
            );
            deltas.moved(
                instance,
                app,
                cluster,
                Dimension::Readiness,
                r.readiness.as_str(),
                ready.as_str(),
            );
        }
    }
    // Cluster-only resources: counted too; remembered as NotPresent when they vanish.
    for old in old_rows.iter().filter(|o| !o.rsync_backed) {
        count_cluster_only(deltas, instance, old, -1);
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
        if seen.contains(&key) {
            continue;
        }
        rows.push(if bundle.partial {
            old.clone()
        } else {
            ClusterResourceRow {
                present: false,
                readiness: Readiness::None,
                ..old.clone()
            }
        });
    }
    for new in rows.iter().filter(|r| !r.rsync_backed) {
        let before = old_rows
            .iter()
            .find(|o| {
                !o.rsync_backed
                    && o.gvk.kind == new.gvk.kind
                    && o.gvk.group == new.gvk.group
                    && o.namespace == new.namespace
                    && o.name == new.name
            })
            .map(cluster_only_statuses);
        let after = cluster_only_statuses(new);
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
        count_cluster_only(deltas, instance, new, 1);
    }
    writes.sync_cluster_resources(base, old_rows, &rows);
}

/// The statuses of a cluster-only resource (no rsync status: nothing rendered it).
fn cluster_only_statuses(r: &ClusterResourceRow) -> Statuses {
    Statuses {
        rsync: None,
        cluster: Some(r.cluster_status()),
        readiness: r.readiness,
    }
}

/// Counts cluster-only resource `r` `delta` times (1 or -1) for `instance`.
fn count_cluster_only(
    deltas: &mut CountDeltas,
    instance: InstanceId,
    r: &ClusterResourceRow,
    delta: i64,
) {
    deltas.add(
        instance,
        &r.app,
        &r.cluster,
        Dimension::Cluster,
        r.cluster_status().as_str(),
        delta,
    );
    deltas.add(
        instance,
        &r.app,
        &r.cluster,
        Dimension::Readiness,
        r.readiness.as_str(),
        delta,
    );
}

/// Gives `instance`, which replaces another instance under the same deployment base
/// `base` (an update, rollback or migrate, in its transaction, after the lifecycle event
/// that announced it), the cluster-only resources (pods and the like) of the
/// controllers it carried over (`store::carry::carry_applied`, before that event,
/// carried the rendered resources themselves): counted for it and announced as its
/// events, as if its agents had just reported them. Then refreshes the owner's
/// conditions.
///
/// The base's other cluster-only rows are dropped, so that what the base holds is what
/// `instance` counts (its next reports count from them): those of a changed controller
/// (its pods, and the rest, come with the report the server asks for), those
/// remembered gone, those of apps or clusters it does not place.
pub(crate) async fn carry_over(
    tx: &mut Tx,
    owner: &str,
    instance: InstanceId,
    base: InstanceId,
) -> Result<()> {
    let mut deltas = CountDeltas::default();
    let observed = cluster_only_of_base(tx, instance).await?;
    if !observed.is_empty() {
        let carried = carried_keys(tx, instance).await?;
        // (app, cluster, kind, group, namespace, name) of what is carried.
        let kept: HashSet<[&str; 6]> = carried.iter().map(ResourceKey::columns).collect();
        let apps: HashSet<String> = instance_apps(tx, instance).await?.into_iter().collect();
        let clusters: HashSet<ClusterName> =
            instance_clusters(tx, instance).await?.into_iter().collect();
        // Deployments with a resource not carried over: the server asks their agents
        // to report them again (`reports_wanted`).
        let reported_again: HashSet<DeploymentKey> = rsync_unobserved_deployments(tx, instance)
            .await?
            .into_iter()
            .collect();
        let id = instance.to_string();
        let mut dropped = Vec::new();
        for row in observed {
            let is_kept = |kind: &str, group: &str, namespace: &str, name: &str| {
                kept.contains(&[&row.app, row.cluster.as_str(), kind, group, namespace, name])
            };
            // Of a deployment carried over whole, everything its cluster made; of one
            // that changed, what the carried controllers own directly. A Deployment's
            // pods on a real cluster are owned by a ReplicaSet, which is not rendered:
            // only the first rule keeps them.
            let whole = !reported_again.contains(&row.deployment());
            let body = Body::from_text(row.body.clone());
            let keep = row.present
                && apps.contains(&row.app)
                && clusters.contains(&row.cluster)
                && body.as_ref().is_some_and(|body| {
                    let metadata = &body.value()["metadata"];
                    is_owned(metadata)
                        && (whole || owned_by_kept(metadata, &row.namespace, &is_kept))
                });
            if !keep {
                dropped.push(row);
                continue;
            }
            tx.emit(NewEvent::resource(
                owner,
                &id,
                &row.key(),
                &row.gvk.version,
                false,
                None,
                cluster_only_statuses(&row),
                body,
            ));
            count_cluster_only(&mut deltas, instance, &row, 1);
        }
        let mut writes = IngestWrites::default();
        writes.delete_cluster_resources(base, dropped);
        writes.apply(tx).await?;
    }
    deltas.apply(tx).await?;
    refresh_conditions(tx, owner).await
}
