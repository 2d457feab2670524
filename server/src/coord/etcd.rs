//! The etcd coordinator: a replica's lease, its registration, the live member list and
//! the owner keys.
//!
//! Keys, under the configured prefix (default `/flotilla`):
//! - `members/{id}`: `{"id", "address"}`, attached to the member's lease;
//! - `owners/{cluster}`: the owning member's id, attached to its lease; the key's
//!   creation revision is the ownership epoch;
//! - `nudges/{cluster}`: the last [`Nudge`] for the cluster, put by any replica and
//!   watched by all (the owner acts on it), attached to the sender's lease;
//! - `signals/{target}`: the member that last committed to a watch target or cache
//!   key, put after its commit and watched by all ([`relay`]).
//!
//! The lease is renewed every third of its TTL. A renewal counts from the moment it
//! was *sent*, so this replica's idea of when its lease ends is never later than etcd's;
//! [`Coordinator::holding`] turns false a fifth of the TTL before that, and the owner
//! stops writing for its clusters. If etcd says the lease is gone (it expired while
//! etcd was unreachable), the replica joins again with a new lease and no claims.
//! etcd being down stops none of this replica's PostgreSQL-only work: joining, renewing
//! and the member list retry in the background.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, EventType, GetOptions, PutOptions, Txn, TxnOp,
    TxnOpResponse, WatchOptions,
};
use futures::{StreamExt, TryStreamExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::{Claim, Coordinator, Epoch, EtcdSettings, Member, MemberId, Nudge, Owner};
use crate::store::Signals;

mod outbox;
mod relay;

/// Longest wait for one etcd request before it counts as failed.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// Pause between attempts while etcd does not answer.
const RETRY: Duration = Duration::from_millis(500);

/// What this replica knows of its lease.
#[derive(Debug, Clone, Copy, Default)]
struct LeaseView {
    id: Option<i64>,
    /// When the lease ends at the latest, as far as this replica can tell.
    valid_until: Option<Instant>,
}

pub struct EtcdCoordinator {
    me: Member,
    settings: EtcdSettings,
    client: Client,
    lease: Mutex<LeaseView>,
    members: watch::Sender<Vec<Member>>,
    nudges: tokio::sync::mpsc::UnboundedSender<(String, Nudge)>,
    /// Nudges to put (see `outbox`).
    outbox: tokio::sync::mpsc::UnboundedSender<(String, Nudge)>,
    nudged: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<(String, Nudge)>>>,
    stop: CancellationToken,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl EtcdCoordinator {
    /// Connects (lazily: an etcd that is down now is retried) and starts joining the
    /// replica set in the background; relays `signals` to and from the other replicas.
    pub async fn start(
        me: Member,
        settings: EtcdSettings,
        signals: Arc<Signals>,
    ) -> anyhow::Result<Arc<Self>> {
        let client = connect(&settings).await?;
        let (members, _) = watch::channel(Vec::new());
        let (nudges, nudged) = tokio::sync::mpsc::unbounded_channel();
        let (outbox, outgoing) = tokio::sync::mpsc::unbounded_channel();
        let coordinator = Arc::new(EtcdCoordinator {
            me,
            settings,
            client,
            lease: Mutex::new(LeaseView::default()),
            members,
            nudges,
            outbox,
            nudged: Mutex::new(Some(nudged)),
            stop: CancellationToken::new(),
            tasks: Mutex::new(Vec::new()),
        });
        let lease_task = tokio::spawn(coordinator.clone().keep_membership());
        let list_task = tokio::spawn(coordinator.clone().follow_members());
        let nudge_task = tokio::spawn(coordinator.clone().follow_nudges());
        let outbox_task = tokio::spawn(coordinator.clone().send_nudges(outgoing));
        coordinator.tasks.lock().expect("tasks").extend([
            lease_task,
            list_task,
            nudge_task,
            outbox_task,
        ]);
        coordinator.start_relay(signals);
        Ok(coordinator)
    }

    /// Waits until this replica is a member (its registration is in etcd), or `limit`.
    pub async fn joined(&self, limit: Duration) -> bool {
        let mut members = self.members.subscribe();
        let me = self.me.id.clone();
        tokio::time::timeout(
            limit,
            members.wait_for(|members| members.iter().any(|m| m.id == me)),
        )
        .await
        .is_ok_and(|seen| seen.is_ok())
    }

    fn key(&self, kind: &str, name: &str) -> String {
        format!("{}/{kind}/{name}", self.settings.prefix)
    }

    fn prefix(&self, kind: &str) -> String {
        format!("{}/{kind}/", self.settings.prefix)
    }

    /// The current lease, if this replica holds a live one.
    fn live_lease(&self) -> Option<i64> {
        let view = *self.lease.lock().expect("lease");
        (view.valid_until? > Instant::now() + self.margin()).then_some(view.id?)
    }

    /// How long before the lease's end this replica stops counting on it.
    fn margin(&self) -> Duration {
        self.settings.lease_ttl / 5
    }

    fn renewed(&self, id: i64, sent: Instant, ttl_secs: i64) {
        let mut view = self.lease.lock().expect("lease");
        *view = LeaseView {
            id: Some(id),
            valid_until: Some(sent + Duration::from_secs(ttl_secs.max(0) as u64)),
        };
    }

    fn lost(&self) {
        *self.lease.lock().expect("lease") = LeaseView::default();
    }

    /// Joins, renews, and joins again whenever the lease is lost, until resigned.
    async fn keep_membership(self: Arc<Self>) {
        let ttl = self.settings.lease_ttl;
        let interval = ttl / 3;
        while !self.stop.is_cancelled() {
            let lease = match self.join().await {
                Ok(lease) => lease,
                Err(error) => {
                    warn!(%error, "cannot join the replica set in etcd; retrying");
                    self.pause(RETRY).await;
                    continue;
                }
            };
            info!(member = %self.me.id, address = %self.me.address, lease, ttl_secs = ttl.as_secs(), "joined the replica set");
            let mut stream = None;
            while !self.stop.is_cancelled() {
                self.pause(interval).await;
                if self.stop.is_cancelled() {
                    return;
                }
                let sent = Instant::now();
                match self.renew(lease, &mut stream).await {
                    Ok(ttl) if ttl > 0 => self.renewed(lease, sent, ttl),
                    Ok(_) => {
                        warn!(member = %self.me.id, lease, "the lease expired: its clusters are gone; joining again");
                        self.lost();
                        break;
                    }
                    Err(error) => {
                        // The stream is reopened at the next renewal; until one lands,
                        // holding() runs out on its own.
                        stream = None;
                        warn!(%error, lease, "cannot renew the lease");
                    }
                }
            }
        }
    }

    /// Grants a lease and registers this member under it.
    async fn join(&self) -> anyhow::Result<i64> {
        let mut client = self.client.clone();
        let sent = Instant::now();
        let ttl = self.settings.lease_ttl.as_secs() as i64;
        let grant = timed(client.lease_grant(ttl, None)).await?;
        let value = serde_json::to_vec(&self.me)?;
        let options = PutOptions::new().with_lease(grant.id());
        timed(client.put(
            self.key("members", self.me.id.as_str()),
            value,
            Some(options),
        ))
        .await?;
        self.renewed(grant.id(), sent, grant.ttl());
        Ok(grant.id())
    }

    /// One renewal: the TTL etcd answers (0 when the lease no longer exists).
    async fn renew(
        &self,
        lease: i64,
        stream: &mut Option<(etcd_client::LeaseKeeper, etcd_client::LeaseKeepAliveStream)>,
    ) -> anyhow::Result<i64> {
        if stream.is_none() {
            *stream = Some(timed(self.client.clone().lease_keep_alive(lease)).await?);
        }
        let (keeper, answers) = stream.as_mut().expect("opened above");
        tokio::time::timeout(REQUEST_TIMEOUT, async {
            keeper.keep_alive().await?;
            match answers.message().await? {
                Some(answer) => Ok(answer.ttl()),
                None => Err(anyhow!("the keep-alive stream ended")),
            }
        })
        .await
        .map_err(|_| anyhow!("no keep-alive answer within {REQUEST_TIMEOUT:?}"))?
    }

    /// Keeps `members` equal to the registrations in etcd: a listing, then a watch from
    /// the listing's revision; a broken watch lists again.
    async fn follow_members(self: Arc<Self>) {
        let prefix = self.prefix("members");
        while !self.stop.is_cancelled() {
            if let Err(error) = self.follow_members_once(&prefix).await {
                warn!(%error, "lost the member list's watch; listing again");
            }
            self.pause(RETRY).await;
        }
    }

    async fn follow_members_once(&self, prefix: &str) -> anyhow::Result<()> {
        let mut client = self.client.clone();
        let listing = timed(client.get(prefix, Some(GetOptions::new().with_prefix()))).await?;
        let revision = listing.header().map_or(0, |h| h.revision());
        let mut known: BTreeMap<String, Member> = BTreeMap::new();
        for kv in listing.kvs() {
            if let Ok(member) = serde_json::from_slice::<Member>(kv.value()) {
                known.insert(kv.key_str()?.to_owned(), member);
            }
        }
        self.publish(&known);
        let options = WatchOptions::new()
            .with_prefix()
            .with_start_revision(revision + 1);
        let (_watcher, mut events) = timed(client.watch(prefix, Some(options))).await?;
        while let Some(answer) = self.next_events(&mut events).await? {
            for event in answer.events() {
                let Some(kv) = event.kv() else { continue };
                let key = kv.key_str()?.to_owned();
                match event.event_type() {
                    EventType::Put => {
                        if let Ok(member) = serde_json::from_slice::<Member>(kv.value()) {
                            known.insert(key, member);
                        }
                    }
                    EventType::Delete => {
                        known.remove(&key);
                    }
                }
            }
            self.publish(&known);
        }
        Ok(())
    }

    /// Hands every nudge put from now on to `take_nudges`' receiver. A broken watch
    /// resumes after the last revision seen, so none is skipped (unless etcd compacted
    /// it away meanwhile: the owners' timers cover that).
    async fn follow_nudges(self: Arc<Self>) {
        let prefix = self.prefix("nudges");
        let mut next = 0;
        while !self.stop.is_cancelled() {
            if let Err(error) = self.follow_nudges_once(&prefix, &mut next).await {
                warn!(%error, "lost the nudges' watch; watching again");
                if error.to_string().contains("compacted") {
                    next = 0;
                }
            }
            self.pause(RETRY).await;
        }
    }

    async fn follow_nudges_once(&self, prefix: &str, next: &mut i64) -> anyhow::Result<()> {
        let mut options = WatchOptions::new().with_prefix();
        if *next > 0 {
            options = options.with_start_revision(*next);
        }
        let (_watcher, mut events) =
            timed(self.client.clone().watch(prefix, Some(options))).await?;
        while let Some(answer) = self.next_events(&mut events).await? {
            for event in answer.events() {
                let Some(kv) = event.kv() else { continue };
                *next = kv.mod_revision() + 1;
                if event.event_type() != EventType::Put {
                    continue;
                }
                let cluster = kv.key_str()?.strip_prefix(prefix).unwrap_or_default();
                match serde_json::from_slice::<Nudge>(kv.value()) {
                    Ok(nudge) => {
                        let _ = self.nudges.send((cluster.to_owned(), nudge));
                    }
                    Err(error) => warn!(%cluster, %error, "an unreadable nudge"),
                }
            }
        }
        Ok(())
    }

    /// The next answer of a watch; None once resigned; an error when the watch ended
    /// or etcd cancelled it (the caller watches again).
    async fn next_events(
        &self,
        events: &mut etcd_client::WatchStream,
    ) -> anyhow::Result<Option<etcd_client::WatchResponse>> {
        let answer = tokio::select! {
            () = self.stop.cancelled() => return Ok(None),
            answer = events.message() => answer?,
        };
        let Some(answer) = answer else {
            return Err(anyhow!("the watch ended"));
        };
        if answer.canceled() {
            return Err(anyhow!(
                "the watch was cancelled: {}",
                answer.cancel_reason()
            ));
        }
        Ok(Some(answer))
    }

    fn publish(&self, known: &BTreeMap<String, Member>) {
        let mut members: Vec<Member> = known.values().cloned().collect();
        members.sort_by(|a, b| a.id.cmp(&b.id));
        self.members.send_if_modified(|current| {
            let changed = *current != members;
            if changed {
                info!(members = ?members.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), "replica set changed");
                *current = members;
            }
            changed
        });
    }

    async fn pause(&self, duration: Duration) {
        tokio::select! {
            () = self.stop.cancelled() => {}
            () = tokio::time::sleep(duration) => {}
        }
    }
}

#[tonic::async_trait]
impl Coordinator for EtcdCoordinator {
    fn me(&self) -> &Member {
        &self.me
    }

    fn members(&self) -> watch::Receiver<Vec<Member>> {
        self.members.subscribe()
    }

    fn lease(&self) -> Option<i64> {
        self.live_lease()
    }

    async fn claim(&self, cluster: &str) -> anyhow::Result<Claim> {
        let lease = self.live_lease().ok_or_else(|| {
            anyhow!("not a live member of the replica set: cannot claim {cluster}")
        })?;
        let key = self.key("owners", cluster);
        let txn = Txn::new()
            .when([Compare::create_revision(key.clone(), CompareOp::Equal, 0)])
            .and_then([TxnOp::put(
                key.clone(),
                self.me.id.as_str(),
                Some(PutOptions::new().with_lease(lease)),
            )])
            .or_else([TxnOp::get(key, None)]);
        let answer = timed(self.client.clone().txn(txn)).await?;
        if answer.succeeded() {
            let revision = answer
                .header()
                .map(|h| h.revision())
                .context("etcd answered a claim without a header")?;
            return Ok(Claim::Ours(Epoch(revision)));
        }
        for op in answer.op_responses() {
            if let TxnOpResponse::Get(get) = op
                && let Some(kv) = get.kvs().first()
            {
                let owner = MemberId::from(kv.value_str()?);
                let epoch = Epoch(kv.create_revision());
                // This member under another lease is an earlier life of it (killed and
                // restarted within a TTL): that claim is not ours to use.
                return Ok(if owner == self.me.id && kv.lease() == lease {
                    Claim::Ours(epoch)
                } else {
                    Claim::Held { owner, epoch }
                });
            }
        }
        // Deleted between the compare and the read cannot happen inside one txn.
        Err(anyhow!(
            "etcd answered a failed claim of {cluster} without its owner"
        ))
    }

    async fn release(&self, cluster: &str, epoch: Epoch) -> anyhow::Result<()> {
        let key = self.key("owners", cluster);
        let txn = Txn::new()
            .when([
                Compare::value(key.clone(), CompareOp::Equal, self.me.id.as_str()),
                Compare::create_revision(key.clone(), CompareOp::Equal, epoch.0),
            ])
            .and_then([TxnOp::delete(key, None)]);
        timed(self.client.clone().txn(txn)).await?;
        Ok(())
    }

    async fn owners(&self) -> anyhow::Result<BTreeMap<String, Owner>> {
        let prefix = self.prefix("owners");
        let listing = timed(
            self.client
                .clone()
                .get(prefix.as_str(), Some(GetOptions::new().with_prefix())),
        )
        .await?;
        let mut owners = BTreeMap::new();
        for kv in listing.kvs() {
            let cluster = kv.key_str()?.strip_prefix(&prefix).unwrap_or_default();
            owners.insert(
                cluster.to_owned(),
                Owner {
                    member: MemberId::from(kv.value_str()?),
                    epoch: Epoch(kv.create_revision()),
                },
            );
        }
        Ok(owners)
    }

    async fn nudge(&self, cluster: &str, nudge: Nudge) {
        // Put by the outbox's task, in batches (see `outbox`).
        let _ = self.outbox.send((cluster.to_owned(), nudge));
    }

    fn take_nudges(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<(String, Nudge)>> {
        self.nudged.lock().expect("nudged").take()
    }

    async fn step_down(&self) {
        let result: anyhow::Result<usize> = async {
            let mine: Vec<(String, Epoch)> = self
                .owners()
                .await?
                .into_iter()
                .filter(|(_, owner)| owner.member == self.me.id)
                .map(|(cluster, owner)| (cluster, owner.epoch))
                .collect();
            let count = mine.len();
            futures::stream::iter(mine)
                .map(|(cluster, epoch)| async move { self.release(&cluster, epoch).await })
                .buffer_unordered(16)
                .try_collect::<Vec<()>>()
                .await?;
            // Withdrawn last: the others rebalance when they see it, and find every
            // cluster free by then.
            timed(
                self.client
                    .clone()
                    .delete(self.key("members", self.me.id.as_str()), None),
            )
            .await?;
            Ok(count)
        }
        .await;
        match result {
            Ok(clusters) => {
                info!(member = %self.me.id, clusters, "handed every cluster over")
            }
            Err(error) => {
                warn!(%error, member = %self.me.id, "cannot hand the clusters over: the others take them when this replica's lease ends")
            }
        }
    }

    async fn resign(&self) {
        self.stop.cancel();
        let tasks = std::mem::take(&mut *self.tasks.lock().expect("tasks"));
        for task in tasks {
            let _ = task.await;
        }
        let lease = self.lease.lock().expect("lease").id;
        self.lost();
        if let Some(lease) = lease {
            match timed(self.client.clone().lease_revoke(lease)).await {
                Ok(_) => info!(member = %self.me.id, "left the replica set"),
                Err(error) => {
                    warn!(%error, member = %self.me.id, "cannot revoke the lease: the others take this replica's clusters when it expires")
                }
            }
        }
    }
}

/// One etcd request with [`REQUEST_TIMEOUT`].
async fn timed<T>(
    request: impl std::future::Future<Output = Result<T, etcd_client::Error>>,
) -> anyhow::Result<T> {
    tokio::time::timeout(REQUEST_TIMEOUT, request)
        .await
        .map_err(|_| anyhow!("etcd did not answer within {REQUEST_TIMEOUT:?}"))?
        .map_err(|error| anyhow!("etcd: {error}"))
}

/// A client of the configured endpoints (TLS when given). Connections are made on
/// first use, so a replica starts while etcd is down.
async fn connect(settings: &EtcdSettings) -> anyhow::Result<Client> {
    let mut options = ConnectOptions::new()
        .with_connect_timeout(REQUEST_TIMEOUT)
        // HTTP/2 pings find a dead etcd under an idle watch.
        .with_keep_alive(Duration::from_secs(2), Duration::from_secs(2))
        .with_keep_alive_while_idle(true);
    if let Some(tls) = &settings.tls {
        let mut config = etcd_client::TlsOptions::new();
        if let Some(ca) = &tls.ca {
            let pem = std::fs::read(ca)
                .with_context(|| format!("cannot read the etcd CA file {}", ca.display()))?;
            config = config.ca_certificate(etcd_client::Certificate::from_pem(pem));
        }
        if let Some((cert, key)) = &tls.identity {
            let cert_pem = std::fs::read(cert)
                .with_context(|| format!("cannot read the etcd certificate {}", cert.display()))?;
            let key_pem = std::fs::read(key)
                .with_context(|| format!("cannot read the etcd key {}", key.display()))?;
            config = config.identity(etcd_client::Identity::from_pem(cert_pem, key_pem));
        }
        options = options.with_tls(config);
    }
    Client::connect(&settings.endpoints, Some(options))
        .await
        .map_err(|error| {
            anyhow!(
                "cannot set up the etcd client for {:?}: {error}",
                settings.endpoints
            )
        })
}
