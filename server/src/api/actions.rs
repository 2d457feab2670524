//! ActionService handlers: validate, call `app::actions`, encode. Who may call which
//! method on which cluster is the auth layer's business.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::action_service_server::ActionService;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::access::caller;
use super::convert::{
    action_id, action_state_from_proto, action_to_proto, name, params_from_proto, parse_etag,
    report_from_proto,
};
use super::page::{decode_token, encode_token, page_size};
use super::{check_size, empty, ok, request_key};
use crate::app::actions::{ACTIONS_TARGET, Actions, NewAction, NewTarget};
use crate::domain::action::{Executor, Invalid, operation};
use crate::domain::names::{CLUSTER, validate_id};
use crate::error::{Error, FieldViolation, Result, Violations};
use crate::ids::ActionId;
use crate::store::action::ActionFilter;
use crate::watch::WatchHub;
use crate::watch::actions::{ActionWatch, start};

type Rpc<T> = std::result::Result<Response<T>, Status>;
type WatchStream = std::pin::Pin<
    Box<
        dyn tokio_stream::Stream<Item = std::result::Result<pb::WatchActionsResponse, Status>>
            + Send
            + 'static,
    >,
>;

pub struct ActionApi {
    app: Actions,
    watch: Arc<WatchHub>,
}

impl ActionApi {
    pub fn new(app: Actions, watch: Arc<WatchHub>) -> Self {
        Self { app, watch }
    }
}

/// A cluster name of a request field.
fn cluster(field: &str, value: &str) -> Result<String> {
    Ok(name(&CLUSTER, field, value)?.to_string())
}

/// Kubernetes names: a namespace is an RFC 1123 label ("" = default); a pod or node
/// name an RFC 1123 subdomain (at most 253 characters).
fn check_k8s_name(violations: &mut Violations, field: &str, value: &str, empty_ok: bool) {
    if value.is_empty() {
        if !empty_ok {
            violations.add(field, "is required");
        }
        return;
    }
    let valid = value.len() <= 253 && value.split('.').all(|label| validate_id(label).is_ok());
    if !valid {
        violations.add(
            field,
            "must be a Kubernetes name: lower-case letters, digits, '-' and '.', at most 253 characters",
        );
    }
}

fn add_invalid(violations: &mut Violations, problems: Vec<Invalid>) {
    for problem in problems {
        violations.add(problem.field, problem.why);
    }
}

#[tonic::async_trait]
impl ActionService for ActionApi {
    async fn create_pod_action(
        &self,
        request: Request<pb::CreatePodActionRequest>,
    ) -> Rpc<pb::Action> {
        ok(async {
            let req = check_size(request)?;
            let mut violations = Violations::new();
            let cluster =
                violations.check(cluster("cluster", &req.cluster).map_err(first_violation));
            check_k8s_name(&mut violations, "namespace", &req.namespace, true);
            if req.namespace.contains('.') {
                violations.add("namespace", "must be an RFC 1123 label");
            }
            check_k8s_name(&mut violations, "pod", &req.pod, false);
            let params = params_from_proto(
                match &req.params {
                    Some(pb::create_pod_action_request::Params::RebootParams(p)) => Some(p),
                    _ => None,
                },
                match &req.params {
                    Some(pb::create_pod_action_request::Params::SnapshotParams(p)) => Some(p),
                    _ => None,
                },
            );
            let op = operation(&req.action_name, params, false)
                .map_err(|problems| add_invalid(&mut violations, problems))
                .ok();
            violations.into_result()?;
            let key = request_key("CreatePodAction", &req.cluster, &req.request_id, &req)?;
            let new = NewAction {
                cluster: cluster.expect("validated"),
                target: NewTarget::Pod {
                    namespace: req.namespace.clone(),
                    pod: req.pod.clone(),
                },
                operation: op.expect("validated"),
            };
            Ok(action_to_proto(&self.app.create(new, key.as_ref()).await?))
        }
        .await)
    }

    async fn create_node_action(
        &self,
        request: Request<pb::CreateNodeActionRequest>,
    ) -> Rpc<pb::Action> {
        ok(async {
            let req = check_size(request)?;
            let mut violations = Violations::new();
            let cluster =
                violations.check(cluster("cluster", &req.cluster).map_err(first_violation));
            check_k8s_name(&mut violations, "node", &req.node, false);
            let params = params_from_proto(
                match &req.params {
                    Some(pb::create_node_action_request::Params::RebootParams(p)) => Some(p),
                    _ => None,
                },
                match &req.params {
                    Some(pb::create_node_action_request::Params::SnapshotParams(p)) => Some(p),
                    _ => None,
                },
            );
            let op = operation(&req.action_name, params, true)
                .map_err(|problems| add_invalid(&mut violations, problems))
                .ok();
            violations.into_result()?;
            let key = request_key("CreateNodeAction", &req.cluster, &req.request_id, &req)?;
            let new = NewAction {
                cluster: cluster.expect("validated"),
                target: NewTarget::Node {
                    node: req.node.clone(),
                },
                operation: op.expect("validated"),
            };
            Ok(action_to_proto(&self.app.create(new, key.as_ref()).await?))
        }
        .await)
    }

    async fn get_action(&self, request: Request<pb::GetActionRequest>) -> Rpc<pb::Action> {
        ok(async {
            let req = check_size(request)?;
            let id = action_id("name", &req.name)?;
            Ok(action_to_proto(&self.app.get(id).await?))
        }
        .await)
    }

    async fn list_actions(
        &self,
        request: Request<pb::ListActionsRequest>,
    ) -> Rpc<pb::ListActionsResponse> {
        ok(async {
            let req = check_size(request)?;
            let mut violations = Violations::new();
            if !req.cluster.is_empty() {
                violations.check(cluster("cluster", &req.cluster).map_err(first_violation));
            } else if !req.node_name.is_empty() || !req.pod.is_empty() {
                violations.add("cluster", "is required to filter by node or pod");
            }
            check_k8s_name(&mut violations, "node_name", &req.node_name, true);
            check_k8s_name(&mut violations, "namespace", &req.namespace, true);
            check_k8s_name(&mut violations, "pod", &req.pod, true);
            let state = violations
                .check(action_state_from_proto("state", req.state).map_err(first_violation));
            violations.into_result()?;
            let size = page_size(req.page_size)?;
            let filter = ActionFilter {
                cluster: req.cluster.clone(),
                node: req.node_name.clone(),
                namespace: req.namespace.clone(),
                pod: req.pod.clone(),
                state: state.flatten(),
                open_only: false,
            };
            let scope = format!("ListActions:{}", serde_json::json!(filter));
            let before: Option<ActionId> = decode_token(&scope, &req.page_token)?;
            let (actions, more) = self.app.list(&filter, before, size).await?;
            let next_page_token = match (more, actions.last()) {
                (true, Some(last)) => encode_token(&scope, &last.id),
                _ => String::new(),
            };
            Ok(pb::ListActionsResponse {
                actions: actions.iter().map(action_to_proto).collect(),
                next_page_token,
            })
        }
        .await)
    }

    async fn watch_actions(&self, request: Request<pb::WatchActionsRequest>) -> Rpc<WatchStream> {
        let req = check_size(request)?;
        let watch = async {
            let cluster = cluster("cluster", &req.cluster)?;
            let mut violations = Violations::new();
            check_k8s_name(&mut violations, "node_name", &req.node_name, true);
            violations.into_result()?;
            let resume = match req.resume_token.as_str() {
                "" => None,
                token => Some(crate::watch::token::decode(ACTIONS_TARGET, token)?),
            };
            {
                // The cluster must exist.
                let mut conn = self.watch.store().read().await?;
                crate::store::action::action_cluster(&mut conn, &cluster, "", "")
                    .await?
                    .ok_or_else(|| Error::NotFound {
                        kind: "flotilla.v1.Cluster",
                        name: cluster.clone(),
                        field: Some("cluster".into()),
                    })?;
            }
            start(
                self.watch.clone(),
                ActionWatch {
                    cluster,
                    node: req.node_name.clone(),
                    resume,
                },
            )
            .await
        }
        .await
        .map_err(Status::from)?;
        Ok(Response::new(Box::pin(ReceiverStream::new(watch))))
    }

    async fn update_action_status(
        &self,
        request: Request<pb::UpdateActionStatusRequest>,
    ) -> Rpc<pb::Action> {
        ok(async {
            let principal = caller(&request)?;
            let req = check_size(request)?;
            let id = action_id("name", &req.name)?;
            let report = report_from_proto(req.status.as_ref())?;
            let etag = parse_etag("etag", &req.etag)?;
            let by = Executor::NodeAgent(principal.token.to_string());
            Ok(action_to_proto(
                &self.app.report(id, by, report, etag, None).await?,
            ))
        }
        .await)
    }

    async fn cancel_action(&self, request: Request<pb::CancelActionRequest>) -> Rpc<pb::Action> {
        ok(async {
            let req = check_size(request)?;
            let id = action_id("name", &req.name)?;
            Ok(action_to_proto(&self.app.cancel(id).await?))
        }
        .await)
    }

    async fn delete_action(&self, request: Request<pb::DeleteActionRequest>) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                self.app.delete(action_id("name", &req.name)?).await
            }
            .await,
        )
    }
}

/// The first field violation of an INVALID_ARGUMENT error (others pass through as a
/// violation of the request).
fn first_violation(error: Error) -> FieldViolation {
    match error {
        Error::InvalidArgument { mut violations } if !violations.is_empty() => violations.remove(0),
        other => FieldViolation::new("request", other.to_string()),
    }
}
