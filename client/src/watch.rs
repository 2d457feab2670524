//! Watches that survive lost connections and server restarts.
//!
//! A Flotilla watch (`WatchStatus`, `WatchActions`, `WatchContainerClusters`) starts
//! with a snapshot, then `SYNCED`, then live events, each carrying a resume token.
//! [`ResumingWatch`] hands the events out one at a time and, when the stream breaks
//! with `UNAVAILABLE` (server restart, network cut) or ends, opens it again after the
//! last event handed out: the caller sees every event exactly once. Heartbeats only
//! move the token unless asked for; `RESYNC_REQUIRED` is handed out (a fresh snapshot
//! follows: drop what you built). Other errors are returned as [`ApiError`].

use std::collections::VecDeque;
use std::future::Future;
use std::time::{Duration, Instant};

use tonic::{Code, Status, Streaming};

use crate::{ApiError, Client, v1};

/// How a watch reconnects: exponential backoff between attempts, and how long it may
/// stay disconnected before it gives up (`None`: never).
#[derive(Debug, Clone, Copy)]
pub struct Reconnect {
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    pub give_up_after: Option<Duration>,
}

impl Default for Reconnect {
    fn default() -> Reconnect {
        Reconnect {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            give_up_after: Some(Duration::from_secs(120)),
        }
    }
}

/// One kind of watch: how to open it and read its events.
pub trait WatchKind {
    type Request: Clone + Send;
    type Response: Send;
    type Event: Send;
    /// The request, resuming after `token` (empty: start with a snapshot).
    fn resume(request: &Self::Request, token: &str) -> Self::Request;
    fn open(
        client: &mut Client,
        request: Self::Request,
    ) -> impl Future<Output = Result<Streaming<Self::Response>, Status>> + Send;
    fn events(response: Self::Response) -> Vec<Self::Event>;
    fn token(event: &Self::Event) -> &str;
    fn is_heartbeat(event: &Self::Event) -> bool;
}

/// An auto-resuming watch (see the module documentation).
///
/// ```no_run
/// # async fn demo(client: flotilla_client::Client) -> Result<(), flotilla_client::ApiError> {
/// use flotilla_client::v1::{WatchEventType, WatchStatusRequest};
///
/// let group = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
/// let mut watch = client.watch_status(WatchStatusRequest { name: group.into(), ..Default::default() });
/// loop {
///     let event = watch.next().await?;
///     println!("{:?} {}", event.r#type(), watch.resume_token());
/// }
/// # }
/// ```
pub struct ResumingWatch<K: WatchKind> {
    client: Client,
    request: K::Request,
    stream: Option<Streaming<K::Response>>,
    pending: VecDeque<K::Event>,
    token: String,
    heartbeats: bool,
    reconnect: Reconnect,
    reconnects: u32,
    attempt: u32,
    down_since: Option<Instant>,
}

impl<K: WatchKind> std::fmt::Debug for ResumingWatch<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResumingWatch")
            .field("resume_token", &self.token)
            .field("reconnects", &self.reconnects)
            .finish()
    }
}

impl<K: WatchKind> ResumingWatch<K> {
    /// A watch of `request`; its resume token, if any, is where it starts.
    pub fn new(client: Client, request: K::Request, resume_token: impl Into<String>) -> Self {
        ResumingWatch {
            client,
            request,
            stream: None,
            pending: VecDeque::new(),
            token: resume_token.into(),
            heartbeats: false,
            reconnect: Reconnect::default(),
            reconnects: 0,
            attempt: 0,
            down_since: None,
        }
    }

    /// Hands out heartbeat events too.
    pub fn with_heartbeats(mut self, heartbeats: bool) -> Self {
        self.heartbeats = heartbeats;
        self
    }

    pub fn with_reconnect(mut self, reconnect: Reconnect) -> Self {
        self.reconnect = reconnect;
        self
    }

    /// The token of the last event handed out: save it to resume later.
    pub fn resume_token(&self) -> &str {
        &self.token
    }

    /// How many times the stream was opened again.
    pub fn reconnects(&self) -> u32 {
        self.reconnects
    }

    /// The next event. Waits (reconnecting as needed) until there is one.
    pub async fn next(&mut self) -> Result<K::Event, ApiError> {
        loop {
            // Only read the stream once every event received is handed out, so the
            // token a reconnect resumes from is the last one the caller saw.
            if let Some(event) = self.pending.pop_front() {
                let token = K::token(&event);
                if !token.is_empty() {
                    self.token = token.to_string();
                }
                if self.heartbeats || !K::is_heartbeat(&event) {
                    return Ok(event);
                }
                continue;
            }
            let failure = match &mut self.stream {
                None => {
                    let request = K::resume(&self.request, &self.token);
                    match K::open(&mut self.client, request).await {
                        Ok(stream) => {
                            self.stream = Some(stream);
                            continue;
                        }
                        Err(status) => Some(status),
                    }
                }
                Some(stream) => match stream.message().await {
                    Ok(Some(message)) => {
                        self.attempt = 0;
                        self.down_since = None;
                        self.pending.extend(K::events(message));
                        continue;
                    }
                    Ok(None) => None,
                    Err(status) => Some(status),
                },
            };
            self.stream = None;
            let delay = self.failed(failure)?;
            tokio::time::sleep(delay).await;
        }
    }

    fn failed(&mut self, failure: Option<Status>) -> Result<Duration, ApiError> {
        if let Some(status) = &failure
            && !is_transient(status)
        {
            return Err(ApiError::from(status.clone()));
        }
        let down_since = *self.down_since.get_or_insert_with(Instant::now);
        if let Some(limit) = self.reconnect.give_up_after
            && down_since.elapsed() > limit
        {
            let status =
                failure.unwrap_or_else(|| Status::unavailable("the watch stream keeps ending"));
            return Err(ApiError::from(status));
        }
        let factor = 2u32.saturating_pow(self.attempt.min(16));
        let delay = self
            .reconnect
            .initial_backoff
            .saturating_mul(factor)
            .min(self.reconnect.max_backoff);
        self.attempt += 1;
        self.reconnects += 1;
        Ok(delay)
    }
}

/// Whether a call that failed with `status` may be made again, as a watch reconnects:
/// UNAVAILABLE, or a connection that broke under the call (a server killed mid-stream,
/// or one that closed the connection while the call was in flight, surfaces as an h2
/// error with a local source; statuses the server sent never have one). A verb retried
/// after a broken connection may have committed: send it with the same `request_id`.
pub fn is_transient(status: &Status) -> bool {
    status.code() == Code::Unavailable
        || (matches!(
            status.code(),
            Code::Unknown | Code::Internal | Code::Cancelled
        ) && std::error::Error::source(status).is_some())
}

/// Declares a watch kind: its messages, its heartbeat, and the call that opens it.
macro_rules! watch_kind {
    ($(#[$doc:meta])* $kind:ident: $request:ident -> $response:ident of $event:ident,
     heartbeat $heartbeat:expr, open |$client:ident, $req:ident| $open:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $kind {}

        impl WatchKind for $kind {
            type Request = v1::$request;
            type Response = v1::$response;
            type Event = v1::$event;
            fn resume(request: &Self::Request, token: &str) -> Self::Request {
                v1::$request {
                    resume_token: token.to_string(),
                    ..request.clone()
                }
            }
            async fn open(
                $client: &mut Client,
                $req: Self::Request,
            ) -> Result<Streaming<Self::Response>, Status> {
                Ok($open.await?.into_inner())
            }
            fn events(response: Self::Response) -> Vec<Self::Event> {
                response.events
            }
            fn token(event: &Self::Event) -> &str {
                &event.resume_token
            }
            fn is_heartbeat(event: &Self::Event) -> bool {
                event.r#type() == $heartbeat
            }
        }
    };
}

watch_kind!(
    /// `WatchStatus`.
    StatusKind: WatchStatusRequest -> WatchStatusResponse of WatchEvent,
    heartbeat v1::WatchEventType::Heartbeat,
    open |client, request| client.status.watch_status(request)
);

watch_kind!(
    /// `WatchActions`.
    ActionKind: WatchActionsRequest -> WatchActionsResponse of ActionEvent,
    heartbeat v1::ActionEventType::Heartbeat,
    open |client, request| client.actions.watch_actions(request)
);

watch_kind!(
    /// `WatchContainerClusters`.
    ContainerClusterKind: WatchContainerClustersRequest -> WatchContainerClustersResponse of ContainerClusterEvent,
    heartbeat v1::ContainerClusterEventType::Heartbeat,
    open |client, request| client.container_clusters.watch_container_clusters(request)
);

/// An auto-resuming `WatchStatus`.
pub type StatusWatch = ResumingWatch<StatusKind>;
/// An auto-resuming `WatchActions`.
pub type ActionWatch = ResumingWatch<ActionKind>;
/// An auto-resuming `WatchContainerClusters`.
pub type ContainerClusterWatch = ResumingWatch<ContainerClusterKind>;

impl Client {
    /// `WatchStatus`, resuming by itself after `request.resume_token` (empty: snapshot).
    pub fn watch_status(&self, request: v1::WatchStatusRequest) -> StatusWatch {
        let token = request.resume_token.clone();
        ResumingWatch::new(self.clone(), request, token)
    }

    /// `WatchActions`, resuming by itself.
    pub fn watch_actions(&self, request: v1::WatchActionsRequest) -> ActionWatch {
        let token = request.resume_token.clone();
        ResumingWatch::new(self.clone(), request, token)
    }

    /// `WatchContainerClusters`, resuming by itself.
    pub fn watch_container_clusters(
        &self,
        request: v1::WatchContainerClustersRequest,
    ) -> ContainerClusterWatch {
        let token = request.resume_token.clone();
        ResumingWatch::new(self.clone(), request, token)
    }
}
