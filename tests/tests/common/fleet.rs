//! Helpers of the end-to-end tests that run real `flotilla-agent` processes: AGENT
//! clusters with their tokens, a generated deployment, summary counts.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{TestAgent, TestServer, eventually};

pub const WAIT: Duration = Duration::from_secs(120);

/// AGENT clusters `ids` of provider `cp` served by one agent fleet process (`name`),
/// once they are all AVAILABLE.
pub async fn agent_fleet(
    server: &TestServer,
    client: &mut Client,
    name: &str,
    ids: &[&str],
) -> TestAgent {
    let tokens = clusters(client, ids).await;
    let fleet: Vec<(String, String)> = ids
        .iter()
        .map(|id| (names::cluster("cp", id), tokens[*id].clone()))
        .collect();
    let agent = TestAgent::start_fleet(server, name, &fleet, &[]);
    for id in ids {
        flotilla_tests::wait_connectivity(
            client,
            &names::cluster("cp", id),
            Connectivity::Available,
        )
        .await;
    }
    agent
}

/// A provider `cp` with AGENT clusters; returns their tokens by cluster id.
pub async fn clusters(client: &mut Client, ids: &[&str]) -> BTreeMap<String, String> {
    client
        .lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "cp".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut tokens = BTreeMap::new();
    for id in ids {
        let cluster = client
            .lifecycle
            .create_cluster(CreateClusterRequest {
                parent: names::cluster_provider("cp"),
                cluster_id: id.to_string(),
                cluster: Some(Cluster {
                    connection_mode: ConnectionMode::Agent as i32,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(
            cluster.agent_token.starts_with("flt_"),
            "the token is shown on create"
        );
        let fetched = client
            .lifecycle
            .get_cluster(GetClusterRequest {
                name: cluster.name.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(fetched.agent_token.is_empty(), "and never again");
        tokens.insert(id.to_string(), cluster.agent_token);
    }
    tokens
}

/// A composite app whose `apps` apps each hold `documents` ConfigMaps plus (if
/// `deployment`) a Deployment, placed on `cluster_ids`, approved. Returns the group.
pub async fn deployment(
    client: &mut Client,
    apps: usize,
    documents: usize,
    deployment: bool,
    cluster_ids: &[&str],
) -> String {
    let apps: Vec<(String, String)> = (0..apps)
        .map(|a| {
            let app = format!("app{a}");
            let mut manifests: String = (0..documents)
                .map(|d| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {app}-cm{d}\ndata:\n  k: v\n---\n"))
                .collect();
            if deployment {
                manifests.push_str(&format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\nspec:\n  replicas: 1\n"));
            }
            (app, manifests)
        })
        .collect();
    group(client, "ca", "d", &apps, cluster_ids).await
}

/// Instantiates the group `dig`.
pub async fn instantiate(client: &mut Client, dig: &str) {
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.to_string(),
            ..Default::default()
        })
        .await
        .unwrap();
}

/// Project `p`, composite app `composite_app`/v1 with profile `prof`, and its group
/// `dig_id` of `apps` (id, manifests), each placed on `cluster_ids` of provider `cp`;
/// approved. Returns the group.
pub async fn group(
    client: &mut Client,
    composite_app: &str,
    dig_id: &str,
    apps: &[(String, String)],
    cluster_ids: &[&str],
) -> String {
    group_in(client, "p", composite_app, dig_id, apps, cluster_ids).await
}

/// [`group`] in project `project`.
pub async fn group_in(
    client: &mut Client,
    project: &str,
    composite_app: &str,
    dig_id: &str,
    apps: &[(String, String)],
    cluster_ids: &[&str],
) -> String {
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: project.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    version_group(
        client,
        project,
        composite_app,
        "v1",
        dig_id,
        apps,
        cluster_ids,
    )
    .await
}

/// [`group_in`] of composite app version `version` in the existing project `project`.
pub async fn version_group(
    client: &mut Client,
    project: &str,
    composite_app: &str,
    version: &str,
    dig_id: &str,
    apps: &[(String, String)],
    cluster_ids: &[&str],
) -> String {
    let dig = empty_group(client, project, composite_app, version, dig_id).await;
    let ca = names::composite_app(project, composite_app, version);
    let lc = &mut client.lifecycle;
    for (app, manifests) in apps {
        lc.create_app(CreateAppRequest {
            parent: ca.clone(),
            app_id: app.clone(),
            app: Some(App {
                manifests: manifests.clone(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
        lc.create_placement_intent(CreatePlacementIntentRequest {
            parent: dig.clone(),
            placement_intent_id: app.clone(),
            placement_intent: Some(PlacementIntent {
                app: app.clone(),
                cluster_provider: "cp".into(),
                cluster_names: cluster_ids.iter().map(|c| c.to_string()).collect(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    lc.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
        name: dig.clone(),
        ..Default::default()
    })
    .await
    .unwrap();
    dig
}

/// Composite app `composite_app`/`version` in the existing project `project`, its
/// profile `prof`, and its group `dig_id` with no intents yet (CREATED). Returns the
/// group.
pub async fn empty_group(
    client: &mut Client,
    project: &str,
    composite_app: &str,
    version: &str,
    dig_id: &str,
) -> String {
    let lc = &mut client.lifecycle;
    let ca = names::composite_app(project, composite_app, version);
    lc.create_composite_app(CreateCompositeAppRequest {
        parent: names::project(project),
        composite_app_id: composite_app.into(),
        version_id: version.into(),
        ..Default::default()
    })
    .await
    .unwrap();
    lc.create_composite_profile(CreateCompositeProfileRequest {
        parent: ca.clone(),
        composite_profile_id: "prof".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let dig = names::deployment_intent_group(&ca, dig_id);
    lc.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
        parent: ca,
        deployment_intent_group_id: dig_id.into(),
        deployment_intent_group: Some(DeploymentIntentGroup {
            composite_profile: "prof".into(),
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    dig
}

pub async fn summary(client: &mut Client, dig: &str, clusters: &[&str]) -> ResourceStatus {
    client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: dig.into(),
            output: StatusOutput::Summary as i32,
            clusters: clusters.iter().map(|c| c.to_string()).collect(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

pub async fn wait_counts(
    client: &Client,
    dig: &str,
    clusters: &[&str],
    applied: i32,
    present: i32,
    what: &str,
) {
    eventually(WAIT, what, || {
        let mut client = client.clone();
        async move {
            let s = summary(&mut client, dig, clusters).await;
            let r = s.rsync_status.unwrap_or_default();
            let c = s.cluster_status.unwrap_or_default();
            (r.applied == applied && c.present == present).then_some(())
        }
    })
    .await;
}

/// Waits until `ready` of the group's resources are Ready (an action needs its pod
/// Running; present is not enough).
pub async fn wait_ready(client: &Client, dig: &str, ready: i32, what: &str) {
    eventually(WAIT, what, || {
        let mut client = client.clone();
        async move {
            let s = summary(&mut client, dig, &[]).await;
            (s.readiness.unwrap_or_default().ready == ready).then_some(())
        }
    })
    .await;
}
