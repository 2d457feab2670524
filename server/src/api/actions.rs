//! ActionService handlers: validate, call `app::actions`, encode. Who may call which
//! method on which cluster is the auth layer's business.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::action_service_server::ActionService;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::page::Paging;
use super::{check_size, request_key, rpc};
use crate::app::RequestKey;
use crate::app::actions::{ACTIONS_TARGET, Actions, NewAction, NewTarget};
use crate::coord::peers::{Create, Origin, Peers};
use crate::domain::action::{Executor, Invalid, operation};
use crate::domain::names::{CLUSTER, ClusterName, Namespace, NodeName, PodName};
use crate::error::{Error, FieldViolation, Result, Violations};
use crate::ids::ActionId;
use crate::store::action::ActionFilter;
use crate::watch::WatchHub;
use crate::watch::actions::ActionWatch;
use crate::watch::records::start;
use crate::wire::convert::{
    action_id, action_state_from_proto, action_to_proto, name, params_from_proto, parse_etag,
    report_from_proto,
};

type Rpc<T> = std::result::Result<Response<T>, Status>;
type WatchStream = std::pin::Pin<
    Box<
        dyn tokio_stream::Stream<Item = std::result::Result<pb::WatchActionsResponse, Status>>
            + Send
            + 'static,
    >,
>;

/// The reboot and snapshot parameters of a create request's `params` oneof (each
/// request has its own generated `Params` enum, imported where this is used).
macro_rules! split_params {
    ($params:expr) => {
        match $params {
            Some(Params::RebootParams(p)) => (Some(p), None),
            Some(Params::SnapshotParams(p)) => (None, Some(p)),
            None => (None, None),
        }
    };
}

pub struct ActionApi {
    app: Actions,
    watch: Arc<WatchHub>,
    peers: Option<Arc<Peers>>,
}

impl ActionApi {
    pub fn new(app: Actions, watch: Arc<WatchHub>) -> Self {
        Self {
            app,
            watch,
            peers: None,
        }
    }

    /// Passes creates for clusters other replicas run to them (a replica set only).
    pub fn with_peers(mut self, peers: Option<Arc<Peers>>) -> Self {
        self.peers = peers;
        self
    }

    /// CreatePodAction and CreateNodeAction: validates the whole request (every
    /// violation at once, then the request id), then passes it to the replica that
    /// runs its cluster, or creates it here.
    async fn create(&self, origin: Origin, create: Create<'_>) -> Rpc<pb::Action> {
        let (mut new, key) = self.validate(&create)?;
        if let Some(peers) = &self.peers
            && let Some(answer) = peers.pass_create(&new.cluster, &origin, create).await
        {
            return answer.map(Response::new);
        }
        new.passed = origin.passed();
        let created = self.app.create(new, key.as_ref()).await?;
        Ok(Response::new(action_to_proto(&created)))
    }

    fn validate(&self, create: &Create<'_>) -> Result<(NewAction, Option<RequestKey>)> {
        let (cluster_name, target, action_name, (reboot, snapshot), key) = match *create {
            Create::Pod(req) => {
                use pb::create_pod_action_request::Params;
                let target = Asked::Pod {
                    namespace: &req.namespace,
                    pod: &req.pod,
                };
                let key = request_key("CreatePodAction", &req.cluster, &req.request_id, req);
                let params = split_params!(&req.params);
                (&req.cluster, target, &req.action_name, params, key)
            }
            Create::Node(req) => {
                use pb::create_node_action_request::Params;
                let target = Asked::Node { node: &req.node };
                let key = request_key("CreateNodeAction", &req.cluster, &req.request_id, req);
                let params = split_params!(&req.params);
                (&req.cluster, target, &req.action_name, params, key)
            }
        };
        let mut violations = Violations::new();
        let cluster = violations.check(cluster("cluster", cluster_name).map_err(first_violation));
        let target = match target {
            Asked::Pod { namespace, pod } => {
                let namespace = violations.parsed("namespace", Namespace::parse(namespace));
                let pod = violations.parsed("pod", PodName::parse(pod));
                namespace
                    .zip(pod)
                    .map(|(namespace, pod)| NewTarget::Pod { namespace, pod })
            }
            Asked::Node { node } => violations
                .parsed("node", NodeName::parse(node))
                .map(|node| NewTarget::Node { node }),
        };
        let on_node = matches!(target, Some(NewTarget::Node { .. }));
        let operation = operation(action_name, params_from_proto(reboot, snapshot), on_node)
            .map_err(|problems| add_invalid(&mut violations, problems))
            .ok();
        violations.into_result()?;
        let new = NewAction {
            cluster: cluster.expect("validated"),
            target: target.expect("validated"),
            operation: operation.expect("validated"),
            passed: false,
        };
        Ok((new, key?))
    }
}

/// What a create request asks an action on, as it spelled it.
enum Asked<'a> {
    Pod { namespace: &'a str, pod: &'a str },
    Node { node: &'a str },
}

/// A cluster name of a request field.
fn cluster(field: &str, value: &str) -> Result<ClusterName> {
    Ok(ClusterName::from(&name(&CLUSTER, field, value)?))
}

/// A filter on a Kubernetes name: None when the field is empty (no filter).
fn kube_filter<T>(
    violations: &mut Violations,
    field: &str,
    value: &str,
    parse: fn(&str) -> std::result::Result<T, &'static str>,
) -> Option<T> {
    if value.is_empty() {
        return None;
    }
    violations.parsed(field, parse(value))
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
        let origin = Origin::of(&request);
        let req = check_size(request)?;
        self.create(origin, Create::Pod(&req)).await
    }

    async fn create_node_action(
        &self,
        request: Request<pb::CreateNodeActionRequest>,
    ) -> Rpc<pb::Action> {
        let origin = Origin::of(&request);
        let req = check_size(request)?;
        self.create(origin, Create::Node(&req)).await
    }

    rpc!(self, get_action(GetActionRequest) -> pb::Action, |req| {
        let id = action_id("name", &req.name)?;
        Ok(action_to_proto(&self.app.get(id).await?))

    });

    rpc!(self, list_actions(ListActionsRequest) -> pb::ListActionsResponse, |req| {
        let mut violations = Violations::new();
        let on_cluster = if !req.cluster.is_empty() {
            violations.check(cluster("cluster", &req.cluster).map_err(first_violation))
        } else {
            if !req.node_name.is_empty() || !req.pod.is_empty() {
                violations.add("cluster", "is required to filter by node or pod");
            }
            None
        };
        let node = kube_filter(&mut violations, "node_name", &req.node_name, NodeName::parse);
        let namespace = kube_filter(&mut violations, "namespace", &req.namespace, Namespace::parse);
        let pod = kube_filter(&mut violations, "pod", &req.pod, PodName::parse);
        let state = violations
            .check(action_state_from_proto("state", req.state).map_err(first_violation));
        violations.into_result()?;
        let filter = ActionFilter {
            cluster: on_cluster,
            node,
            namespace,
            pod,
            state: state.flatten(),
            open_only: false,
        };
        let scope = format!("ListActions:{}", serde_json::json!(filter));
        let paging = Paging::<ActionId>::new(scope, req.page_size, &req.page_token)?;
        let (actions, more) = self.app.list(&filter, paging.after, paging.size).await?;
        let next_page_token = paging.next_token(more, actions.last().map(|l| l.id));
        Ok(pb::ListActionsResponse {
            actions: actions.iter().map(action_to_proto).collect(),
            next_page_token,
        })

    });

    async fn watch_actions(&self, request: Request<pb::WatchActionsRequest>) -> Rpc<WatchStream> {
        let req = check_size(request)?;
        let watch = async {
            let mut violations = Violations::new();
            let on_cluster = if req.cluster.is_empty() {
                if !req.node_name.is_empty() {
                    violations.add("cluster", "is required to filter by node");
                }
                None
            } else {
                violations.check(cluster("cluster", &req.cluster).map_err(first_violation))
            };
            let node = kube_filter(
                &mut violations,
                "node_name",
                &req.node_name,
                NodeName::parse,
            );
            violations.into_result()?;
            let resume = match req.resume_token.as_str() {
                "" => None,
                token => Some(crate::watch::token::decode(ACTIONS_TARGET, token)?),
            };
            let cluster = on_cluster;
            if let Some(cluster) = &cluster {
                self.app.require_cluster(cluster).await?;
            }
            start(self.watch.clone(), ActionWatch { cluster, node }, resume).await
        }
        .await
        .map_err(Status::from)?;
        Ok(Response::new(Box::pin(ReceiverStream::new(watch))))
    }

    rpc!(self, update_action_status(UpdateActionStatusRequest) -> pb::Action, |req, principal| {
        let id = action_id("name", &req.name)?;
        let report = report_from_proto(req.status.as_ref())?;
        let etag = parse_etag(&req.etag);
        let by = Executor::NodeAgent(principal.token.to_string());
        Ok(action_to_proto(
            &self.app.report(id, by, report, etag, None).await?,
        ))

    });

    rpc!(self, cancel_action(CancelActionRequest) -> pb::Action, |req| {
        let id = action_id("name", &req.name)?;
        Ok(action_to_proto(&self.app.cancel(id).await?))

    });

    rpc!(self, delete_action(DeleteActionRequest) -> (), |req| {
            self.app.delete(action_id("name", &req.name)?).await

    });
}

/// The first field violation of an INVALID_ARGUMENT error (others pass through as a
/// violation of the request).
pub(super) fn first_violation(error: Error) -> FieldViolation {
    match error {
        Error::InvalidArgument { mut violations } if !violations.is_empty() => violations.remove(0),
        other => FieldViolation::new("request", other.to_string()),
    }
}
