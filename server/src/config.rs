//! Configuration: command-line flags, `FLOTILLA_*` environment variables and an
//! optional TOML file, in that order of precedence, over built-in defaults.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use serde::Deserialize;

use crate::app::actions::ActionOptions;
use crate::coord::{EtcdSettings, EtcdTls, Mode, Settings as Coordination};
use crate::net::tls::TlsFiles;

/// Command-line flags (each also settable from the environment).
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "flotilla-server",
    version,
    about = "Flotilla multi-cluster control plane"
)]
pub struct Flags {
    /// Address to serve gRPC on [default: 127.0.0.1:50051].
    #[arg(long, env = "FLOTILLA_LISTEN")]
    pub listen: Option<SocketAddr>,
    /// Address to serve Prometheus metrics on (GET /metrics, plain HTTP, no token)
    /// [default: off].
    #[arg(long, env = "FLOTILLA_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// Address to serve the web console on (its pages and gRPC-Web to the same
    /// services, same tokens), or `off` [default: 127.0.0.1:8080 with --demo, else off].
    #[arg(long, env = "FLOTILLA_CONSOLE_LISTEN")]
    pub console_listen: Option<ConsoleListen>,
    /// Directory for the embedded database and keys [default: ./flotilla-data].
    #[arg(long, env = "FLOTILLA_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Database URL: unset for SQLite in the data directory, or postgres://…
    #[arg(long, env = "FLOTILLA_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<DatabaseUrl>,
    /// Log format: text or json [default: text].
    #[arg(long, env = "FLOTILLA_LOG_FORMAT")]
    pub log_format: Option<LogFormat>,
    /// Seconds to wait for in-flight requests at shutdown [default: 10].
    #[arg(long, env = "FLOTILLA_SHUTDOWN_TIMEOUT_SECS")]
    pub shutdown_timeout_secs: Option<u64>,
    /// Seed a demo: a provider with two embedded sim clusters and an intent group
    /// (turns --sim on).
    #[arg(long, env = "FLOTILLA_DEMO")]
    pub demo: bool,
    /// Enable the sim backends: embedded sim clusters and the SimulatorService (for
    /// admins) [default: false; `--sim` alone means true].
    #[arg(long, env = "FLOTILLA_SIM", num_args = 0..=1, default_missing_value = "true")]
    pub sim: Option<bool>,
    /// PEM certificate chain to serve TLS with (with --tls-key); reloaded on SIGHUP and
    /// when the file changes.
    #[arg(long, env = "FLOTILLA_TLS_CERT")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, env = "FLOTILLA_TLS_KEY")]
    pub tls_key: Option<PathBuf>,
    /// PEM CA bundle: require client certificates signed by it (mTLS).
    #[arg(long, env = "FLOTILLA_TLS_CLIENT_CA")]
    pub tls_client_ca: Option<PathBuf>,
    /// Allow plaintext on a non-loopback address (anyone on the path reads tokens).
    #[arg(long, env = "FLOTILLA_INSECURE")]
    pub insecure: bool,
    /// Agent heartbeat interval in milliseconds; a silent agent is cut after one
    /// interval [default: 3000].
    #[arg(long, env = "FLOTILLA_AGENT_HEARTBEAT_MILLIS")]
    pub agent_heartbeat_millis: Option<u64>,
    /// How long pods of embedded sim clusters take to become Ready [default: 500].
    #[arg(long, env = "FLOTILLA_SIM_POD_READY_MILLIS")]
    pub sim_pod_ready_millis: Option<u64>,
    /// How long `request_id` idempotency records are kept, in seconds [default: 86400].
    #[arg(long, env = "FLOTILLA_REQUEST_ID_RETENTION_SECS")]
    pub request_id_retention_secs: Option<u64>,
    /// How long the status event log keeps events, in seconds; older resume tokens get
    /// RESYNC_REQUIRED [default: 3600].
    #[arg(long, env = "FLOTILLA_WATCH_RETENTION_SECS")]
    pub watch_retention_secs: Option<u64>,
    /// Heartbeat interval of idle WatchStatus streams, in milliseconds [default: 15000].
    #[arg(long, env = "FLOTILLA_WATCH_HEARTBEAT_MILLIS")]
    pub watch_heartbeat_millis: Option<u64>,
    /// How often a watched target's feed polls the event log when commit signals may
    /// be missed, in milliseconds: one process, as a safety net; replicas, only while
    /// the signal relay through etcd is down [default: 1000].
    #[arg(long, env = "FLOTILLA_WATCH_POLL_MILLIS")]
    pub watch_poll_millis: Option<u64>,
    /// Concurrent watch streams; more are refused with RESOURCE_EXHAUSTED [default: 10000].
    #[arg(long, env = "FLOTILLA_MAX_WATCHES")]
    pub max_watches: Option<usize>,
    /// Recent events kept in memory per watched target; subscribers further behind
    /// read the event log [default: 50000].
    #[arg(long, env = "FLOTILLA_WATCH_TAIL_EVENTS")]
    pub watch_tail_events: Option<usize>,
    /// Resources of intent-group status kept in memory (across the groups being
    /// queried) to serve paged `all` status without SQL; 0 turns it off
    /// [default: 1000000].
    #[arg(long, env = "FLOTILLA_STATUS_TREE_ENTRIES")]
    pub status_tree_entries: Option<usize>,
    /// Rendered resources sent to agents and not answered yet, over all clusters at
    /// once (each is held in memory until its agent answers); also the largest batch
    /// one cluster is sent [default: 50000].
    #[arg(long, env = "FLOTILLA_RSYNC_IN_FLIGHT", value_parser = clap::value_parser!(u64).range(RSYNC_IN_FLIGHT))]
    pub rsync_in_flight: Option<u64>,
    /// Nodes of each embedded sim cluster (`<cluster>-node-<i>`) [default: 3].
    #[arg(long, env = "FLOTILLA_SIM_NODES")]
    pub sim_nodes: Option<usize>,
    /// How long each operation of the sim IaaS (the embedded infrastructure provider of
    /// container clusters) takes, in milliseconds [default: 100].
    #[arg(long, env = "FLOTILLA_SIM_IAAS_LATENCY_MILLIS")]
    pub sim_iaas_latency_millis: Option<u64>,
    /// The key that seals container cluster credentials (64 hex digits, mode 0600)
    /// [default: credentials.key in the data dir, created on first start].
    #[arg(long, env = "FLOTILLA_CREDENTIALS_KEY_FILE")]
    pub credentials_key_file: Option<PathBuf>,
    /// An action no agent took within this many seconds fails with DeadlineExceeded
    /// [default: 300].
    #[arg(long, env = "FLOTILLA_ACTION_PICKUP_TIMEOUT_SECS")]
    pub action_pickup_timeout_secs: Option<u64>,
    /// A running action fails with DeadlineExceeded this many seconds after its reboot
    /// delay [default: 300].
    #[arg(long, env = "FLOTILLA_ACTION_RUN_TIMEOUT_SECS")]
    pub action_run_timeout_secs: Option<u64>,
    /// Finished actions are deleted this many seconds after they finished; 0 = at once
    /// [default: 86400].
    #[arg(long, env = "FLOTILLA_ACTION_TTL_AFTER_FINISHED_SECS")]
    pub action_ttl_after_finished_secs: Option<u64>,
    /// How soon, in milliseconds, open pod actions are checked once a status report
    /// took pods away [default: 1000].
    #[arg(long, env = "FLOTILLA_ACTION_CHECK_MILLIS")]
    pub action_check_millis: Option<u64>,
    /// Open pod actions are also checked for vanished pods at least this often, in
    /// seconds, whatever the reports say [default: 30].
    #[arg(long, env = "FLOTILLA_ACTION_POD_RESCAN_SECS")]
    pub action_pod_rescan_secs: Option<u64>,
    /// A container cluster operation (start, stop, scale, recovery, cleanup) still in
    /// flight after this many seconds fails with reason Timeout [default: 3600].
    #[arg(long, env = "FLOTILLA_CLUSTER_OPERATION_TIMEOUT_SECS")]
    pub cluster_operation_timeout_secs: Option<u64>,
    /// How often the garbage collector retries the cleanup of EXPUNGE container
    /// clusters, in milliseconds [default: 300000].
    #[arg(long, env = "FLOTILLA_CLUSTER_GC_MILLIS")]
    pub cluster_gc_millis: Option<u64>,
    /// How often state sync compares container clusters with the IaaS, in
    /// milliseconds [default: 10000].
    #[arg(long, env = "FLOTILLA_CLUSTER_SYNC_MILLIS")]
    pub cluster_sync_millis: Option<u64>,
    /// How often the database is pinged for grpc.health.v1 (NOT_SERVING while it does
    /// not answer), in milliseconds [default: 1000].
    #[arg(long, env = "FLOTILLA_HEALTH_CHECK_MILLIS")]
    pub health_check_millis: Option<u64>,
    /// How many instances each intent group (and each cluster's network intents) keeps,
    /// the current one included; older ones are deleted at the next instantiate
    /// [default: 10].
    #[arg(long, env = "FLOTILLA_INSTANCE_RETENTION")]
    pub instance_retention: Option<usize>,
    /// How replicas coordinate: in-process (one replica) or etcd (N replicas on one
    /// PostgreSQL) [default: in-process].
    #[arg(long, env = "FLOTILLA_COORDINATION")]
    pub coordination: Option<crate::coord::Mode>,
    /// etcd client URLs, comma-separated (with --coordination etcd).
    #[arg(long, env = "FLOTILLA_ETCD_ENDPOINTS", value_delimiter = ',')]
    pub etcd_endpoints: Vec<String>,
    /// The etcd key prefix of this replica set [default: /flotilla].
    #[arg(long, env = "FLOTILLA_ETCD_PREFIX")]
    pub etcd_prefix: Option<String>,
    /// PEM CA bundle that signs etcd's server certificate (https:// endpoints).
    #[arg(long, env = "FLOTILLA_ETCD_CA_FILE")]
    pub etcd_ca_file: Option<PathBuf>,
    /// PEM client certificate for etcd (with --etcd-key-file).
    #[arg(long, env = "FLOTILLA_ETCD_CERT_FILE")]
    pub etcd_cert_file: Option<PathBuf>,
    /// PEM private key of --etcd-cert-file.
    #[arg(long, env = "FLOTILLA_ETCD_KEY_FILE")]
    pub etcd_key_file: Option<PathBuf>,
    /// TTL of a replica's etcd lease in seconds: a replica that stops renewing it loses
    /// its clusters this long after [default: 10, at least 2].
    #[arg(long, env = "FLOTILLA_LEASE_TTL_SECS")]
    pub lease_ttl_secs: Option<u64>,
    /// This replica's identity in the replica set, unique among live replicas (a
    /// StatefulSet's pod name) [default: the host name and the listen port].
    #[arg(long, env = "FLOTILLA_REPLICA_ID")]
    pub replica_id: Option<String>,
    /// The URL agents and other replicas reach this replica at [default: from the
    /// listen address; required when that is a wildcard address].
    #[arg(long, env = "FLOTILLA_ADVERTISE_ADDRESS")]
    pub advertise_address: Option<String>,
    /// PEM CA bundle that signs the other replicas' --tls-cert (with --coordination
    /// etcd and TLS): with it, a replica passes an action create for a cluster another
    /// replica runs to that replica; without it, it commits the create and wakes the
    /// owner through etcd. With --tls-client-ca, the replica presents its own
    /// --tls-cert as a client certificate.
    #[arg(long, env = "FLOTILLA_PEER_CA_FILE")]
    pub peer_ca_file: Option<PathBuf>,
    /// A TOML file with any of the settings above (snake_case keys).
    #[arg(long, env = "FLOTILLA_CONFIG")]
    pub config: Option<PathBuf>,
}

/// A database URL. It may hold a password: `Debug` shows it redacted.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct DatabaseUrl(pub String);

impl std::str::FromStr for DatabaseUrl {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(DatabaseUrl(text.to_string()))
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", crate::store::redact(&self.0))
    }
}

/// The log output format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Where the console listens with `--demo` and no `--console-listen`.
pub const DEMO_CONSOLE: &str = "127.0.0.1:8080";

/// `--console-listen`: an address, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum ConsoleListen {
    Off,
    At(SocketAddr),
}

impl std::str::FromStr for ConsoleListen {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        if value.eq_ignore_ascii_case("off") {
            return Ok(ConsoleListen::Off);
        }
        value.parse().map(ConsoleListen::At).map_err(|_| {
            format!("{value:?} is neither an address (host:port, e.g. 127.0.0.1:8080) nor off")
        })
    }
}

impl TryFrom<String> for ConsoleListen {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        value.parse()
    }
}

/// The web console's listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Console {
    pub address: SocketAddr,
    /// Asked for (flag, env or file) rather than the demo's default: a port that is
    /// taken then stops the start; the demo's default only warns.
    pub chosen: bool,
}

/// The settings of the TOML file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    listen: Option<SocketAddr>,
    metrics_listen: Option<SocketAddr>,
    console_listen: Option<ConsoleListen>,
    data_dir: Option<PathBuf>,
    database_url: Option<DatabaseUrl>,
    log_format: Option<LogFormat>,
    shutdown_timeout_secs: Option<u64>,
    demo: Option<bool>,
    sim: Option<bool>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    tls_client_ca: Option<PathBuf>,
    insecure: Option<bool>,
    agent_heartbeat_millis: Option<u64>,
    sim_pod_ready_millis: Option<u64>,
    request_id_retention_secs: Option<u64>,
    watch_retention_secs: Option<u64>,
    watch_heartbeat_millis: Option<u64>,
    watch_poll_millis: Option<u64>,
    max_watches: Option<usize>,
    watch_tail_events: Option<usize>,
    status_tree_entries: Option<usize>,
    rsync_in_flight: Option<u64>,
    sim_nodes: Option<usize>,
    sim_iaas_latency_millis: Option<u64>,
    credentials_key_file: Option<PathBuf>,
    action_pickup_timeout_secs: Option<u64>,
    action_run_timeout_secs: Option<u64>,
    action_ttl_after_finished_secs: Option<u64>,
    action_check_millis: Option<u64>,
    action_pod_rescan_secs: Option<u64>,
    cluster_operation_timeout_secs: Option<u64>,
    cluster_gc_millis: Option<u64>,
    cluster_sync_millis: Option<u64>,
    health_check_millis: Option<u64>,
    instance_retention: Option<usize>,
    coordination: Option<crate::coord::Mode>,
    etcd_endpoints: Option<Vec<String>>,
    etcd_prefix: Option<String>,
    etcd_ca_file: Option<PathBuf>,
    etcd_cert_file: Option<PathBuf>,
    etcd_key_file: Option<PathBuf>,
    lease_ttl_secs: Option<u64>,
    replica_id: Option<String>,
    advertise_address: Option<String>,
    peer_ca_file: Option<PathBuf>,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// Where the metrics endpoint listens; None: off.
    pub metrics_listen: Option<SocketAddr>,
    /// Where the web console is served; None: off.
    pub console: Option<Console>,
    pub data_dir: PathBuf,
    /// None: SQLite in `data_dir`.
    pub database_url: Option<DatabaseUrl>,
    pub log_format: LogFormat,
    pub shutdown_timeout: Duration,
    /// Seed the demo at start.
    pub demo: bool,
    /// Run embedded sim clusters and serve the SimulatorService.
    pub sim: bool,
    /// TLS files; None = plaintext.
    pub tls: Option<TlsFiles>,
    /// Plaintext allowed on a non-loopback address.
    pub insecure: bool,
    pub agent_heartbeat: Duration,
    pub sim_pod_ready: Duration,
    /// How long idempotency records are kept.
    pub request_id_retention: Duration,
    /// How long the status event log keeps events.
    pub watch_retention: Duration,
    pub watch_heartbeat: Duration,
    pub watch_poll: Duration,
    pub max_watches: usize,
    pub watch_tail_events: usize,
    /// Resources kept in in-memory status trees (0: off).
    pub status_tree_entries: usize,
    /// Rsync operations in flight over the fleet.
    pub rsync_in_flight: usize,
    /// Nodes per embedded sim cluster.
    pub sim_nodes: usize,
    /// How long each sim IaaS operation takes.
    pub sim_iaas_latency: Duration,
    /// The key file sealing container cluster credentials.
    pub credentials_key_file: PathBuf,
    /// Action deadlines and retention.
    pub actions: ActionOptions,
    /// How soon open pod actions are checked for vanished pods once a report took
    /// pods away.
    pub action_check: Duration,
    /// How often open pod actions are checked for vanished pods regardless.
    pub action_pod_rescan: Duration,
    /// Container cluster operation timeout and workflow parallelism.
    pub clusters: crate::app::container_clusters::ClusterOptions,
    /// Periods of the container cluster garbage collector and state sync.
    pub cluster_gc: Duration,
    pub cluster_sync: Duration,
    /// How often the database is pinged for the health service.
    pub health_check: Duration,
    /// How many instances an owner keeps.
    pub instance_retention: usize,
    pub coordination: Coordination,
}

impl Config {
    /// Merges flags (and environment) over the config file over defaults.
    pub fn load(flags: Flags) -> anyhow::Result<Config> {
        let file = match &flags.config {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        let coordination = coordination(&flags, &file)?;
        let demo = flags.demo || file.demo.unwrap_or(false);
        let tls = match (
            flags.tls_cert.or(file.tls_cert),
            flags.tls_key.or(file.tls_key),
            flags.tls_client_ca.or(file.tls_client_ca),
        ) {
            (Some(cert), Some(key), client_ca) => Some(TlsFiles {
                cert,
                key,
                client_ca,
            }),
            (None, None, None) => None,
            (None, None, Some(_)) => {
                anyhow::bail!("--tls-client-ca needs --tls-cert and --tls-key: mTLS is TLS first")
            }
            _ => anyhow::bail!("--tls-cert and --tls-key go together"),
        };
        let data_dir = flags
            .data_dir
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from("./flotilla-data"));
        let credentials_key_file = flags
            .credentials_key_file
            .or(file.credentials_key_file)
            .unwrap_or_else(|| data_dir.join("credentials.key"));
        let config = Config {
            coordination,
            listen: flags
                .listen
                .or(file.listen)
                .unwrap_or_else(|| "127.0.0.1:50051".parse().expect("valid default")),
            metrics_listen: flags.metrics_listen.or(file.metrics_listen),
            console: match flags.console_listen.or(file.console_listen) {
                Some(ConsoleListen::Off) => None,
                Some(ConsoleListen::At(address)) => Some(Console {
                    address,
                    chosen: true,
                }),
                None => demo.then(|| Console {
                    address: DEMO_CONSOLE.parse().expect("valid default"),
                    chosen: false,
                }),
            },
            data_dir,
            credentials_key_file,
            database_url: flags.database_url.or(file.database_url),
            log_format: flags.log_format.or(file.log_format).unwrap_or_default(),
            shutdown_timeout: Duration::from_secs(
                flags
                    .shutdown_timeout_secs
                    .or(file.shutdown_timeout_secs)
                    .unwrap_or(10),
            ),
            demo,
            sim: demo || flags.sim.or(file.sim).unwrap_or(false),
            tls,
            insecure: flags.insecure || file.insecure.unwrap_or(false),
            agent_heartbeat: Duration::from_millis(
                flags
                    .agent_heartbeat_millis
                    .or(file.agent_heartbeat_millis)
                    .unwrap_or(3000)
                    .max(100),
            ),
            request_id_retention: Duration::from_secs(
                flags
                    .request_id_retention_secs
                    .or(file.request_id_retention_secs)
                    .unwrap_or(86_400),
            ),
            watch_retention: Duration::from_secs(
                flags
                    .watch_retention_secs
                    .or(file.watch_retention_secs)
                    .unwrap_or(3600)
                    .max(1),
            ),
            watch_heartbeat: Duration::from_millis(
                flags
                    .watch_heartbeat_millis
                    .or(file.watch_heartbeat_millis)
                    .unwrap_or(15_000)
                    .max(100),
            ),
            watch_poll: Duration::from_millis(
                flags
                    .watch_poll_millis
                    .or(file.watch_poll_millis)
                    .unwrap_or(1_000)
                    .max(10),
            ),
            max_watches: flags.max_watches.or(file.max_watches).unwrap_or(10_000),
            watch_tail_events: flags
                .watch_tail_events
                .or(file.watch_tail_events)
                .unwrap_or(50_000)
                .max(1),
            status_tree_entries: flags
                .status_tree_entries
                .or(file.status_tree_entries)
                .unwrap_or(1_000_000),
            rsync_in_flight: flags
                .rsync_in_flight
                .or(file_in_range(
                    "rsync_in_flight",
                    file.rsync_in_flight,
                    RSYNC_IN_FLIGHT,
                )?)
                .unwrap_or(crate::rsync::RsyncOptions::default().in_flight as u64)
                as usize,
            sim_pod_ready: Duration::from_millis(
                flags
                    .sim_pod_ready_millis
                    .or(file.sim_pod_ready_millis)
                    .unwrap_or(500),
            ),
            sim_nodes: flags
                .sim_nodes
                .or(file.sim_nodes)
                .unwrap_or(crate::sim::cluster::DEFAULT_NODES)
                .clamp(1, 1000),
            sim_iaas_latency: Duration::from_millis(
                flags
                    .sim_iaas_latency_millis
                    .or(file.sim_iaas_latency_millis)
                    .unwrap_or(100)
                    .min(60_000),
            ),
            actions: ActionOptions {
                pickup_timeout: Duration::from_secs(
                    flags
                        .action_pickup_timeout_secs
                        .or(file.action_pickup_timeout_secs)
                        .unwrap_or(300)
                        .max(1),
                ),
                run_timeout: Duration::from_secs(
                    flags
                        .action_run_timeout_secs
                        .or(file.action_run_timeout_secs)
                        .unwrap_or(300)
                        .max(1),
                ),
                ttl_after_finished: Duration::from_secs(
                    flags
                        .action_ttl_after_finished_secs
                        .or(file.action_ttl_after_finished_secs)
                        .unwrap_or(86_400),
                ),
            },
            action_check: Duration::from_millis(
                flags
                    .action_check_millis
                    .or(file.action_check_millis)
                    .unwrap_or(1000)
                    .max(10),
            ),
            action_pod_rescan: Duration::from_secs(
                flags
                    .action_pod_rescan_secs
                    .or(file.action_pod_rescan_secs)
                    .unwrap_or(30)
                    .max(1),
            ),
            clusters: crate::app::container_clusters::ClusterOptions {
                operation_timeout: Duration::from_secs(
                    flags
                        .cluster_operation_timeout_secs
                        .or(file.cluster_operation_timeout_secs)
                        .unwrap_or(3600)
                        .max(1),
                ),
                ..Default::default()
            },
            cluster_gc: Duration::from_millis(
                flags
                    .cluster_gc_millis
                    .or(file.cluster_gc_millis)
                    .unwrap_or(300_000)
                    .max(10),
            ),
            cluster_sync: Duration::from_millis(
                flags
                    .cluster_sync_millis
                    .or(file.cluster_sync_millis)
                    .unwrap_or(10_000)
                    .max(10),
            ),
            health_check: Duration::from_millis(
                flags
                    .health_check_millis
                    .or(file.health_check_millis)
                    .unwrap_or(1000)
                    .max(10),
            ),
            instance_retention: flags
                .instance_retention
                .or(file.instance_retention)
                .unwrap_or(crate::app::lifecycle::DEFAULT_INSTANCE_RETENTION)
                .max(1),
        };
        if config.tls.is_none() && !config.listen.ip().is_loopback() && !config.insecure {
            anyhow::bail!(
                "refusing to serve plaintext on {}: anyone on the network could read the \
                 tokens. Give --tls-cert and --tls-key, listen on a loopback address, or \
                 pass --insecure to accept that",
                config.listen
            );
        }
        if let Some(console) = &config.console
            && config.tls.is_none()
            && !console.address.ip().is_loopback()
            && !config.insecure
        {
            anyhow::bail!(
                "refusing to serve the console in plaintext on {}: the browser sends its \
                 token with every call. Give --tls-cert and --tls-key, listen on a \
                 loopback address, or pass --insecure to accept that",
                console.address
            );
        }
        if config.coordination.etcd.is_some() {
            if !config.database_url().starts_with("postgres") {
                anyhow::bail!(
                    "--coordination etcd needs PostgreSQL (--database-url postgres://…): \
                     replicas share one database, and SQLite is one process's file"
                );
            }
            if config.listen.ip().is_unspecified()
                && config.coordination.advertise_address.is_none()
            {
                anyhow::bail!(
                    "listening on {} with --coordination etcd needs --advertise-address: the \
                     URL agents and the other replicas reach this one at",
                    config.listen
                );
            }
        }
        Ok(config)
    }

    /// The database URL to connect to: the configured one, or the SQLite file
    /// `flotilla.db` in the data directory.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.0.clone(),
            None => format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join("flotilla.db").display()
            ),
        }
    }
}

/// The coordination settings: etcd's only with `--coordination etcd`, and then complete.
fn coordination(flags: &Flags, file: &FileConfig) -> anyhow::Result<Coordination> {
    let mode = flags.coordination.or(file.coordination).unwrap_or_default();
    let endpoints = if flags.etcd_endpoints.is_empty() {
        file.etcd_endpoints.clone().unwrap_or_default()
    } else {
        flags.etcd_endpoints.clone()
    };
    let endpoints: Vec<String> = endpoints
        .iter()
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .collect();
    let ca = flags.etcd_ca_file.clone().or(file.etcd_ca_file.clone());
    let cert = flags.etcd_cert_file.clone().or(file.etcd_cert_file.clone());
    let key = flags.etcd_key_file.clone().or(file.etcd_key_file.clone());
    let prefix = flags.etcd_prefix.clone().or(file.etcd_prefix.clone());
    let ttl = flags.lease_ttl_secs.or(file.lease_ttl_secs);
    let peer_ca = flags.peer_ca_file.clone().or(file.peer_ca_file.clone());
    let replica_id = flags.replica_id.clone().or(file.replica_id.clone());
    let advertise_address = flags
        .advertise_address
        .clone()
        .or(file.advertise_address.clone());
    if let Some(id) = &replica_id
        && (id.is_empty()
            || id.len() > 128
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c)))
    {
        anyhow::bail!("--replica-id {id:?} must be 1 to 128 letters, digits, '-', '_', '.' or ':'");
    }
    if let Some(address) = &advertise_address
        && !(address.starts_with("http://") || address.starts_with("https://"))
    {
        anyhow::bail!(
            "--advertise-address {address:?} must be a URL: http://host:port or https://host:port"
        );
    }
    if mode == Mode::InProcess {
        let etcd_given = !endpoints.is_empty()
            || ca.is_some()
            || cert.is_some()
            || key.is_some()
            || prefix.is_some()
            || ttl.is_some()
            || peer_ca.is_some();
        if etcd_given {
            anyhow::bail!("the etcd settings apply only with --coordination etcd");
        }
        return Ok(Coordination {
            etcd: None,
            replica_id,
            advertise_address,
        });
    }
    if endpoints.is_empty() {
        anyhow::bail!("--coordination etcd needs --etcd-endpoints (etcd's client URLs)");
    }
    let tls = match (ca, cert, key) {
        (None, None, None) => None,
        (ca, Some(cert), Some(key)) => Some(EtcdTls {
            ca,
            identity: Some((cert, key)),
        }),
        (Some(ca), None, None) => Some(EtcdTls {
            ca: Some(ca),
            identity: None,
        }),
        _ => anyhow::bail!("--etcd-cert-file and --etcd-key-file go together"),
    };
    for endpoint in &endpoints {
        let scheme_ok = if tls.is_some() {
            endpoint.starts_with("https://")
        } else {
            endpoint.starts_with("http://") || endpoint.starts_with("https://")
        };
        if !scheme_ok {
            anyhow::bail!(
                "etcd endpoint {endpoint:?} must be an http:// or https:// URL (https:// with the etcd TLS files)"
            );
        }
    }
    let prefix = prefix.unwrap_or_else(|| "/flotilla".to_owned());
    let prefix = format!("/{}", prefix.trim_matches('/'));
    if prefix == "/" {
        anyhow::bail!("--etcd-prefix must name a key prefix, such as /flotilla");
    }
    Ok(Coordination {
        etcd: Some(EtcdSettings {
            endpoints,
            prefix,
            lease_ttl: Duration::from_secs(ttl.unwrap_or(10).clamp(2, 3600)),
            tls,
            peer_ca,
        }),
        replica_id,
        advertise_address,
    })
}

/// What `rsync_in_flight` may be, from a flag, the environment or the file.
const RSYNC_IN_FLIGHT: std::ops::RangeInclusive<u64> = 1..=10_000_000;

/// A config file's `value` of `key`, refused outside `range` as the flag refuses it.
fn file_in_range(
    key: &str,
    value: Option<u64>,
    range: std::ops::RangeInclusive<u64>,
) -> anyhow::Result<Option<u64>> {
    match value {
        Some(v) if !range.contains(&v) => anyhow::bail!(
            "{key} = {v} in the config file: it must be {} to {}",
            range.start(),
            range.end()
        ),
        other => Ok(other),
    }
}

fn read_file(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read config file {}: {e}", path.display()))?;
    toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("invalid config file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
