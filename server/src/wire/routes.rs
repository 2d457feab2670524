//! StatusService as served: the generated service, except for the methods whose
//! answers the server writes already encoded. The wire format is the same: clients,
//! reflection and grpcurl see the declared messages.
//!
//! - WatchStatus: a live event that many subscribers receive alike is encoded once
//!   (see `watch::FeedEvent`) and its bytes are written to every stream; the generated
//!   service would make each stream build and encode its own copy.
//! - GetDeploymentIntentGroupStatus and GetClusterNetworkStatus: a page read from a
//!   status tree is written from the tree's strings to the wire (see
//!   [`super::tree`]) instead of being copied into messages first.
//!
//! The routes are generic over [`PreEncoded`], which the StatusService handlers
//! implement, so the wire does not depend on the services.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::status_service_server::StatusServiceServer;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::{Grpc, NamedService, ServerStreamingService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

use futures::Stream;
use pb::status_service_server::StatusService;

use super::Encoded;

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

/// A stream of already encoded WatchStatus responses.
pub type EncodedStream =
    std::pin::Pin<Box<dyn Stream<Item = std::result::Result<Encoded, Status>> + Send>>;

/// The StatusService methods answered already encoded.
#[tonic::async_trait]
pub trait PreEncoded: StatusService {
    async fn watch(
        &self,
        request: Request<pb::WatchStatusRequest>,
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
pub struct StatusRoutes<S> {
    api: Arc<S>,
    generated: StatusServiceServer<S>,
}

impl<S> Clone for StatusRoutes<S> {
    fn clone(&self) -> Self {
        Self {
            api: self.api.clone(),
            generated: self.generated.clone(),
        }
    }
}

impl<S: PreEncoded> StatusRoutes<S> {
    pub fn new(api: S) -> Self {
        let api = Arc::new(api);
        Self {
            generated: StatusServiceServer::from_arc(api.clone()),
            api,
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
            WATCH_STATUS => Box::pin(async move {
                let codec = ProstCodec::<Encoded, pb::WatchStatusRequest>::default();
                Ok(Grpc::new(codec)
                    .server_streaming(WatchStatus(api), request)
                    .await)
            }),
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

struct WatchStatus<S>(Arc<S>);

impl<S: PreEncoded> ServerStreamingService<pb::WatchStatusRequest> for WatchStatus<S> {
    type Response = Encoded;
    type ResponseStream = EncodedStream;
    type Future = BoxFuture<Response<EncodedStream>, Status>;

    fn call(&mut self, request: Request<pb::WatchStatusRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move { Ok(Response::new(api.watch(request).await?)) })
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
