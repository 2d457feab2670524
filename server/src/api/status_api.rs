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

use super::check_size;
use super::convert::{
    check_filters, cluster_id_and_provider, cluster_status_to_proto, conditions_to_proto, count,
    json_into_view_struct, name, owner_name, readiness_to_proto, rsync_status_to_proto, timestamp,
};
use super::page::{Paging, decode_token, encode_token};
use super::tree_wire;
use crate::app::status::{Output, StatusApp, StatusEntry, StatusQuery, StatusResult};
use crate::domain::names::{CLUSTER, DEPLOYMENT_INTENT_GROUP, Kind, ResourceName};
use crate::error::{Error, Result};
use crate::ids::InstanceId;
use crate::store::instance::InstanceRow;
use crate::store::rsync_resource::ResourceKey;
use crate::watch::stream::{self, WatchRequest};
use crate::watch::{Encoded, WatchHub, token};

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
fn parse_output(output: i32) -> Result<Output> {
    match pb::StatusOutput::try_from(output) {
        Ok(pb::StatusOutput::Summary) => Ok(Output::Summary),
        Ok(pb::StatusOutput::All | pb::StatusOutput::Unspecified) => Ok(Output::All),
        Ok(pb::StatusOutput::Detail) => Ok(Output::Detail),
        Ok(pb::StatusOutput::Rsync) => Ok(Output::Rsync),
        Err(_) => Err(Error::invalid(
            "output",
            format!("unknown enum value {output}"),
        )),
    }
}

/// A WatchStatus stream as the server writes it: encoded messages.
pub type EncodedStream = Pin<Box<dyn Stream<Item = std::result::Result<Encoded, Status>> + Send>>;

type WatchStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::WatchStatusResponse, Status>> + Send>>;

impl StatusApi {
    pub fn new(app: StatusApp, hub: Arc<WatchHub>) -> Self {
        Self { app, hub }
    }

    /// WatchStatus with messages encoded once for all subscribers (served by
    /// [`super::status_route::StatusRoutes`]).
    pub async fn watch(&self, r: pb::WatchStatusRequest) -> Result<EncodedStream> {
        let owner = owner_name("name", &r.name)?;
        check_filters(&r.apps, &r.clusters, &r.resources)?;
        let output = parse_output(r.output)?;
        let resume = if r.resume_token.is_empty() {
            None
        } else {
            Some(token::decode(&owner.to_string(), &r.resume_token)?)
        };
        let request = WatchRequest {
            owner,
            output,
            apps: r.apps,
            clusters: r.clusters,
            resources: r.resources,
            resume,
        };
        let receiver = stream::start(self.hub.clone(), self.app.clone(), request).await?;
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
    /// resources written from the tree (see [`tree_wire`]).
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
        check_filters(&apps, &clusters, &resources)?;
        let output = parse_output(output)?;
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
        let scope =
            format!("{method}:{owner}:{output:?}:{apps:?}:{clusters:?}:{resources:?}:{instance:?}");
        let after: Option<ResourceKey> = decode_token(&scope, token)?;
        let query = StatusQuery {
            output,
            apps,
            clusters,
            resources,
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
        let message = to_proto(result, output, next);
        let mut bytes = Vec::with_capacity(message.encoded_len());
        message.encode_raw(&mut bytes);
        if let Some(page) = &tree_page {
            tree_wire::encode_resources(page, &mut bytes);
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

/// (dimension, value) -> count.
pub(crate) type Counts = std::collections::BTreeMap<(String, String), i64>;

/// The three count messages of `counts`; cluster and readiness counts only
/// `with_cluster` (not for RSYNC output).
pub(crate) fn counts_to_proto(
    counts: &Counts,
    with_cluster: bool,
) -> (
    Option<pb::RsyncStatusCounts>,
    Option<pb::ClusterStatusCounts>,
    Option<pb::ReadinessCounts>,
) {
    let c = |dimension: &str, value: &str| {
        count(
            counts
                .get(&(dimension.to_string(), value.to_string()))
                .copied()
                .unwrap_or(0),
        )
    };
    (
        Some(pb::RsyncStatusCounts {
            pending: c("rsync", "Pending"),
            applied: c("rsync", "Applied"),
            failed: c("rsync", "Failed"),
            retrying: c("rsync", "Retrying"),
            terminated: c("rsync", "Terminated"),
            superseded: c("rsync", "Superseded"),
        }),
        with_cluster.then(|| pb::ClusterStatusCounts {
            present: c("cluster", "Present"),
            not_present: c("cluster", "NotPresent"),
            unknown: c("cluster", "Unknown"),
        }),
        with_cluster.then(|| pb::ReadinessCounts {
            ready: c("readiness", "Ready"),
            not_ready: c("readiness", "NotReady"),
        }),
    )
}

pub(crate) fn entry_to_proto(entry: &StatusEntry) -> pb::ResourceStatusEntry {
    entry_into_proto(entry.clone())
}

/// [`entry_to_proto`], moving the entry's strings instead of copying them (a page
/// converts up to 10,000 entries).
fn entry_into_proto(entry: StatusEntry) -> pb::ResourceStatusEntry {
    let object = |value: Option<serde_json::Value>| {
        value
            .filter(|v| v.is_object())
            .map(|v| json_into_view_struct(v, 2))
    };
    pb::ResourceStatusEntry {
        gvk: Some(pb::GroupVersionKind {
            group: entry.key.group,
            version: entry.version,
            kind: entry.key.kind,
        }),
        name: entry.key.name,
        namespace: entry.key.namespace,
        metadata: entry.metadata.map(|v| json_into_view_struct(v, 2)),
        spec: object(entry.spec),
        status: object(entry.status),
        rsync_status: rsync_status_to_proto(entry.rsync_status),
        cluster_status: cluster_status_to_proto(entry.cluster_status),
        readiness: readiness_to_proto(entry.readiness),
    }
}

fn to_proto(result: StatusResult, output: Output, next_page_token: String) -> pb::ResourceStatus {
    let owner = &result.owner;
    let is_dig = owner.kind() == &DEPLOYMENT_INTENT_GROUP;
    let mut resources: Vec<pb::AppResources> = Vec::new();
    // The cluster (full name) of the last entry: entries come grouped by app, then
    // cluster, so the name is split only when it changes.
    let mut last_cluster = String::new();
    for mut entry in result.entries {
        let app_name = std::mem::take(&mut entry.key.app);
        let new_app = resources.last().is_none_or(|a| a.app_name != app_name);
        if new_app {
            resources.push(pb::AppResources {
                app_name,
                clusters: Vec::new(),
            });
        }
        let app = resources.last_mut().expect("just pushed");
        if new_app || last_cluster != entry.key.cluster {
            let cluster = std::mem::take(&mut entry.key.cluster);
            let (id, provider) = cluster_id_and_provider(&cluster);
            app.clusters.push(pb::ClusterResources {
                name: id.to_string(),
                cluster_provider: provider.to_string(),
                resources: Vec::new(),
            });
            last_cluster = cluster;
        }
        app.clusters
            .last_mut()
            .expect("just pushed")
            .resources
            .push(entry_into_proto(entry));
    }
    let (rsync_status, cluster_status, readiness) =
        counts_to_proto(&result.counts, output != Output::Rsync);
    pb::ResourceStatus {
        name: owner.to_string(),
        project: if is_dig {
            owner.id_at(0).to_string()
        } else {
            String::new()
        },
        composite_app_name: if is_dig {
            owner.id_at(1).to_string()
        } else {
            String::new()
        },
        composite_app_version: if is_dig {
            owner.id_at(2).to_string()
        } else {
            String::new()
        },
        composite_profile_name: result.composite_profile.clone(),
        state: result.state.clone(),
        instance: result
            .instance
            .as_ref()
            .map(|i| format!("{}/instances/{}", i.owner, i.id))
            .unwrap_or_default(),
        rsync_status,
        cluster_status,
        readiness,
        resources,
        conditions: conditions_to_proto(&result.conditions),
        next_page_token,
    }
}

fn instance_to_proto(row: &InstanceRow, current: bool) -> pb::Instance {
    pb::Instance {
        name: format!("{}/instances/{}", row.owner, row.id),
        id: row.id.to_string(),
        owner: row.owner.clone(),
        revision: row.revision,
        current,
        terminated: row.terminate_time.is_some(),
        resource_count: count(row.resource_count),
        create_time: timestamp(row.create_time),
        terminate_time: row.terminate_time.and_then(timestamp),
    }
}

#[tonic::async_trait]
impl StatusService for StatusApi {
    /// The generated form of [`StatusApi::dig_status`] (the server routes the method
    /// there; see [`super::status_route::StatusRoutes`]).
    async fn get_deployment_intent_group_status(
        &self,
        request: Request<pb::GetDeploymentIntentGroupStatusRequest>,
    ) -> Rpc<pb::ResourceStatus> {
        let encoded = self.dig_status(check_size(request)?).await?;
        decoded(encoded).map(Response::new)
    }

    /// The generated form of [`StatusApi::network_status`].
    async fn get_cluster_network_status(
        &self,
        request: Request<pb::GetClusterNetworkStatusRequest>,
    ) -> Rpc<pb::ResourceStatus> {
        let encoded = self.network_status(check_size(request)?).await?;
        decoded(encoded).map(Response::new)
    }

    async fn list_instances(
        &self,
        request: Request<pb::ListInstancesRequest>,
    ) -> Rpc<pb::ListInstancesResponse> {
        let r = check_size(request)?;
        let result: Result<pb::ListInstancesResponse> = async {
            let owner: ResourceName = owner_name("name", &r.name)?;
            let scope = format!("ListInstances:{owner}");
            let paging = Paging::<String>::new(scope, r.page_size, &r.page_token)?;
            let size = paging.size;
            let current = self
                .app
                .query(
                    &owner,
                    &StatusQuery {
                        output: Output::Summary,
                        apps: vec![],
                        clusters: vec![],
                        resources: vec![],
                        instance: None,
                        page_size: 0,
                        after: None,
                    },
                )
                .await?
                .instance
                .map(|i| i.id);
            let mut rows = self
                .app
                .instances(&owner.to_string(), paging.after.as_deref(), size + 1)
                .await?;
            let more = rows.len() > size;
            rows.truncate(size);
            let next_page_token = paging.next_token(more, rows.last().map(|l| l.id.to_string()));
            Ok(pb::ListInstancesResponse {
                instances: rows
                    .iter()
                    .map(|row| instance_to_proto(row, Some(row.id) == current))
                    .collect(),
                next_page_token,
            })
        }
        .await;
        result.map(Response::new).map_err(Status::from)
    }

    /// Only for a StatusServiceServer used without [`super::status_route::StatusRoutes`]
    /// (the server routes WatchStatus to [`StatusApi::watch`]): the same stream,
    /// decoded back into messages.
    async fn watch_status(&self, request: Request<pb::WatchStatusRequest>) -> Rpc<WatchStream> {
        let r = check_size(request)?;
        let stream = self.watch(r).await?.map(|item| item.and_then(decoded));
        Ok(Response::new(Box::pin(stream)))
    }
}

/// An encoded answer decoded back into its message.
fn decoded<M: Message + Default>(encoded: Encoded) -> std::result::Result<M, Status> {
    M::decode(encoded.0).map_err(|e| Status::internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::status_tree::Tree;
    use crate::domain::readiness::{ClusterStatus, Readiness};
    use crate::domain::status::RsyncStatus;
    use crate::store::rsync_resource::ResourceFilter;

    fn entry(
        app: &str,
        cluster: &str,
        kind: &str,
        group: &str,
        name: &str,
        n: usize,
    ) -> StatusEntry {
        StatusEntry {
            key: ResourceKey {
                app: app.into(),
                cluster: format!("clusterProviders/edge/clusters/{cluster}"),
                kind: kind.into(),
                group: group.into(),
                namespace: if n.is_multiple_of(3) {
                    String::new()
                } else {
                    "default".into()
                },
                name: name.into(),
            },
            version: "v1".into(),
            rsync_status: [
                None,
                Some(RsyncStatus::Pending),
                Some(RsyncStatus::Applied),
                Some(RsyncStatus::Failed),
                Some(RsyncStatus::Retrying),
                Some(RsyncStatus::Terminated),
                Some(RsyncStatus::Superseded),
            ][n % 7],
            cluster_status: [
                None,
                Some(ClusterStatus::Unknown),
                Some(ClusterStatus::NotPresent),
                Some(ClusterStatus::Present),
            ][n % 4],
            readiness: [Readiness::None, Readiness::Ready, Readiness::NotReady][n % 3],
            metadata: None,
            spec: None,
            status: None,
        }
    }

    /// Entries in key order over a few apps and clusters, with every enum value and
    /// empty and long strings.
    fn entries() -> Vec<StatusEntry> {
        let mut entries = Vec::new();
        let mut n = 0;
        for app in ["alpha", "beta", "gamma"] {
            for cluster in ["c1", "c2", "c3"] {
                for (kind, group) in [("ConfigMap", ""), ("Deployment", "apps")] {
                    for i in 0..5 {
                        n += 1;
                        let name = format!("{app}-{}-{i}", "x".repeat(n * 7 % 200));
                        entries.push(entry(app, cluster, kind, group, &name, n));
                    }
                }
            }
        }
        entries.sort_by(|a, b| a.key.columns().cmp(&b.key.columns()));
        entries
    }

    /// The `resources` prost writes for `entries` grouped as SQL pages are.
    fn prost_bytes(entries: Vec<StatusEntry>) -> Vec<u8> {
        let owner = ResourceName::parse(
            &DEPLOYMENT_INTENT_GROUP,
            "name",
            "projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d",
        )
        .unwrap();
        let result = StatusResult {
            owner,
            state: String::new(),
            composite_profile: String::new(),
            instance: None,
            counts: Counts::new(),
            entries,
            tree_page: None,
            next: None,
            conditions: Vec::new(),
        };
        let message = to_proto(result, Output::All, String::new());
        pb::ResourceStatus {
            resources: message.resources,
            ..Default::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn tree_pages_are_written_as_prost_writes_them() {
        let all = entries();
        let tree = Tree::of_entries(InstanceId::new(), all.clone());
        let filters = [
            ResourceFilter::default(),
            ResourceFilter {
                apps: vec!["beta".into()],
                ..Default::default()
            },
            ResourceFilter {
                clusters: vec!["clusterProviders/edge/clusters/c2".into()],
                ..Default::default()
            },
        ];
        for filter in &filters {
            for page_size in [1, 4, 7, 1000] {
                let mut after: Option<ResourceKey> = None;
                let mut pages = 0;
                loop {
                    let query = StatusQuery::all_page(None, page_size, after.clone());
                    let (page, next) = tree.page(filter, &query);
                    let expected: Vec<StatusEntry> = all
                        .iter()
                        .filter(|e| {
                            after.as_ref().is_none_or(|a| e.key.columns() > a.columns())
                                && filter.matches(&e.key.app, &e.key.cluster, &e.key.name)
                        })
                        .take(page_size)
                        .cloned()
                        .collect();
                    assert_eq!(page.len(), expected.len());
                    let mut bytes = Vec::new();
                    tree_wire::encode_resources(&page, &mut bytes);
                    assert_eq!(
                        bytes,
                        prost_bytes(expected.clone()),
                        "{filter:?} {page_size}"
                    );
                    pages += 1;
                    match next {
                        Some(key) => {
                            assert_eq!(Some(&key), expected.last().map(|e| &e.key));
                            after = Some(key);
                        }
                        None => break,
                    }
                }
                assert!(pages > 1 || page_size == 1000);
            }
        }
    }
}
