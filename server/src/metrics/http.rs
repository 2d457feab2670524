//! The metrics endpoint: `GET /metrics` in the Prometheus text format, on its own
//! listener (`--metrics-listen`), plain HTTP/1.1 without authentication — bind it where
//! only the scraper reaches it.

use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::METRICS;

const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The connections of each database pool at scrape time: (pool, open, idle).
pub type PoolUse = Arc<dyn Fn() -> Vec<(&'static str, i64, i64)> + Send + Sync>;

/// Binds `address` and serves the metrics until `shutdown`. Returns the bound address.
pub async fn serve(
    address: SocketAddr,
    pools: PoolUse,
    shutdown: CancellationToken,
) -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen for metrics on {address}: {e}"))?;
    let bound = listener.local_addr()?;
    info!(address = %bound, "metrics endpoint listening (GET /metrics)");
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                () = shutdown.cancelled() => return,
                accepted = listener.accept() => accepted,
            };
            let (stream, _) = match accepted {
                Ok(connection) => connection,
                Err(error) => {
                    warn!(%error, "metrics endpoint: accept failed");
                    continue;
                }
            };
            let pools = pools.clone();
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let pools = pools.clone();
                    async move { Ok::<_, std::convert::Infallible>(answer(&request, &pools)) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service);
                tokio::select! {
                    _ = connection => {}
                    () = shutdown.cancelled() => {}
                }
            });
        }
    });
    Ok(bound)
}

fn answer(request: &Request<Incoming>, pools: &PoolUse) -> Response<Full<bytes::Bytes>> {
    let reply = |status, content_type, body: String| {
        Response::builder()
            .status(status)
            .header(hyper::header::CONTENT_TYPE, content_type)
            .body(Full::new(bytes::Bytes::from(body)))
            .expect("a valid response")
    };
    if request.uri().path() != "/metrics" {
        return reply(
            StatusCode::NOT_FOUND,
            "text/plain",
            "not found: metrics are at /metrics\n".into(),
        );
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "use GET\n".into(),
        );
    }
    // Gauges read at scrape time.
    for (pool, open, idle) in pools() {
        METRICS
            .db_connections
            .with_label_values(&[pool, "open"])
            .set(open);
        METRICS
            .db_connections
            .with_label_values(&[pool, "idle"])
            .set(idle);
    }
    reply(StatusCode::OK, CONTENT_TYPE, METRICS.encode())
}
