//! Which clusters this replica runs. In a replica set, a loop keeps this replica's
//! owner keys equal to [`placement::assign`]'s answer for it: it gives up the clusters
//! placed elsewhere (their workers stopped and their agents sent away first) and takes
//! the ones placed here once their previous owner let go (released, or its lease
//! expired), recording each takeover's epoch as the cluster's fence in SQL. It runs on
//! every membership change, when clusters are created or deleted, and every third of
//! the lease TTL. A replica that stops holding its lease drops every cluster at once.
//!
//! A single process owns every cluster at [`Epoch::UNFENCED`] and runs no loop.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::placement::{self, LOAD_FACTOR};
use super::{Claim, Coordinator, Epoch, MemberId};
use crate::metrics::METRICS;
use crate::store::Store;
use crate::store::cluster::cluster_list_all;
use crate::store::fence::{fence_forget, fence_take};

/// The unit whose owner runs the fleet-wide background tasks (garbage collection,
/// state sync, container cluster workflows, action deadlines, event compaction,
/// retention): placed and claimed like a cluster, so exactly one live replica runs them
/// and another takes over within a TTL when it goes. No cluster has this name (theirs
/// begin with `clusterProviders/`).
pub const FLEET_TASKS: &str = "fleet-tasks";

/// What runs a cluster's work on a replica: told when the replica gains a cluster and
/// before it gives one up.
#[tonic::async_trait]
pub trait OwnershipHooks: Send + Sync {
    /// This replica runs `cluster` from now on (start its worker).
    async fn gained(&self, cluster: &str);
    /// This replica stops running `cluster`: stop its worker and end its agent's
    /// session before the cluster is handed over.
    async fn losing(&self, cluster: &str);
}

/// Where a cluster's work runs, as this replica knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Whereabouts {
    /// Here, at this epoch.
    Here(Epoch),
    /// On another member, reachable at `address`.
    Elsewhere { member: MemberId, address: String },
    /// Nowhere yet (between owners, or this replica cannot tell).
    Unknown,
}

pub struct Ownership {
    coordinator: Arc<dyn Coordinator>,
    /// A replica set (etcd); false: one process that owns everything.
    replicated: bool,
    /// The clusters run here, with the epoch and the lease each was taken under.
    owned: Mutex<HashMap<String, (Epoch, i64)>>,
    /// The other members' clusters, from the last pass: where agents are sent.
    elsewhere: Mutex<BTreeMap<String, MemberId>>,
    hooks: OnceLock<Arc<dyn OwnershipHooks>>,
    kick: Notify,
}

impl Ownership {
    pub fn new(coordinator: Arc<dyn Coordinator>, replicated: bool) -> Arc<Ownership> {
        Arc::new(Ownership {
            coordinator,
            replicated,
            owned: Mutex::new(HashMap::new()),
            elsewhere: Mutex::new(BTreeMap::new()),
            hooks: OnceLock::new(),
            kick: Notify::new(),
        })
    }

    /// The coordinator this ownership is kept with.
    pub fn coordinator(&self) -> &Arc<dyn Coordinator> {
        &self.coordinator
    }

    /// Sets who is told of gains and losses (once, at start-up).
    pub fn attach(&self, hooks: Arc<dyn OwnershipHooks>) {
        let _ = self.hooks.set(hooks);
    }

    /// Whether this replica is one of several.
    pub fn replicated(&self) -> bool {
        self.replicated
    }

    /// The epoch at which this replica runs `cluster`, if it does.
    pub fn owns(&self, cluster: &str) -> Option<Epoch> {
        if !self.replicated {
            return Some(Epoch::UNFENCED);
        }
        let lease = self.coordinator.lease()?;
        match self.owned.lock().expect("owned").get(cluster) {
            Some((epoch, taken_under)) if *taken_under == lease => Some(*epoch),
            _ => None,
        }
    }

    /// The clusters among `clusters` this replica must not write for: not run here
    /// now, or taken by a newer owner (their fences, checked in `conn`'s transaction
    /// and share-locked until it ends). Always empty in a single process.
    pub async fn fenced_out(
        &self,
        conn: &mut crate::store::Conn,
        clusters: &[&str],
    ) -> crate::error::Result<std::collections::BTreeSet<String>> {
        if !self.replicated {
            return Ok(std::collections::BTreeSet::new());
        }
        let (claims, mut stale) = self.claims(clusters);
        stale.extend(crate::store::fence::fence_check(conn, &claims).await?);
        if !stale.is_empty() {
            warn!(clusters = ?stale, "fenced out: not writing for clusters this replica no longer runs");
        }
        Ok(stale)
    }

    /// The epoch this replica runs each of `clusters` at, as it knows (a write for
    /// one must still find the cluster's fence at that epoch in its transaction or
    /// statement), and the clusters it does not run.
    pub fn claims<'a>(
        &self,
        clusters: &[&'a str],
    ) -> (Vec<(&'a str, i64)>, std::collections::BTreeSet<String>) {
        let mut claims = Vec::with_capacity(clusters.len());
        let mut stale = std::collections::BTreeSet::new();
        for cluster in clusters {
            match self.owns(cluster) {
                Some(epoch) => claims.push((*cluster, epoch.0)),
                None => {
                    stale.insert((*cluster).to_owned());
                }
            }
        }
        (claims, stale)
    }

    /// Whether this replica may write as the runner of the fleet-wide tasks in `conn`'s
    /// transaction: it holds [`FLEET_TASKS`] under its live lease and the unit's fence
    /// still holds its epoch (share-locked until the transaction ends). Always true in
    /// a single process.
    pub async fn runs_fleet_tasks(
        &self,
        conn: &mut crate::store::Conn,
    ) -> crate::error::Result<bool> {
        Ok(self.fenced_out(conn, &[FLEET_TASKS]).await?.is_empty())
    }

    /// Where `cluster`'s work runs.
    pub fn whereabouts(&self, cluster: &str) -> Whereabouts {
        if let Some(epoch) = self.owns(cluster) {
            return Whereabouts::Here(epoch);
        }
        let Some(member) = self
            .elsewhere
            .lock()
            .expect("elsewhere")
            .get(cluster)
            .cloned()
        else {
            return Whereabouts::Unknown;
        };
        let members = self.coordinator.members();
        let address = members
            .borrow()
            .iter()
            .find(|m| m.id == member)
            .map(|m| m.address.clone());
        match address {
            Some(address) => Whereabouts::Elsewhere { member, address },
            None => Whereabouts::Unknown,
        }
    }

    /// Asks for a pass soon (a cluster was created or deleted).
    pub fn kick(&self) {
        self.kick.notify_one();
    }

    /// Keeps ownership in line with the placement until `stop`, then gives every
    /// cluster up (the coordinator's resignation frees the keys).
    pub async fn run(self: Arc<Self>, store: Store, period: Duration, stop: CancellationToken) {
        if !self.replicated {
            return;
        }
        let mut members = self.coordinator.members();
        let sampler = tokio::spawn({
            let this = self.clone();
            let stop = stop.clone();
            async move {
                loop {
                    METRICS.owned_units.set(this.running() as i64);
                    tokio::select! {
                        () = stop.cancelled() => break,
                        () = tokio::time::sleep(Duration::from_millis(100)) => {}
                    }
                }
            }
        });
        loop {
            if let Err(error) = self.pass(&store).await {
                warn!(%error, "cannot balance cluster ownership; retrying");
            }
            tokio::select! {
                () = stop.cancelled() => break,
                _ = members.changed() => {}
                () = self.kick.notified() => {}
                () = tokio::time::sleep(period) => {}
            }
        }
        self.drop_all().await;
        let _ = sampler.await;
        METRICS.owned_units.set(0);
    }

    /// How many units (clusters, and the fleet-wide tasks) this replica runs now: held
    /// under its live lease.
    pub fn running(&self) -> usize {
        let Some(lease) = self.coordinator.lease() else {
            return 0;
        };
        self.owned
            .lock()
            .expect("owned")
            .values()
            .filter(|(_, taken_under)| *taken_under == lease)
            .count()
    }

    /// One pass: give up what is placed elsewhere, take what is placed here.
    async fn pass(&self, store: &Store) -> anyhow::Result<()> {
        let me = self.coordinator.me().id.clone();
        let members: Vec<MemberId> = self
            .coordinator
            .members()
            .borrow()
            .iter()
            .map(|m| m.id.clone())
            .collect();
        let Some(lease) = self.coordinator.lease().filter(|_| members.contains(&me)) else {
            self.drop_all().await;
            return Ok(());
        };
        // Claims taken under an earlier lease went with it.
        let stale: Vec<String> = self
            .owned
            .lock()
            .expect("owned")
            .iter()
            .filter(|(_, (_, taken_under))| *taken_under != lease)
            .map(|(cluster, _)| cluster.clone())
            .collect();
        for cluster in stale {
            self.give_up(&cluster).await;
        }
        let clusters: Vec<String> = {
            let mut conn = store.read().await?;
            cluster_list_all(&mut conn)
                .await?
                .into_iter()
                .map(|(name, _)| name)
                .chain([FLEET_TASKS.to_owned()])
                .collect()
        };
        let placed = placement::assign(clusters.iter().map(String::as_str), &members, LOAD_FACTOR);
        // Let go first: the members these clusters are placed on are waiting for them.
        let held: Vec<(String, Epoch)> = self
            .owned
            .lock()
            .expect("owned")
            .iter()
            .map(|(c, (e, _))| (c.clone(), *e))
            .collect();
        for (cluster, epoch) in held {
            match placed.get(cluster.as_str()) {
                Some(member) if *member == me => {}
                placed_on => {
                    self.give_up(&cluster).await;
                    self.coordinator.release(&cluster, epoch).await?;
                    if placed_on.is_none() {
                        let mut conn = store.read().await?;
                        fence_forget(&mut conn, &cluster).await?;
                    }
                    info!(%cluster, to = ?placed_on.map(|m| m.as_str()), "handed a cluster over");
                }
            }
        }
        let mut elsewhere = BTreeMap::new();
        for (cluster, member) in &placed {
            if *member != me {
                elsewhere.insert((*cluster).to_owned(), member.clone());
                continue;
            }
            if self.owned.lock().expect("owned").contains_key(*cluster) {
                continue;
            }
            match self.coordinator.claim(cluster).await? {
                Claim::Ours(epoch) => {
                    let mut conn = store.read().await?;
                    if !fence_take(&mut conn, cluster, epoch.0).await? {
                        // A newer owner recorded a later epoch: this claim is stale.
                        warn!(%cluster, ?epoch, "a newer owner holds this cluster's fence");
                        self.coordinator.release(cluster, epoch).await?;
                        continue;
                    }
                    self.owned
                        .lock()
                        .expect("owned")
                        .insert((*cluster).to_owned(), (epoch, lease));
                    info!(%cluster, epoch = epoch.0, "took a cluster");
                    if let Some(hooks) = self.hooks.get().filter(|_| *cluster != FLEET_TASKS) {
                        hooks.gained(cluster).await;
                    }
                }
                Claim::Held { owner, .. } => {
                    // Still with its previous owner, which lets go on its next pass
                    // (or loses it with its lease): agents go there meanwhile.
                    elsewhere.insert((*cluster).to_owned(), owner);
                }
            }
        }
        *self.elsewhere.lock().expect("elsewhere") = elsewhere;
        Ok(())
    }

    /// Stops running `cluster` here (its workers and session), keeping the key.
    async fn give_up(&self, cluster: &str) {
        self.owned.lock().expect("owned").remove(cluster);
        if let Some(hooks) = self.hooks.get().filter(|_| cluster != FLEET_TASKS) {
            hooks.losing(cluster).await;
        }
    }

    /// Stops running every cluster (lease lost, or shutting down).
    async fn drop_all(&self) {
        let owned: Vec<String> = self.owned.lock().expect("owned").keys().cloned().collect();
        if !owned.is_empty() {
            warn!(
                clusters = owned.len(),
                "giving up every cluster: no live lease, or leaving"
            );
        }
        for cluster in owned {
            self.give_up(&cluster).await;
        }
    }
}
