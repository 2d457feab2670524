//! The auth layer: the one place RPCs are authenticated and authorised. A tower layer
//! in front of every service:
//!
//! 1. health and reflection pass (so `grpcurl list` works without a token);
//! 2. the bearer token is authenticated (UNAUTHENTICATED otherwise);
//! 3. the RPC's entry of the permission table ([`rules::RULES`]) is decided by
//!    [`crate::domain::access::decide`], which asks for what it needs: the resource
//!    name a request field holds (read from the encoded request, only when the role
//!    makes it matter), the projects placed on a cluster, an action's cluster;
//! 4. allowed calls reach their handler with the [`Principal`] in the request's
//!    extensions; denied ones get PERMISSION_DENIED naming the permission, decided by
//!    the name alone, so the answer is the same whether the resource exists or not;
//! 5. every mutating call, allowed or not, is written to the audit log (one line with
//!    the token id and role, target `flotilla::audit`);
//! 6. the response stream of a streaming RPC ends with UNAUTHENTICATED as soon as its
//!    token is revoked or expires.

pub mod rules;
pub mod wire;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Frame;
use http_body_util::BodyExt;
use tonic::body::Body;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};
use tracing::info;

use self::wire::{Rule, read_string};
use super::MAX_MESSAGE_BYTES;
use crate::app::access::{Access, FactSource, Rejection, Secret};
use crate::domain::access::{Decision, Denial, Fact, Facts, PodRef, Principal, decide};
use crate::net::Peer;
use crate::net::middleware;
use crate::wire::status::ERROR_DOMAIN;

/// The auth middleware (made a layer by `net::middleware::Layer`).
#[derive(Clone)]
pub struct Auth {
    shared: Arc<Shared>,
}

struct Shared {
    access: Arc<Access>,
    facts: Arc<dyn FactSource>,
    /// By request path, `/flotilla.v1.Service/Method`.
    rules: HashMap<String, Rule>,
}

impl Auth {
    /// Builds the layer; fails if the permission table does not cover the API exactly.
    pub fn new(access: Arc<Access>, facts: Arc<dyn FactSource>) -> anyhow::Result<Auth> {
        let rules = wire::resolve(flotilla_api::FILE_DESCRIPTOR_SET)
            .map_err(|problems| anyhow::anyhow!("the permission table is wrong: {problems}"))?;
        Ok(Auth {
            shared: Arc::new(Shared {
                access,
                facts,
                rules,
            }),
        })
    }
}

impl middleware::Middleware for Auth {
    fn call<S: middleware::Inner>(
        &self,
        inner: S,
        request: http::Request<Body>,
    ) -> impl Future<Output = middleware::Reply<S::Error>> + Send + 'static {
        let shared = self.shared.clone();
        async move {
            match shared.admit(request).await {
                Ok(Admitted {
                    request,
                    principal,
                    rule,
                    target,
                }) => {
                    let method = request.uri().path().to_string();
                    let peer = peer_of(&request);
                    let mut inner = inner;
                    let response = tower::ServiceExt::oneshot(&mut inner, request).await?;
                    if rule.need.mutates() {
                        audit(&method, &principal, &target, &peer, &outcome(&response));
                    }
                    Ok(if rule.streaming {
                        shared.guard(response, &principal)
                    } else {
                        response
                    })
                }
                Err(Refusal::Open(request)) => {
                    let mut inner = inner;
                    tower::ServiceExt::oneshot(&mut inner, *request).await
                }
                Err(Refusal::Answer(status)) => Ok(status.into_http()),
            }
        }
    }
}

/// A call that may go on.
struct Admitted {
    request: http::Request<Body>,
    principal: Principal,
    rule: Rule,
    /// The resource name the call targets, if it was read ("-" otherwise).
    target: String,
}

enum Refusal {
    /// An open service: pass without a token.
    Open(Box<http::Request<Body>>),
    /// Refused with this status.
    Answer(Status),
}

/// A failure to learn a fact (the store) answers the call with its status.
impl From<crate::error::Error> for Refusal {
    fn from(error: crate::error::Error) -> Self {
        Refusal::Answer(error.into())
    }
}

impl Shared {
    async fn admit(
        &self,
        mut request: http::Request<Body>,
    ) -> std::result::Result<Admitted, Refusal> {
        let path = request.uri().path().to_string();
        let service = path
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or_default();
        if rules::OPEN_SERVICES.contains(&service) {
            return Err(Refusal::Open(Box::new(request)));
        }
        if request
            .extensions()
            .get::<Peer>()
            .is_some_and(|peer| peer.missing_client_certificate)
        {
            return Err(Refusal::Answer(unauthenticated_with(
                "CLIENT_CERTIFICATE_REQUIRED",
                "this server requires a client certificate signed by its client CA (mTLS)",
            )));
        }
        let Some(rule) = self.rules.get(&path).cloned() else {
            return Err(Refusal::Answer(crate::wire::status::refusal(
                Code::Unimplemented,
                "UNKNOWN_METHOD",
                format!("this server does not serve {path}"),
            )));
        };
        let secret = bearer(request.headers()).map_err(Refusal::Answer)?;
        let principal = match self.access.authenticate(&secret).await {
            Ok(Ok(principal)) => principal,
            Ok(Err(rejection)) => return Err(Refusal::Answer(unauthenticated(&rejection))),
            Err(error) => return Err(error.into()),
        };
        let mut facts = Facts::default();
        let decision = loop {
            match decide(&principal, rule.need, &facts) {
                Decision::Needs(Fact::Field(_)) => {
                    let (rebuilt, name) = read_field(request, &rule).await?;
                    request = rebuilt;
                    facts.field = Some(name);
                }
                Decision::Needs(Fact::Pod) => {
                    let paths: Vec<&[u32]> = rule.pod.iter().flatten().map(Vec::as_slice).collect();
                    let (rebuilt, fields) = read_fields(request, &paths).await?;
                    request = rebuilt;
                    let [namespace, name] =
                        <[String; 2]>::try_from(fields).expect("one value per field asked for");
                    facts.pod = Some(PodRef {
                        namespace: namespace.into(),
                        name: name.into(),
                    });
                }
                Decision::Needs(Fact::ClusterProjects(cluster)) => {
                    facts.cluster_projects = Some(self.facts.cluster_projects(&cluster).await?);
                }
                Decision::Needs(Fact::PodProjects(cluster, pod)) => {
                    facts.pod_projects = Some(self.facts.pod_projects(&cluster, &pod).await?);
                }
                Decision::Needs(Fact::ActionTarget(id)) => {
                    facts.action_target = Some(self.facts.action_target(id).await?);
                }
                decision => break decision,
            }
        };
        // Mutations are audited with their target: read it if the decision did not.
        if rule.need.mutates() && facts.field.is_none() && rule.field.is_some() {
            let (rebuilt, name) = read_field(request, &rule).await?;
            request = rebuilt;
            facts.field = Some(name);
        }
        let target = facts
            .field
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "-".to_string());
        match decision {
            Decision::Allow => {
                request.extensions_mut().insert(principal.clone());
                Ok(Admitted {
                    request,
                    principal,
                    rule,
                    target,
                })
            }
            Decision::Deny(denial) => {
                if rule.need.mutates() {
                    audit(&path, &principal, &target, &peer_of(&request), "denied");
                }
                Err(Refusal::Answer(permission_denied(&path, &denial)))
            }
            Decision::Needs(_) => unreachable!("the loop gathers every fact asked for"),
        }
    }

    /// Ends the response stream with UNAUTHENTICATED when the token stops being valid.
    fn guard(&self, response: http::Response<Body>, principal: &Principal) -> http::Response<Body> {
        let guard = self.access.guard(principal);
        let (parts, body) = response.into_parts();
        let guarded = Guarded {
            inner: body,
            ended: Box::pin(async move { guard.ended().await }),
            finished: false,
        };
        http::Response::from_parts(parts, Body::new(guarded))
    }
}

/// The secret of `authorization: Bearer <secret>`.
fn bearer(headers: &http::HeaderMap) -> std::result::Result<Secret, Status> {
    let missing = || {
        unauthenticated_with(
            "MISSING_TOKEN",
            "a token is required: send `authorization: Bearer <token>` (a new server's admin \
             token is in <data-dir>/admin.token)",
        )
    };
    let value = headers
        .get(http::header::AUTHORIZATION)
        .ok_or_else(missing)?;
    let text = value.to_str().map_err(|_| missing())?;
    match text.split_once(' ') {
        Some((scheme, secret))
            if scheme.eq_ignore_ascii_case("bearer") && !secret.trim().is_empty() =>
        {
            Ok(Secret::new(secret.trim()))
        }
        _ => Err(missing()),
    }
}

fn unauthenticated(rejection: &Rejection) -> Status {
    unauthenticated_with(rejection_reason(rejection), &rejection.to_string())
}

fn rejection_reason(rejection: &Rejection) -> &'static str {
    match rejection {
        Rejection::Unknown => "UNKNOWN_TOKEN",
        Rejection::Revoked => "TOKEN_REVOKED",
        Rejection::Expired => "TOKEN_EXPIRED",
    }
}

fn unauthenticated_with(reason: &str, message: &str) -> Status {
    Status::with_error_details(
        Code::Unauthenticated,
        message,
        ErrorDetails::with_error_info(reason, ERROR_DOMAIN, HashMap::<String, String>::new()),
    )
}

fn permission_denied(method: &str, denial: &Denial) -> Status {
    Status::with_error_details(
        Code::PermissionDenied,
        denial.message.clone(),
        ErrorDetails::with_error_info(
            "PERMISSION_DENIED",
            ERROR_DOMAIN,
            HashMap::from([
                ("permission".to_string(), denial.permission.to_string()),
                ("method".to_string(), method.to_string()),
            ]),
        ),
    )
}

/// Reads the rule's field from the request body and puts the body back.
async fn read_field(
    request: http::Request<Body>,
    rule: &Rule,
) -> std::result::Result<(http::Request<Body>, String), Refusal> {
    let paths: Vec<&[u32]> = rule.field.as_deref().into_iter().collect();
    let (request, mut values) = read_fields(request, &paths).await?;
    Ok((request, values.pop().unwrap_or_default()))
}

/// The string values of `paths` in the request (each "" when unset, or all of them
/// when the request cannot be read), and the request to pass on.
async fn read_fields(
    request: http::Request<Body>,
    paths: &[&[u32]],
) -> std::result::Result<(http::Request<Body>, Vec<String>), Refusal> {
    let (parts, body) = request.into_parts();
    // The transport's own limit, plus the frame header.
    let limit = MAX_MESSAGE_BYTES + 5;
    let bytes = http_body_util::Limited::new(body, limit)
        .collect()
        .await
        .map_err(|error| {
            Refusal::Answer(if error.is::<http_body_util::LengthLimitError>() {
                Status::out_of_range(format!(
                    "the request is larger than the transport's limit of {MAX_MESSAGE_BYTES} bytes"
                ))
            } else {
                Status::cancelled(format!("cannot read the request: {error}"))
            })
        })?
        .to_bytes();
    let values = paths
        .iter()
        .map(|path| match first_message(&bytes) {
            Ok(message) => read_string(message, path).unwrap_or_default(),
            // A request that cannot be read names nothing: roles confined to projects
            // are refused, and the handler answers the others.
            Err(_) => String::new(),
        })
        .collect();
    let request = http::Request::from_parts(parts, Body::new(http_body_util::Full::new(bytes)));
    Ok((request, values))
}

/// The message of a gRPC request body (one uncompressed length-prefixed frame).
fn first_message(body: &[u8]) -> std::result::Result<&[u8], wire::Malformed> {
    let header = body.get(..5).ok_or(wire::Malformed)?;
    if header[0] != 0 {
        return Err(wire::Malformed);
    }
    let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]) as usize;
    body.get(5..5 + len).ok_or(wire::Malformed)
}

/// The gRPC code of a response, as far as the headers tell ("OK" when it comes in the
/// trailers, as for every successful unary call).
fn outcome(response: &http::Response<Body>) -> String {
    match Status::from_header_map(response.headers()) {
        Some(status) => format!("{:?}", status.code()),
        None => "Ok".to_string(),
    }
}

/// The client's address, or "in-process".
fn peer_of(request: &http::Request<Body>) -> String {
    request
        .extensions()
        .get::<Peer>()
        .and_then(|peer| peer.address)
        .map_or_else(|| "in-process".to_string(), |address| address.to_string())
}

fn audit(method: &str, principal: &Principal, target: &str, peer: &str, outcome: &str) {
    info!(
        target: "flotilla::audit",
        method,
        token = %principal.token,
        role = %principal.role,
        resource = target,
        peer,
        outcome,
        "audit"
    );
}

/// A response body that ends with UNAUTHENTICATED when its token stops being valid.
struct Guarded {
    inner: Body,
    ended: Pin<Box<dyn Future<Output = Rejection> + Send>>,
    finished: bool,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<Frame<Bytes>, Status>>> {
        if self.finished {
            return Poll::Ready(None);
        }
        if let Poll::Ready(rejection) = self.ended.as_mut().poll(cx) {
            self.finished = true;
            let status = unauthenticated_with(
                rejection_reason(&rejection),
                &format!("{rejection}: the stream ends"),
            );
            let mut trailers = http::HeaderMap::new();
            return Poll::Ready(Some(match status.add_header(&mut trailers) {
                Ok(()) => Ok(Frame::trailers(trailers)),
                Err(status) => Err(status),
            }));
        }
        let frame = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            self.finished = true;
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.finished || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
