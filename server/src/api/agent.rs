//! AgentService: binds the session to the cluster of the agent's token (the auth layer
//! authenticated it), checks its hello, and runs the session: a reader task feeding the
//! hub, a heartbeat task, and the outbound stream the rsync worker writes to.

use std::sync::Arc;
use std::time::Duration;

use flotilla_api::v1 as pb;
use pb::agent_service_server::AgentService;
use pb::connect_request::Message as Up;
use pb::connect_response::Message as Down;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status, Streaming};
use tracing::warn;

use crate::agent::{AgentHub, Session};
use crate::api::access::caller;
use crate::error::Error;
use crate::wire::status::refusal;

/// The server-to-agent stream of a session.
type ConnectStream = std::pin::Pin<
    Box<dyn tokio_stream::Stream<Item = Result<pb::ConnectResponse, Status>> + Send + 'static>,
>;

/// How long an agent has to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

pub struct AgentApi {
    hub: Arc<AgentHub>,
}

impl AgentApi {
    pub fn new(hub: Arc<AgentHub>) -> Self {
        Self { hub }
    }
}

#[tonic::async_trait]
impl AgentService for AgentApi {
    async fn connect(
        &self,
        request: Request<Streaming<pb::ConnectRequest>>,
    ) -> Result<Response<ConnectStream>, Status> {
        // The auth layer admitted an agent token; it names the one cluster it serves.
        let principal = caller(&request).map_err(Status::from)?;
        let cluster = principal.cluster.clone().ok_or_else(|| {
            refusal(
                Code::PermissionDenied,
                "NOT_AN_AGENT_TOKEN",
                "only agent tokens open agent sessions",
            )
        })?;
        let mut inbound = request.into_inner();
        let hello = match tokio::time::timeout(HELLO_TIMEOUT, inbound.message()).await {
            Ok(Ok(Some(pb::ConnectRequest {
                message: Some(Up::Hello(hello)),
            }))) => hello,
            Ok(Err(status)) => return Err(status),
            Err(_) => {
                return Err(refusal(
                    Code::DeadlineExceeded,
                    "NO_HELLO",
                    "no hello from the agent",
                ));
            }
            Ok(_) => {
                return Err(Error::invalid("hello", "the first message must be a hello").into());
            }
        };
        if cluster != hello.cluster {
            return Err(refusal(
                Code::PermissionDenied,
                "WRONG_CLUSTER",
                format!("this token acts for {cluster}, not for {:?}", hello.cluster),
            ));
        }
        let (session, outbound) = self
            .hub
            .open(&cluster, principal.token, &hello)
            .await
            .map_err(Status::from)?;
        let heartbeat = self.hub.heartbeat();
        tokio::spawn(read(self.hub.clone(), session.clone(), inbound));
        tokio::spawn(beat(session, heartbeat));
        Ok(Response::new(Box::pin(ReceiverStream::new(outbound))))
    }
}

/// Reads the agent's messages until the session ends: the agent closes it, goes silent
/// for a heartbeat interval, or sends a malformed message.
async fn read(
    hub: Arc<AgentHub>,
    session: Arc<Session>,
    mut inbound: Streaming<pb::ConnectRequest>,
) {
    let reason = loop {
        let message = tokio::select! {
            () = session.closed.cancelled() => break "replaced or disconnected".to_string(),
            message = tokio::time::timeout(hub.heartbeat(), inbound.message()) => message,
        };
        match message {
            Err(_) => break "no heartbeat within the interval".to_string(),
            Ok(Err(status)) => break format!("stream error: {status}"),
            Ok(Ok(None)) => break "the agent closed the session".to_string(),
            Ok(Ok(Some(message))) => match hub.receive(&session, message).await {
                Ok(()) => {}
                Err(error @ Error::InvalidArgument { .. }) => {
                    warn!(cluster = %session.cluster, %error, "malformed agent message; closing the session");
                    hub.reject(&session, error.into()).await;
                    break "malformed message".to_string();
                }
                Err(error) => {
                    warn!(cluster = %session.cluster, %error, "cannot process an agent message")
                }
            },
        }
    };
    hub.close(&session, &reason).await;
}

/// Sends heartbeats until the session ends.
async fn beat(session: Arc<Session>, interval: Duration) {
    let mut ticker = tokio::time::interval(interval / 3);
    loop {
        tokio::select! {
            () = session.closed.cancelled() => return,
            _ = ticker.tick() => {
                let time = crate::wire::convert::timestamp(crate::store::now_micros());
                if session.send(Down::Heartbeat(pb::Heartbeat { time })).await.is_err() {
                    return;
                }
            }
        }
    }
}
