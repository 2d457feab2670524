//! StatusService as served: the generated service, except for the methods whose
//! answers the server writes already encoded. The wire format is the same: clients,
//! reflection and grpcurl see the declared messages.
//!
//! - WatchStatus: a live event that many subscribers receive alike is encoded once
//!   (see `watch::FeedEvent`) and its bytes are written to every stream; the generated
//!   service would make each stream build and encode its own copy. Its response body
//!   is written here too ([`WatchBody`]): each data frame is an allocation of its own
//!   size, holding its messages' output credit ([`super::outbound`]) until h2 drops
//!   it. Tonic's body writes messages into a per-stream buffer that an idle stream
//!   keeps (tens of KiB each: at 10,000 subscribers, a third of the server's memory).
//! - GetDeploymentIntentGroupStatus and GetClusterNetworkStatus: a page read from a
//!   status tree is written from the tree's strings to the wire (see
//!   [`super::tree`]) instead of being copied into messages first.
//!
//! The routes are generic over [`PreEncoded`], which the StatusService handlers
//! implement, so the wire does not depend on the services.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes, BytesMut};
use flotilla_api::v1 as pb;
use futures::{Stream, TryStreamExt};
use pb::status_service_server::StatusServiceServer;
use tonic::Code;
use tonic::body::Body;
use tonic::codec::{Codec, Streaming};
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

use pb::status_service_server::StatusService;

use super::Encoded;
use super::outbound::{Budget, Credit, FRAME_HEADER, Outbound, Sent};

const WATCH_STATUS: &str = "/flotilla.v1.StatusService/WatchStatus";
const DIG_STATUS: &str = "/flotilla.v1.StatusService/GetDeploymentIntentGroupStatus";
const NETWORK_STATUS: &str = "/flotilla.v1.StatusService/GetClusterNetworkStatus";

/// The associated types and `poll_ready` of a service that routes gRPC requests by
/// path: always ready, its futures boxed, its failures answered as gRPC statuses (so
/// its own error type is `Infallible`). Used inside `impl Service<http::Request<Body>>`.
macro_rules! routing_service {
    () => {
        type Response = ::tonic::codegen::http::Response<::tonic::body::Body>;
        type Error = ::std::convert::Infallible;
        type Future = ::tonic::codegen::BoxFuture<Self::Response, Self::Error>;

        fn poll_ready(
            &mut self,
            _cx: &mut ::tonic::codegen::Context<'_>,
        ) -> ::tonic::codegen::Poll<::std::result::Result<(), Self::Error>> {
            ::tonic::codegen::Poll::Ready(Ok(()))
        }
    };
}
pub(crate) use routing_service;

/// A stream of already encoded WatchStatus responses, each with its output credit.
pub type EncodedStream = Pin<Box<dyn Stream<Item = Sent> + Send>>;

/// The largest request message read (tonic's default).
const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// The StatusService methods answered already encoded.
#[tonic::async_trait]
pub trait PreEncoded: StatusService {
    /// `outbound` paces the stream: each message takes credit from it first.
    async fn watch(
        &self,
        request: Request<pb::WatchStatusRequest>,
        outbound: Arc<Outbound>,
    ) -> Result<EncodedStream, Status>;
    async fn dig_status(
        &self,
        request: Request<pb::GetDeploymentIntentGroupStatusRequest>,
    ) -> Result<Encoded, Status>;
    async fn network_status(
        &self,
        request: Request<pb::GetClusterNetworkStatusRequest>,
    ) -> Result<Encoded, Status>;
}

/// StatusService with WatchStatus routed to [`PreEncoded::watch`] and the two status
/// queries to [`PreEncoded::dig_status`] and [`PreEncoded::network_status`].
/// WatchStatus streams take their output credit from `budget`.
pub struct StatusRoutes<S> {
    api: Arc<S>,
    generated: StatusServiceServer<S>,
    budget: Budget,
}

impl<S> Clone for StatusRoutes<S> {
    fn clone(&self) -> Self {
        Self {
            api: self.api.clone(),
            generated: self.generated.clone(),
            budget: self.budget.clone(),
        }
    }
}

impl<S: PreEncoded> StatusRoutes<S> {
    pub fn new(api: S, budget: Budget) -> Self {
        let api = Arc::new(api);
        Self {
            generated: StatusServiceServer::from_arc(api.clone()),
            api,
            budget,
        }
    }
}

impl<S: PreEncoded> NamedService for StatusRoutes<S> {
    const NAME: &'static str = <StatusServiceServer<S> as NamedService>::NAME;
}

impl<S: PreEncoded> Service<http::Request<Body>> for StatusRoutes<S> {
    routing_service!();

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let api = self.api.clone();
        match request.uri().path() {
            WATCH_STATUS => {
                let outbound = Arc::new(Outbound::new(self.budget.clone()));
                Box::pin(async move {
                    Ok(match watch_status(api, outbound, request).await {
                        Ok(response) => response,
                        Err(status) => status.into_http(),
                    })
                })
            }
            DIG_STATUS => Box::pin(unary(api, request, |api, request| {
                Box::pin(async move { api.dig_status(request).await })
            })),
            NETWORK_STATUS => Box::pin(unary(api, request, |api, request| {
                Box::pin(async move { api.network_status(request).await })
            })),
            _ => Box::pin(self.generated.call(request)),
        }
    }
}

/// Serves a WatchStatus call: its request decoded as tonic would, its messages written
/// by [`WatchBody`].
async fn watch_status<S: PreEncoded>(
    api: Arc<S>,
    outbound: Arc<Outbound>,
    request: http::Request<Body>,
) -> Result<http::Response<Body>, Status> {
    let (parts, body) = request.into_parts();
    let decoder = ProstCodec::<Encoded, pb::WatchStatusRequest>::default().decoder();
    let mut messages = Streaming::new_request(decoder, body, None, Some(MAX_REQUEST_BYTES));
    let message = messages
        .try_next()
        .await?
        .ok_or_else(|| Status::internal("Missing request message."))?;
    let request = Request::from_http(http::Request::from_parts(parts, message));
    let stream = api.watch(request, outbound).await?;
    let mut response = http::Response::new(Body::new(WatchBody::new(stream)));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/grpc"),
    );
    Ok(response)
}

/// A WatchStatus response body: the messages as gRPC frames (a 5-byte header, then the
/// message), written into one allocation per HTTP/2 data frame that holds the
/// messages' credit until h2 drops it; then the status as trailers. Messages already
/// waiting go into the same data frame, up to [`FRAME_BYTES`], as tonic's body does.
struct WatchBody {
    messages: EncodedStream,
    /// The messages of the next data frame, with their credit.
    taken: Vec<Encoded>,
    credit: Option<Credit>,
    /// The status that ends the stream, once the messages before it are written.
    end: Option<Status>,
    ended: bool,
}

/// A data frame takes the messages already waiting until it is this long.
const FRAME_BYTES: usize = 32 * 1024;

impl WatchBody {
    fn new(messages: EncodedStream) -> WatchBody {
        WatchBody {
            messages,
            taken: Vec::new(),
            credit: None,
            end: None,
            ended: false,
        }
    }

    /// Takes the messages that are ready, up to [`FRAME_BYTES`] or the stream's end.
    fn take_ready(&mut self, cx: &mut Context<'_>) {
        let mut bytes = 0;
        while self.end.is_none() && bytes < FRAME_BYTES {
            match self.messages.as_mut().poll_next(cx) {
                Poll::Ready(Some((Ok(message), credit))) => {
                    bytes += FRAME_HEADER + message.0.len();
                    self.taken.push(message);
                    match (self.credit.as_mut(), credit) {
                        (Some(held), Some(credit)) => held.merge(credit),
                        (None, credit) => self.credit = credit,
                        (Some(_), None) => {}
                    }
                }
                Poll::Ready(Some((Err(status), _))) => self.end = Some(status),
                Poll::Ready(None) => self.end = Some(Status::new(Code::Ok, "")),
                Poll::Pending => return,
            }
        }
    }

    /// The taken messages as one data frame, in an allocation of its own: it is freed
    /// when the frame is written, and the stream keeps nothing between frames.
    fn frame(&mut self) -> Result<Bytes, Status> {
        let len = self.taken.iter().map(|m| FRAME_HEADER + m.0.len()).sum();
        let mut frame = BytesMut::with_capacity(len);
        for message in self.taken.drain(..) {
            let len = message.0.len();
            let len = u32::try_from(len).map_err(|_| {
                Status::resource_exhausted(format!("a {len}-byte message is too long"))
            })?;
            frame.put_u8(0);
            frame.put_u32(len);
            frame.put_slice(&message.0);
        }
        let frame = frame.freeze();
        Ok(match self.credit.take() {
            Some(credit) => credit.hold(frame),
            None => frame,
        })
    }
}

impl http_body::Body for WatchBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Status>>> {
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        this.take_ready(cx);
        if !this.taken.is_empty() {
            return Poll::Ready(Some(this.frame().map(http_body::Frame::data)));
        }
        let Some(status) = this.end.take() else {
            return Poll::Pending;
        };
        this.ended = true;
        let mut trailers = http::HeaderMap::new();
        if let Err(unwritable) = status.add_header(&mut trailers) {
            return Poll::Ready(Some(Err(unwritable)));
        }
        Poll::Ready(Some(Ok(http_body::Frame::trailers(trailers))))
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}

/// A unary method of `S` answered already encoded.
type EncodedMethod<S, M> = fn(Arc<S>, Request<M>) -> BoxFuture<Encoded, Status>;

/// Serves `request` with `method`: the request decoded as `M`, the answer written as
/// it is.
async fn unary<S, M>(
    api: Arc<S>,
    request: http::Request<Body>,
    method: EncodedMethod<S, M>,
) -> Result<http::Response<Body>, std::convert::Infallible>
where
    S: PreEncoded,
    M: prost::Message + Default + Send + 'static,
{
    let codec = ProstCodec::<Encoded, M>::default();
    Ok(Grpc::new(codec).unary(Unary { api, method }, request).await)
}

struct Unary<S, M> {
    api: Arc<S>,
    method: EncodedMethod<S, M>,
}

impl<S: PreEncoded, M: Send + 'static> UnaryService<M> for Unary<S, M> {
    type Response = Encoded;
    type Future = BoxFuture<Response<Encoded>, Status>;

    fn call(&mut self, request: Request<M>) -> Self::Future {
        let answer = (self.method)(self.api.clone(), request);
        Box::pin(async move { Ok(Response::new(answer.await?)) })
    }
}
