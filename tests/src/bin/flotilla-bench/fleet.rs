//! The fleets P1–P6 and P8 run on: a project with one composite app, a cluster
//! provider with clusters in AGENT mode (their sim agents run as `flotilla-agent`
//! processes, outside the measured server), one app per placement intent selecting
//! every cluster, and the group approved.

use anyhow::Result;
use flotilla_client::Client;
use flotilla_client::v1::*;

/// The names and sizes of a fleet; the group is `…/deploymentIntentGroups/prod` with
/// composite profile `default`, clusters are labelled `fleet: <provider>`.
pub struct Fleet {
    pub project: &'static str,
    pub composite_app: &'static str,
    pub provider: &'static str,
    pub cluster_prefix: &'static str,
    pub app_prefix: &'static str,
    pub clusters: usize,
    pub apps: usize,
}

impl Fleet {
    fn version(&self) -> String {
        format!(
            "projects/{}/compositeApps/{}/versions/v1",
            self.project, self.composite_app
        )
    }

    /// The deployment intent group's name.
    pub fn dig(&self) -> String {
        format!("{}/deploymentIntentGroups/prod", self.version())
    }

    /// Creates everything, app `i` with `manifests(i)`, and approves the group; returns
    /// each cluster's name and agent token.
    pub async fn create(
        &self,
        client: &mut Client,
        manifests: impl Fn(usize) -> String,
    ) -> Result<Vec<(String, String)>> {
        let (version, dig) = (self.version(), self.dig());
        let label = || [("fleet".to_string(), self.provider.to_string())].into();
        let l = &mut client.lifecycle;
        l.create_project(CreateProjectRequest {
            project_id: self.project.into(),
            ..Default::default()
        })
        .await?;
        l.create_composite_app(CreateCompositeAppRequest {
            parent: format!("projects/{}", self.project),
            composite_app_id: self.composite_app.into(),
            version_id: "v1".into(),
            ..Default::default()
        })
        .await?;
        l.create_composite_profile(CreateCompositeProfileRequest {
            parent: version.clone(),
            composite_profile_id: "default".into(),
            ..Default::default()
        })
        .await?;
        l.create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: self.provider.into(),
            ..Default::default()
        })
        .await?;
        let mut clusters = Vec::new();
        for c in 0..self.clusters {
            let cluster = l
                .create_cluster(CreateClusterRequest {
                    parent: format!("clusterProviders/{}", self.provider),
                    cluster_id: format!("{}{c}", self.cluster_prefix),
                    cluster: Some(Cluster {
                        connection_mode: ConnectionMode::Agent as i32,
                        labels: label(),
                        ..Default::default()
                    }),
                    ..Default::default()
                })
                .await?
                .into_inner();
            clusters.push((cluster.name, cluster.agent_token));
        }
        l.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
            parent: version.clone(),
            deployment_intent_group_id: "prod".into(),
            deployment_intent_group: Some(DeploymentIntentGroup {
                composite_profile: "default".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await?;
        for a in 0..self.apps {
            let app = format!("{}{a}", self.app_prefix);
            l.create_app(CreateAppRequest {
                parent: version.clone(),
                app_id: app.clone(),
                app: Some(App {
                    manifests: manifests(a),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await?;
            l.create_placement_intent(CreatePlacementIntentRequest {
                parent: dig.clone(),
                placement_intent_id: app.clone(),
                placement_intent: Some(PlacementIntent {
                    app,
                    cluster_provider: self.provider.into(),
                    cluster_selector: label(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await?;
        }
        l.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: dig,
            ..Default::default()
        })
        .await?;
        Ok(clusters)
    }
}
