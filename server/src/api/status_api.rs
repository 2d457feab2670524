//! StatusService handlers: the status query of intent groups and cluster network
//! intents in the four output modes, with filters and paging of the resource tree, and
//! the list of instances.

use std::pin::Pin;
use std::sync::Arc;

use flotilla_api::v1 as pb;
use futures::{Stream, StreamExt};
use pb::status_service_server::StatusService;
use prost::Message;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::page::{Paging, decode_token, encode_token};
use super::{check_size, rpc};
use crate::app::status::{Output, Selection, StatusApp, StatusQuery};
use crate::domain::names::{CLUSTER, DEPLOYMENT_INTENT_GROUP, Kind, ResourceName};
use crate::error::{Error, Result};
use crate::ids::InstanceId;
use crate::store::rsync_resource::ResourceKey;
use crate::watch::stream::{self, WatchRequest};
use crate::watch::{WatchHub, token};
use crate::wire::Encoded;
use crate::wire::convert::{check_filters, instance_to_proto, name, owner_name, status_to_proto};
use crate::wire::outbound::Outbound;
use crate::wire::routes::{EncodedStream, PreEncoded};
use crate::wire::tree;

type Rpc<T> = std::result::Result<Response<T>, Status>;

/// Resources per page of the status tree.
const DEFAULT_TREE_PAGE: usize = 1000;
const MAX_TREE_PAGE: usize = 10_000;

/// The fields the two status requests share.
struct StatusArgs {
    name: String,
    output: i32,
    apps: Vec<String>,
    clusters: Vec<String>,
    resources: Vec<String>,
    instance: String,
    page_size: i32,
    page_token: String,
}

/// The shared fields of a GetDeploymentIntentGroupStatus or GetClusterNetworkStatus request.
macro_rules! status_args {
    ($r:expr) => {
        StatusArgs {
            name: $r.name,
            output: $r.output,
            apps: $r.apps,
            clusters: $r.clusters,
            resources: $r.resources,
            instance: $r.instance,
            page_size: $r.page_size,
            page_token: $r.page_token,
        }
    };
}

pub struct StatusApi {
    app: StatusApp,
    hub: Arc<WatchHub>,
}

/// The output level of a request; unset means ALL.
/// A status request's output level and filters, checked.
fn selection(
    output: i32,
    apps: Vec<String>,
    clusters: Vec<String>,
    resources: Vec<String>,
) -> Result<Selection> {
    check_filters(&apps, &clusters, &resources)?;
    let output = match pb::StatusOutput::try_from(output) {
        Ok(pb::StatusOutput::Summary) => Output::Summary,
        Ok(pb::StatusOutput::All | pb::StatusOutput::Unspecified) => Output::All,
        Ok(pb::StatusOutput::Detail) => Output::Detail,
        Ok(pb::StatusOutput::Rsync) => Output::Rsync,
        Err(_) => {
            return Err(Error::invalid(
                "output",
                format!("unknown enum value {output}"),
            ));
        }
    };
    Ok(Selection {
        output,
        apps,
        clusters,
        resources,
    })
}

type FleetStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::WatchFleetResponse, Status>> + Send>>;

type WatchStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::WatchStatusResponse, Status>> + Send>>;

impl StatusApi {
    pub fn new(app: StatusApp, hub: Arc<WatchHub>) -> Self {
        Self { app, hub }
    }

    /// WatchStatus with messages encoded once for all subscribers (served by
    /// [`crate::wire::routes::StatusRoutes`]).
    /// `outbound` paces the stream to what its client reads (see [`crate::wire::outbound`]);
    /// None: unpaced (the generated form, [`StatusService::watch_status`]).
    pub async fn watch(
        &self,
        r: pb::WatchStatusRequest,
        outbound: Option<Arc<Outbound>>,
    ) -> Result<EncodedStream> {
        let owner = owner_name("name", &r.name)?;
        let selection = selection(r.output, r.apps, r.clusters, r.resources)?;
        let resume = if r.resume_token.is_empty() {
            None
        } else {
            Some(token::decode(&owner.to_string(), &r.resume_token)?)
        };
        let request = WatchRequest {
            owner,
            selection,
            resume,
        };
        let receiver = stream::start(
            self.hub.clone(),
            self.app.clone(),
            request,
            outbound.clone(),
        )
        .await?;
        Ok(Box::pin(ReceiverStream::new(receiver)))
    }

    /// GetDeploymentIntentGroupStatus, encoded.
    pub async fn dig_status(
        &self,
        r: pb::GetDeploymentIntentGroupStatusRequest,
    ) -> Result<Encoded> {
        self.status(
            "GetDeploymentIntentGroupStatus",
            &DEPLOYMENT_INTENT_GROUP,
            status_args!(r),
        )
        .await
    }

    /// GetClusterNetworkStatus, encoded.
    pub async fn network_status(&self, r: pb::GetClusterNetworkStatusRequest) -> Result<Encoded> {
        self.status("GetClusterNetworkStatus", &CLUSTER, status_args!(r))
            .await
    }

    /// A status query's answer, encoded: a page read from SQL as its message; a page
    /// read from a status tree as the message without its resources, followed by the
    /// resources written from the tree (see [`tree`]).
    async fn status(&self, method: &str, kind: &'static Kind, args: StatusArgs) -> Result<Encoded> {
        let StatusArgs {
            name: owner,
            output,
            apps,
            clusters,
            resources,
            instance,
            page_size: size,
            page_token,
        } = args;
        let (owner, instance, token) = (owner.as_str(), instance.as_str(), page_token.as_str());
        let owner = name(kind, "name", owner)?;
        let selection = selection(output, apps, clusters, resources)?;
        let instance = if instance.is_empty() {
            None
        } else {
            Some(instance.parse::<InstanceId>().map_err(|_| {
                Error::invalid("instance", format!("{instance:?} is not an instance id"))
            })?)
        };
        let page_size = match size {
            s if s < 0 => return Err(Error::invalid("page_size", "must not be negative")),
            0 => DEFAULT_TREE_PAGE,
            s => (s as usize).min(MAX_TREE_PAGE),
        };
        let Selection {
            output,
            apps,
            clusters,
            resources,
        } = &selection;
        let output = *output;
        let scope =
            format!("{method}:{owner}:{output:?}:{apps:?}:{clusters:?}:{resources:?}:{instance:?}");
        let after: Option<ResourceKey> = decode_token(&scope, token)?;
        let query = StatusQuery {
            selection,
            instance,
            page_size,
            after,
        };
        let started = std::time::Instant::now();
        let mut result = self.app.query(&owner, &query).await?;
        let queried = started.elapsed();
        let next = result
            .next
            .as_ref()
            .map(|key| encode_token(&scope, key))
            .unwrap_or_default();
        let tree_page = result.tree_page.take();
        let message = status_to_proto(result, output, next);
        let mut bytes = Vec::with_capacity(message.encoded_len());
        message.encode_raw(&mut bytes);
        if let Some(page) = &tree_page {
            tree::encode_resources(page, &mut bytes);
        }
        tracing::debug!(
            query_us = queried.as_micros() as u64,
            encode_us = (started.elapsed() - queried).as_micros() as u64,
            tree = tree_page.is_some(),
            bytes = bytes.len(),
            "status query"
        );
        Ok(Encoded(bytes.into()))
    }
}

#[tonic::async_trait]
impl PreEncoded for StatusApi {
    async fn watch(
        &self,
        request: Request<pb::WatchStatusRequest>,
        outbound: Arc<Outbound>,
    ) -> std::result::Result<EncodedStream, Status> {
        Ok(StatusApi::watch(self, check_size(request)?, Some(outbound)).await?)
    }

    async fn dig_status(
        &self,
        request: Request<pb::GetDeploymentIntentGroupStatusRequest>,
    ) -> std::result::Result<Encoded, Status> {
        Ok(StatusApi::dig_status(self, check_size(request)?).await?)
    }

    async fn network_status(
        &self,
        request: Request<pb::GetClusterNetworkStatusRequest>,
    ) -> std::result::Result<Encoded, Status> {
        Ok(StatusApi::network_status(self, check_size(request)?).await?)
    }
}

#[tonic::async_trait]
impl StatusService for StatusApi {
    /// The generated form of [`StatusApi::dig_status`] (the server routes the method
    /// there; see [`crate::wire::routes::StatusRoutes`]).
    async fn get_deployment_intent_group_status(
        &self,
        request: Request<pb::GetDeploymentIntentGroupStatusRequest>,
    ) -> Rpc<pb::ResourceStatus> {
        answer(self.dig_status(check_size(request)?).await)
    }

    /// The generated form of [`StatusApi::network_status`].
    async fn get_cluster_network_status(
        &self,
        request: Request<pb::GetClusterNetworkStatusRequest>,
    ) -> Rpc<pb::ResourceStatus> {
        answer(self.network_status(check_size(request)?).await)
    }

    rpc!(self, list_instances(ListInstancesRequest) -> pb::ListInstancesResponse, |r| {
        let owner: ResourceName = owner_name("name", &r.name)?;
        let scope = format!("ListInstances:{owner}");
        let paging = Paging::<String>::new(scope, r.page_size, &r.page_token)?;
        let size = paging.size;
        let current = self
            .app
            .query(
                &owner,
                &StatusQuery {
                    selection: Selection::everything(Output::Summary),
                    instance: None,
                    page_size: 0,
                    after: None,
                },
            )
            .await?
            .instance
            .map(|i| i.id);
        let rows = self
            .app
            .instances(&owner.to_string(), paging.after.as_deref(), size + 1)
            .await?;
        let (rows, more) = crate::app::page_of(rows, size);
        let next_page_token = paging.next_token(more, rows.last().map(|l| l.id.to_string()));
        Ok(pb::ListInstancesResponse {
            instances: rows
                .iter()
                .map(|row| instance_to_proto(row, Some(row.id) == current))
                .collect(),
            next_page_token,
        })
    });

    /// WatchFleet: the groups of the projects the caller may read and every cluster.
    async fn watch_fleet(&self, request: Request<pb::WatchFleetRequest>) -> Rpc<FleetStream> {
        let projects = super::access::caller(&request)?
            .visible_projects()
            .map(<[String]>::to_vec);
        check_size(request)?;
        let receiver = crate::watch::fleet::start(self.hub.clone(), projects)?;
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }

    /// Only for a StatusServiceServer used without [`crate::wire::routes::StatusRoutes`]
    /// (the server routes WatchStatus to [`StatusApi::watch`]): the same stream,
    /// decoded back into messages.
    async fn watch_status(&self, request: Request<pb::WatchStatusRequest>) -> Rpc<WatchStream> {
        let r = check_size(request)?;
        let stream = self
            .watch(r, None)
            .await?
            .map(|(item, _credit)| item.and_then(decoded));
        Ok(Response::new(Box::pin(stream)))
    }
}

/// A routed method's encoded answer, decoded back into its message.
fn answer<M: Message + Default>(encoded: Result<Encoded>) -> Rpc<M> {
    Ok(Response::new(decoded(encoded?)?))
}

/// An encoded answer decoded back into its message.
fn decoded<M: Message + Default>(encoded: Encoded) -> std::result::Result<M, Status> {
    M::decode(encoded.0).map_err(|e| Status::internal(e.to_string()))
}
