//! The web console's listener (`--console-listen`): the console's pages, built once
//! from `console/` and compiled into the binary, and gRPC-Web in front of the very
//! services the gRPC port serves, behind the same layers (request log, metrics,
//! refusals, auth), so every permission rule applies unchanged.
//!
//! A request whose content type is gRPC's (`application/grpc…`, gRPC-Web's included)
//! goes to the services; any other `GET` or `HEAD` is a page: a file of the build, or
//! the console's `index.html` for a path that is not one (the console routes in the
//! browser). The pages carry no data: everything the console shows comes through the
//! API with the token the user pastes. No CORS is offered: a page of another origin
//! cannot send the token's header (its preflight is refused).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use tonic::body::Body;

/// The console's build (`console/dist`, written by `npm run build` in `console/`).
#[derive(rust_embed::Embed)]
#[folder = "../console/dist"]
struct Build;

/// What the pages allow the browser: their own scripts, styles and API only.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/// The layer that answers page requests before gRPC-Web sees them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pages;

impl<S> tower::Layer<S> for Pages {
    type Service = PagesService<S>;

    fn layer(&self, inner: S) -> PagesService<S> {
        PagesService { inner }
    }
}

#[derive(Debug, Clone)]
pub struct PagesService<S> {
    inner: S,
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B> tower::Service<Request<B>> for PagesService<S>
where
    S: tower::Service<Request<B>, Response = Response<Body>> + Send,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Response<Body>, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if is_grpc(&request) {
            return Box::pin(self.inner.call(request));
        }
        let page = page(request.method(), request.uri().path());
        Box::pin(async move { Ok::<_, S::Error>(page) })
    }
}

/// gRPC or gRPC-Web, by its content type.
fn is_grpc<B>(request: &Request<B>) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

/// The answer to a page request.
pub fn page(method: &Method, path: &str) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "pages are read with GET\n");
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let name = path.trim_start_matches('/');
    // A built file (scripts and styles under assets/ have content hashes in their
    // names, so they never change); anything else is the console's own route.
    let (served, immutable) = if !name.is_empty() && Build::get(name).is_some() {
        (name, name.starts_with("assets/"))
    } else if name.starts_with("assets/") {
        return plain(StatusCode::NOT_FOUND, "no such asset\n");
    } else {
        ("index.html", false)
    };
    let Some(file) = Build::get(served) else {
        return plain(StatusCode::NOT_FOUND, "this build has no console\n");
    };
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        Bytes::from(file.data.into_owned())
    };
    let mut response = Response::new(Body::new(Full::new(body)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(served)),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if immutable {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        }),
    );
    secure(headers);
    response
}

/// A short plain-text answer.
fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::new(Full::new(Bytes::from_static(text.as_bytes()))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    secure(response.headers_mut());
    response
}

/// Headers every page answer carries.
fn secure(headers: &mut http::HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// The content type of a built file, by its extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" | "map" => "application/json",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_the_build_or_its_index_and_assets_are_exact() {
        let index = page(&Method::GET, "/");
        assert_eq!(index.status(), StatusCode::OK);
        assert_eq!(
            index.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        assert_eq!(index.headers()[header::CACHE_CONTROL], "no-cache");
        assert!(
            index.headers()[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap()
                .contains("frame-ancestors 'none'")
        );
        // A console route is the index, for the browser to route.
        let routed = page(&Method::GET, "/groups/demo/dig");
        assert_eq!(
            routed.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let missing = page(&Method::GET, "/assets/nope.js");
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        let script = Build::iter()
            .find(|name| name.starts_with("assets/") && name.ends_with(".js"))
            .expect("the build has a script");
        let served = page(&Method::GET, &format!("/{script}"));
        assert_eq!(served.status(), StatusCode::OK);
        assert_eq!(
            served.headers()[header::CONTENT_TYPE],
            "text/javascript; charset=utf-8"
        );
        assert!(
            served.headers()[header::CACHE_CONTROL]
                .to_str()
                .unwrap()
                .contains("immutable")
        );
        let posted = page(&Method::POST, "/");
        assert_eq!(posted.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(posted.headers()[header::ALLOW], "GET, HEAD");
    }
}
