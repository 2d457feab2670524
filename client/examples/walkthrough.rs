//! Flotilla's walk-through in Rust: build an application, deploy it to two clusters,
//! watch it become Applied and Ready, read its summary, terminate it and watch it go.
//!
//! ```sh
//! FLOTILLA_SERVER=http://localhost:50051 FLOTILLA_TOKEN=$(cat flotilla-data/admin.token) \
//!     cargo run -p flotilla-client --example walkthrough
//! ```

use flotilla_client::v1::{
    self, ConnectionMode, StatusOutput, WatchEvent, WatchEventType, WatchStatusRequest,
};
use flotilla_client::{ApiError, Client, names::checked as names};
use prost_types::{Struct, Value, value::Kind};

const FRONTEND: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: frontend-config
data:
  theme: dark
";
const CACHE: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: cache\n";

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Every resource Applied, Present and Ready.
fn settled(event: &WatchEvent) -> bool {
    let (Some(r), Some(c), Some(d)) =
        (&event.rsync_status, &event.cluster_status, &event.readiness)
    else {
        return false;
    };
    let busy = r.pending + r.retrying + r.failed + c.not_present + c.unknown;
    r.applied > 0 && busy == 0 && d.not_ready == 0
}

fn replicas(n: f64) -> Struct {
    let number = |n| Value {
        kind: Some(Kind::NumberValue(n)),
    };
    let object = |key: &str, value| Value {
        kind: Some(Kind::StructValue(Struct {
            fields: [(key.to_string(), value)].into(),
        })),
    };
    Struct {
        fields: [("spec".to_string(), object("replicas", number(n)))].into(),
    }
}

/// Creates the application and its placement; returns the group's name.
async fn create_application(client: &mut Client) -> Result<String> {
    let lifecycle = &mut client.lifecycle;
    // A project, a composite app with two apps, a profile that patches frontend.
    let project = names::project("tour")?;
    lifecycle
        .create_project(v1::CreateProjectRequest {
            project_id: "tour".into(),
            ..Default::default()
        })
        .await?;
    let web = names::composite_app("tour", "web", "v1")?;
    lifecycle
        .create_composite_app(v1::CreateCompositeAppRequest {
            parent: project,
            composite_app_id: "web".into(),
            version_id: "v1".into(),
            ..Default::default()
        })
        .await?;
    for (app_id, manifests) in [("frontend", FRONTEND), ("cache", CACHE)] {
        lifecycle
            .create_app(v1::CreateAppRequest {
                parent: web.clone(),
                app_id: app_id.into(),
                app: Some(v1::App {
                    manifests: manifests.into(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await?;
    }
    lifecycle
        .create_composite_profile(v1::CreateCompositeProfileRequest {
            parent: web.clone(),
            composite_profile_id: "default".into(),
            ..Default::default()
        })
        .await?;
    lifecycle
        .create_app_profile(v1::CreateAppProfileRequest {
            parent: names::composite_profile(&web, "default")?,
            app_profile_id: "frontend".into(),
            app_profile: Some(v1::AppProfile {
                app: "frontend".into(),
                patches: vec![v1::ManifestPatch {
                    target_kind: "Deployment".into(),
                    merge_patch: Some(replicas(3.0)),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await?;

    // Two simulated clusters, and a group placing frontend and cache on both.
    lifecycle
        .create_cluster_provider(v1::CreateClusterProviderRequest {
            cluster_provider_id: "lab".into(),
            ..Default::default()
        })
        .await?;
    for cluster_id in ["lab1", "lab2"] {
        lifecycle
            .create_cluster(v1::CreateClusterRequest {
                parent: names::cluster_provider("lab")?,
                cluster_id: cluster_id.into(),
                cluster: Some(v1::Cluster {
                    connection_mode: ConnectionMode::EmbeddedSim.into(),
                    labels: [("site".to_string(), "lab".to_string())].into(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await?;
    }
    let group = names::deployment_intent_group(&web, "prod")?;
    lifecycle
        .create_deployment_intent_group(v1::CreateDeploymentIntentGroupRequest {
            parent: web.clone(),
            deployment_intent_group_id: "prod".into(),
            deployment_intent_group: Some(v1::DeploymentIntentGroup {
                composite_profile: "default".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await?;
    for app in ["frontend", "cache"] {
        lifecycle
            .create_placement_intent(v1::CreatePlacementIntentRequest {
                parent: group.clone(),
                placement_intent_id: app.into(),
                placement_intent: Some(v1::PlacementIntent {
                    app: app.into(),
                    cluster_provider: "lab".into(),
                    cluster_names: vec!["lab1".into(), "lab2".into()],
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await?;
    }
    Ok(group)
}

#[tokio::main]
async fn main() -> Result<()> {
    let address =
        std::env::var("FLOTILLA_SERVER").unwrap_or_else(|_| "http://localhost:50051".into());
    let mut client = Client::connect(address).await?;
    let group = create_application(&mut client).await?;
    let name = || v1::ApproveDeploymentIntentGroupRequest {
        name: group.clone(),
        ..Default::default()
    };

    // Approve and instantiate, then watch until every resource is Applied and Ready.
    client
        .lifecycle
        .approve_deployment_intent_group(name())
        .await?;
    client
        .lifecycle
        .instantiate_deployment_intent_group(v1::InstantiateDeploymentIntentGroupRequest {
            name: group.clone(),
            ..Default::default()
        })
        .await?;
    let watch_request = WatchStatusRequest {
        name: group.clone(),
        ..Default::default()
    };
    let mut watch = client.watch_status(watch_request.clone());
    loop {
        let event = watch.next().await?;
        if event.r#type() == WatchEventType::CountsChanged && settled(&event) {
            break;
        }
    }
    println!("instantiated: every resource applied and ready");

    let summary = client
        .status
        .get_deployment_intent_group_status(v1::GetDeploymentIntentGroupStatusRequest {
            name: group.clone(),
            output: StatusOutput::Summary.into(),
            ..Default::default()
        })
        .await?
        .into_inner();
    println!(
        "summary: state {}, applied {}, present {}, ready {}",
        summary.state,
        summary.rsync_status.unwrap_or_default().applied,
        summary.cluster_status.unwrap_or_default().present,
        summary.readiness.unwrap_or_default().ready,
    );

    // A refused transition says why, in a form a program can act on.
    if let Err(status) = client
        .lifecycle
        .instantiate_deployment_intent_group(v1::InstantiateDeploymentIntentGroupRequest {
            name: name().name,
            ..Default::default()
        })
        .await
    {
        let error = ApiError::from(status);
        println!(
            "instantiate again: {:?} {} (state {})",
            error.code, error.reason, error.metadata["current_state"]
        );
    }

    // Terminate, and watch until the group is TERMINATED with nothing left applied.
    client
        .lifecycle
        .terminate_deployment_intent_group(v1::TerminateDeploymentIntentGroupRequest {
            name: group.clone(),
            ..Default::default()
        })
        .await?;
    let mut watch = client.watch_status(watch_request);
    let mut state = String::new();
    loop {
        let event = watch.next().await?;
        if event.r#type() == WatchEventType::LifecycleChanged {
            state = event.state.clone();
        }
        if let Some(r) = &event.rsync_status
            && event.r#type() == WatchEventType::CountsChanged
            && state == "TERMINATED"
            && r.applied + r.pending + r.retrying == 0
        {
            break;
        }
    }
    println!("terminated: {state}");
    Ok(())
}
