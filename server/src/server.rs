//! Server assembly: connects the store, builds the gRPC services (with reflection and
//! health), serves until the shutdown token fires, then shuts down in stages, each with
//! a deadline: stop accepting and end watch streams, end agent sessions and drain
//! in-flight RPCs, stop rsync and the background tasks, close the pool.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use flotilla_api::v1::access_service_server::AccessServiceServer;
use flotilla_api::v1::action_service_server::ActionServiceServer;
use flotilla_api::v1::agent_service_server::AgentServiceServer;
use flotilla_api::v1::container_cluster_service_server::ContainerClusterServiceServer;
use flotilla_api::v1::simulator_service_server::SimulatorServiceServer;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::server::NamedService;
use tonic_health::ServingStatus;
use tower_http::classify::{GrpcCode, GrpcErrorsAsFailures, SharedClassifier};
use tower_http::trace::{
    DefaultMakeSpan, DefaultOnFailure, DefaultOnRequest, DefaultOnResponse, TraceLayer,
};
use tracing::{Level, info, warn};

use crate::agent::AgentHub;
use crate::api::MAX_MESSAGE_BYTES;
use crate::api::access::AccessApi;
use crate::api::actions::ActionApi;
use crate::api::agent::AgentApi;
use crate::api::auth::Auth;
use crate::api::container_clusters::ContainerClusterApi;
use crate::api::declared::LifecycleRoutes;
use crate::api::simulator::SimulatorApi;
use crate::api::status_api::StatusApi;
use crate::app::Hooks;
use crate::app::access::{Access, StoreFacts};
use crate::app::actions::{ActionHooks, Actions};
use crate::app::container_clusters::ContainerClusters;
use crate::app::lifecycle::Lifecycle;
use crate::app::status::StatusApp;
use crate::config::Config;
use crate::coord::Nudge;
use crate::coord::ownership::{Ownership, OwnershipHooks};
use crate::domain::names::ClusterName;
use crate::domain::readiness::Connectivity;
use crate::ids::TokenId;
use crate::infra::sim::SimIaas;
use crate::net;
use crate::net::middleware::Layer;
use crate::net::tls::{self, TlsState};
use crate::rsync::{RsyncEngine, RsyncOptions};
use crate::sim::embedded::EmbeddedAgents;
use crate::store::action::ActionRecord;
use crate::store::{Store, redact};
use crate::tasks::action_timer::ActionTimer;
use crate::tasks::container_clusters::{ClusterTask, Job};
use crate::tasks::health::{Health, HealthCheck};
use crate::tasks::upkeep::{StoreUpkeep, Upkeep};
use crate::tasks::{self, Activator};
use crate::vault::Vault;
use crate::watch::{WatchHub, WatchOptions};
use crate::wire::routes::StatusRoutes;

/// How often the TLS files are checked for changes (SIGHUP reloads at once).
const TLS_RELOAD_PERIOD: Duration = Duration::from_secs(2);

/// Request logging: a span per RPC (DEBUG), and a WARN line for RPCs that fail on the
/// server's side. Errors that describe the caller's request (bad input, not found,
/// refused transitions, conflicts) are answers, not failures.
fn request_log() -> TraceLayer<SharedClassifier<GrpcErrorsAsFailures>> {
    let classifier = [
        GrpcCode::InvalidArgument,
        GrpcCode::NotFound,
        GrpcCode::AlreadyExists,
        GrpcCode::FailedPrecondition,
        GrpcCode::Aborted,
        GrpcCode::Unimplemented,
        GrpcCode::Unauthenticated,
        GrpcCode::PermissionDenied,
        GrpcCode::ResourceExhausted,
        GrpcCode::OutOfRange,
        GrpcCode::Cancelled,
    ]
    .into_iter()
    .fold(
        GrpcErrorsAsFailures::new(),
        GrpcErrorsAsFailures::with_success,
    );
    TraceLayer::new(SharedClassifier::new(classifier))
        .make_span_with(DefaultMakeSpan::new().level(Level::DEBUG))
        .on_request(DefaultOnRequest::new().level(Level::DEBUG))
        .on_response(DefaultOnResponse::new().level(Level::DEBUG))
        .on_failure(DefaultOnFailure::new().level(Level::WARN))
}

/// Tells rsync, the embedded agents, the agent hub and the token cache about
/// lifecycle changes.
struct ServerHooks {
    ownership: Arc<Ownership>,
    engine: Arc<RsyncEngine>,
    embedded: Option<Arc<EmbeddedAgents>>,
    access: Arc<Access>,
    hub: Arc<AgentHub>,
}

#[tonic::async_trait]
impl Hooks for ServerHooks {
    async fn work_changed(&self, clusters: &[String]) {
        for cluster in clusters {
            if self.ownership.owns(cluster).is_some() {
                self.engine.wake(cluster);
            } else {
                self.ownership
                    .coordinator()
                    .nudge(cluster, Nudge::Work)
                    .await;
            }
        }
    }

    async fn report_wanted(&self, cluster: &str, deployment_ids: Vec<String>) {
        if self.ownership.owns(cluster).is_some() {
            self.hub.request_reports(cluster, deployment_ids).await;
        } else {
            let nudge = Nudge::Reports { deployment_ids };
            self.ownership.coordinator().nudge(cluster, nudge).await;
        }
    }

    async fn cluster_created(&self, cluster: &str, embedded_sim: bool) {
        // With replicas, the sim starts where the cluster is placed (RunHere).
        if embedded_sim
            && !self.ownership.replicated()
            && let Some(embedded) = &self.embedded
            && let Err(error) = embedded.start(cluster).await
        {
            warn!(%cluster, %error, "cannot start the embedded sim agent");
        }
        self.ownership.kick();
        self.engine.wake(cluster);
    }

    async fn cluster_deleted(&self, cluster: &str) {
        crate::metrics::METRICS.cluster_gone(cluster);
        if let Some(embedded) = &self.embedded {
            embedded.stop(cluster);
        }
        self.engine.forget(cluster);
        self.hub.forget(cluster);
        self.ownership.kick();
    }

    async fn tokens_revoked(&self, tokens: &[TokenId]) {
        if tokens.is_empty() {
            return;
        }
        self.access.forget(tokens);
        self.hub.revoke(tokens).await;
    }
}

/// Starts and stops a cluster's work on this replica as its ownership moves.
struct RunHere {
    engine: Arc<RsyncEngine>,
    hub: Arc<AgentHub>,
    /// With replicas: the embedded sims, which run (and start empty) on the replica
    /// that runs their cluster.
    embedded: Option<Arc<EmbeddedAgents>>,
}

#[tonic::async_trait]
impl OwnershipHooks for RunHere {
    async fn gained(&self, cluster: &str) {
        if let Some(embedded) = &self.embedded
            && let Err(error) = embedded.start_if_embedded(cluster).await
        {
            warn!(%cluster, %error, "cannot start the embedded sim agent");
        }
        // The agent is on its way (sent here by the previous owner, or reconnecting):
        // give it two heartbeats before the worker finds the cluster unreachable, so a
        // hand-over does not flap the cluster to Retrying.
        let (hub, engine, cluster) = (self.hub.clone(), self.engine.clone(), cluster.to_owned());
        tokio::spawn(async move {
            let link = hub.link(&cluster);
            let mut sessions = link.watch();
            let arrived = sessions.wait_for(Option::is_some);
            let arrived = tokio::time::timeout(hub.heartbeat() * 2, arrived)
                .await
                .is_ok();
            if hub.ownership().owns(&cluster).is_none() {
                return;
            }
            if !arrived && link.current().is_none() {
                // The previous owner may have died with the cluster recorded Available.
                let name = ClusterName::from(cluster.as_str());
                if let Err(error) = hub
                    .status()
                    .connectivity_changed(&name, Connectivity::Retrying)
                    .await
                {
                    warn!(%cluster, %error, "cannot record a cluster without an agent");
                }
            }
            engine.wake(&cluster);
        });
    }

    async fn losing(&self, cluster: &str) {
        if let Some(embedded) = &self.embedded {
            embedded.stop(cluster);
        }
        self.engine.forget(cluster);
        self.hub.hand_over(cluster).await;
    }
}

/// Delivers changed actions to their clusters' sessions (through the owner, for a
/// cluster another replica runs) and wakes the action timer.
struct ActionDelivery {
    hub: Arc<AgentHub>,
    timer: Activator,
}

#[tonic::async_trait]
impl ActionHooks for ActionDelivery {
    async fn action_changed(&self, action: &ActionRecord) {
        let ownership = self.hub.ownership();
        if ownership.owns(&action.cluster).is_some() {
            self.hub.deliver_action(action).await;
        } else {
            let nudge = Nudge::Action {
                id: action.id.to_string(),
            };
            ownership.coordinator().nudge(&action.cluster, nudge).await;
        }
    }

    fn schedule(&self, at: i64) {
        self.timer.schedule(at);
    }
}

/// The TLS this replica passes calls to the others with: the CA of `--peer-ca-file`,
/// and with mTLS its own certificate. None when it serves plaintext, or has no CA for
/// its peers (then nothing is passed to an `https://` replica).
fn peer_tls(config: &Config) -> anyhow::Result<Option<crate::coord::peers::PeerTls>> {
    let (Some(files), Some(ca)) = (
        &config.tls,
        config
            .coordination
            .etcd
            .as_ref()
            .and_then(|e| e.peer_ca.as_ref()),
    ) else {
        return Ok(None);
    };
    let read = |path: &std::path::Path| {
        std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
    };
    let identity = match files.client_ca {
        Some(_) => Some((read(&files.cert)?, read(&files.key)?)),
        None => None,
    };
    Ok(Some(crate::coord::peers::PeerTls {
        ca_pem: read(ca)?,
        identity,
    }))
}

/// Rebuilds the TLS passes are made with whenever the serving files are reloaded
/// (SIGHUP, or the files changed): a rotated certificate is presented to the other
/// replicas from then on, not from the next restart, and a new peer CA is trusted.
/// Files that cannot be read keep the previous settings.
fn follow_tls_reloads(
    peers: Arc<crate::coord::peers::Peers>,
    mut reloads: tokio::sync::watch::Receiver<u64>,
    config: Config,
    shutdown: CancellationToken,
) {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                changed = reloads.changed() => if changed.is_err() { return },
            }
            match peer_tls(&config) {
                Ok(tls) => {
                    peers.set_tls(tls);
                    info!("passes to the other replicas use the reloaded TLS files");
                }
                Err(error) => {
                    warn!(%error, "cannot reload the TLS for passes to the other replicas; keeping the previous one")
                }
            }
        }
    });
}

/// Nudged actions read and delivered at once, at most.
const NUDGED_ACTIONS_IN_FLIGHT: usize = 32;

/// Does what other replicas ask of the clusters this one runs.
async fn follow_nudges(
    mut nudges: tokio::sync::mpsc::UnboundedReceiver<(String, Nudge)>,
    engine: Arc<RsyncEngine>,
    hub: Arc<AgentHub>,
    actions: Actions,
) {
    // Nudged actions are read and delivered side by side (each is a SQL read and a
    // send): one at a time, a burst of creates on the other replicas queued here.
    let delivering = Arc::new(tokio::sync::Semaphore::new(NUDGED_ACTIONS_IN_FLIGHT));
    while let Some((cluster, nudge)) = nudges.recv().await {
        if hub.ownership().owns(&cluster).is_none() {
            continue;
        }
        match nudge {
            Nudge::Work => engine.wake(&cluster),
            Nudge::Reports { deployment_ids } => {
                hub.request_reports(&cluster, deployment_ids).await
            }
            Nudge::Simulate { call } => crate::api::simulator::simulate(&hub, &cluster, call).await,
            Nudge::Action { id } => {
                let Ok(id) = id.parse() else {
                    warn!(%cluster, %id, "a nudge names no action");
                    continue;
                };
                let Ok(permit) = delivering.clone().acquire_owned().await else {
                    return;
                };
                let (actions, hub) = (actions.clone(), hub.clone());
                tokio::spawn(async move {
                    let _permit = permit;
                    match actions.get(id).await {
                        Ok(action) => hub.deliver_action(&action).await,
                        Err(error) => warn!(%cluster, %error, "cannot read a nudged action"),
                    }
                });
            }
        }
    }
}

/// Serves the web console (its pages, and gRPC-Web through `around_calls` to `routes`)
/// on `console.address`, with the gRPC port's TLS. A port the demo's default asked for
/// that is taken only warns: the demo serves on without its console.
async fn serve_console<L, B>(
    console: crate::config::Console,
    tls: Option<Arc<net::tls::TlsState>>,
    around_calls: L,
    routes: tonic::service::Routes,
    shutdown: CancellationToken,
) -> anyhow::Result<()>
where
    L: tower::Layer<tonic::service::Routes> + Clone + Send + Sync + 'static,
    L::Service: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<B>,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + Sync
        + 'static,
    <L::Service as tower::Service<http::Request<tonic::body::Body>>>::Future: Send + 'static,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>> + std::fmt::Display,
{
    let listener = match tokio::net::TcpListener::bind(console.address).await {
        Ok(listener) => listener,
        Err(error) if !console.chosen => {
            warn!(address = %console.address, %error, "the demo's console is not served: its port is taken (pass --console-listen)");
            return Ok(());
        }
        Err(error) => anyhow::bail!("cannot serve the console on {}: {error}", console.address),
    };
    let secure = tls.is_some();
    let incoming = net::incoming(listener, tls, shutdown.clone())?;
    let scheme = if secure { "https" } else { "http" };
    info!(address = %incoming.address, url = %format!("{scheme}://{}/", incoming.address), "console listening");
    let router = tonic::transport::Server::builder()
        // Browsers speak HTTP/1.1 to a plaintext port; gRPC-Web is made for it.
        .accept_http1(true)
        .http2_max_header_list_size(crate::api::refusals::HTTP2_MAX_HEADER_LIST_BYTES)
        .layer(net::console::Pages)
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(around_calls)
        .add_routes(routes);
    tokio::spawn(async move {
        let served = router
            .serve_with_incoming_shutdown(incoming.connections, shutdown.cancelled_owned())
            .await;
        if let Err(error) = served {
            warn!(%error, "the console stopped serving");
        }
    });
    Ok(())
}

/// Runs one shutdown stage with a deadline, logging how long it took (or that it was cut
/// short: the next stage goes on regardless).
async fn stage(name: &str, deadline: Duration, work: impl std::future::Future<Output = ()>) {
    let started = std::time::Instant::now();
    match tokio::time::timeout(deadline, work).await {
        Ok(()) => info!(
            stage = name,
            took_ms = started.elapsed().as_millis() as u64,
            "shutdown stage done"
        ),
        Err(_) => warn!(
            stage = name,
            ?deadline,
            "shutdown stage cut short at its deadline"
        ),
    }
}

/// Creates the data directory (tokens, keys, the SQLite database) for its owner only,
/// 0700, and tightens an existing one that others can enter.
fn private_directory(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    if std::fs::metadata(dir)?.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        warn!(dir = %dir.display(), "the data directory was open to others: now 0700");
    }
    Ok(())
}

/// What a server that has started serving hands the one who embeds it (the tests'
/// in-process servers): where it listens, and the connector of in-process connections.
pub struct Listening {
    pub address: SocketAddr,
    pub local: net::LocalConnector,
}

/// Runs the server until `shutdown` is cancelled.
pub async fn run(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    serve(config, shutdown, |_| {}).await
}

/// Runs the server until `shutdown` is cancelled, calling `listening` once it serves
/// (its store, services and background tasks started).
pub async fn serve(
    config: Config,
    shutdown: CancellationToken,
    listening: impl FnOnce(Listening),
) -> anyhow::Result<()> {
    private_directory(&config.data_dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot create data directory {}: {e}",
            config.data_dir.display()
        )
    })?;
    if config.tls.is_none() && !config.listen.ip().is_loopback() {
        // Config::load took this only with --insecure.
        warn!(listen = %config.listen, "serving plaintext beyond loopback (--insecure): tokens cross the network readable");
    }
    let url = config.database_url();
    info!(database = %redact(&url), "connecting to the database");
    let store = Store::connect(&url).await?;
    info!(backend = ?store.backend(), "database ready, migrations applied");

    // The credentials key: a wrong or missing one stops the start here, before anything
    // could read a sealed credential.
    let vault = Arc::new(Vault::open(&store, &config.credentials_key_file).await?);

    // The embedded infrastructure provider of container clusters (its own tables).
    let iaas = SimIaas::open(store.clone(), config.sim_iaas_latency).await?;

    let access = Access::new(store.clone());
    if let Some(path) = access.bootstrap_admin(&config.data_dir).await? {
        // The path, never the token (as k3s does).
        info!(
            file = %path.display(),
            "created the bootstrap admin token (mode 0600); use it with: export FLOTILLA_TOKEN=$(cat {})",
            path.display()
        );
    }
    let tls = match &config.tls {
        Some(files) => {
            let state = TlsState::new(files.clone())?;
            tls::spawn_reloader(state.clone(), TLS_RELOAD_PERIOD, shutdown.clone());
            Some(state)
        }
        None => None,
    };

    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.listen))?;
    let incoming = net::incoming(listener, tls.clone(), shutdown.clone())?;
    let address: SocketAddr = incoming.address;
    let coordinator = crate::coord::start(
        &config.coordination,
        address,
        tls.is_some(),
        store.signals().clone(),
    )
    .await?;
    if let Some(metrics) = config.metrics_listen {
        let store = store.clone();
        let pools: crate::metrics::http::PoolUse = Arc::new(move || store.pool_use());
        crate::metrics::http::serve(metrics, pools, shutdown.clone()).await?;
    }

    let workers = shutdown.child_token();
    let ownership = Ownership::new(coordinator.clone(), config.coordination.etcd.is_some());
    let status = StatusApp::new(store.clone())
        .with_trees(config.status_tree_entries, workers.clone())
        .with_fencing(ownership.clone());
    let hub = AgentHub::new(status.clone(), config.agent_heartbeat, ownership.clone());
    let rsync = RsyncOptions {
        in_flight: config.rsync_in_flight,
        ..RsyncOptions::default()
    };
    let engine = RsyncEngine::new(hub.clone(), rsync, workers.clone());
    let embedded = config.sim.then(|| {
        EmbeddedAgents::new(
            store.clone(),
            access.clone(),
            incoming.local.clone(),
            config.sim_pod_ready,
            config.sim_nodes,
            workers.clone(),
        )
    });
    ownership.attach(Arc::new(RunHere {
        engine: engine.clone(),
        hub: hub.clone(),
        embedded: embedded.clone().filter(|_| ownership.replicated()),
    }));
    let hooks = Arc::new(ServerHooks {
        ownership: ownership.clone(),
        engine: engine.clone(),
        embedded: embedded.clone(),
        access: access.clone(),
        hub: hub.clone(),
    });
    let lifecycle = Lifecycle::with_hooks(store.clone(), hooks)
        .with_sim(config.sim)
        .with_instance_retention(config.instance_retention);
    let watch_hub = WatchHub::new(
        store.clone(),
        WatchOptions {
            heartbeat: config.watch_heartbeat,
            poll: config.watch_poll,
            max_watches: config.max_watches,
            tail: config.watch_tail_events,
        },
        shutdown.clone(),
    );
    let action_timer = Activator::default();
    let actions = Actions::new(
        store.clone(),
        config.actions.clone(),
        Some(Arc::new(ActionDelivery {
            hub: hub.clone(),
            timer: action_timer.clone(),
        })),
    )
    .with_fencing(ownership.clone());
    hub.attach_actions(actions.clone());
    if let Some(nudges) = coordinator.take_nudges() {
        tokio::spawn(follow_nudges(
            nudges,
            engine.clone(),
            hub.clone(),
            actions.clone(),
        ));
    }
    let cluster_driver = Activator::default();
    let container_clusters = ContainerClusters::new(
        store.clone(),
        Arc::new(iaas.clone()),
        vault,
        config.clusters.clone(),
        cluster_driver.clone(),
    )
    .with_fencing(ownership.clone());
    if config.demo {
        crate::demo::seed(&lifecycle).await?;
        let token_file = config.data_dir.join(crate::app::access::ADMIN_TOKEN_FILE);
        if token_file.exists() {
            info!(
                "demo ready; call it with the admin token: export FLOTILLA_TOKEN=$(cat {})",
                token_file.display()
            );
        }
    }

    let peers = match &config.coordination.etcd {
        Some(etcd) => {
            crate::coord::peers::Peers::new(ownership.clone(), peer_tls(&config)?, etcd.lease_ttl)
        }
        None => None,
    };
    if let (Some(peers), Some(tls)) = (&peers, &tls) {
        follow_tls_reloads(
            peers.clone(),
            tls.reloads(),
            config.clone(),
            shutdown.clone(),
        );
    }

    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    let mut served = vec![
        <LifecycleRoutes as NamedService>::NAME,
        <StatusRoutes<StatusApi> as NamedService>::NAME,
        <AccessServiceServer<AccessApi> as NamedService>::NAME,
        <ActionServiceServer<ActionApi> as NamedService>::NAME,
        <ContainerClusterServiceServer<ContainerClusterApi> as NamedService>::NAME,
        <AgentServiceServer<AgentApi> as NamedService>::NAME,
    ];
    if config.sim {
        served.push(<SimulatorServiceServer<SimulatorApi> as NamedService>::NAME);
    }
    // Reflection lists what is served (the simulator only with --sim), health and
    // reflection itself.
    let listed: Vec<&'static str> = served
        .iter()
        .copied()
        .chain([
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        ])
        .collect();
    let health = Health::new(health_reporter, served);
    health.set(ServingStatus::Serving).await;

    let reflection = || {
        listed.iter().fold(
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(flotilla_api::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(
                    tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
                ),
            |builder, name| builder.with_service_name(*name),
        )
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;

    let auth = Auth::new(
        access.clone(),
        Arc::new(StoreFacts {
            store: store.clone(),
        }),
    )?;
    let mut routes = tonic::service::Routes::builder();
    routes
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(LifecycleRoutes::new(lifecycle.clone()))
        .add_service(StatusRoutes::new(
            StatusApi::new(status, watch_hub.clone()),
            crate::wire::outbound::Budget::new(
                crate::wire::outbound::BUDGET,
                crate::metrics::METRICS.watch_output_bytes.clone(),
            ),
        ))
        .add_service(AccessServiceServer::new(AccessApi::new(access.clone())))
        .add_service(ActionServiceServer::new(
            ActionApi::new(actions.clone(), watch_hub.clone()).with_peers(peers),
        ))
        .add_service(ContainerClusterServiceServer::new(
            ContainerClusterApi::new(
                container_clusters.clone(),
                watch_hub.clone(),
                lifecycle.clone(),
            ),
        ))
        .add_service(
            AgentServiceServer::new(AgentApi::new(hub.clone()))
                .max_decoding_message_size(MAX_MESSAGE_BYTES),
        );
    if config.sim {
        routes.add_service(SimulatorServiceServer::new(SimulatorApi::new(
            hub.clone(),
            iaas,
            lifecycle.clone(),
            actions.clone(),
        )));
    }
    let routes = routes.routes().prepare();
    // Every call passes these, from either port.
    let around_calls = tower::ServiceBuilder::new()
        .layer(request_log())
        // Outside auth: every RPC is counted, refusals included.
        .layer(Layer(crate::metrics::grpc::Metrics))
        // Inside the metrics: refusals are counted under the codes callers see.
        .layer(Layer(crate::api::refusals::Refusals))
        .layer(Layer(auth))
        .into_inner();
    if let Some(console) = config.console {
        serve_console(
            console,
            tls.clone(),
            around_calls.clone(),
            routes.clone(),
            shutdown.clone(),
        )
        .await?;
    }
    let router = tonic::transport::Server::builder()
        // Headers up to this reach the refusal layer, which answers past its own
        // (smaller) limit with a gRPC status instead of HTTP 431.
        .http2_max_header_list_size(crate::api::refusals::HTTP2_MAX_HEADER_LIST_BYTES)
        .layer(around_calls)
        .add_routes(routes);

    info!(%address, sim = config.sim, tls = tls.is_some(), mtls = config.tls.as_ref().is_some_and(|t| t.client_ca.is_some()), "flotilla-server listening");
    let serve = router.serve_with_incoming_shutdown(incoming.connections, {
        let shutdown = shutdown.clone();
        async move { shutdown.cancelled().await }
    });
    let mut serve = std::pin::pin!(serve);

    // Fleet-wide tasks run on one replica of a replica set (coord::ownership).
    let fleet_wide = |task: Arc<dyn tasks::BackgroundTask>| -> Arc<dyn tasks::BackgroundTask> {
        Arc::new(tasks::FleetWide {
            ownership: ownership.clone(),
            task,
        })
    };
    let mut task_handles: Vec<_> = [
        Upkeep::ExpireRequests {
            retention: config.request_id_retention,
        },
        Upkeep::CompactEvents {
            retention: config.watch_retention,
        },
        Upkeep::WalCheckpoint,
        Upkeep::TableStatistics,
    ]
    .into_iter()
    .filter(|job| job.runs_on(store.backend()))
    .map(|job| {
        let task = fleet_wide(Arc::new(StoreUpkeep {
            store: store.clone(),
            job,
        }));
        tasks::spawn(task, job.period(), Activator::default(), workers.clone())
    })
    .collect();
    task_handles.push(tasks::spawn(
        fleet_wide(Arc::new(ActionTimer::new(
            actions.clone(),
            config.action_pod_rescan,
        ))),
        config.action_check,
        action_timer,
        workers.clone(),
    ));
    // Container clusters: workflows left in flight by a crash are due at once.
    let cluster_jobs = [
        (
            Job::Workflows,
            Duration::from_secs(1),
            cluster_driver.clone(),
        ),
        (Job::Garbage, config.cluster_gc, Activator::default()),
        (Job::StateSync, config.cluster_sync, Activator::default()),
    ];
    for (job, period, activator) in cluster_jobs {
        let clusters = container_clusters.clone();
        let task = fleet_wide(Arc::new(ClusterTask { clusters, job }));
        task_handles.push(tasks::spawn(task, period, activator, workers.clone()));
    }
    cluster_driver.activate();

    // After shutdown began the status stays NOT_SERVING: the workers token stops this.
    task_handles.push(tasks::spawn(
        Arc::new(HealthCheck::new(store.clone(), health.clone())),
        config.health_check,
        Activator::default(),
        workers.clone(),
    ));

    engine.start_all().await?;
    // In a replica set: take this replica's share of the clusters, and keep it as
    // members come and go. Stops (and hands everything over) when the workers stop.
    let ownership_task = tokio::spawn(
        ownership.clone().run(
            store.clone(),
            config
                .coordination
                .etcd
                .as_ref()
                .map_or(Duration::from_secs(1), |etcd| etcd.lease_ttl / 3),
            workers.clone(),
        ),
    );
    if let Some(embedded) = &embedded {
        // Registered container clusters' agents connect only while those clusters run.
        task_handles.push(EmbeddedAgents::follow_container_clusters(
            watch_hub.clone(),
            hub.clone(),
            workers.clone(),
        ));
        if !ownership.replicated() {
            embedded.start_all().await?;
        }
    }
    listening(Listening {
        address,
        local: incoming.local.clone(),
    });

    let serving = tokio::select! {
        result = &mut serve => {
            result?;
            false
        }
        () = shutdown.cancelled() => true,
    };
    // DESIGN §13's order, each stage with the same deadline (--shutdown-timeout-secs):
    // the shutdown token has already stopped the listener accepting and ended every
    // watch stream (UNAVAILABLE with a resume token); the agent sessions end and the
    // rsync workers stop, the clusters are handed to the other replicas (which take
    // them at once), in-flight RPCs finish (their commits still reach the others'
    // watches), the replica leaves the set, the background tasks stop, the pool closes.
    let deadline = config.shutdown_timeout;
    info!("shutting down: no new connections; watch streams end with a resume token");
    health.set(ServingStatus::NotServing).await;
    // Stop rsync and the embedded agents first, so ending the sessions is not taken for
    // clusters becoming unreachable.
    workers.cancel();
    hub.shutdown();
    stage("rsync workers stopped", deadline, async {
        let _ = ownership_task.await;
        engine.join().await;
    })
    .await;
    // Nothing runs for a cluster here any more: the others may take them at once.
    stage("clusters handed over", deadline, coordinator.step_down()).await;
    stage("in-flight requests finished", deadline, async {
        if serving && let Err(error) = (&mut serve).await {
            warn!(%error, "server ended with an error while draining");
        }
    })
    .await;
    stage("left the replica set", deadline, coordinator.resign()).await;
    stage("background tasks stopped", deadline, async {
        for task in task_handles {
            let _ = task.await;
        }
    })
    .await;
    stage("database pool closed", deadline, store.close()).await;
    info!("stopped");
    Ok(())
}
