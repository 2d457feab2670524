//! StatusService as served: the generated service, except for the methods whose
//! answers the server writes already encoded. The wire format is the same: clients,
//! reflection and grpcurl see the declared messages.
//!
//! - WatchStatus: a live event that many subscribers receive alike is encoded once
//!   (see `watch::FeedEvent`) and its bytes are written to every stream; the generated
//!   service would make each stream build and encode its own copy.
//! - GetDeploymentIntentGroupStatus and GetClusterNetworkStatus: a page read from a
//!   status tree is written from the tree's strings to the wire (see
//!   `api::tree_wire`) instead of being copied into messages first.

use std::convert::Infallible;
use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::status_service_server::StatusServiceServer;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic::server::{Grpc, NamedService, ServerStreamingService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

use super::check_size;
use super::status_api::{EncodedStream, StatusApi};
use crate::watch::Encoded;

const WATCH_STATUS: &str = "/flotilla.v1.StatusService/WatchStatus";
const DIG_STATUS: &str = "/flotilla.v1.StatusService/GetDeploymentIntentGroupStatus";
const NETWORK_STATUS: &str = "/flotilla.v1.StatusService/GetClusterNetworkStatus";

/// StatusService with WatchStatus routed to [`StatusApi::watch`] and the two status
/// queries to [`StatusApi::dig_status`] and [`StatusApi::network_status`].
#[derive(Clone)]
pub struct StatusRoutes {
    api: Arc<StatusApi>,
    generated: StatusServiceServer<StatusApi>,
}

impl StatusRoutes {
    pub fn new(api: StatusApi) -> Self {
        let api = Arc::new(api);
        Self {
            generated: StatusServiceServer::from_arc(api.clone()),
            api,
        }
    }
}

impl NamedService for StatusRoutes {
    const NAME: &'static str = <StatusServiceServer<StatusApi> as NamedService>::NAME;
}

impl Service<http::Request<Body>> for StatusRoutes {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let api = self.api.clone();
        match request.uri().path() {
            WATCH_STATUS => Box::pin(async move {
                let codec = ProstCodec::<Encoded, pb::WatchStatusRequest>::default();
                Ok(Grpc::new(codec)
                    .server_streaming(WatchStatus(api), request)
                    .await)
            }),
            DIG_STATUS => Box::pin(async move {
                let codec =
                    ProstCodec::<Encoded, pb::GetDeploymentIntentGroupStatusRequest>::default();
                Ok(Grpc::new(codec).unary(DigStatus(api), request).await)
            }),
            NETWORK_STATUS => Box::pin(async move {
                let codec = ProstCodec::<Encoded, pb::GetClusterNetworkStatusRequest>::default();
                Ok(Grpc::new(codec).unary(NetworkStatus(api), request).await)
            }),
            _ => Box::pin(self.generated.call(request)),
        }
    }
}

struct WatchStatus(Arc<StatusApi>);

impl ServerStreamingService<pb::WatchStatusRequest> for WatchStatus {
    type Response = Encoded;
    type ResponseStream = EncodedStream;
    type Future = BoxFuture<Response<EncodedStream>, Status>;

    fn call(&mut self, request: Request<pb::WatchStatusRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move {
            let r = check_size(request)?;
            Ok(Response::new(api.watch(r).await?))
        })
    }
}

struct DigStatus(Arc<StatusApi>);

impl UnaryService<pb::GetDeploymentIntentGroupStatusRequest> for DigStatus {
    type Response = Encoded;
    type Future = BoxFuture<Response<Encoded>, Status>;

    fn call(
        &mut self,
        request: Request<pb::GetDeploymentIntentGroupStatusRequest>,
    ) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move {
            let r = check_size(request)?;
            Ok(Response::new(api.dig_status(r).await?))
        })
    }
}

struct NetworkStatus(Arc<StatusApi>);

impl UnaryService<pb::GetClusterNetworkStatusRequest> for NetworkStatus {
    type Response = Encoded;
    type Future = BoxFuture<Response<Encoded>, Status>;

    fn call(&mut self, request: Request<pb::GetClusterNetworkStatusRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move {
            let r = check_size(request)?;
            Ok(Response::new(api.network_status(r).await?))
        })
    }
}
