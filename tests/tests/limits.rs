//! Input the API used to accept and should not (issue 21, point 5), on SQLite and
//! PostgreSQL: Kubernetes names, kinds and namespaces in manifests and in the patches
//! that rename them; limits on repeated fields; a request_id reused on another method;
//! the simulator touching only sim clusters that exist.

use std::collections::BTreeMap;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{ErrorView, TestServer, e2e_suite, error_view};
use tonic::Code;

e2e_suite!(
    kubernetes_names_are_checked_where_they_enter,
    repeated_fields_have_limits,
    request_ids_name_one_request,
    the_simulator_touches_only_sim_clusters_that_exist,
    text_the_database_cannot_store_is_invalid_not_internal,
);

/// Found by the RPC fuzzer: a NUL in a text field reached PostgreSQL, which cannot
/// store it, and came back INTERNAL. SQLite stores it.
async fn text_the_database_cannot_store_is_invalid_not_internal(server: &TestServer) {
    let mut client = server.client().await;
    let answer = client
        .simulator
        .set_host_reachable(SetHostReachableRequest {
            host: "é\u{0}".into(),
            reachable: true,
        })
        .await;
    let code = answer.err().map(|s| s.code());
    match server.backend {
        flotilla_tests::Backend::Sqlite => assert_ne!(code, Some(Code::Internal)),
        flotilla_tests::Backend::Postgres => assert_eq!(code, Some(Code::InvalidArgument)),
    }
}

fn invalid(error: &ErrorView, field: &str) {
    assert_eq!(error.code, Code::InvalidArgument, "{error:?}");
    assert!(
        error.field_violations.iter().any(|v| v.field == field),
        "no violation of {field}: {error:?}"
    );
}

async fn create_app(
    client: &mut Client,
    ca: &str,
    id: &str,
    manifests: &str,
) -> Result<tonic::Response<App>, tonic::Status> {
    client
        .lifecycle
        .create_app(CreateAppRequest {
            parent: ca.into(),
            app_id: id.into(),
            app: Some(App {
                manifests: manifests.into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
}

async fn kubernetes_names_are_checked_where_they_enter(server: &TestServer) {
    let mut client = server.client().await;
    let ca = flotilla_tests::project_and_version(&mut client).await;
    for (manifest, field) in [
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n",
            "app.manifests[0].metadata.name",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../../etc\n",
            "app.manifests[0].metadata.name",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  namespace: Prod\n",
            "app.manifests[0].metadata.namespace",
        ),
        (
            "apiVersion: v1\nkind: Config/Map\nmetadata:\n  name: ok\n",
            "app.manifests[0].kind",
        ),
    ] {
        invalid(
            &error_view(create_app(&mut client, &ca, "bad", manifest).await),
            field,
        );
    }
    create_app(
        &mut client,
        &ca,
        "web",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web.settings-1\n  namespace: prod\n",
    )
    .await
    .unwrap();

    // A profile patch that would rename the document to a path.
    let profile = names::composite_profile(&ca, "prof");
    client
        .lifecycle
        .create_composite_profile(CreateCompositeProfileRequest {
            parent: ca.clone(),
            composite_profile_id: "prof".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let rename = |name: &str| {
        let patch = flotilla_tests::json_struct(&serde_json::json!({"metadata": {"name": name}}));
        AppProfile {
            app: "web".into(),
            patches: vec![ManifestPatch {
                target_kind: "ConfigMap".into(),
                merge_patch: Some(patch),
                ..Default::default()
            }],
            ..Default::default()
        }
    };
    let refused = error_view(
        client
            .lifecycle
            .create_app_profile(CreateAppProfileRequest {
                parent: profile.clone(),
                app_profile_id: "rename".into(),
                app_profile: Some(rename("Bad_Name/../x")),
                ..Default::default()
            })
            .await,
    );
    invalid(&refused, "app_profile.patches[0].merge_patch.metadata.name");
    client
        .lifecycle
        .create_app_profile(CreateAppProfileRequest {
            parent: profile,
            app_profile_id: "rename".into(),
            app_profile: Some(rename("web.renamed")),
            ..Default::default()
        })
        .await
        .unwrap();
}

async fn repeated_fields_have_limits(server: &TestServer) {
    let mut client = server.client().await;
    let ca = flotilla_tests::project_and_version(&mut client).await;
    create_app(
        &mut client,
        &ca,
        "web",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n",
    )
    .await
    .unwrap();
    client
        .lifecycle
        .create_composite_profile(CreateCompositeProfileRequest {
            parent: ca.clone(),
            composite_profile_id: "prof".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    client
        .lifecycle
        .create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
            parent: ca.clone(),
            deployment_intent_group_id: "d".into(),
            deployment_intent_group: Some(DeploymentIntentGroup {
                composite_profile: "prof".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let dig = names::deployment_intent_group(&ca, "d");
    let many: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
    let refused = error_view(
        client
            .lifecycle
            .create_placement_intent(CreatePlacementIntentRequest {
                parent: dig.clone(),
                placement_intent_id: "everywhere".into(),
                placement_intent: Some(PlacementIntent {
                    app: "web".into(),
                    cluster_provider: "cp".into(),
                    cluster_names: many.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await,
    );
    invalid(&refused, "placement_intent.cluster_names");
    assert_eq!(
        refused.field_violations.len(),
        1,
        "one violation for the list, not one per entry"
    );
    assert!(refused.message.contains("at most 1000"), "{refused:?}");

    let status = error_view(
        client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: dig.clone(),
                clusters: many[..1001].to_vec(),
                ..Default::default()
            })
            .await,
    );
    invalid(&status, "clusters");
    let patches: Vec<ManifestPatch> = (0..101)
        .map(|_| ManifestPatch {
            target_kind: "ConfigMap".into(),
            merge_patch: Some(prost_types::Struct::default()),
            ..Default::default()
        })
        .collect();
    let refused = error_view(
        client
            .lifecycle
            .create_app_profile(CreateAppProfileRequest {
                parent: names::composite_profile(&ca, "prof"),
                app_profile_id: "many".into(),
                app_profile: Some(AppProfile {
                    app: "web".into(),
                    patches,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await,
    );
    invalid(&refused, "app_profile.patches");
}

async fn request_ids_name_one_request(server: &TestServer) {
    let mut client = server.client().await;
    let id = "0b6a4f4e-31f7-4c8e-9a55-3f1d6f0e2a11".to_string();
    client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: "first".into(),
            request_id: id.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let reused = error_view(
        client
            .lifecycle
            .create_cluster_provider(CreateClusterProviderRequest {
                cluster_provider_id: "other".into(),
                request_id: id.clone(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(
        (reused.code, reused.reason.as_str()),
        (Code::FailedPrecondition, "REQUEST_ID_REUSED"),
        "{reused:?}"
    );
    let providers = client
        .lifecycle
        .list_cluster_providers(ListClusterProvidersRequest::default())
        .await
        .unwrap()
        .into_inner()
        .cluster_providers;
    assert!(
        providers.is_empty(),
        "the refused request wrote {providers:?}"
    );
    // The same request again is still answered as the first time.
    let again = client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: "first".into(),
            request_id: id,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.name, "projects/first");
}

async fn the_simulator_touches_only_sim_clusters_that_exist(server: &TestServer) {
    let mut client = server.client().await;
    client
        .lifecycle
        .create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "cp".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    for (id, mode) in [
        ("sim", ConnectionMode::EmbeddedSim),
        ("real", ConnectionMode::Agent),
    ] {
        client
            .lifecycle
            .create_cluster(CreateClusterRequest {
                parent: names::cluster_provider("cp"),
                cluster_id: id.into(),
                cluster: Some(Cluster {
                    connection_mode: mode as i32,
                    labels: BTreeMap::new(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .unwrap();
    }
    let missing = names::cluster("cp", "nowhere");
    let error = error_view(
        client
            .simulator
            .disconnect_cluster(DisconnectClusterRequest {
                cluster: missing.clone(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.resource_name.as_deref()),
        (Code::NotFound, Some(missing.as_str())),
        "{error:?}"
    );
    let error = error_view(
        client
            .simulator
            .reconnect_cluster(ReconnectClusterRequest { cluster: missing })
            .await,
    );
    assert_eq!(error.code, Code::NotFound, "{error:?}");

    // An AGENT cluster is only touched once its agent said it runs the sim backend.
    let real = names::cluster("cp", "real");
    let error = error_view(
        client
            .simulator
            .disconnect_cluster(DisconnectClusterRequest {
                cluster: real.clone(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::FailedPrecondition, "NOT_A_SIM_CLUSTER"),
        "{error:?}"
    );

    let sim = names::cluster("cp", "sim");
    flotilla_tests::wait_connectivity(&client, &sim, Connectivity::Available).await;
    let error = error_view(
        client
            .simulator
            .delete_pod(DeletePodRequest {
                cluster: sim.clone(),
                namespace: String::new(),
                pod: "no-such-pod".into(),
            })
            .await,
    );
    assert_eq!(
        (
            error.code,
            error.field_violations.first().map(|v| v.field.as_str())
        ),
        (Code::NotFound, Some("pod")),
        "{error:?}"
    );
    flotilla_tests::disconnect(&client, &sim).await;
    flotilla_tests::wait_connectivity(&client, &sim, Connectivity::Retrying).await;
    flotilla_tests::reconnect(&client, &sim).await;
    flotilla_tests::wait_connectivity(&client, &sim, Connectivity::Available).await;
}
