//! End-to-end: every class of bad input is refused with the right code, an ErrorInfo
//! and field violations, and writes nothing. On SQLite and PostgreSQL.

use flotilla_client::names;
use flotilla_client::v1::*;
use flotilla_tests::{TestServer, e2e_suite, error_view};
use tonic::Code;

e2e_suite!(
    in_process,
    invalid_and_empty_names,
    unknown_parents_and_references,
    malformed_manifests_name_document_and_field,
    missing_required_fields,
    unknown_enum_values,
    oversized_payloads,
    duplicates_and_invalid_network_specs,
);

async fn invalid_and_empty_names(server: &TestServer) {
    let mut client = server.client().await;
    let lc = &mut client.lifecycle;
    let err = error_view(
        lc.get_project(GetProjectRequest {
            name: String::new(),
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.reason, "INVALID_ARGUMENT");
    assert_eq!(err.field_violations[0].field, "name");
    let err = error_view(
        lc.get_app(GetAppRequest {
            name: "projects/p/apps/x".into(),
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(
        err.field_violations[0]
            .description
            .contains("is not an app name (projects/{project}/compositeApps/{composite_app}/versions/{version}/apps/{app})"),
        "{:?}",
        err.field_violations
    );
    for bad in [
        "Upper",
        "-lead",
        "trail-",
        "under_score",
        &"a".repeat(64),
        "",
    ] {
        let err = error_view(
            lc.create_project(CreateProjectRequest {
                project_id: bad.into(),
                ..Default::default()
            })
            .await,
        );
        assert_eq!(err.code, Code::InvalidArgument, "{bad}");
        assert_eq!(err.field_violations[0].field, "project_id");
    }
    let projects = lc
        .list_projects(ListProjectsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(projects.projects.is_empty(), "nothing was written");
}

async fn unknown_parents_and_references(server: &TestServer) {
    let mut client = server.client().await;
    let ca = flotilla_tests::project_and_version(&mut client).await;
    let lc = &mut client.lifecycle;
    let err = error_view(
        lc.create_composite_app(CreateCompositeAppRequest {
            parent: "projects/nope".into(),
            composite_app_id: "x".into(),
            version_id: "v1".into(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound);
    assert_eq!(err.reason, "NOT_FOUND");
    assert_eq!(err.resource_name.as_deref(), Some("projects/nope"));
    assert_eq!(err.field_violations[0].field, "parent");
    let err = error_view(
        lc.list_apps(ListAppsRequest {
            parent: names::composite_app("p", "nope", "v1"),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound);

    // An app profile naming an app that does not exist.
    lc.create_composite_profile(CreateCompositeProfileRequest {
        parent: ca.clone(),
        composite_profile_id: "prof".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let err = error_view(
        lc.create_app_profile(CreateAppProfileRequest {
            parent: names::composite_profile(&ca, "prof"),
            app_profile_id: "ap".into(),
            app_profile: Some(AppProfile {
                app: "ghost".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound);
    assert_eq!(err.field_violations[0].field, "app_profile.app");
    // A deployment intent group naming a missing composite profile.
    let err = error_view(
        lc.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
            parent: ca.clone(),
            deployment_intent_group_id: "d".into(),
            deployment_intent_group: Some(DeploymentIntentGroup {
                composite_profile: "ghost".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound);
    assert_eq!(
        err.field_violations[0].field,
        "deployment_intent_group.composite_profile"
    );
    let digs = lc
        .list_deployment_intent_groups(ListDeploymentIntentGroupsRequest {
            parent: ca,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        digs.deployment_intent_groups.is_empty(),
        "nothing was written"
    );
}

async fn malformed_manifests_name_document_and_field(server: &TestServer) {
    let mut client = server.client().await;
    let ca = flotilla_tests::project_and_version(&mut client).await;
    let lc = &mut client.lifecycle;
    let cases = [
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: [broken\n",
            "app.manifests[1]",
            "malformed YAML",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nmetadata: {name: b}\n",
            "app.manifests[1].kind",
            "required",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\n",
            "app.manifests[0].metadata.name",
            "required",
        ),
        (
            "[{\"apiVersion\": \"v1\", \"kind\": \"A\", ",
            "app.manifests",
            "malformed JSON",
        ),
        (
            "[{\"apiVersion\": \"v1\", \"kind\": 3, \"metadata\": {\"name\": \"x\"}}]",
            "app.manifests[0].kind",
            "string",
        ),
        ("just a string", "app.manifests[0]", "object"),
    ];
    for (text, field, description) in cases {
        let err = error_view(
            lc.create_app(CreateAppRequest {
                parent: ca.clone(),
                app_id: "bad".into(),
                app: Some(App {
                    manifests: text.into(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await,
        );
        assert_eq!(err.code, Code::InvalidArgument, "{text}");
        assert_eq!(err.reason, "INVALID_ARGUMENT");
        let flotilla_client::FieldViolation {
            field: got_field,
            description: got_description,
        } = &err.field_violations[0];
        assert_eq!(got_field, field, "{text}");
        assert!(
            got_description.contains(description),
            "{text}: {got_description}"
        );
    }
    let err = error_view(
        lc.get_app(GetAppRequest {
            name: names::app(&ca, "bad"),
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound, "no app was written");
}

async fn missing_required_fields(server: &TestServer) {
    let mut client = server.client().await;
    let ca = flotilla_tests::project_and_version(&mut client).await;
    let lc = &mut client.lifecycle;
    let err = error_view(
        lc.create_app(CreateAppRequest {
            parent: ca.clone(),
            app_id: "a".into(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "app.manifests");
    let err = error_view(
        lc.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
            parent: ca.clone(),
            deployment_intent_group_id: "d".into(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(
        err.field_violations[0].field,
        "deployment_intent_group.composite_profile"
    );
    let err = error_view(lc.update_project(UpdateProjectRequest::default()).await);
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "project");
    // A placement intent needs an app, a provider, and names or a selector: all reported.
    let err = error_view(
        lc.create_placement_intent(CreatePlacementIntentRequest {
            parent: names::deployment_intent_group(&ca, "d"),
            placement_intent_id: "pi".into(),
            placement_intent: Some(PlacementIntent::default()),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    let fields: Vec<&str> = err
        .field_violations
        .iter()
        .map(|v| v.field.as_str())
        .collect();
    assert_eq!(
        fields,
        [
            "placement_intent.app",
            "placement_intent.cluster_provider",
            "placement_intent.cluster_names"
        ]
    );
}

async fn unknown_enum_values(server: &TestServer) {
    let mut client = server.client().await;
    let lc = &mut client.lifecycle;
    lc.create_cluster_provider(CreateClusterProviderRequest {
        cluster_provider_id: "cp".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    for (mode, description) in [(99, "unknown enum value 99"), (0, "is required")] {
        let err = error_view(
            lc.create_cluster(CreateClusterRequest {
                parent: names::cluster_provider("cp"),
                cluster_id: "c".into(),
                cluster: Some(Cluster {
                    connection_mode: mode,
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await,
        );
        assert_eq!(err.code, Code::InvalidArgument);
        assert_eq!(err.field_violations[0].field, "cluster.connection_mode");
        assert!(
            err.field_violations[0].description.contains(description),
            "{:?}",
            err.field_violations
        );
    }
    let clusters = lc
        .list_clusters(ListClustersRequest {
            parent: names::cluster_provider("cp"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(clusters.clusters.is_empty());
}

async fn oversized_payloads(server: &TestServer) {
    let mut client = server.client().await;
    let ca = flotilla_tests::project_and_version(&mut client).await;
    let lc = &mut client.lifecycle;
    let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {k: \"".to_string()
        + &"v".repeat(1024 * 1024)
        + "\"}\n";
    let err = error_view(
        lc.create_app(CreateAppRequest {
            parent: ca.clone(),
            app_id: "big".into(),
            app: Some(App {
                manifests: doc,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::ResourceExhausted);
    assert_eq!(err.reason, "MANIFESTS_TOO_LARGE");
    assert_eq!(err.field_violations[0].field, "app.manifests");
    let many = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n".repeat(1001);
    let err = error_view(
        lc.create_app(CreateAppRequest {
            parent: ca.clone(),
            app_id: "many".into(),
            app: Some(App {
                manifests: many,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::ResourceExhausted);
    assert_eq!(err.reason, "TOO_MANY_DOCUMENTS");
    let err = error_view(
        lc.create_project(CreateProjectRequest {
            project_id: "huge".into(),
            project: Some(Project {
                description: "d".repeat(5 * 1024 * 1024),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::ResourceExhausted);
    assert_eq!(err.reason, "REQUEST_TOO_LARGE");
    // Headers: up to 16 KiB taken; past it a gRPC status (it was HTTP 431, which
    // clients read as UNKNOWN), before the token is even looked at.
    let with_header = |bytes: usize| {
        let mut request = tonic::Request::new(GetProjectRequest {
            name: "projects/none".into(),
        });
        request
            .metadata_mut()
            .insert("x-padding", "p".repeat(bytes).parse().unwrap());
        request
    };
    let err = error_view(lc.get_project(with_header(8 * 1024)).await);
    assert_eq!(err.code, Code::NotFound, "{err:?}");
    for bytes in [60 * 1024, 900 * 1024] {
        let err = error_view(lc.get_project(with_header(bytes)).await);
        assert_eq!(
            (err.code, err.reason.as_str()),
            (Code::ResourceExhausted, "HEADERS_TOO_LARGE"),
            "{bytes}: {err:?}"
        );
    }
    let err = error_view(
        lc.create_project(CreateProjectRequest {
            project_id: "long".into(),
            project: Some(Project {
                description: "d".repeat(5000),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "project.description");
    let apps = lc
        .list_apps(ListAppsRequest {
            parent: ca,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(apps.apps.is_empty());
}

async fn duplicates_and_invalid_network_specs(server: &TestServer) {
    let mut client = server.client().await;
    let lc = &mut client.lifecycle;
    lc.create_cluster_provider(CreateClusterProviderRequest {
        cluster_provider_id: "cp".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let err = error_view(
        lc.create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: "cp".into(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::AlreadyExists);
    assert_eq!(err.reason, "ALREADY_EXISTS");
    assert_eq!(err.resource_name.as_deref(), Some("clusterProviders/cp"));

    lc.create_cluster(CreateClusterRequest {
        parent: names::cluster_provider("cp"),
        cluster_id: "c".into(),
        cluster: Some(Cluster {
            connection_mode: ConnectionMode::Agent as i32,
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    let err = error_view(
        lc.create_network_intent(CreateNetworkIntentRequest {
            parent: names::cluster("cp", "c"),
            network_intent_id: "n".into(),
            network_intent: Some(NetworkIntent {
                spec: Some(network_intent::Spec::ProviderNetwork(ProviderNetworkSpec {
                    cni_type: "ovn4nfv".into(),
                    ipv4_subnets: vec![Ipv4Subnet {
                        name: "s".into(),
                        subnet: "10.0.0.0/33".into(),
                        gateway: "10.9.0.1/24".into(),
                        exclude_ips: vec!["nonsense".into()],
                    }],
                    provider_net_type: ProviderNetworkType::Vlan as i32,
                    vlan: Some(Vlan {
                        vlan_id: 5000,
                        vlan_node_selector: "some".into(),
                        ..Default::default()
                    }),
                })),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    let fields: Vec<&str> = err
        .field_violations
        .iter()
        .map(|v| v.field.as_str())
        .collect();
    for expected in [
        "network_intent.provider_network.ipv4_subnets[0].subnet",
        "network_intent.provider_network.ipv4_subnets[0].exclude_ips[0]",
        "network_intent.provider_network.vlan.vlan_id",
        "network_intent.provider_network.vlan.provider_interface_name",
        "network_intent.provider_network.vlan.vlan_node_selector",
    ] {
        assert!(
            fields.contains(&expected),
            "{expected} missing in {fields:?}"
        );
    }
}
