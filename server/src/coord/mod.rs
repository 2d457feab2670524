//! Coordination between replicas (DESIGN §4): who the live members are, which member
//! runs each cluster, and the epoch that fences a member's writes for a cluster it
//! owns. One trait, two implementations: [`InProcess`] for the single-process default
//! (one member that owns everything, nothing to fence) and [`etcd::EtcdCoordinator`]
//! for N replicas sharing PostgreSQL.
//!
//! A replica is a member while its etcd lease lives: its registration and every owner
//! key it holds are attached to that lease, so a replica that dies (or stops renewing)
//! loses them all within one TTL, and nobody has to clean up after it. Which member
//! *should* run a cluster is [`placement::assign`]'s answer; which member *does* is the
//! owner key, taken only when free, whose creation revision is the ownership
//! [`Epoch`].

pub mod etcd;
pub mod ownership;
pub mod peers;
pub mod placement;

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::sync::watch;

/// A replica's identity in the replica set (`--replica-id`): stable across restarts
/// where the deployment gives one (a StatefulSet's pod name), unique among live
/// replicas.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct MemberId(String);

impl MemberId {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl From<String> for MemberId {
    fn from(id: String) -> Self {
        MemberId(id)
    }
}

impl From<&str> for MemberId {
    fn from(id: &str) -> Self {
        MemberId(id.to_owned())
    }
}

impl std::fmt::Display for MemberId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A live replica: who it is and where agents and peers reach it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Member {
    pub id: MemberId,
    /// The gRPC address agents and peers dial (`--advertise-address`), e.g.
    /// `https://flotilla-1.flotilla:50051`.
    pub address: String,
}

/// The ownership epoch of a cluster: the etcd revision at which its current owner took
/// it. Every owner's takeover has a larger one than all before it, so a write checked
/// against the newest epoch in SQL cannot come from an owner that has been replaced.
/// `Epoch::UNFENCED` is the single-process epoch: there is no one to be fenced from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Epoch(pub i64);

impl Epoch {
    pub const UNFENCED: Epoch = Epoch(0);
}

/// The answer to a claim: this member owns the cluster now (at `Epoch`), or another
/// member holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    Ours(Epoch),
    Held { owner: MemberId, epoch: Epoch },
}

/// Who holds a cluster, as the coordination store says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub member: MemberId,
    pub epoch: Epoch,
}

/// Work for a cluster that a replica not running it asks the owner to do (the owner's
/// in-process wake-ups do not reach across replicas).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Nudge {
    /// The cluster's rsync work changed: wake its worker.
    Work,
    /// An action of the cluster changed: deliver it to the agent.
    Action { id: String },
    /// Ask the agent to report these deployments.
    Reports { deployment_ids: Vec<String> },
    /// A SimulatorService call for the cluster's sim agent, made on a replica that does
    /// not run the cluster.
    Simulate { call: SimulatorCall },
}

/// What a SimulatorService call asks of the replica that runs a sim cluster.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum SimulatorCall {
    /// End the agent's session and refuse it until reconnected.
    Disconnect,
    /// Let the agent connect again.
    Reconnect,
    /// Send a fault to the agent: a protobuf-encoded `SimulatorCommand`.
    Command { encoded: Vec<u8> },
}

/// Membership, ownership and the lease that backs both.
#[tonic::async_trait]
pub trait Coordinator: Send + Sync + 'static {
    /// This replica.
    fn me(&self) -> &Member;

    /// The live members (this one included once it has joined), sorted by id; changes
    /// as members join and leave.
    fn members(&self) -> watch::Receiver<Vec<Member>>;

    /// This replica's lease, while it is known to be alive. When it is not (the
    /// coordination store is unreachable past the renewals' margin, or the lease
    /// expired), the replica must not write for the clusters it owned: someone else may
    /// own them by now. A new lease (joined again) holds none of the old one's claims.
    fn lease(&self) -> Option<i64>;

    /// Whether this replica's lease is known to be alive right now.
    fn holding(&self) -> bool {
        self.lease().is_some()
    }

    /// Takes `cluster` (a member or container cluster's resource name) if nobody holds
    /// it. Taking one this replica already holds answers its current epoch.
    async fn claim(&self, cluster: &str) -> anyhow::Result<Claim>;

    /// Gives `cluster` up, if this replica still holds it at `epoch`.
    async fn release(&self, cluster: &str, epoch: Epoch) -> anyhow::Result<()>;

    /// Every held cluster and its owner.
    async fn owners(&self) -> anyhow::Result<BTreeMap<String, Owner>>;

    /// Hands this replica's clusters over before it exits: gives up every owner key it
    /// holds, then withdraws its registration, so the others take the clusters at
    /// once. The lease stays, so the commits of requests still finishing here reach
    /// the other replicas' watches; [`Coordinator::resign`] ends it.
    async fn step_down(&self);

    /// Leaves the replica set: the registration and every claim go at once, so the
    /// others take the clusters without waiting for a TTL.
    async fn resign(&self);

    /// Passes `nudge` to whichever replica runs `cluster` (best effort: owners also
    /// re-read their work on a timer).
    async fn nudge(&self, cluster: &str, nudge: Nudge);

    /// The nudges sent to this replica set, once (the first caller gets them).
    fn take_nudges(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<(String, Nudge)>>;
}

/// The single-process coordinator: one member, which owns every cluster at
/// [`Epoch::UNFENCED`].
pub struct InProcess {
    me: Member,
    members: watch::Sender<Vec<Member>>,
}

impl InProcess {
    pub fn new(me: Member) -> InProcess {
        let (members, _) = watch::channel(vec![me.clone()]);
        InProcess { me, members }
    }
}

#[tonic::async_trait]
impl Coordinator for InProcess {
    fn me(&self) -> &Member {
        &self.me
    }

    fn members(&self) -> watch::Receiver<Vec<Member>> {
        self.members.subscribe()
    }

    fn lease(&self) -> Option<i64> {
        Some(0)
    }

    async fn claim(&self, _cluster: &str) -> anyhow::Result<Claim> {
        Ok(Claim::Ours(Epoch::UNFENCED))
    }

    async fn release(&self, _cluster: &str, _epoch: Epoch) -> anyhow::Result<()> {
        Ok(())
    }

    async fn owners(&self) -> anyhow::Result<BTreeMap<String, Owner>> {
        Ok(BTreeMap::new())
    }

    async fn step_down(&self) {}

    async fn resign(&self) {}

    async fn nudge(&self, _cluster: &str, _nudge: Nudge) {}

    fn take_nudges(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<(String, Nudge)>> {
        None
    }
}

/// How a replica coordinates with the others (`--coordination`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// One process; no coordination store.
    #[default]
    InProcess,
    /// N replicas on one PostgreSQL, coordinated through etcd.
    Etcd,
}

/// How this replica coordinates with others, and who it is among them.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// None: in-process (one replica).
    pub etcd: Option<EtcdSettings>,
    /// `--replica-id`; None: the host name and the bound port.
    pub replica_id: Option<String>,
    /// `--advertise-address`; None: the bound address.
    pub advertise_address: Option<String>,
}

/// Starts this replica's coordinator: in-process, or joining the replica set in etcd
/// (waiting up to one lease TTL for the first registration; an etcd that does not
/// answer by then is retried in the background while PostgreSQL-only work goes on).
pub async fn start(
    settings: &Settings,
    bound: std::net::SocketAddr,
    tls: bool,
    signals: std::sync::Arc<crate::store::Signals>,
) -> anyhow::Result<std::sync::Arc<dyn Coordinator>> {
    let me = Member {
        id: MemberId::from(
            settings
                .replica_id
                .clone()
                .unwrap_or_else(|| format!("{}-{}", host_name(), bound.port())),
        ),
        address: settings
            .advertise_address
            .clone()
            .unwrap_or_else(|| format!("{}://{bound}", if tls { "https" } else { "http" })),
    };
    let Some(etcd) = &settings.etcd else {
        return Ok(std::sync::Arc::new(InProcess::new(me)));
    };
    let coordinator = etcd::EtcdCoordinator::start(me, etcd.clone(), signals).await?;
    if !coordinator.joined(etcd.lease_ttl).await {
        tracing::warn!(
            endpoints = ?etcd.endpoints,
            "not a member of the replica set yet: etcd does not answer; serving what needs \
             only PostgreSQL and retrying"
        );
    }
    Ok(coordinator)
}

/// This machine's host name, reduced to the characters a replica id may hold.
fn host_name() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let name: String = name
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    if name.is_empty() {
        "flotilla".to_owned()
    } else {
        name
    }
}

/// The settings of etcd coordination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdSettings {
    /// Client URLs of the etcd cluster (`http://` or `https://`).
    pub endpoints: Vec<String>,
    /// The key prefix every key of this replica set lives under.
    pub prefix: String,
    /// TTL of a member's lease: a replica that stops renewing loses its clusters after
    /// this long.
    pub lease_ttl: Duration,
    /// TLS to etcd: the CA that signs etcd's certificate, and this replica's client
    /// certificate and key (etcd's `--client-cert-auth`).
    pub tls: Option<EtcdTls>,
    /// The CA that signs the other replicas' serving certificates (`--peer-ca-file`):
    /// what a replica needs to pass calls to another over TLS.
    pub peer_ca: Option<std::path::PathBuf>,
}

/// PEM files for TLS to etcd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtcdTls {
    pub ca: Option<std::path::PathBuf>,
    pub identity: Option<(std::path::PathBuf, std::path::PathBuf)>,
}
