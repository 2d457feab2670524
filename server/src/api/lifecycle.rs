//! LifecycleService handlers: decode and validate the request, call one use case of
//! `app::lifecycle`, encode the response.

use flotilla_api::v1 as pb;
use pb::lifecycle_service_server::LifecycleService;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::{Request, Response, Status};

use super::access::caller;
use super::convert::*;
use super::page::{decode_token, encode_token, page_size};
use super::{check_size, empty, ok, request_key};
use crate::app::lifecycle::Lifecycle;
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

type Rpc<T> = std::result::Result<Response<T>, Status>;

/// The LifecycleService implementation.
pub struct LifecycleApi {
    app: Lifecycle,
}

impl LifecycleApi {
    pub fn new(app: Lifecycle) -> Self {
        Self { app }
    }

    /// Lists one page of a plain kind.
    async fn list_page<S, P>(
        &self,
        method: &str,
        kind: &'static Kind,
        parent: Option<ResourceName>,
        size: i32,
        token: &str,
        to_proto: fn(&Object<S>) -> P,
    ) -> Result<(Vec<P>, String)>
    where
        S: DeserializeOwned,
    {
        let size = page_size(size)?;
        let scope = format!(
            "{method}:{}",
            parent.as_ref().map(ToString::to_string).unwrap_or_default()
        );
        let after: String = decode_token(&scope, token)?.unwrap_or_default();
        let page = self
            .app
            .list::<S>(kind, parent.as_ref(), &after, size)
            .await?;
        let next = match (page.more, page.items.last()) {
            (true, Some(last)) => encode_token(&scope, &last.name.to_string()),
            _ => String::new(),
        };
        Ok((page.items.iter().map(to_proto).collect(), next))
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
        P: Resource,
    {
        let incoming = incoming.ok_or_else(|| Error::invalid(field, "is required"))?;
        let name = name(kind, &format!("{field}.name"), incoming.name())?;
        let etag = parse_etag(&format!("{field}.etag"), incoming.etag())?;
        let paths = mask_paths(mask, updatable)?;
        let object = self
            .app
            .update(&name, etag, |current: &Object<S>| {
                let mut merged = to_proto(current);
                overlay(&mut merged, incoming, &paths);
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

#[tonic::async_trait]
impl LifecycleService for LifecycleApi {
    // --- projects -------------------------------------------------------------------

    async fn create_project(&self, request: Request<pb::CreateProjectRequest>) -> Rpc<pb::Project> {
        ok(async {
            let req = check_size(request)?;
            id("project_id", &req.project_id)?;
            let spec = project_from_proto(&req.project.clone().unwrap_or_default())?;
            let key = request_key("CreateProject", "", &req.request_id, &req)?;
            let name = ResourceName::child(&PROJECT, None, &[&req.project_id]);
            self.create_plain(name, spec, key, project_to_proto).await
        }
        .await)
    }

    async fn get_project(&self, request: Request<pb::GetProjectRequest>) -> Rpc<pb::Project> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<ProjectSpec> =
                self.app.get(&name(&PROJECT, "name", &req.name)?).await?;
            Ok(project_to_proto(&object))
        }
        .await)
    }

    async fn list_projects(
        &self,
        request: Request<pb::ListProjectsRequest>,
    ) -> Rpc<pb::ListProjectsResponse> {
        ok(async {
            let principal = caller(&request)?;
            let req = check_size(request)?;
            let (projects, next_page_token) = match principal.visible_projects() {
                None => {
                    self.list_page(
                        "ListProjects",
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
                    let size = page_size(req.page_size)?;
                    let scope = "ListProjects:";
                    let after: String = decode_token(scope, &req.page_token)?.unwrap_or_default();
                    let page = self
                        .app
                        .list_projects_among::<ProjectSpec>(ids, &after, size)
                        .await?;
                    let next = match (page.more, page.items.last()) {
                        (true, Some(last)) => encode_token(scope, &last.name.to_string()),
                        _ => String::new(),
                    };
                    (page.items.iter().map(project_to_proto).collect(), next)
                }
            };
            Ok(pb::ListProjectsResponse {
                projects,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_project(&self, request: Request<pb::UpdateProjectRequest>) -> Rpc<pb::Project> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &PROJECT,
                "project",
                req.project,
                req.update_mask.as_ref(),
                &["description", "labels"],
                project_to_proto,
                project_from_proto,
                project_overlay,
            )
            .await
        }
        .await)
    }

    async fn delete_project(&self, request: Request<pb::DeleteProjectRequest>) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&PROJECT, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- composite apps -------------------------------------------------------------

    async fn create_composite_app(
        &self,
        request: Request<pb::CreateCompositeAppRequest>,
    ) -> Rpc<pb::CompositeApp> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&PROJECT, "parent", &req.parent)?;
            id("composite_app_id", &req.composite_app_id)?;
            id("version_id", &req.version_id)?;
            let spec = composite_app_from_proto(&req.composite_app.clone().unwrap_or_default())?;
            let key = request_key("CreateCompositeApp", &req.parent, &req.request_id, &req)?;
            let name = ResourceName::child(
                &COMPOSITE_APP,
                Some(&parent),
                &[&req.composite_app_id, &req.version_id],
            );
            self.create_plain(name, spec, key, composite_app_to_proto)
                .await
        }
        .await)
    }

    async fn get_composite_app(
        &self,
        request: Request<pb::GetCompositeAppRequest>,
    ) -> Rpc<pb::CompositeApp> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<CompositeAppSpec> = self
                .app
                .get(&name(&COMPOSITE_APP, "name", &req.name)?)
                .await?;
            Ok(composite_app_to_proto(&object))
        }
        .await)
    }

    async fn list_composite_apps(
        &self,
        request: Request<pb::ListCompositeAppsRequest>,
    ) -> Rpc<pb::ListCompositeAppsResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&PROJECT, "parent", &req.parent)?;
            let (composite_apps, next_page_token) = self
                .list_page(
                    "ListCompositeApps",
                    &COMPOSITE_APP,
                    Some(parent),
                    req.page_size,
                    &req.page_token,
                    composite_app_to_proto,
                )
                .await?;
            Ok(pb::ListCompositeAppsResponse {
                composite_apps,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_composite_app(
        &self,
        request: Request<pb::UpdateCompositeAppRequest>,
    ) -> Rpc<pb::CompositeApp> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &COMPOSITE_APP,
                "composite_app",
                req.composite_app,
                req.update_mask.as_ref(),
                &["description"],
                composite_app_to_proto,
                composite_app_from_proto,
                |current, incoming, paths| {
                    if paths.contains(&"description") {
                        current.description = incoming.description;
                    }
                },
            )
            .await
        }
        .await)
    }

    async fn delete_composite_app(
        &self,
        request: Request<pb::DeleteCompositeAppRequest>,
    ) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&COMPOSITE_APP, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- apps -----------------------------------------------------------------------

    async fn create_app(&self, request: Request<pb::CreateAppRequest>) -> Rpc<pb::App> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
            id("app_id", &req.app_id)?;
            let spec = app_from_proto(&req.app.clone().unwrap_or_default())?;
            let key = request_key("CreateApp", &req.parent, &req.request_id, &req)?;
            let name = ResourceName::child(&APP, Some(&parent), &[&req.app_id]);
            self.create_plain(name, spec, key, app_to_proto).await
        }
        .await)
    }

    async fn get_app(&self, request: Request<pb::GetAppRequest>) -> Rpc<pb::App> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<AppSpec> = self.app.get(&name(&APP, "name", &req.name)?).await?;
            Ok(app_to_proto(&object))
        }
        .await)
    }

    async fn list_apps(&self, request: Request<pb::ListAppsRequest>) -> Rpc<pb::ListAppsResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
            let (apps, next_page_token) = self
                .list_page(
                    "ListApps",
                    &APP,
                    Some(parent),
                    req.page_size,
                    &req.page_token,
                    app_to_proto,
                )
                .await?;
            Ok(pb::ListAppsResponse {
                apps,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_app(&self, request: Request<pb::UpdateAppRequest>) -> Rpc<pb::App> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &APP,
                "app",
                req.app,
                req.update_mask.as_ref(),
                &["description", "manifests"],
                app_to_proto,
                app_from_proto,
                app_overlay,
            )
            .await
        }
        .await)
    }

    async fn delete_app(&self, request: Request<pb::DeleteAppRequest>) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&APP, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- composite profiles -----------------------------------------------------------

    async fn create_composite_profile(
        &self,
        request: Request<pb::CreateCompositeProfileRequest>,
    ) -> Rpc<pb::CompositeProfile> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
            id("composite_profile_id", &req.composite_profile_id)?;
            let spec =
                composite_profile_from_proto(&req.composite_profile.clone().unwrap_or_default())?;
            let key = request_key("CreateCompositeProfile", &req.parent, &req.request_id, &req)?;
            let name = ResourceName::child(
                &COMPOSITE_PROFILE,
                Some(&parent),
                &[&req.composite_profile_id],
            );
            self.create_plain(name, spec, key, composite_profile_to_proto)
                .await
        }
        .await)
    }

    async fn get_composite_profile(
        &self,
        request: Request<pb::GetCompositeProfileRequest>,
    ) -> Rpc<pb::CompositeProfile> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<CompositeProfileSpec> = self
                .app
                .get(&name(&COMPOSITE_PROFILE, "name", &req.name)?)
                .await?;
            Ok(composite_profile_to_proto(&object))
        }
        .await)
    }

    async fn list_composite_profiles(
        &self,
        request: Request<pb::ListCompositeProfilesRequest>,
    ) -> Rpc<pb::ListCompositeProfilesResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
            let (composite_profiles, next_page_token) = self
                .list_page(
                    "ListCompositeProfiles",
                    &COMPOSITE_PROFILE,
                    Some(parent),
                    req.page_size,
                    &req.page_token,
                    composite_profile_to_proto,
                )
                .await?;
            Ok(pb::ListCompositeProfilesResponse {
                composite_profiles,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_composite_profile(
        &self,
        request: Request<pb::UpdateCompositeProfileRequest>,
    ) -> Rpc<pb::CompositeProfile> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &COMPOSITE_PROFILE,
                "composite_profile",
                req.composite_profile,
                req.update_mask.as_ref(),
                &["description"],
                composite_profile_to_proto,
                composite_profile_from_proto,
                |current, incoming, paths| {
                    if paths.contains(&"description") {
                        current.description = incoming.description;
                    }
                },
            )
            .await
        }
        .await)
    }

    async fn delete_composite_profile(
        &self,
        request: Request<pb::DeleteCompositeProfileRequest>,
    ) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&COMPOSITE_PROFILE, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- app profiles -----------------------------------------------------------------

    async fn create_app_profile(
        &self,
        request: Request<pb::CreateAppProfileRequest>,
    ) -> Rpc<pb::AppProfile> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_PROFILE, "parent", &req.parent)?;
            id("app_profile_id", &req.app_profile_id)?;
            let spec = app_profile_from_proto(&req.app_profile.clone().unwrap_or_default())?;
            let key = request_key("CreateAppProfile", &req.parent, &req.request_id, &req)?;
            let name = ResourceName::child(&APP_PROFILE, Some(&parent), &[&req.app_profile_id]);
            self.create_plain(name, spec, key, app_profile_to_proto)
                .await
        }
        .await)
    }

    async fn get_app_profile(
        &self,
        request: Request<pb::GetAppProfileRequest>,
    ) -> Rpc<pb::AppProfile> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<AppProfileSpec> = self
                .app
                .get(&name(&APP_PROFILE, "name", &req.name)?)
                .await?;
            Ok(app_profile_to_proto(&object))
        }
        .await)
    }

    async fn list_app_profiles(
        &self,
        request: Request<pb::ListAppProfilesRequest>,
    ) -> Rpc<pb::ListAppProfilesResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_PROFILE, "parent", &req.parent)?;
            let (app_profiles, next_page_token) = self
                .list_page(
                    "ListAppProfiles",
                    &APP_PROFILE,
                    Some(parent),
                    req.page_size,
                    &req.page_token,
                    app_profile_to_proto,
                )
                .await?;
            Ok(pb::ListAppProfilesResponse {
                app_profiles,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_app_profile(
        &self,
        request: Request<pb::UpdateAppProfileRequest>,
    ) -> Rpc<pb::AppProfile> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &APP_PROFILE,
                "app_profile",
                req.app_profile,
                req.update_mask.as_ref(),
                &["description", "app", "patches"],
                app_profile_to_proto,
                app_profile_from_proto,
                app_profile_overlay,
            )
            .await
        }
        .await)
    }

    async fn delete_app_profile(&self, request: Request<pb::DeleteAppProfileRequest>) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&APP_PROFILE, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- deployment intent groups -------------------------------------------------------

    async fn create_deployment_intent_group(
        &self,
        request: Request<pb::CreateDeploymentIntentGroupRequest>,
    ) -> Rpc<pb::DeploymentIntentGroup> {
        ok(async {
            let req = check_size(request)?;
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
        }
        .await)
    }

    async fn get_deployment_intent_group(
        &self,
        request: Request<pb::GetDeploymentIntentGroupRequest>,
    ) -> Rpc<pb::DeploymentIntentGroup> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
            Ok(dig_to_proto(&self.app.get_dig(&name).await?))
        }
        .await)
    }

    async fn list_deployment_intent_groups(
        &self,
        request: Request<pb::ListDeploymentIntentGroupsRequest>,
    ) -> Rpc<pb::ListDeploymentIntentGroupsResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&COMPOSITE_APP, "parent", &req.parent)?;
            let size = page_size(req.page_size)?;
            let scope = format!("ListDeploymentIntentGroups:{parent}");
            let after: String = decode_token(&scope, &req.page_token)?.unwrap_or_default();
            let page = self.app.list_digs(&parent, &after, size).await?;
            let next_page_token = match (page.more, page.items.last()) {
                (true, Some(last)) => encode_token(&scope, &last.object.name.to_string()),
                _ => String::new(),
            };
            Ok(pb::ListDeploymentIntentGroupsResponse {
                deployment_intent_groups: page.items.iter().map(dig_to_proto).collect(),
                next_page_token,
            })
        }
        .await)
    }

    async fn update_deployment_intent_group(
        &self,
        request: Request<pb::UpdateDeploymentIntentGroupRequest>,
    ) -> Rpc<pb::DeploymentIntentGroup> {
        ok(async {
            let req = check_size(request)?;
            let incoming = req
                .deployment_intent_group
                .ok_or_else(|| Error::invalid("deployment_intent_group", "is required"))?;
            let name = name(
                &DEPLOYMENT_INTENT_GROUP,
                "deployment_intent_group.name",
                &incoming.name,
            )?;
            let etag = parse_etag("deployment_intent_group.etag", &incoming.etag)?;
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
        }
        .await)
    }

    async fn delete_deployment_intent_group(
        &self,
        request: Request<pb::DeleteDeploymentIntentGroupRequest>,
    ) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
                self.app
                    .delete_dig(&name, parse_etag("etag", &req.etag)?)
                    .await
            }
            .await,
        )
    }

    async fn approve_deployment_intent_group(
        &self,
        request: Request<pb::ApproveDeploymentIntentGroupRequest>,
    ) -> Rpc<pb::DeploymentIntentGroup> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
            let key = request_key(
                "ApproveDeploymentIntentGroup",
                &req.name,
                &req.request_id,
                &req,
            )?;
            let etag = parse_etag("etag", &req.etag)?;
            Ok(dig_to_proto(
                &self.app.approve_dig(&name, etag, key.as_ref()).await?,
            ))
        }
        .await)
    }

    async fn instantiate_deployment_intent_group(
        &self,
        request: Request<pb::InstantiateDeploymentIntentGroupRequest>,
    ) -> Rpc<pb::DeploymentIntentGroup> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
            let key = request_key(
                "InstantiateDeploymentIntentGroup",
                &req.name,
                &req.request_id,
                &req,
            )?;
            let etag = parse_etag("etag", &req.etag)?;
            Ok(dig_to_proto(
                &self.app.instantiate_dig(&name, etag, key.as_ref()).await?,
            ))
        }
        .await)
    }

    async fn terminate_deployment_intent_group(
        &self,
        request: Request<pb::TerminateDeploymentIntentGroupRequest>,
    ) -> Rpc<pb::DeploymentIntentGroup> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&DEPLOYMENT_INTENT_GROUP, "name", &req.name)?;
            let key = request_key(
                "TerminateDeploymentIntentGroup",
                &req.name,
                &req.request_id,
                &req,
            )?;
            let etag = parse_etag("etag", &req.etag)?;
            Ok(dig_to_proto(
                &self.app.terminate_dig(&name, etag, key.as_ref()).await?,
            ))
        }
        .await)
    }

    // --- placement intents --------------------------------------------------------------

    async fn create_placement_intent(
        &self,
        request: Request<pb::CreatePlacementIntentRequest>,
    ) -> Rpc<pb::PlacementIntent> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&DEPLOYMENT_INTENT_GROUP, "parent", &req.parent)?;
            id("placement_intent_id", &req.placement_intent_id)?;
            let spec =
                placement_intent_from_proto(&req.placement_intent.clone().unwrap_or_default())?;
            let key = request_key("CreatePlacementIntent", &req.parent, &req.request_id, &req)?;
            let name = ResourceName::child(
                &PLACEMENT_INTENT,
                Some(&parent),
                &[&req.placement_intent_id],
            );
            self.create_plain(name, spec, key, placement_intent_to_proto)
                .await
        }
        .await)
    }

    async fn get_placement_intent(
        &self,
        request: Request<pb::GetPlacementIntentRequest>,
    ) -> Rpc<pb::PlacementIntent> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<PlacementIntentSpec> = self
                .app
                .get(&name(&PLACEMENT_INTENT, "name", &req.name)?)
                .await?;
            Ok(placement_intent_to_proto(&object))
        }
        .await)
    }

    async fn list_placement_intents(
        &self,
        request: Request<pb::ListPlacementIntentsRequest>,
    ) -> Rpc<pb::ListPlacementIntentsResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&DEPLOYMENT_INTENT_GROUP, "parent", &req.parent)?;
            let (placement_intents, next_page_token) = self
                .list_page(
                    "ListPlacementIntents",
                    &PLACEMENT_INTENT,
                    Some(parent),
                    req.page_size,
                    &req.page_token,
                    placement_intent_to_proto,
                )
                .await?;
            Ok(pb::ListPlacementIntentsResponse {
                placement_intents,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_placement_intent(
        &self,
        request: Request<pb::UpdatePlacementIntentRequest>,
    ) -> Rpc<pb::PlacementIntent> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &PLACEMENT_INTENT,
                "placement_intent",
                req.placement_intent,
                req.update_mask.as_ref(),
                &[
                    "description",
                    "app",
                    "cluster_provider",
                    "cluster_names",
                    "cluster_selector",
                ],
                placement_intent_to_proto,
                placement_intent_from_proto,
                placement_intent_overlay,
            )
            .await
        }
        .await)
    }

    async fn delete_placement_intent(
        &self,
        request: Request<pb::DeletePlacementIntentRequest>,
    ) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&PLACEMENT_INTENT, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- cluster providers --------------------------------------------------------------

    async fn create_cluster_provider(
        &self,
        request: Request<pb::CreateClusterProviderRequest>,
    ) -> Rpc<pb::ClusterProvider> {
        ok(async {
            let req = check_size(request)?;
            id("cluster_provider_id", &req.cluster_provider_id)?;
            let spec =
                cluster_provider_from_proto(&req.cluster_provider.clone().unwrap_or_default())?;
            let key = request_key("CreateClusterProvider", "", &req.request_id, &req)?;
            let name = ResourceName::child(&CLUSTER_PROVIDER, None, &[&req.cluster_provider_id]);
            self.create_plain(name, spec, key, cluster_provider_to_proto)
                .await
        }
        .await)
    }

    async fn get_cluster_provider(
        &self,
        request: Request<pb::GetClusterProviderRequest>,
    ) -> Rpc<pb::ClusterProvider> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<ClusterProviderSpec> = self
                .app
                .get(&name(&CLUSTER_PROVIDER, "name", &req.name)?)
                .await?;
            Ok(cluster_provider_to_proto(&object))
        }
        .await)
    }

    async fn list_cluster_providers(
        &self,
        request: Request<pb::ListClusterProvidersRequest>,
    ) -> Rpc<pb::ListClusterProvidersResponse> {
        ok(async {
            let req = check_size(request)?;
            let (cluster_providers, next_page_token) = self
                .list_page(
                    "ListClusterProviders",
                    &CLUSTER_PROVIDER,
                    None,
                    req.page_size,
                    &req.page_token,
                    cluster_provider_to_proto,
                )
                .await?;
            Ok(pb::ListClusterProvidersResponse {
                cluster_providers,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_cluster_provider(
        &self,
        request: Request<pb::UpdateClusterProviderRequest>,
    ) -> Rpc<pb::ClusterProvider> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &CLUSTER_PROVIDER,
                "cluster_provider",
                req.cluster_provider,
                req.update_mask.as_ref(),
                &["description", "labels"],
                cluster_provider_to_proto,
                cluster_provider_from_proto,
                cluster_provider_overlay,
            )
            .await
        }
        .await)
    }

    async fn delete_cluster_provider(
        &self,
        request: Request<pb::DeleteClusterProviderRequest>,
    ) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&CLUSTER_PROVIDER, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    // --- clusters ---------------------------------------------------------------------

    async fn create_cluster(&self, request: Request<pb::CreateClusterRequest>) -> Rpc<pb::Cluster> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&CLUSTER_PROVIDER, "parent", &req.parent)?;
            id("cluster_id", &req.cluster_id)?;
            let spec = cluster_from_proto(&req.cluster.clone().unwrap_or_default())?;
            let key = request_key("CreateCluster", &req.parent, &req.request_id, &req)?;
            let name = ResourceName::child(&CLUSTER, Some(&parent), &[&req.cluster_id]);
            Ok(cluster_to_proto(
                &self.app.create_cluster(name, spec, key.as_ref()).await?,
            ))
        }
        .await)
    }

    async fn get_cluster(&self, request: Request<pb::GetClusterRequest>) -> Rpc<pb::Cluster> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&CLUSTER, "name", &req.name)?;
            Ok(cluster_to_proto(&self.app.get_cluster(&name).await?))
        }
        .await)
    }

    async fn list_clusters(
        &self,
        request: Request<pb::ListClustersRequest>,
    ) -> Rpc<pb::ListClustersResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&CLUSTER_PROVIDER, "parent", &req.parent)?;
            let size = page_size(req.page_size)?;
            let selector = labels(&req.label_selector);
            let scope = format!("ListClusters:{parent}:{}", serde_json::json!(selector));
            let after: String = decode_token(&scope, &req.page_token)?.unwrap_or_default();
            let page = self
                .app
                .list_clusters(&parent, &selector, &after, size)
                .await?;
            let next_page_token = match (page.more, page.items.last()) {
                (true, Some(last)) => encode_token(&scope, &last.object.name.to_string()),
                _ => String::new(),
            };
            Ok(pb::ListClustersResponse {
                clusters: page.items.iter().map(cluster_to_proto).collect(),
                next_page_token,
            })
        }
        .await)
    }

    async fn update_cluster(&self, request: Request<pb::UpdateClusterRequest>) -> Rpc<pb::Cluster> {
        ok(async {
            let req = check_size(request)?;
            let incoming = req
                .cluster
                .ok_or_else(|| Error::invalid("cluster", "is required"))?;
            let name = name(&CLUSTER, "cluster.name", &incoming.name)?;
            let etag = parse_etag("cluster.etag", &incoming.etag)?;
            let paths = mask_paths(req.update_mask.as_ref(), &["description", "labels"])?;
            let view = self
                .app
                .update_cluster(&name, etag, |current| {
                    let mut merged = cluster_spec_to_proto(&current.spec);
                    cluster_overlay(&mut merged, incoming, &paths);
                    cluster_from_proto(&merged)
                })
                .await?;
            Ok(cluster_to_proto(&view))
        }
        .await)
    }

    async fn rotate_cluster_agent_token(
        &self,
        request: Request<pb::RotateClusterAgentTokenRequest>,
    ) -> Rpc<pb::Cluster> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&CLUSTER, "name", &req.name)?;
            Ok(cluster_to_proto(&self.app.rotate_agent_token(&name).await?))
        }
        .await)
    }

    async fn delete_cluster(&self, request: Request<pb::DeleteClusterRequest>) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&CLUSTER, "name", &req.name)?;
                self.app
                    .delete_cluster(&name, parse_etag("etag", &req.etag)?)
                    .await
            }
            .await,
        )
    }

    // --- network intents --------------------------------------------------------------

    async fn create_network_intent(
        &self,
        request: Request<pb::CreateNetworkIntentRequest>,
    ) -> Rpc<pb::NetworkIntent> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&CLUSTER, "parent", &req.parent)?;
            id("network_intent_id", &req.network_intent_id)?;
            let spec = network_intent_from_proto(&req.network_intent.clone().unwrap_or_default())?;
            let key = request_key("CreateNetworkIntent", &req.parent, &req.request_id, &req)?;
            let name =
                ResourceName::child(&NETWORK_INTENT, Some(&parent), &[&req.network_intent_id]);
            self.create_plain(name, spec, key, network_intent_to_proto)
                .await
        }
        .await)
    }

    async fn get_network_intent(
        &self,
        request: Request<pb::GetNetworkIntentRequest>,
    ) -> Rpc<pb::NetworkIntent> {
        ok(async {
            let req = check_size(request)?;
            let object: Object<NetworkIntentSpec> = self
                .app
                .get(&name(&NETWORK_INTENT, "name", &req.name)?)
                .await?;
            Ok(network_intent_to_proto(&object))
        }
        .await)
    }

    async fn list_network_intents(
        &self,
        request: Request<pb::ListNetworkIntentsRequest>,
    ) -> Rpc<pb::ListNetworkIntentsResponse> {
        ok(async {
            let req = check_size(request)?;
            let parent = name(&CLUSTER, "parent", &req.parent)?;
            let (network_intents, next_page_token) = self
                .list_page(
                    "ListNetworkIntents",
                    &NETWORK_INTENT,
                    Some(parent),
                    req.page_size,
                    &req.page_token,
                    network_intent_to_proto,
                )
                .await?;
            Ok(pb::ListNetworkIntentsResponse {
                network_intents,
                next_page_token,
            })
        }
        .await)
    }

    async fn update_network_intent(
        &self,
        request: Request<pb::UpdateNetworkIntentRequest>,
    ) -> Rpc<pb::NetworkIntent> {
        ok(async {
            let req = check_size(request)?;
            self.update_plain(
                &NETWORK_INTENT,
                "network_intent",
                req.network_intent,
                req.update_mask.as_ref(),
                &["description", "spec"],
                network_intent_to_proto,
                network_intent_from_proto,
                network_intent_overlay,
            )
            .await
        }
        .await)
    }

    async fn delete_network_intent(
        &self,
        request: Request<pb::DeleteNetworkIntentRequest>,
    ) -> Rpc<()> {
        empty(
            async {
                let req = check_size(request)?;
                let name = name(&NETWORK_INTENT, "name", &req.name)?;
                self.app.delete(&name, parse_etag("etag", &req.etag)?).await
            }
            .await,
        )
    }

    async fn apply_cluster_network_intents(
        &self,
        request: Request<pb::ApplyClusterNetworkIntentsRequest>,
    ) -> Rpc<pb::Cluster> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&CLUSTER, "name", &req.name)?;
            let key = request_key(
                "ApplyClusterNetworkIntents",
                &req.name,
                &req.request_id,
                &req,
            )?;
            let etag = parse_etag("etag", &req.etag)?;
            Ok(cluster_to_proto(
                &self
                    .app
                    .apply_network_intents_verb(&name, etag, key.as_ref())
                    .await?,
            ))
        }
        .await)
    }

    async fn terminate_cluster_network_intents(
        &self,
        request: Request<pb::TerminateClusterNetworkIntentsRequest>,
    ) -> Rpc<pb::Cluster> {
        ok(async {
            let req = check_size(request)?;
            let name = name(&CLUSTER, "name", &req.name)?;
            let key = request_key(
                "TerminateClusterNetworkIntents",
                &req.name,
                &req.request_id,
                &req,
            )?;
            let etag = parse_etag("etag", &req.etag)?;
            Ok(cluster_to_proto(
                &self
                    .app
                    .terminate_network_intents_verb(&name, etag, key.as_ref())
                    .await?,
            ))
        }
        .await)
    }

    // --- rendered resources -------------------------------------------------------------

    async fn list_rendered_resources(
        &self,
        request: Request<pb::ListRenderedResourcesRequest>,
    ) -> Rpc<pb::ListRenderedResourcesResponse> {
        ok(async {
            let req = check_size(request)?;
            let (owner, instance) = parse_instance_parent(&req.parent)?;
            let size = page_size(req.page_size)?;
            let scope = format!(
                "ListRenderedResources:{}:{:?}:{:?}",
                req.parent, req.apps, req.clusters
            );
            let after: Option<ResourceKey> = decode_token(&scope, &req.page_token)?;
            let filter = ResourceFilter {
                apps: req.apps.clone(),
                clusters: req.clusters.clone(),
                ..Default::default()
            };
            let page = self
                .app
                .list_rendered(&owner, instance, &filter, after.as_ref(), size)
                .await?;
            let next_page_token = match (page.more, page.resources.last()) {
                (true, Some(last)) => encode_token(&scope, &last.key()),
                _ => String::new(),
            };
            Ok(pb::ListRenderedResourcesResponse {
                instance: format!("{}/instances/{}", page.instance.owner, page.instance.id),
                total_size: page.instance.resource_count,
                rendered_resources: page.resources.iter().map(rendered_to_proto).collect(),
                next_page_token,
            })
        }
        .await)
    }
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
