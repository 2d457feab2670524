//! `flotilla-agent`: the cluster agent. It dials the Flotilla server with its
//! cluster's token, applies what rsync sends to its backend, and reports what the
//! cluster runs. Backends: `sim` (an in-memory Kubernetes-like cluster) and `kube` (a
//! Kubernetes cluster: the in-cluster service account, or a kubeconfig).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use flotilla_client::{ConnectOptions, Token};
use flotilla_server::agent::backend::ClusterBackend;
use flotilla_server::agent::runner::{AgentError, AgentOptions, Dial, run_agent};
use flotilla_server::k8s::{KubeCluster, KubeOptions};
use flotilla_server::sim::SimCluster;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::error;
use tracing_subscriber::EnvFilter;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Backend {
    /// An in-memory Kubernetes-like cluster.
    Sim,
    /// A Kubernetes cluster, through its API server.
    Kube,
}

#[derive(Debug, Parser)]
#[command(
    name = "flotilla-agent",
    version,
    about = "Flotilla cluster agent",
    after_help = "The token is never taken on the command line (ps shows it): give \
                  --token-file, or set FLOTILLA_AGENT_TOKEN. With --sim-fleet, the \
                  file names each cluster and its token."
)]
struct Flags {
    /// The Flotilla server: https://host:port (TLS) or http://host:port (plaintext).
    #[arg(
        long,
        env = "FLOTILLA_SERVER",
        default_value = "http://127.0.0.1:50051"
    )]
    server: String,
    /// The cluster this agent serves, `clusterProviders/{cp}/clusters/{c}`.
    #[arg(long, env = "FLOTILLA_CLUSTER", required_unless_present = "sim_fleet")]
    cluster: Option<String>,
    /// Sim backend: serve many simulated clusters from this one process (as
    /// Kubernetes' kubemark packs hollow nodes), each with its own connection and
    /// session. The file holds one `<cluster> <token>` per line; blank lines and lines
    /// starting with `#` are skipped. For scale tests: a fleet without a process per
    /// cluster.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["cluster", "token_file"]
    )]
    sim_fleet: Option<PathBuf>,
    /// A file holding the cluster's agent token (from CreateCluster or
    /// RotateClusterAgentToken); without it, the token is read from the environment
    /// variable FLOTILLA_AGENT_TOKEN.
    #[arg(long, env = "FLOTILLA_AGENT_TOKEN_FILE")]
    token_file: Option<PathBuf>,
    /// PEM CA certificate to verify the server with (default: the system's roots).
    #[arg(long, env = "FLOTILLA_CA_CERT")]
    ca_cert: Option<PathBuf>,
    /// PEM client certificate, for servers that require mTLS (with --client-key).
    #[arg(long, env = "FLOTILLA_CLIENT_CERT", requires = "client_key")]
    client_cert: Option<PathBuf>,
    /// PEM key of --client-cert.
    #[arg(long, env = "FLOTILLA_CLIENT_KEY", requires = "client_cert")]
    client_key: Option<PathBuf>,
    /// The name to verify the server's certificate against (default: the server's host).
    #[arg(long, env = "FLOTILLA_TLS_SERVER_NAME")]
    tls_server_name: Option<String>,
    /// The cluster backend.
    #[arg(long, value_enum, default_value = "sim")]
    backend: Backend,
    /// Sim backend: how long new pods take to become Ready, in milliseconds.
    #[arg(long, default_value_t = 500)]
    pod_ready_millis: u64,
    /// Sim backend: how long an apply takes, in milliseconds: each takes a random time
    /// between none and twice this, as an API server's round trip (default: at once).
    #[arg(long, default_value_t = 0)]
    apply_millis: u64,
    /// Sim backend: how many nodes the cluster has (`<cluster id>-node-<i>`).
    #[arg(long, default_value_t = 3)]
    nodes: usize,
    /// Kube backend: the kubeconfig to use (default: KUBECONFIG, ~/.kube/config, then
    /// the in-cluster service account when running in a pod).
    #[arg(long)]
    kubeconfig: Option<PathBuf>,
    /// Kube backend: the kubeconfig context (default: its current context).
    #[arg(long)]
    context: Option<String>,
    /// Kube backend: take over fields another field manager owns (server-side apply's
    /// force) instead of failing the resource with the conflict.
    #[arg(long)]
    force_conflicts: bool,
    /// Kube backend: seconds the API server may go unanswering before the agent ends
    /// its session (the server then holds the cluster's resources Retrying).
    #[arg(long, default_value_t = 10)]
    unreachable_after_seconds: u64,
    /// Kube backend: objects per page when the monitor lists a kind (client-go's
    /// default; a smaller page costs more calls and less API server memory per call).
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..))]
    kube_list_page_size: u32,
    /// Execute the cluster's actions (reboot, snapshot); with false, node agents
    /// execute them through ActionService.WatchActions.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    execute_actions: bool,
}

/// The agent's token: the file if given, else the environment.
fn token(flags: &Flags) -> anyhow::Result<Token> {
    match &flags.token_file {
        Some(path) => Ok(Token::from_file(path)?),
        None => std::env::var(TOKEN_ENV)
            .ok()
            .map(Token::new)
            .filter(|t| !t.expose().is_empty())
            .ok_or_else(|| anyhow::anyhow!("no agent token: give --token-file or set {TOKEN_ENV}")),
    }
}

/// How to reach the server.
fn connect_options(flags: &Flags) -> anyhow::Result<ConnectOptions> {
    let mut options = ConnectOptions::new(&flags.server).token(None);
    if let Some(ca) = &flags.ca_cert {
        options = options.ca_certificate_file(ca)?;
    }
    if let (Some(cert), Some(key)) = (&flags.client_cert, &flags.client_key) {
        options = options.identity_files(cert, key)?;
    }
    if let Some(name) = &flags.tls_server_name {
        options = options.domain(name);
    }
    // Fail now on a bad address or TLS file, not in the retry loop.
    options.endpoint()?;
    Ok(options)
}

/// The environment variable holding the agent token when no file is given.
const TOKEN_ENV: &str = "FLOTILLA_AGENT_TOKEN";

// jemalloc, as in the server: with glibc's malloc a sixth of an agent's CPU under an
// action load was malloc and free (building bundle states allocates per object).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

// One thread: an agent serves one cluster, and a runtime thread per core only adds
// wake-ups between threads (a hundred agents on one machine showed it).
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let flags = Flags::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours only on a terminal: log files and collectors get plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    if let Err(error) = run(flags).await {
        // One line, no backtrace: what is wrong and what to do.
        error!("{error:#}");
        std::process::exit(1);
    }
}

async fn run(flags: Flags) -> anyhow::Result<()> {
    let dial = Dial::Remote(connect_options(&flags)?);
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            use tokio::signal::unix::{SignalKind, signal};
            let mut terminate = signal(SignalKind::terminate()).expect("SIGTERM handler");
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            shutdown.cancel();
        }
    });
    if let Some(path) = &flags.sim_fleet {
        return run_fleet(&flags, dial, path, shutdown).await;
    }
    let cluster = flags
        .cluster
        .clone()
        .expect("clap requires --cluster without --sim-fleet");
    let mut options = AgentOptions::new(dial, cluster.clone(), token(&flags)?);
    options.executes_actions = flags.execute_actions;
    let outcome = match flags.backend {
        Backend::Sim => {
            let (sim, changes) = sim_cluster(&flags, &cluster);
            run_agent(options, sim, changes, shutdown).await
        }
        Backend::Kube => {
            let kube = KubeOptions {
                kubeconfig: flags.kubeconfig.clone(),
                context: flags.context.clone(),
                force_conflicts: flags.force_conflicts,
                unreachable_after: Duration::from_secs(flags.unreachable_after_seconds.max(1)),
                list_page_size: flags.kube_list_page_size,
            };
            let (kube, changes) = KubeCluster::connect(&kube).await?;
            tracing::info!(
                version = %kube.version(),
                nodes = kube.nodes().len(),
                "serving a Kubernetes cluster"
            );
            run_agent(options, kube, changes, shutdown).await
        }
    };
    outcome.map_err(|error| refusal(&cluster, error))
}

/// A simulated cluster as the flags shape it.
fn sim_cluster(flags: &Flags, cluster: &str) -> (Arc<SimCluster>, mpsc::UnboundedReceiver<String>) {
    let (sim, changes) = SimCluster::with_nodes(
        Duration::from_millis(flags.pod_ready_millis),
        flotilla_server::sim::cluster::node_names(cluster, flags.nodes.clamp(1, 1000)),
    );
    sim.set_apply_delay(Duration::from_millis(flags.apply_millis));
    (sim, changes)
}

/// What to tell the operator when the server refuses a cluster's agent.
fn refusal(cluster: &str, error: AgentError) -> anyhow::Error {
    let AgentError::Refused(status) = error;
    if status.code() == tonic::Code::Unauthenticated {
        anyhow::anyhow!(
            "token no longer valid for cluster {cluster} ({}); get a new one with \
             RotateClusterAgentToken",
            status.message()
        )
    } else {
        anyhow::anyhow!(
            "the server refused the agent of cluster {cluster}: {}",
            status.message()
        )
    }
}

/// Serves every cluster of the fleet file until shutdown. A refused cluster is
/// reported and stops alone; the others go on, and the exit status says so at the end.
async fn run_fleet(
    flags: &Flags,
    dial: Dial,
    path: &Path,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    if !matches!(flags.backend, Backend::Sim) {
        anyhow::bail!("--sim-fleet serves simulated clusters only; use --backend sim");
    }
    let fleet = read_fleet(path)?;
    let size = fleet.len();
    tracing::info!(clusters = size, "serving a fleet of simulated clusters");
    let mut agents = tokio::task::JoinSet::new();
    for (cluster, token) in fleet {
        let mut options = AgentOptions::new(dial.clone(), cluster.clone(), token);
        options.executes_actions = flags.execute_actions;
        let (sim, changes) = sim_cluster(flags, &cluster);
        let shutdown = shutdown.clone();
        agents.spawn(async move {
            let outcome = run_agent(options, sim, changes, shutdown).await;
            (cluster, outcome)
        });
    }
    let mut refused = 0;
    while let Some(joined) = agents.join_next().await {
        if let (cluster, Err(error)) = joined? {
            error!("{:#}", refusal(&cluster, error));
            refused += 1;
        }
    }
    if refused > 0 {
        anyhow::bail!("the server refused {refused} of the fleet's {size} clusters");
    }
    Ok(())
}

/// The fleet file: `<cluster> <token>` per line.
fn read_fleet(path: &Path) -> anyhow::Result<Vec<(String, Token)>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read fleet file {}: {e}", path.display()))?;
    let fleet =
        parse_fleet(&text).map_err(|e| anyhow::anyhow!("fleet file {}: {e}", path.display()))?;
    Ok(fleet)
}

fn parse_fleet(text: &str) -> Result<Vec<(String, Token)>, String> {
    let mut fleet = Vec::new();
    let mut seen = HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let number = index + 1;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [cluster, token] = fields[..] else {
            return Err(format!(
                "line {number}: want `<cluster> <token>`, got {} fields",
                fields.len()
            ));
        };
        if !seen.insert(cluster.to_string()) {
            return Err(format!("line {number}: cluster {cluster} is listed twice"));
        }
        fleet.push((cluster.to_string(), Token::new(token)));
    }
    if fleet.is_empty() {
        return Err("no clusters".into());
    }
    Ok(fleet)
}

#[cfg(test)]
mod tests {
    use super::parse_fleet;

    #[test]
    fn fleet_file_lines() {
        let fleet = parse_fleet("# the fleet\n\nclusterProviders/p/clusters/a  t1\n  clusterProviders/p/clusters/b\tt2 \n")
            .expect("valid");
        let names: Vec<&str> = fleet.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            names,
            [
                "clusterProviders/p/clusters/a",
                "clusterProviders/p/clusters/b"
            ]
        );
        assert_eq!(fleet[1].1.expose(), "t2");
        let error = parse_fleet("clusterProviders/p/clusters/a\n").unwrap_err();
        assert!(
            error.contains("line 1") && error.contains("1 fields"),
            "{error}"
        );
        let error = parse_fleet("a t\nb t\na u\n").unwrap_err();
        assert!(
            error.contains("line 3") && error.contains("twice"),
            "{error}"
        );
        assert_eq!(parse_fleet("# none\n").unwrap_err(), "no clusters");
    }
}
