//! `flotilla-agent`: the cluster agent. It dials the Flotilla server with its
//! cluster's token, applies what rsync sends to its backend, and reports what the
//! cluster runs. Backend: `sim` (an in-memory Kubernetes-like cluster).

use std::time::Duration;

use clap::{Parser, ValueEnum};
use flotilla_server::agent::runner::{AgentOptions, run_agent};
use flotilla_server::sim::SimCluster;
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Backend {
    /// An in-memory Kubernetes-like cluster.
    Sim,
}

#[derive(Debug, Parser)]
#[command(name = "flotilla-agent", version, about = "Flotilla cluster agent")]
struct Flags {
    /// The Flotilla server.
    #[arg(
        long,
        env = "FLOTILLA_SERVER",
        default_value = "http://127.0.0.1:50051"
    )]
    server: String,
    /// The cluster this agent serves, `clusterProviders/{cp}/clusters/{c}`.
    #[arg(long, env = "FLOTILLA_CLUSTER")]
    cluster: String,
    /// The cluster's agent token (from CreateCluster or RotateClusterAgentToken).
    #[arg(long, env = "FLOTILLA_AGENT_TOKEN", hide_env_values = true)]
    token: String,
    /// The cluster backend.
    #[arg(long, value_enum, default_value = "sim")]
    backend: Backend,
    /// Sim backend: how long new pods take to become Ready, in milliseconds.
    #[arg(long, default_value_t = 500)]
    pod_ready_millis: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let flags = Flags::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
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
    let Backend::Sim = flags.backend;
    let (sim, changes) = SimCluster::new(Duration::from_millis(flags.pod_ready_millis));
    let options = AgentOptions::new(flags.server, flags.cluster, flags.token);
    run_agent(options, sim, changes, shutdown).await?;
    Ok(())
}
