//! The gRPC transport: thin tonic handlers. They decode and validate requests, call
//! one use case, and encode responses; errors map to `tonic::Status` in `status.rs`.
//! Services whose issues have not landed yet answer UNIMPLEMENTED (generated stubs).

pub mod access;
pub mod actions;
pub mod agent;
pub mod auth;
pub mod container_clusters;
pub mod declared;
pub mod lifecycle;
pub mod page;
pub mod refusals;
pub mod simulator;
pub mod status_api;

use prost::Message;
use sha2::{Digest, Sha256};
use tonic::{Request, Response, Status};

use crate::app::RequestKey;
use crate::error::{Error, Result};

/// The largest request accepted, in bytes (encoded). Larger ones are
/// RESOURCE_EXHAUSTED; the transport itself refuses messages over
/// [`MAX_MESSAGE_BYTES`] with OUT_OF_RANGE before they are decoded.
pub const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;
/// The transport's decoding limit.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The longest accepted request id.
pub const MAX_REQUEST_ID_CHARS: usize = 128;

/// What `#[async_trait]` turns a handler's `async fn` into; [`rpc!`] spells it out.
pub(crate) type BoxedRpc<'a, T> = std::pin::Pin<
    Box<dyn std::future::Future<Output = std::result::Result<Response<T>, Status>> + Send + 'a>,
>;

/// One unary handler of a `#[tonic::async_trait]` service impl:
/// `rpc!(self, method(RequestType) -> Answer, |req| { ... })` where `req` is the
/// request checked for size and the block yields `Result<Answer>`; with `|req, caller|`
/// the block also gets the caller's [`crate::domain::access::Principal`]. The handler
/// is written as `#[async_trait]` would write it, since a macro in the impl expands
/// after the attribute has run; `self` is passed in so that the block may use it.
macro_rules! rpc {
    ($this:tt, $method:ident($req:ident) -> $out:ty, |$r:ident| $body:block) => {
        rpc!($this, $method($req) -> $out, |$r, _caller| $body);
    };
    ($this:tt, $method:ident($req:ident) -> $out:ty, |$r:ident, $p:ident| $body:block) => {
        fn $method<'life0, 'async_trait>(
            &'life0 $this,
            request: ::tonic::Request<::flotilla_api::v1::$req>,
        ) -> $crate::api::BoxedRpc<'async_trait, $out>
        where
            'life0: 'async_trait,
            Self: 'async_trait,
        {
            Box::pin(async move {
                $crate::api::ok(async {
                    #[allow(unused_variables)]
                    let $p = $crate::api::access::caller(&request)?;
                    #[allow(unused_variables)]
                    let $r = $crate::api::check_size(request)?;
                    $body
                }
                .await)
            })
        }
    };
}
pub(crate) use rpc;

/// A handler's result as the RPC's answer.
pub(crate) fn ok<T>(value: Result<T>) -> std::result::Result<Response<T>, Status> {
    value.map(Response::new).map_err(Status::from)
}

/// Unwraps a request, refusing oversized ones.
pub fn check_size<M: Message>(request: Request<M>) -> Result<M> {
    let message = request.into_inner();
    let size = message.encoded_len();
    if size > MAX_REQUEST_BYTES {
        return Err(Error::over_limit(
            "REQUEST_TOO_LARGE",
            "request",
            "the request is",
            size,
            MAX_REQUEST_BYTES,
            "bytes",
        ));
    }
    Ok(message)
}

/// The idempotency key of a create or verb; None without a request id.
pub fn request_key<M: Message>(
    method: &str,
    target: &str,
    request_id: &str,
    message: &M,
) -> Result<Option<RequestKey>> {
    request_key_of(method, target, request_id, &message.encode_to_vec())
}

/// The idempotency key of a request whose canonical form is `canonical`: equal requests
/// must give equal bytes (generated messages encode their maps in key order; a dynamic
/// message does not, see `declared::canonical`).
pub fn request_key_of(
    method: &str,
    target: &str,
    request_id: &str,
    canonical: &[u8],
) -> Result<Option<RequestKey>> {
    if request_id.is_empty() {
        return Ok(None);
    }
    if request_id.chars().count() > MAX_REQUEST_ID_CHARS {
        return Err(Error::invalid(
            "request_id",
            format!("must be at most {MAX_REQUEST_ID_CHARS} characters"),
        ));
    }
    Ok(Some(RequestKey {
        scope: format!("{method}:{target}"),
        request_id: request_id.to_string(),
        request_hash: hex::encode(Sha256::digest(canonical)),
    }))
}
