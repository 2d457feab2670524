//! A layer in front of every service that makes each refusal carry an `ErrorInfo`.
//!
//! Flotilla's own errors get theirs in `wire::status`; what tonic answers by itself
//! does not: a request that does not decode (raw bytes, or a Struct nested past
//! protobuf's recursion limit) came back INTERNAL "failed to decode Protobuf
//! message", a message over the size limit OUT_OF_RANGE, a path nobody serves
//! UNIMPLEMENTED with an empty message. Here such a status is rewritten where it
//! travels (a trailers-only response's headers, or the trailers after a body): the
//! caller's mistakes get the caller's codes (INVALID_ARGUMENT, RESOURCE_EXHAUSTED) and
//! every non-OK status an ErrorInfo. A status that already has details is left as it
//! is.

use std::future::Future;

use tonic::body::Body;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::domain::nesting::MAX_NESTING;
use crate::net::middleware;
use crate::wire::status::refusal;

/// The largest header list a request may carry (bytes, counted as HTTP/2 counts them:
/// name, value and 32 per field); larger is refused RESOURCE_EXHAUSTED here.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// What the HTTP/2 layer itself takes before the request reaches this layer: past it
/// the connection answers HTTP 431, which clients see as UNKNOWN.
pub const HTTP2_MAX_HEADER_LIST_BYTES: u32 = 1024 * 1024;

/// The size of a header list as HTTP/2's SETTINGS_MAX_HEADER_LIST_SIZE counts it.
fn header_list_size(headers: &http::HeaderMap) -> usize {
    headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 32)
        .sum()
}

/// The middleware: a request's headers are sized before it reaches a service, a
/// refusal's status is explained where it travels.
#[derive(Clone, Copy, Default)]
pub struct Refusals;

impl middleware::Middleware for Refusals {
    fn call<S: middleware::Inner>(
        &self,
        mut inner: S,
        request: http::Request<Body>,
    ) -> impl Future<Output = middleware::Reply<S::Error>> + Send + 'static {
        let path = request.uri().path().to_string();
        let header_bytes = header_list_size(request.headers());
        async move {
            if header_bytes > MAX_HEADER_BYTES {
                return Ok(refusal(
                    Code::ResourceExhausted,
                    "HEADERS_TOO_LARGE",
                    format!(
                        "the request's headers are {header_bytes} bytes; the limit is \
                         {MAX_HEADER_BYTES}"
                    ),
                )
                .into_http());
            }
            let mut response = inner.call(request).await?;
            if response.headers().contains_key("grpc-status") {
                // Trailers-only: the status is in the headers.
                explain(response.headers_mut(), &path);
                return Ok(response);
            }
            Ok(response.map(|body| middleware::Watched::body(body, Explained { path })))
        }
    }
}

/// Rewrites the status in `headers` (response headers or trailers of a call of `path`)
/// if it is a refusal without details.
fn explain(headers: &mut http::HeaderMap, path: &str) {
    if headers.contains_key("grpc-status-details-bin") {
        return;
    }
    let Some(status) = Status::from_header_map(headers) else {
        return;
    };
    if status.code() == Code::Ok {
        return;
    }
    let explained = explained(&status, path);
    for name in ["grpc-status", "grpc-message", "grpc-status-details-bin"] {
        headers.remove(name);
    }
    // Only a status whose details cannot be written as a header fails here; the
    // original then stands.
    if explained.add_header(headers).is_err() {
        let _ = status.add_header(headers);
    }
}

/// The status a caller of `path` should see for one tonic made without details.
fn explained(status: &Status, path: &str) -> Status {
    let message = status.message();
    match status.code() {
        Code::Internal if message.starts_with("failed to decode Protobuf message") => {
            if message.ends_with("recursion limit reached") {
                let description = format!(
                    "nests deeper than protobuf decoders accept: Flotilla takes JSON \
                     (manifests, merge patches) nested at most {MAX_NESTING} deep"
                );
                let mut status = refusal(
                    Code::InvalidArgument,
                    "NESTED_TOO_DEEP",
                    format!("the request {description}"),
                );
                if let Some(field) = decode_trail(message) {
                    let mut details = status.get_error_details();
                    details.add_bad_request_violation(field, description);
                    status = Status::with_error_details(
                        Code::InvalidArgument,
                        status.message().to_string(),
                        details,
                    );
                }
                status
            } else {
                refusal(
                    Code::InvalidArgument,
                    "UNDECODABLE_REQUEST",
                    format!(
                        "the request is not a valid protobuf message of its method ({message})"
                    ),
                )
            }
        }
        Code::OutOfRange if message.contains("message length too large") => refusal(
            Code::ResourceExhausted,
            "MESSAGE_TOO_LARGE",
            format!("the request is larger than the server takes ({message})"),
        ),
        Code::Unimplemented if path.starts_with("/flotilla.v1.SimulatorService/") => refusal(
            Code::Unimplemented,
            "SIMULATOR_DISABLED",
            format!("this server does not serve {path}: the simulator is served with --sim only"),
        ),
        Code::Unimplemented if message.is_empty() => refusal(
            Code::Unimplemented,
            "UNKNOWN_METHOD",
            format!("this server does not serve {path}"),
        ),
        code => refusal(code, reason_of(code), message.to_string()),
    }
}

/// The request field a prost decode error happened in, from the trail of
/// `Message.field` segments it lists innermost first ("Struct.fields: Value.kind:
/// ManifestPatch.merge_patch: AppProfile.patches: CreateAppProfileRequest.app_profile:
/// recursion limit reached" → `app_profile.patches.merge_patch`): the request's own
/// fields, down to the first of protobuf's JSON types.
fn decode_trail(message: &str) -> Option<String> {
    let trail = message.strip_prefix("failed to decode Protobuf message: ")?;
    let mut segments: Vec<&str> = trail.split(": ").collect();
    segments.pop();
    let fields: Vec<&str> = segments
        .iter()
        .rev()
        .map_while(|segment| {
            let (message, field) = segment.split_once('.')?;
            (!matches!(message, "Struct" | "Value" | "ListValue")).then_some(field)
        })
        .collect();
    (!fields.is_empty()).then(|| fields.join("."))
}

/// The reason of a refusal that has no more specific one: its code's name.
fn reason_of(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// Explains the trailers of a call of `path` as they pass.
struct Explained {
    path: String,
}

impl middleware::BodyWatch for Explained {
    fn trailers(&mut self, trailers: &mut http::HeaderMap) {
        explain(trailers, &self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(status: Status) -> Status {
        let mut headers = http::HeaderMap::new();
        status.add_header(&mut headers).unwrap();
        explain(&mut headers, "/flotilla.v1.LifecycleService/GetProject");
        Status::from_header_map(&headers).unwrap()
    }

    #[test]
    fn tonics_refusals_get_the_callers_codes_and_a_reason() {
        let deep = through(Status::internal(
            "failed to decode Protobuf message: Struct.fields: Value.kind: recursion limit reached",
        ));
        assert_eq!(deep.code(), Code::InvalidArgument);
        assert_eq!(
            deep.get_error_details().error_info().unwrap().reason,
            "NESTED_TOO_DEEP"
        );
        let deep = through(Status::internal(
            "failed to decode Protobuf message: Struct.fields: Value.kind: Struct.fields: \
             ManifestPatch.merge_patch: AppProfile.patches: CreateAppProfileRequest.app_profile: \
             recursion limit reached",
        ));
        let violations = deep
            .get_error_details()
            .bad_request()
            .unwrap()
            .field_violations
            .clone();
        assert_eq!(violations[0].field, "app_profile.patches.merge_patch");
        let raw = through(Status::internal(
            "failed to decode Protobuf message: invalid wire type",
        ));
        assert_eq!(
            (
                raw.code(),
                raw.get_error_details()
                    .error_info()
                    .unwrap()
                    .reason
                    .as_str()
            ),
            (Code::InvalidArgument, "UNDECODABLE_REQUEST")
        );
        let large = through(Status::out_of_range(
            "Error, decoded message length too large: found 17825792 bytes, the limit is: 16777216 bytes",
        ));
        assert_eq!(large.code(), Code::ResourceExhausted);
        let unknown = through(Status::unimplemented(""));
        assert!(!unknown.message().is_empty());
        let plain = through(Status::unauthenticated("no"));
        assert_eq!(
            plain.get_error_details().error_info().unwrap().reason,
            "UNAUTHENTICATED"
        );
    }

    #[test]
    fn a_status_with_details_and_ok_pass_unchanged() {
        let ours = refusal(Code::NotFound, "NOT_FOUND_HERE", "gone");
        let after = through(ours.clone());
        assert_eq!(after.message(), "gone");
        assert_eq!(
            after.get_error_details().error_info().unwrap().reason,
            "NOT_FOUND_HERE"
        );
        let mut headers = http::HeaderMap::new();
        headers.insert("grpc-status", "0".parse().unwrap());
        explain(&mut headers, "/x/y");
        assert_eq!(headers.len(), 1);
    }
}
