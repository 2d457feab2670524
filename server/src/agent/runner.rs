//! The agent side of `AgentService.Connect`. It dials the server with its token, says
//! hello with what it holds, applies and deletes what the server sends, reports one
//! ResourceBundleState per deployment id on change (debounced; after the first, only
//! what changed, see `reports`) and heartbeats. When
//! the session drops it reconnects with exponential backoff and jitter; the server
//! then re-sends its desired state and the agent reports everything it has.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;

use flotilla_api::v1 as pb;
use flotilla_client::{ConnectOptions, Token};
use pb::connect_request::Message as Up;
use pb::connect_response::Message as Down;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::transport::Channel;
use tracing::{debug, info};

use super::backend::ClusterBackend;
use super::executor::ActionExecutor;
use super::reports::Sent;
use super::wire::{self, Incoming};
use crate::domain::manifest::Gvk;
use crate::net::LocalConnector;
use crate::tasks::jittered;
use crate::wire::convert::{json_to_pruned_struct, struct_to_json};

/// How long an agent waits for the server to accept its session.
const ACCEPT_TIMEOUT: Duration = Duration::from_secs(5);

/// How an agent reaches the server.
#[derive(Clone)]
pub enum Dial {
    /// Over the network (TLS and mTLS as the options say).
    Remote(ConnectOptions),
    /// Through an in-process pipe (the server's embedded agents).
    Local(LocalConnector),
}

impl Dial {
    async fn channel(&self) -> Result<Channel, tonic::Status> {
        match self {
            Dial::Remote(options) => options
                .channel()
                .await
                .map_err(|e| tonic::Status::unavailable(e.chain())),
            Dial::Local(local) => local
                .channel()
                .await
                .map_err(|e| tonic::Status::unavailable(e.to_string())),
        }
    }
}

impl Dial {
    /// The same dial to another replica (the owner a replica sent the agent to): the
    /// same token and TLS settings; the certificate is checked against the new host.
    fn redirected(&self, address: &str) -> Dial {
        match self {
            Dial::Remote(options) => Dial::Remote(ConnectOptions {
                address: address.to_owned(),
                domain: None,
                ..options.clone()
            }),
            // An embedded agent reaches only its own process.
            Dial::Local(_) => self.clone(),
        }
    }
}

/// The replica a refusal sends the agent to (CLUSTER_ELSEWHERE), if it is one.
fn elsewhere(status: &tonic::Status) -> Option<String> {
    use tonic_types::StatusExt;
    let info = status.get_details_error_info()?;
    (info.reason == crate::wire::status::CLUSTER_ELSEWHERE)
        .then(|| info.metadata.get("address").cloned())
        .flatten()
}

impl std::fmt::Debug for Dial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dial::Remote(options) => f.debug_tuple("Remote").field(&options.address).finish(),
            Dial::Local(_) => f.write_str("Local"),
        }
    }
}

/// The longest wait before asking the configured address again after the replica it
/// sent the agent to did not answer.
const REDIRECT_BACKOFF: Duration = Duration::from_secs(1);

/// How an agent connects.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// How to reach the server.
    pub dial: Dial,
    /// The cluster's resource name.
    pub cluster: String,
    /// The cluster's agent token.
    pub token: Token,
    /// How long to gather changes before reporting bundle states.
    pub debounce: Duration,
    /// The longest wait between reconnection attempts.
    pub max_backoff: Duration,
    /// Whether this agent executes the cluster's actions (else node agents do, through
    /// WatchActions).
    pub executes_actions: bool,
}

impl AgentOptions {
    pub fn new(dial: Dial, cluster: impl Into<String>, token: Token) -> Self {
        Self {
            dial,
            cluster: cluster.into(),
            token,
            debounce: Duration::from_millis(50),
            max_backoff: Duration::from_secs(5),
            executes_actions: true,
        }
    }
}

/// Why an agent stopped for good.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the server refused the agent: {0}")]
    Refused(tonic::Status),
}

enum SessionEnd {
    Shutdown,
    Lost(String),
}

/// Runs the agent until `shutdown`, reconnecting as needed. Returns an error only when
/// the server refuses the token (UNAUTHENTICATED or PERMISSION_DENIED).
pub async fn run_agent<B: ClusterBackend>(
    options: AgentOptions,
    backend: Arc<B>,
    mut changes: mpsc::UnboundedReceiver<String>,
    shutdown: CancellationToken,
) -> Result<(), AgentError> {
    let (executor, mut reports) = ActionExecutor::new(backend.clone());
    let mut backoff = Duration::from_millis(100);
    // The replica that runs this cluster, when the configured address (a load
    // balancer, or any replica) sent the agent there.
    let mut redirect: Option<String> = None;
    loop {
        if shutdown.is_cancelled() {
            return Ok(());
        }
        if !backend.reachable() {
            // No session for a cluster that does not answer: the server holds its
            // resources Retrying until it does.
            tokio::select! {
                () = shutdown.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_millis(500)) => continue,
            }
        }
        let links = Links {
            executor: &executor,
            reports: &mut reports,
        };
        let attempt = match &redirect {
            Some(address) => AgentOptions {
                dial: options.dial.redirected(address),
                ..options.clone()
            },
            None => options.clone(),
        };
        match session(&attempt, &backend, &mut changes, links, &shutdown).await {
            Ok(SessionEnd::Shutdown) => return Ok(()),
            Ok(SessionEnd::Lost(reason)) => {
                info!(cluster = %options.cluster, %reason, "agent session ended; reconnecting");
                backoff = Duration::from_millis(100);
                // The cluster may have changed hands: ask the configured address again.
                redirect = None;
            }
            Err(status) if elsewhere(&status).is_some() => {
                let first = redirect.is_none();
                redirect = elsewhere(&status);
                info!(cluster = %options.cluster, address = ?redirect, "sent to the replica that runs the cluster");
                if first {
                    // New information, not a failure: go there at once.
                    tokio::select! {
                        () = shutdown.cancelled() => return Ok(()),
                        () = tokio::time::sleep(jittered(Duration::from_millis(50), 1.0)) => {}
                    }
                    continue;
                }
                // Sent on again: the replicas' views differ while a cluster moves.
                backoff = (backoff * 2).min(options.max_backoff.min(REDIRECT_BACKOFF));
            }
            Err(status)
                if matches!(
                    status.code(),
                    Code::Unauthenticated | Code::PermissionDenied
                ) =>
            {
                return Err(AgentError::Refused(status));
            }
            Err(status) => {
                debug!(cluster = %options.cluster, error = %status, "agent cannot connect");
                // A replica it was sent to that does not answer has died or is leaving:
                // its clusters get a new owner within a lease TTL, so the configured
                // address is asked again soon rather than after the full backoff.
                let cap = if redirect.is_some() {
                    options.max_backoff.min(REDIRECT_BACKOFF)
                } else {
                    options.max_backoff
                };
                backoff = (backoff * 2).min(cap);
                redirect = None;
            }
        }
        let jitter = jittered(Duration::from_millis(50), 1.0); // 0–100 ms
        tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            () = tokio::time::sleep(backoff + jitter) => {}
        }
    }
}

/// The state of `deployment_id` to report, if any (see [`Sent`]).
fn bundle_message<B: ClusterBackend>(
    backend: &B,
    sent: &mut Sent,
    deployment_id: &str,
) -> Option<pb::ConnectRequest> {
    let report = sent.report(deployment_id, backend.bundle(deployment_id))?;
    // metadata, spec and status sit one level below the object; they are converted
    // from what the backend keeps, not copied first.
    let resources = report
        .resources
        .into_iter()
        .map(|o| pb::ObservedResource {
            metadata: Some(json_to_pruned_struct(&o.metadata, 2)),
            spec: Some(json_to_pruned_struct(&o.spec, 2)),
            status: Some(json_to_pruned_struct(&o.status, 2)),
            gvk: Some(pb::GroupVersionKind {
                group: o.gvk.group,
                version: o.gvk.version,
                kind: o.gvk.kind,
            }),
            namespace: o.namespace,
            name: o.name,
        })
        .collect();
    Some(pb::ConnectRequest {
        message: Some(Up::BundleState(pb::ResourceBundleState {
            deployment_id: deployment_id.to_string(),
            resources,
            observe_time: crate::wire::convert::timestamp(crate::store::now_micros()),
            partial: report.partial,
        })),
    })
}

/// The action executor and the reports it queued (they wait across sessions).
struct Links<'a, B> {
    executor: &'a Arc<ActionExecutor<B>>,
    reports: &'a mut mpsc::UnboundedReceiver<pb::ConnectRequest>,
}

/// An apply or delete under way on the backend: its result message.
type Operation = BoxFuture<'static, pb::ConnectRequest>;

async fn session<B: ClusterBackend>(
    options: &AgentOptions,
    backend: &Arc<B>,
    changes: &mut mpsc::UnboundedReceiver<String>,
    links: Links<'_, B>,
    shutdown: &CancellationToken,
) -> Result<SessionEnd, tonic::Status> {
    let Links { executor, reports } = links;
    let channel = options.dial.channel().await?;
    let (up, up_rx) = mpsc::channel::<pb::ConnectRequest>(4096);
    let hello = pb::AgentHello {
        cluster: options.cluster.clone(),
        agent_version: env!("CARGO_PKG_VERSION").to_string(),
        deployment_ids: backend.deployment_ids(),
        monitored_kinds: crate::domain::readiness::MONITORED_KINDS
            .iter()
            .map(|k| k.to_string())
            .collect(),
        nodes: backend.nodes(),
        executes_actions: options.executes_actions,
        backend: backend.name().into(),
        cluster_version: backend.version(),
    };
    up.send(pb::ConnectRequest {
        message: Some(Up::Hello(hello)),
    })
    .await
    .map_err(|_| tonic::Status::internal("agent channel closed"))?;
    let mut request = tonic::Request::new(ReceiverStream::new(up_rx));
    let bearer = options
        .token
        .header()
        .map_err(|e| tonic::Status::invalid_argument(e.to_string()))?;
    request.metadata_mut().insert("authorization", bearer);
    // A server that accepts the connection but does not answer (a paused process: the
    // kernel still accepts) must not hold the agent: it goes elsewhere after a while.
    let unanswered = || {
        tonic::Status::unavailable(format!(
            "the server did not accept the session within {ACCEPT_TIMEOUT:?}"
        ))
    };
    let mut down = tokio::time::timeout(ACCEPT_TIMEOUT, wire::connect(channel, request))
        .await
        .map_err(|_| unanswered())??;

    let first = tokio::time::timeout(ACCEPT_TIMEOUT, down.message()).await;
    let (heartbeat, mut sent, replica) = match first.map_err(|_| unanswered())?? {
        Some(Incoming::Message(pb::ConnectResponse {
            message: Some(Down::Accepted(accepted)),
        })) => (
            Duration::from_millis(accepted.heartbeat_interval_millis.max(100) as u64),
            Sent::new(accepted.partial_bundles),
            Arc::<str>::from(accepted.replica),
        ),
        other => {
            return Ok(SessionEnd::Lost(format!(
                "unexpected first message {other:?}"
            )));
        }
    };
    info!(cluster = %options.cluster, %replica, "agent session established");
    // Report everything the cluster holds: the server reconciles from it.
    for id in backend.deployment_ids() {
        if let Some(message) = bundle_message(&**backend, &mut sent, &id) {
            let _ = up.send(message).await;
        }
    }
    // Operations run side by side (a Kubernetes API call takes a round trip); each
    // answers when it is done.
    let mut operations: FuturesUnordered<Operation> = FuturesUnordered::new();
    let mut pending: BTreeSet<String> = BTreeSet::new();
    let mut beat = tokio::time::interval(heartbeat / 3);
    let debounce = tokio::time::sleep(options.debounce);
    tokio::pin!(debounce);
    // The server sends a heartbeat every third of the interval: a server silent for two
    // intervals is stopped or cut off (a paused process keeps its connections open), so
    // the agent goes elsewhere (its cluster may have moved to another replica).
    let mut heard = tokio::time::Instant::now();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return Ok(SessionEnd::Shutdown),
            _ = beat.tick() => {
                if heard.elapsed() > heartbeat * 2 {
                    return Ok(SessionEnd::Lost(format!("the server sent nothing for {:?}", heard.elapsed())));
                }
                if !backend.reachable() {
                    info!(cluster = %options.cluster, "the cluster does not answer; ending the session until it does");
                    return Ok(SessionEnd::Lost("the cluster does not answer".into()));
                }
                let message = pb::ConnectRequest {
                    message: Some(Up::Heartbeat(pb::Heartbeat { time: crate::wire::convert::timestamp(crate::store::now_micros()) })),
                };
                if up.send(message).await.is_err() {
                    return Ok(SessionEnd::Lost("upstream closed".into()));
                }
            }
            report = reports.recv() => {
                let Some(report) = report else { return Ok(SessionEnd::Shutdown) };
                if up.send(report).await.is_err() {
                    return Ok(SessionEnd::Lost("upstream closed".into()));
                }
            }
            changed = changes.recv() => {
                let Some(id) = changed else { return Ok(SessionEnd::Shutdown) };
                if pending.is_empty() {
                    debounce.as_mut().reset(tokio::time::Instant::now() + options.debounce);
                }
                pending.insert(id);
            }
            () = &mut debounce, if !pending.is_empty() => {
                for id in std::mem::take(&mut pending) {
                    let Some(message) = bundle_message(&**backend, &mut sent, &id) else {
                        continue;
                    };
                    if up.send(message).await.is_err() {
                        return Ok(SessionEnd::Lost("upstream closed".into()));
                    }
                }
            }
            message = down.message() => {
                heard = tokio::time::Instant::now();
                let message = match message {
                    Ok(Some(Incoming::Message(message))) => message,
                    // One message the agent cannot read costs that operation, not the
                    // session (every other resource of the cluster's tenants).
                    Ok(Some(Incoming::Undecodable { operation_id, error })) => {
                        tracing::warn!(cluster = %options.cluster, ?operation_id, %error, "a message from the server does not decode");
                        if let Some(operation_id) = operation_id {
                            let reply = pb::ConnectRequest {
                                message: Some(Up::Result(pb::ResourceResult {
                                    operation_id,
                                    success: false,
                                    error: format!("the agent cannot decode this resource: {error}"),
                                })),
                            };
                            if up.send(reply).await.is_err() {
                                return Ok(SessionEnd::Lost("upstream closed".into()));
                            }
                        }
                        continue;
                    }
                    Ok(None) => return Ok(SessionEnd::Lost("server closed the session".into())),
                    // The token was revoked or rotated under the session: no retry helps.
                    Err(status) if status.code() == Code::Unauthenticated => return Err(status),
                    Err(status) => return Ok(SessionEnd::Lost(status.to_string())),
                };
                // The server asks for states it needs whole (after an update, say).
                if let Some(Down::Report(request)) = &message.message {
                    for id in &request.deployment_ids {
                        sent.forget(id);
                    }
                }
                let session = SessionOf { cluster: &options.cluster, replica: &replica };
                if let Some(operation) = handle(backend, executor, session, message) {
                    operations.push(operation);
                }
            }
            Some(reply) = operations.next(), if !operations.is_empty() => {
                if up.send(reply).await.is_err() {
                    return Ok(SessionEnd::Lost("upstream closed".into()));
                }
            }
        }
    }
}

/// Whose session a message came on: the cluster, and the replica that runs it.
#[derive(Clone, Copy)]
struct SessionOf<'a> {
    cluster: &'a str,
    replica: &'a Arc<str>,
}

/// The log target of every apply's outcome, at debug level: which replica's session
/// asked for it and whether it wrote the object (`RUST_LOG=info,flotilla::applies=debug`).
pub const APPLIES_TARGET: &str = "flotilla::applies";

/// Executes one server message; returns the operation it started, if any.
fn handle<B: ClusterBackend>(
    backend: &Arc<B>,
    executor: &ActionExecutor<B>,
    session: SessionOf<'_>,
    message: pb::ConnectResponse,
) -> Option<Operation> {
    let result = |operation_id, outcome: Result<(), String>| pb::ConnectRequest {
        message: Some(Up::Result(pb::ResourceResult {
            operation_id,
            success: outcome.is_ok(),
            error: outcome.err().unwrap_or_default(),
        })),
    };
    match message.message? {
        Down::Apply(apply) => {
            let manifest = apply
                .manifest
                .as_ref()
                .map(struct_to_json)
                .unwrap_or_default();
            let backend = backend.clone();
            // The resource and session, only when the applies are logged.
            let logged =
                tracing::enabled!(target: APPLIES_TARGET, tracing::Level::DEBUG).then(|| {
                    let resource = crate::domain::manifest::applied_identity(&manifest)
                        .map(|(gvk, namespace, name)| format!("{}/{namespace}/{name}", gvk.kind))
                        .unwrap_or_default();
                    (
                        resource,
                        session.cluster.to_owned(),
                        session.replica.clone(),
                    )
                });
            Some(Box::pin(async move {
                let outcome = backend.apply(manifest, apply.generation).await;
                if let (Some((resource, cluster, replica)), Ok(applied)) = (logged, &outcome) {
                    debug!(
                        target: APPLIES_TARGET,
                        %cluster,
                        %replica,
                        deployment_id = %apply.deployment_id,
                        %resource,
                        generation = apply.generation,
                        outcome = %applied.as_str(),
                        "apply"
                    );
                }
                result(apply.operation_id, outcome.map(drop))
            }))
        }
        Down::Delete(delete) => {
            let gvk = delete.gvk.unwrap_or_default();
            let gvk = Gvk {
                group: gvk.group,
                version: gvk.version,
                kind: gvk.kind,
            };
            let backend = backend.clone();
            Some(Box::pin(async move {
                result(
                    delete.operation_id,
                    backend.delete(gvk, delete.namespace, delete.name).await,
                )
            }))
        }
        Down::SimCommand(command) => {
            backend.simulate(command.command?);
            None
        }
        Down::Action(action) => {
            executor.receive(action);
            None
        }
        Down::ActionClaim(claim) => {
            executor.claimed(claim);
            None
        }
        Down::Report(request) => {
            for id in &request.deployment_ids {
                backend.report(id);
            }
            None
        }
        Down::Accepted(_) | Down::Heartbeat(_) | Down::Redirect(_) => None,
    }
}
