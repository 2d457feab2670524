//! The tower plumbing shared by the layers in front of every gRPC service (auth,
//! refusals, metrics): each states what it does around one call as a [`Middleware`];
//! [`Layer`] and [`Service`] make it a tower layer.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::body::Body;

/// The service a middleware wraps: the gRPC router, or the next layer.
pub trait Inner:
    tower::Service<http::Request<Body>, Response = http::Response<Body>, Future: Send, Error: Send>
    + Send
    + 'static
{
}

impl<S> Inner for S where
    S: tower::Service<
            http::Request<Body>,
            Response = http::Response<Body>,
            Future: Send,
            Error: Send,
        > + Send
        + 'static
{
}

/// A call's answer, or the inner service's error.
pub type Reply<E> = Result<http::Response<Body>, E>;

/// What a layer does around one call: `inner` serves the call once (it was polled
/// ready). The future owns what it needs, so it outlives `&self`.
pub trait Middleware: Clone + Send + Sync + 'static {
    fn call<S: Inner>(
        &self,
        inner: S,
        request: http::Request<Body>,
    ) -> impl Future<Output = Reply<S::Error>> + Send + 'static;
}

/// A [`Middleware`] as a tower layer.
#[derive(Clone, Default)]
pub struct Layer<M>(pub M);

impl<M: Clone, S> tower::Layer<S> for Layer<M> {
    type Service = Service<M, S>;

    fn layer(&self, inner: S) -> Service<M, S> {
        Service {
            middleware: self.0.clone(),
            inner,
        }
    }
}

/// The service a [`Layer`] wraps around `S`.
#[derive(Clone)]
pub struct Service<M, S> {
    middleware: M,
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<M: Middleware, S: Inner + Clone> tower::Service<http::Request<Body>> for Service<M, S> {
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<http::Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        // The clone that was polled ready serves this call; a fresh clone stays.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(self.middleware.call(inner, request))
    }
}

/// What a [`Watched`] response body does as its frames pass.
pub trait BodyWatch: Send + Unpin + 'static {
    /// The trailers (the call's status) pass; they may be rewritten.
    fn trailers(&mut self, trailers: &mut http::HeaderMap);
    /// The body failed with `status`.
    fn failed(&mut self, _status: &tonic::Status) {}
    /// The body ended without trailers.
    fn ended(&mut self) {}
}

/// A response body watched by `W` as it streams.
pub struct Watched<W> {
    body: Body,
    watch: W,
}

impl<W: BodyWatch> Watched<W> {
    pub fn body(body: Body, watch: W) -> Body {
        Body::new(Watched { body, watch })
    }
}

impl<W: BodyWatch> http_body::Body for Watched<W> {
    type Data = bytes::Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        let mut polled = Pin::new(&mut this.body).poll_frame(cx);
        match &mut polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(trailers) = frame.trailers_mut() {
                    this.watch.trailers(trailers);
                }
            }
            Poll::Ready(Some(Err(status))) => this.watch.failed(status),
            Poll::Ready(None) => this.watch.ended(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
