//! LifecycleService handlers: decode and validate the request, call one use case of
//! `app::lifecycle`, encode the response.

use flotilla_api::v1 as pb;
use pb::lifecycle_service_server::LifecycleService;
use prost::Message;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::page::Paging;
use super::{request_key, rpc};
use crate::app::cpu::off_executor;
use crate::app::lifecycle::{Lifecycle, Verb};
use crate::domain::lifecycle::NetworkOp;
use crate::domain::names::{
    APP, APP_PROFILE, CLUSTER, CLUSTER_PROVIDER, COMPOSITE_APP, COMPOSITE_PROFILE,
    DEPLOYMENT_INTENT_GROUP, Kind, NETWORK_INTENT, PLACEMENT_INTENT, PROJECT, ResourceName,
};
use crate::domain::resources::{
    AppProfileSpec, AppSpec, ClusterProviderSpec, CompositeAppSpec, CompositeProfileSpec,
    NetworkIntentSpec, PlacementIntentSpec, ProjectSpec,
};
use crate::error::{Error, Result};
use crate::ids::InstanceId;
use crate::store::object::Object;
use crate::store::rsync_resource::{ResourceFilter, ResourceKey};
use crate::wire::convert::*;

/// The LifecycleService implementation.
pub struct LifecycleApi {
    app: Lifecycle,
}

/// One page of `kind`'s objects under `parent` (AIP-158; the page token is bound to the
/// listing `List{Plural}:{parent}`), and the token of the next page.
pub(super) async fn object_page<S: DeserializeOwned>(
    app: &Lifecycle,
    kind: &'static Kind,
    parent: Option<&ResourceName>,
    size: i32,
    token: &str,
) -> Result<(Vec<Object<S>>, String)> {
    let scope = format!(
        "{}:{}",
        kind.method("List"),
        parent.map(ToString::to_string).unwrap_or_default()
    );
    let paging = Paging::<String>::new(scope, size, token)?;
    let after = paging.after.as_deref().unwrap_or_default();
    let page = app.list::<S>(kind, parent, after, paging.size).await?;
    let next = paging.next_token(page.more, page.items.last().map(|o| o.name.to_string()));
    Ok((page.items, next))
}

impl LifecycleApi {
    pub fn new(app: Lifecycle) -> Self {
        Self { app }
    }

    /// Lists one page of a plain kind.
    async fn list_page<S, P>(
        &self,
        kind: &'static Kind,
        parent: Option<ResourceName>,
        size: i32,
        token: &str,
        to_proto: fn(&Object<S>) -> P,
    ) -> Result<(Vec<P>, String)>
    where
        S: DeserializeOwned,
    {
        let (objects, next) = object_page(&self.app, kind, parent.as_ref(), size, token).await?;
        Ok((objects.iter().map(to_proto).collect(), next))
    }

    /// Creates a plain resource `{parent}/{collection}/{id}`.
    async fn create_plain<S, P>(
        &self,
        name: ResourceName,
        spec: S,
        key: Option<crate::app::RequestKey>,
        to_proto: fn(&Object<S>) -> P,
    ) -> Result<P>
    where
        S: Serialize + DeserializeOwned + Clone,
    {
        let object = self.app.create(name, spec, key.as_ref()).await?;
        Ok(to_proto(&object))
    }

    /// Updates a plain resource: overlays the masked fields of `incoming` on the
    /// current resource and validates the result as a whole.
    #[allow(clippy::too_many_arguments)]
    async fn update_plain<S, P>(
        &self,
        kind: &'static Kind,
        field: &str,
        incoming: Option<P>,
        mask: Option<&prost_types::FieldMask>,
        updatable: &[&'static str],
        to_proto: fn(&Object<S>) -> P,
        from_proto: fn(&P) -> Result<S>,
        overlay: fn(&mut P, P, &[&str]),
    ) -> Result<P>
    where
        S: Serialize + DeserializeOwned + Clone,
        P: Resource + Message + Clone,
    {
        let incoming = incoming.ok_or_else(|| Error::invalid(field, "is required"))?;
        let name = name(kind, &format!("{field}.name"), incoming.name())?;
        let etag = parse_etag(incoming.etag());
        let paths = mask_paths(mask, updatable)?;
        let weight = incoming.encoded_len();
        let object = self
            .app
            .update(&name, etag, weight, |current: &Object<S>| {
                let mut merged = to_proto(current);
                overlay(&mut merged, incoming.clone(), &paths);
                from_proto(&merged)
            })
            .await?;
        Ok(to_proto(&object))
    }
}

/// Proto resources: their name and etag.
pub trait Resource {
    fn name(&self) -> &str;
    fn etag(&self) -> &str;
}

macro_rules! resource {
    ($($ty:ty),+) => {
        $(impl Resource for $ty {
            fn name(&self) -> &str { &self.name }
            fn etag(&self) -> &str { &self.etag }
        })+
    };
}

resource!(
    pb::Project,
    pb::CompositeApp,
    pb::App,
    pb::CompositeProfile,
    pb::AppProfile,
    pb::DeploymentIntentGroup,
    pb::PlacementIntent,
    pb::ClusterProvider,
    pb::Cluster,
    pb::NetworkIntent
);

/// The RPC's name (for idempotency scopes and page tokens): its request type less
/// `Request`.
macro_rules! rpc_name {
    ($req:ident) => {
        stringify!($req).trim_end_matches("Request")
    };
}

/// A plain kind (a name, a parent, a spec; no lifecycle of their own) is one
/// declaration: its five RPCs come from `create_rpc!`, `get_rpc!`, `list_rpc!`,
/// `update_rpc!` and `delete_rpc!`, each a handler that validates, calls the generic
/// use case of `app::lifecycle` and encodes. `none` is the parent of top-level kinds;
/// a kind whose listing is its own leaves `list` out.
macro_rules! plain_kind {
    ($kind:ident under $parent:tt: $spec:ty => pb::$proto:ident {
        field: $field:ident, ids: [$($id:ident),+], updatable: [$($path:literal),+],
        convert: ($to:path, $from:path, $overlay:path),
        create: $create:ident($create_req:ident),
        get: $get:ident($get_req:ident),
        $(list: $list:ident($list_req:ident) -> $list_out:ident { $items:ident },)?
        update: $update:ident($update_req:ident),
        delete: $delete:ident($delete_req:ident),
    }) => {
        create_rpc!($create($create_req) -> $proto, $kind, $parent, [$($id),+], $field, $from, $to);
        get_rpc!($get($get_req) -> $proto, $kind, $spec, $to);
        $(list_rpc!($list($list_req) -> $list_out { $items }, $kind, $parent, $to);)?
        update_rpc!($update($update_req) -> $proto, $kind, $field, [$($path),+], $to, $from, $overlay);
        delete_rpc!($delete($delete_req), $kind);
    };
}

macro_rules! parent_of {
    ($req:ident, none) => {
        None
    };
    ($req:ident, $kind:expr) => {
        Some(name(&$kind, "parent", &$req.parent)?)
    };
}

macro_rules! create_rpc {
    ($method:ident($req:ident) -> $out:ident, $kind:expr, $parent:tt,
     [$($id:ident),+], $body:ident, $from:path, $to:path) => {
        rpc!(self, $method($req) -> pb::$out, |req| {
            let parent: Option<ResourceName> = parent_of!(req, $parent);
            $(id(stringify!($id), &req.$id)?;)+
            let body = req.$body.clone().unwrap_or_default();
            let spec = off_executor(body.encoded_len(), || $from(&body)).await?;
            let scope = parent.as_ref().map(ToString::to_string).unwrap_or_default();
            let key = request_key(rpc_name!($req), &scope, &req.request_id, &req)?;
            let name = ResourceName::child(&$kind, parent.as_ref(), &[$(&req.$id),+]);
            self.create_plain(name, spec, key, $to).await
        });
    };
}

macro_rules! get_rpc {
    ($method:ident($req:ident) -> $out:ident, $kind:expr, fn $get:ident, $to:path) => {
        rpc!(self, $method($req) -> pb::$out, |req| {
            Ok($to(&self.app.$get(&name(&$kind, "name", &req.name)?).await?))
        });
    };
    ($method:ident($req:ident) -> $out:ident, $kind:expr, $spec:ty, $to:path) => {
        rpc!(self, $method($req) -> pb::$out, |req| {
            let object: Object<$spec> = self.app.get(&name(&$kind, "name", &req.name)?).await?;
            Ok($to(&object))
        });
    };
}

macro_rules! list_rpc {
    ($method:ident($req:ident) -> $out:ident { $items:ident }, $kind:expr, $parent:tt,
     $to:path) => {
        rpc!(self, $method($req) -> pb::$out, |req| {
            let parent: Option<ResourceName> = parent_of!(req, $parent);
            let ($items, next_page_token) = self
                .list_page(&$kind, parent, req.page_size, &req.page_token, $to)
                .await?;
            Ok(pb::$out {
                $items,
                next_page_token,
            })
        });
    };
}

macro_rules! update_rpc {
    ($method:ident($req:ident) -> $out:ident, $kind:expr, $field:ident, [$($path:literal),+],
     $to:path, $from:path, $overlay:path) => {
        rpc!(self, $method($req) -> pb::$out, |req| {
            self.update_plain(
                &$kind,
                stringify!($field),
                req.$field,
                req.update_mask.as_ref(),
                &[$($path),+],
                $to,
                $from,
                $overlay,
            )
            .await
        });
    };
}

macro_rules! delete_rpc {
    ($method:ident($req:ident), $kind:expr, $delete:ident) => {
        rpc!(self, $method($req) -> (), |req| {
            let name = name(&$kind, "name", &req.name)?;
            self.app.$delete(&name, parse_etag(&req.etag)).await
        });
    };
    ($method:ident($req:ident), $kind:expr) => {
        delete_rpc!($method($req), $kind, delete);
    };
}

/// A verb on a named resource guarded by its etag, idempotent by `request_id`
/// (approve, instantiate, terminate, apply).
macro_rules! verb_rpc {
    ($method:ident($req:ident) -> $out:ident, $kind:expr, $run:ident($verb:expr), $to:path) => {
        rpc!(self, $method($req) -> pb::$out, |req| {
            let name = name(&$kind, "name", &req.name)?;
            let key = request_key(rpc_name!($req), &req.name, &req.request_id, &req)?;
            let etag = parse_etag(&req.etag);
            Ok($to(&self.app.$run(&name, $verb, etag, key.as_ref()).await?))
        });
    };
}

#[tonic::async_trait]
impl LifecycleService for LifecycleApi {
    // --- projects ------------------------------------------------------------
    plain_kind!(PROJECT under none: ProjectSpec => pb::Project {
        field: project, ids: [project_id], updatable: ["description", "labels"],
        convert: (project_to_proto, project_from_proto, project_overlay),
        create: create_project(CreateProjectRequest),
        get: get_project(GetProjectRequest),
        update: update_project(UpdateProjectRequest),
        delete: delete_project(DeleteProjectRequest),
    });

    rpc!(self, list_projects(ListProjectsRequest) -> pb::ListProjectsResponse, |req, principal| {
        let (projects, next_page_token) = match principal.visible_projects() {
            None => {
                self.list_page(
                    &PROJECT,
                    None,
                    req.page_size,
                    &req.page_token,
                    project_to_proto,
                )
                .await?
            }
            // A token confined to projects lists those that exist.
            Some(ids) => {
                let paging = Paging::<String>::new(
                    "ListProjects:".into(),
                    req.page_size,
                    &req.page_token,
                )?;
                let after = paging.after.as_deref().unwrap_or_default();
                let page = self
                    .app
                    .list_projects_among::<ProjectSpec>(ids, after, paging.size)
                    .await?;
                let next =
                    paging.next_token(page.more, page.items.last().map(|l| l.name.to_string()));
                (page.items.iter().map(project_to_proto).collect(), next)
            }
        };
        Ok(pb::ListProjectsResponse {
            projects,
            next_page_token,
        })

    });

    // --- composite apps ------------------------------------------------------
    plain_kind!(COMPOSITE_APP under PROJECT: CompositeAppSpec => pb::CompositeApp {
        field: composite_app, ids: [composite_app_id, version_id], updatable: ["description"],
        convert: (composite_app_to_proto, composite_app_from_proto, composite_app_overlay),
        create: create_composite_app(CreateCompositeAppRequest),
        get: get_composite_app(GetCompositeAppRequest),
        list: list_composite_apps(ListCompositeAppsRequest) -> ListCompositeAppsResponse { composite_apps },
        update: update_composite_app(UpdateCompositeAppRequest),
        delete: delete_composite_app(DeleteCompositeAppRequest),
    });

    // --- apps ----------------------------------------------------------------
    plain_kind!(APP under COMPOSITE_APP: AppSpec => pb::App {
        field: app, ids: [app_id], updatable: ["description", "manifests"],
        convert: (app_to_proto, app_from_proto, app_overlay),
        create: create_app(CreateAppRequest),
        get: get_app(GetAppRequest),
        list: list_apps(ListAppsRequest) -> ListAppsResponse { apps },
        update: update_app(UpdateAppRequest),
        delete: delete_app(DeleteAppRequest),
    });

    // --- composite profiles --------------------------------------------------
    plain_kind!(COMPOSITE_PROFILE under COMPOSITE_APP: CompositeProfileSpec => pb::CompositeProfile {
        field: composite_profile, ids: [composite_profile_id], updatable: ["description"],
        convert: (composite_profile_to_proto, composite_profile_from_proto, composite_profile_overlay),
        create: create_composite_profile(CreateCompositeProfileRequest),
        get: get_composite_profile(GetCompositeProfileRequest),
        list: list_composite_profiles(ListCompositeProfilesRequest) -> ListCompositeProfilesResponse { composite_profiles },
        update: update_composite_profile(UpdateCompositeProfileRequest),
        delete: delete_composite_profile(DeleteCompositeProfileRequest),
    });

    // --- app profiles --------------------------------------------------------
    plain_kind!(APP_PROFILE under COMPOSITE_PROFILE: AppProfileSpec => pb::AppProfile {
        field: app_profile, ids: [app_profile_id], updatable: ["description", "app", "patches"],
        convert: (app_profile_to_proto, app_profile_from_proto, app_profile_overlay),
        create: create_app_profile(CreateAppProfileRequest),
        get: get_app_profile(GetAppProfileRequest),
        list: list_app_profiles(ListAppProfilesRequest) -> ListAppProfilesResponse { app_profiles },
        update: update_app_profile(UpdateAppProfileRequest),
        delete: delete_app_profile(DeleteAppProfileRequest),
    });

    // --- deployment intent groups --------------------------------------------
    rpc!(self, create_deployment_intent_group(CreateDeploymentIntentGroupRequest) -> pb::DeploymentIntentGroup, |req| {
        let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
        id(
            "deployment_intent_group_id",
            &req.deployment_intent_group_id,
        )?;
        let spec = dig_from_proto(&req.deployment_intent_group.clone().unwrap_or_default())?;
        let key = request_key(
            "CreateDeploymentIntentGroup",
            &req.parent,
            &req.request_id,
            &req,
        )?;
        let name = ResourceName::child(
            &DEPLOYMENT_INTENT_GROUP,
            Some(&parent),
            &[&req.deployment_intent_group_id],
        );
        Ok(dig_to_proto(
            &self.app.create_dig(name, spec, key.as_ref()).await?,
        ))

    });

    get_rpc!(get_deployment_intent_group(GetDeploymentIntentGroupRequest) -> DeploymentIntentGroup, DEPLOYMENT_INTENT_GROUP, fn get_dig, dig_to_proto);

    rpc!(self, list_deployment_intent_groups(ListDeploymentIntentGroupsRequest) -> pb::ListDeploymentIntentGroupsResponse, |req| {
        let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
        let scope = format!("ListDeploymentIntentGroups:{parent}");
        let paging = Paging::<String>::new(scope, req.page_size, &req.page_token)?;
        let after = paging.after.as_deref().unwrap_or_default();
        let page = self.app.list_digs(&parent, after, paging.size).await?;
        let next_page_token = paging.next_token(
            page.more,
            page.items.last().map(|l| l.object.name.to_string()),
        );
        Ok(pb::ListDeploymentIntentGroupsResponse {
            deployment_intent_groups: page.items.iter().map(dig_to_proto).collect(),
            next_page_token,
        })

    });

    rpc!(self, update_deployment_intent_group(UpdateDeploymentIntentGroupRequest) -> pb::DeploymentIntentGroup, |req| {
        let incoming = req
            .deployment_intent_group
            .ok_or_else(|| Error::invalid("deployment_intent_group", "is required"))?;
        let name = name(
            &DEPLOYMENT_INTENT_GROUP,
            "deployment_intent_group.name",
            &incoming.name,
        )?;
        let etag = parse_etag(&incoming.etag);
        let paths = mask_paths(
            req.update_mask.as_ref(),
            &["description", "composite_profile", "override_values"],
        )?;
        let view = self
            .app
            .update_dig(&name, etag, |current| {
                let mut merged = dig_spec_to_proto(current);
                dig_overlay(&mut merged, incoming, &paths);
                dig_from_proto(&merged)
            })
            .await?;
        Ok(dig_to_proto(&view))

    });

    delete_rpc!(
        delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest),
        DEPLOYMENT_INTENT_GROUP,
        delete_dig
    );

    verb_rpc!(approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest) -> DeploymentIntentGroup, DEPLOYMENT_INTENT_GROUP, run_dig_verb(Verb::Approve), dig_to_proto);

    verb_rpc!(instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest) -> DeploymentIntentGroup, DEPLOYMENT_INTENT_GROUP, run_dig_verb(Verb::Instantiate), dig_to_proto);

    verb_rpc!(terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest) -> DeploymentIntentGroup, DEPLOYMENT_INTENT_GROUP, run_dig_verb(Verb::Terminate), dig_to_proto);

    verb_rpc!(rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest) -> DeploymentIntentGroup, DEPLOYMENT_INTENT_GROUP, run_dig_verb(Verb::Rollout), dig_to_proto);

    rpc!(self, rollback_deployment_intent_group(RollbackDeploymentIntentGroupRequest) -> pb::DeploymentIntentGroup, |req| {
        let name = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
        if req.revision <= 0 {
            return Err(Error::invalid(
                "revision",
                "must be a content revision of the group (1 or more; see its history)",
            ));
        }
        let key = request_key(rpc_name!(RollbackDeploymentIntentGroupRequest), &req.name, &req.request_id, &req)?;
        let etag = parse_etag(&req.etag);
        Ok(dig_to_proto(&self.app.run_dig_verb(&name, Verb::Rollback(req.revision), etag, key.as_ref()).await?))
    });

    rpc!(self, migrate_deployment_intent_group(MigrateDeploymentIntentGroupRequest) -> pb::DeploymentIntentGroup, |req| {
        let source = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
        let target = name(&DEPLOYMENT_INTENT_GROUP, "target", &req.target)?;
        let key = request_key(rpc_name!(MigrateDeploymentIntentGroupRequest), &req.name, &req.request_id, &req)?;
        let etag = parse_etag(&req.etag);
        Ok(dig_to_proto(&self.app.migrate_dig(&source, &target, etag, key.as_ref()).await?))
    });

    // --- placement intents ---------------------------------------------------
    plain_kind!(PLACEMENT_INTENT under DEPLOYMENT_INTENT_GROUP: PlacementIntentSpec => pb::PlacementIntent {
        field: placement_intent, ids: [placement_intent_id], updatable: ["description", "app", "cluster_provider", "cluster_names", "cluster_selector"],
        convert: (placement_intent_to_proto, placement_intent_from_proto, placement_intent_overlay),
        create: create_placement_intent(CreatePlacementIntentRequest),
        get: get_placement_intent(GetPlacementIntentRequest),
        list: list_placement_intents(ListPlacementIntentsRequest) -> ListPlacementIntentsResponse { placement_intents },
        update: update_placement_intent(UpdatePlacementIntentRequest),
        delete: delete_placement_intent(DeletePlacementIntentRequest),
    });

    // --- cluster providers ---------------------------------------------------
    plain_kind!(CLUSTER_PROVIDER under none: ClusterProviderSpec => pb::ClusterProvider {
        field: cluster_provider, ids: [cluster_provider_id], updatable: ["description", "labels"],
        convert: (cluster_provider_to_proto, cluster_provider_from_proto, cluster_provider_overlay),
        create: create_cluster_provider(CreateClusterProviderRequest),
        get: get_cluster_provider(GetClusterProviderRequest),
        list: list_cluster_providers(ListClusterProvidersRequest) -> ListClusterProvidersResponse { cluster_providers },
        update: update_cluster_provider(UpdateClusterProviderRequest),
        delete: delete_cluster_provider(DeleteClusterProviderRequest),
    });

    // --- clusters ------------------------------------------------------------
    rpc!(self, create_cluster(CreateClusterRequest) -> pb::Cluster, |req| {
        let parent = name(&CLUSTER_PROVIDER, "parent", &req.parent)?;
        id("cluster_id", &req.cluster_id)?;
        let spec = cluster_from_proto(&req.cluster.clone().unwrap_or_default())?;
        let key = request_key("CreateCluster", &req.parent, &req.request_id, &req)?;
        let name = ResourceName::child(&CLUSTER, Some(&parent), &[&req.cluster_id]);
        Ok(cluster_to_proto(
            &self.app.create_cluster(name, spec, key.as_ref()).await?,
        ))

    });

    get_rpc!(get_cluster(GetClusterRequest) -> Cluster, CLUSTER, fn get_cluster, cluster_to_proto);

    rpc!(self, list_clusters(ListClustersRequest) -> pb::ListClustersResponse, |req| {
        let parent = name(&CLUSTER_PROVIDER, "parent", &req.parent)?;
        let selector = labels(&req.label_selector);
        let scope = format!("ListClusters:{parent}:{}", serde_json::json!(selector));
        let paging = Paging::<String>::new(scope, req.page_size, &req.page_token)?;
        let after = paging.after.as_deref().unwrap_or_default();
        let page = self
            .app
            .list_clusters(&parent, &selector, after, paging.size)
            .await?;
        let next_page_token = paging.next_token(
            page.more,
            page.items.last().map(|l| l.object.name.to_string()),
        );
        Ok(pb::ListClustersResponse {
            clusters: page.items.iter().map(cluster_to_proto).collect(),
            next_page_token,
        })

    });

    rpc!(self, update_cluster(UpdateClusterRequest) -> pb::Cluster, |req| {
        let incoming = req
            .cluster
            .ok_or_else(|| Error::invalid("cluster", "is required"))?;
        let name = name(&CLUSTER, "cluster.name", &incoming.name)?;
        let etag = parse_etag(&incoming.etag);
        let paths = mask_paths(req.update_mask.as_ref(), &["description", "labels"])?;
        let view = self
            .app
            .update_cluster(&name, etag, |current| {
                let mut merged = cluster_spec_to_proto(&current.spec);
                cluster_overlay(&mut merged, incoming.clone(), &paths);
                cluster_from_proto(&merged)
            })
            .await?;
        Ok(cluster_to_proto(&view))

    });

    get_rpc!(rotate_cluster_agent_token(RotateClusterAgentTokenRequest) -> Cluster, CLUSTER, fn rotate_agent_token, cluster_to_proto);

    delete_rpc!(
        delete_cluster(DeleteClusterRequest),
        CLUSTER,
        delete_cluster
    );

    // --- network intents -----------------------------------------------------
    plain_kind!(NETWORK_INTENT under CLUSTER: NetworkIntentSpec => pb::NetworkIntent {
        field: network_intent, ids: [network_intent_id], updatable: ["description", "spec"],
        convert: (network_intent_to_proto, network_intent_from_proto, network_intent_overlay),
        create: create_network_intent(CreateNetworkIntentRequest),
        get: get_network_intent(GetNetworkIntentRequest),
        list: list_network_intents(ListNetworkIntentsRequest) -> ListNetworkIntentsResponse { network_intents },
        update: update_network_intent(UpdateNetworkIntentRequest),
        delete: delete_network_intent(DeleteNetworkIntentRequest),
    });

    verb_rpc!(apply_cluster_network_intents(ApplyClusterNetworkIntentsRequest) -> Cluster, CLUSTER, network_intents_verb(NetworkOp::Apply), cluster_to_proto);

    verb_rpc!(terminate_cluster_network_intents(TerminateClusterNetworkIntentsRequest) -> Cluster, CLUSTER, network_intents_verb(NetworkOp::Terminate), cluster_to_proto);

    // --- rendered resources --------------------------------------------------
    rpc!(self, list_rendered_resources(ListRenderedResourcesRequest) -> pb::ListRenderedResourcesResponse, |req| {
        let (owner, instance) = parse_instance_parent(&req.parent)?;
        check_filters(&req.apps, &req.clusters, &[])?;
        let scope = format!(
            "ListRenderedResources:{}:{:?}:{:?}",
            req.parent, req.apps, req.clusters
        );
        let paging = Paging::<ResourceKey>::new(scope, req.page_size, &req.page_token)?;
        let filter = ResourceFilter {
            apps: req.apps.clone(),
            clusters: req.clusters.clone(),
            ..Default::default()
        };
        let page = self
            .app
            .list_rendered(
                &owner,
                instance,
                &filter,
                paging.after.as_ref(),
                paging.size,
            )
            .await?;
        let next_page_token =
            paging.next_token(page.more, page.resources.last().map(|l| l.key()));
        Ok(pb::ListRenderedResourcesResponse {
            instance: format!("{}/instances/{}", page.instance.owner, page.instance.id),
            total_size: count(page.instance.resource_count),
            rendered_resources: page.resources.iter().map(rendered_to_proto).collect(),
            next_page_token,
        })

    });
}

/// Parses `{owner}/instances/{id}` or a bare owner (intent group or cluster).
fn parse_instance_parent(parent: &str) -> Result<(ResourceName, Option<InstanceId>)> {
    let (owner, instance) = match parent.rsplit_once("/instances/") {
        Some((owner, id)) => {
            let id: InstanceId = id
                .parse()
                .map_err(|_| Error::invalid("parent", format!("{id:?} is not an instance id")))?;
            (owner, Some(id))
        }
        None => (parent, None),
    };
    Ok((owner_name("parent", owner)?, instance))
}
