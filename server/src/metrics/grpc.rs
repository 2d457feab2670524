//! A tower layer in front of every gRPC service: counts each RPC by service, method and
//! status code when it completes, times it, and keeps the number of open server streams.
//!
//! A unary error is a trailers-only response (the code in its headers); everything else
//! carries the code in the trailers at the end of the body, so the body is wrapped and
//! the RPC is recorded when it ends — or, for a stream the client dropped, when the body
//! is dropped (`CANCELLED`, as the client saw it).

use std::future::Future;
use std::time::Instant;

use tonic::body::Body;

use super::METRICS;
use crate::net::middleware;

/// Server-streaming methods, whose open streams are counted.
const STREAMS: &[&str] = &[
    "WatchStatus",
    "WatchActions",
    "WatchContainerClusters",
    "WatchFleet",
    "Connect",
];

/// The middleware: each call counted and timed when it ends.
#[derive(Clone, Copy, Default)]
pub struct Metrics;

impl middleware::Middleware for Metrics {
    fn call<S: middleware::Inner>(
        &self,
        mut inner: S,
        request: http::Request<Body>,
    ) -> impl Future<Output = middleware::Reply<S::Error>> + Send + 'static {
        let (service, method) = split_path(request.uri().path());
        async move {
            let started = Instant::now();
            let response = inner.call(request).await?;
            let mut call = Call {
                service,
                method,
                started,
                stream: false,
                done: false,
            };
            if let Some(code) = header_code(response.headers()) {
                // Trailers-only: the RPC ended with its headers.
                call.finish(code);
                return Ok(response);
            }
            if STREAMS.contains(&call.method.as_str()) {
                call.stream = true;
                METRICS
                    .grpc_open_streams
                    .with_label_values(&[call.method.as_str()])
                    .inc();
            }
            Ok(response.map(|body| middleware::Watched::body(body, call)))
        }
    }
}

/// `/flotilla.v1.LifecycleService/GetProject` → (`flotilla.v1.LifecycleService`, `GetProject`).
fn split_path(path: &str) -> (String, String) {
    match path.trim_start_matches('/').split_once('/') {
        Some((service, method)) => (service.to_string(), method.to_string()),
        None => ("unknown".into(), "unknown".into()),
    }
}

fn header_code(headers: &http::HeaderMap) -> Option<i32> {
    headers
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// One RPC being measured.
struct Call {
    service: String,
    method: String,
    started: Instant,
    stream: bool,
    done: bool,
}

impl Call {
    fn finish(&mut self, code: i32) {
        if self.done {
            return;
        }
        self.done = true;
        let code = tonic::Code::from_i32(code);
        // Paths the server does not serve are one series, not one per path a caller
        // made up.
        let (service, method) = if code == tonic::Code::Unimplemented {
            ("unknown", "unknown")
        } else {
            (self.service.as_str(), self.method.as_str())
        };
        METRICS
            .grpc_handled
            .with_label_values(&[service, method, code_name(code)])
            .inc();
        METRICS
            .grpc_duration
            .with_label_values(&[service, method])
            .observe(self.started.elapsed().as_secs_f64());
        if self.stream {
            METRICS
                .grpc_open_streams
                .with_label_values(&[self.method.as_str()])
                .dec();
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        // The body went away before its trailers: the client cancelled.
        self.finish(tonic::Code::Cancelled as i32);
    }
}

/// The gRPC code names Prometheus users know (as in grpc-ecosystem's interceptors).
fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        Ok => "OK",
        Cancelled => "Canceled",
        Unknown => "Unknown",
        InvalidArgument => "InvalidArgument",
        DeadlineExceeded => "DeadlineExceeded",
        NotFound => "NotFound",
        AlreadyExists => "AlreadyExists",
        PermissionDenied => "PermissionDenied",
        ResourceExhausted => "ResourceExhausted",
        FailedPrecondition => "FailedPrecondition",
        Aborted => "Aborted",
        OutOfRange => "OutOfRange",
        Unimplemented => "Unimplemented",
        Internal => "Internal",
        Unavailable => "Unavailable",
        DataLoss => "DataLoss",
        Unauthenticated => "Unauthenticated",
    }
}

/// Records its RPC when the response's trailers pass (or when the body is dropped).
impl middleware::BodyWatch for Call {
    fn trailers(&mut self, trailers: &mut http::HeaderMap) {
        if let Some(code) = header_code(trailers) {
            self.finish(code);
        }
    }

    fn failed(&mut self, status: &tonic::Status) {
        self.finish(status.code() as i32);
    }

    /// A body that ends without trailers ended without a status.
    fn ended(&mut self) {
        self.finish(tonic::Code::Unknown as i32);
    }
}
