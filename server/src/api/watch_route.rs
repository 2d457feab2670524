//! StatusService as served: the generated service, except that WatchStatus is answered
//! with already encoded messages. A live event that many subscribers receive alike is
//! encoded once (see `watch::FeedEvent`) and its bytes are written to every stream;
//! the generated service would make each stream build and encode its own copy. The
//! wire format is the same: clients, reflection and grpcurl see the declared
//! `stream WatchStatusResponse`.

use std::convert::Infallible;
use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::status_service_server::StatusServiceServer;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Context, Poll, Service, http};
use tonic::server::{Grpc, NamedService, ServerStreamingService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

use super::check_size;
use super::status_api::{EncodedStream, StatusApi};
use crate::watch::Encoded;

const WATCH_STATUS: &str = "/flotilla.v1.StatusService/WatchStatus";

/// StatusService with WatchStatus routed to [`StatusApi::watch`].
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
        if request.uri().path() != WATCH_STATUS {
            return Box::pin(self.generated.call(request));
        }
        let method = WatchStatus(self.api.clone());
        Box::pin(async move {
            let codec = ProstCodec::<Encoded, pb::WatchStatusRequest>::default();
            Ok(Grpc::new(codec).server_streaming(method, request).await)
        })
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
