//! End-to-end: the LifecycleService through the generated Rust client against the real
//! `flotilla-server` binary, on SQLite and PostgreSQL.

use std::collections::BTreeMap;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{TestServer, e2e_suite, error_view};
use prost_types::FieldMask;
use tonic::Code;

e2e_suite!(
    full_lifecycle_through_the_client,
    refused_transitions_carry_details,
    update_masks_and_etags,
    pagination_is_opaque_and_complete,
    request_ids_make_creates_and_verbs_idempotent,
    network_intents_apply_and_terminate,
    concurrent_conflicting_verbs_keep_history_consistent,
    a_provider_placement_intents_name_is_not_deleted,
);

/// The manifests of app `app`: a Deployment and a Service named after it (two apps
/// rendering one object on one cluster are refused: one object, one owner).
#[path = "lifecycle/concurrency.rs"]
mod concurrency;
use concurrency::*;

fn manifests(app: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}-web
spec:
  replicas: 1
---
apiVersion: v1
kind: Service
metadata:
  name: {app}-web
"
    )
}

/// Project `p`, composite app `ca/v1` with apps `a1`, `a2`, profile `prof` patching
/// a1's replicas to 2, provider `cp` with clusters `c1`, `c2`, intent group `d` placing
/// both apps on both clusters. Returns the intent group's name.
async fn seed(client: &mut Client) -> String {
    let lc = &mut client.lifecycle;
    lc.create_project(CreateProjectRequest {
        project_id: "p".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let ca = names::composite_app("p", "ca", "v1");
    lc.create_composite_app(CreateCompositeAppRequest {
        parent: names::project("p"),
        composite_app_id: "ca".into(),
        version_id: "v1".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    for app in ["a1", "a2"] {
        lc.create_app(CreateAppRequest {
            parent: ca.clone(),
            app_id: app.into(),
            app: Some(App {
                manifests: manifests(app),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    let profile = names::composite_profile(&ca, "prof");
    lc.create_composite_profile(CreateCompositeProfileRequest {
        parent: ca.clone(),
        composite_profile_id: "prof".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let patch = serde_json::json!({"spec": {"replicas": 2}});
    lc.create_app_profile(CreateAppProfileRequest {
        parent: profile,
        app_profile_id: "a1-profile".into(),
        app_profile: Some(AppProfile {
            app: "a1".into(),
            patches: vec![ManifestPatch {
                target_kind: "Deployment".into(),
                merge_patch: Some(flotilla_tests::json_struct(&patch)),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    lc.create_cluster_provider(CreateClusterProviderRequest {
        cluster_provider_id: "cp".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    for cluster in ["c1", "c2"] {
        lc.create_cluster(CreateClusterRequest {
            parent: names::cluster_provider("cp"),
            cluster_id: cluster.into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::EmbeddedSim as i32,
                labels: BTreeMap::from([("edge".to_string(), "true".to_string())]),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    let dig = names::deployment_intent_group(&ca, "d");
    lc.create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
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
    for app in ["a1", "a2"] {
        lc.create_placement_intent(CreatePlacementIntentRequest {
            parent: dig.clone(),
            placement_intent_id: format!("{app}-placement"),
            placement_intent: Some(PlacementIntent {
                app: app.into(),
                cluster_provider: "cp".into(),
                cluster_names: if app == "a1" {
                    vec!["c1".into(), "c2".into()]
                } else {
                    vec![]
                },
                cluster_selector: if app == "a2" {
                    BTreeMap::from([("edge".to_string(), "true".to_string())])
                } else {
                    BTreeMap::new()
                },
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    dig
}

fn state(dig: &DeploymentIntentGroup) -> DeploymentIntentGroupState {
    DeploymentIntentGroupState::try_from(dig.state).unwrap()
}

async fn full_lifecycle_through_the_client(server: &TestServer) {
    let mut client = server.client().await;
    let dig = seed(&mut client).await;
    let lc = &mut client.lifecycle;
    let approved = lc
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&approved), DeploymentIntentGroupState::Approved);
    let instantiated = lc
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        state(&instantiated),
        DeploymentIntentGroupState::Instantiated
    );
    assert!(!instantiated.current_instance.is_empty());
    // The history speaks the group's own state enum.
    let history: Vec<_> = instantiated.history.iter().map(|h| h.state()).collect();
    assert_eq!(
        history,
        [
            DeploymentIntentGroupState::Created,
            DeploymentIntentGroupState::Approved,
            DeploymentIntentGroupState::Instantiated
        ]
    );
    assert_eq!(instantiated.state(), *history.last().unwrap());
    assert!(
        instantiated
            .history
            .iter()
            .all(|h| h.time.is_some() && h.revision >= 1)
    );

    let rendered = lc
        .list_rendered_resources(ListRenderedResourcesRequest {
            parent: dig.clone(),
            page_size: 100,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    // 2 apps x 2 clusters x 2 documents.
    assert_eq!(rendered.rendered_resources.len(), 8);
    assert_eq!(rendered.total_size, 8);
    assert_eq!(
        rendered.instance,
        names::instance(&dig, &instantiated.current_instance)
    );
    for resource in &rendered.rendered_resources {
        // The embedded sim agents may have applied them already.
        assert!(
            [RsyncStatus::Pending as i32, RsyncStatus::Applied as i32]
                .contains(&resource.rsync_status),
            "{resource:?}"
        );
        let labels = &resource.manifest.as_ref().unwrap().fields["metadata"];
        let text = format!("{labels:?}");
        assert!(
            text.contains(&format!(
                "{}-{}",
                instantiated.current_instance, resource.app
            )),
            "{text}"
        );
        if resource.app == "a1" && resource.gvk.as_ref().unwrap().kind == "Deployment" {
            let spec = &resource.manifest.as_ref().unwrap().fields["spec"];
            assert!(
                format!("{spec:?}").contains("NumberValue(2.0)"),
                "profile patch: {spec:?}"
            );
        }
    }

    let terminated = lc
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&terminated), DeploymentIntentGroupState::Terminated);
    let fetched = lc
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: dig.clone() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(fetched.history.len(), 4);
    assert_eq!(
        fetched.history[3].state(),
        DeploymentIntentGroupState::Terminated
    );
    assert_eq!(fetched.history[3].instance, instantiated.current_instance);
}

async fn refused_transitions_carry_details(server: &TestServer) {
    let mut client = server.client().await;
    let dig = seed(&mut client).await;
    let lc = &mut client.lifecycle;
    let err = error_view(
        lc.instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::FailedPrecondition);
    assert_eq!(err.reason, "INVALID_STATE_TRANSITION");
    assert!(err.message.contains("must be approved"), "{}", err.message);
    let flotilla_client::PreconditionViolation {
        kind,
        subject,
        description,
    } = &err.precondition_violations[0];
    assert_eq!(kind, "STATE");
    assert_eq!(subject, &dig);
    assert!(
        description.contains("CREATED") && description.contains("instantiate"),
        "{description}"
    );

    let err = error_view(
        lc.terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::FailedPrecondition);
    assert!(err.message.contains("not instantiated"));

    lc.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
        name: dig.clone(),
        ..Default::default()
    })
    .await
    .unwrap();
    lc.instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
        name: dig.clone(),
        ..Default::default()
    })
    .await
    .unwrap();
    // Changing an app used by the instantiated group is a pending revision of the
    // group; rolling it out before it is approved is refused, naming the group.
    let app = names::app(&names::composite_app("p", "ca", "v1"), "a1");
    lc.update_app(UpdateAppRequest {
        app: Some(App {
            name: app.clone(),
            description: "x".into(),
            ..Default::default()
        }),
        update_mask: Some(FieldMask {
            paths: vec!["description".into()],
        }),
    })
    .await
    .expect("a pending revision");
    let group = lc
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: dig.clone() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(group.state(), DeploymentIntentGroupState::Instantiated);
    assert_eq!(
        group.pending_changes.len(),
        1,
        "{:?}",
        group.pending_changes
    );
    assert_eq!(group.pending_changes[0].name, app);
    let err = error_view(
        lc.rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::FailedPrecondition);
    assert_eq!(err.reason, "CONTENT_CHANGED");
    assert_eq!(err.precondition_violations[0].subject, dig);
    let err = error_view(
        lc.delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::FailedPrecondition);
}

async fn update_masks_and_etags(server: &TestServer) {
    let mut client = server.client().await;
    let lc = &mut client.lifecycle;
    let created = lc
        .create_project(CreateProjectRequest {
            project_id: "p".into(),
            project: Some(Project {
                description: "first".into(),
                labels: BTreeMap::from([("team".to_string(), "edge".to_string())]),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    // Only the masked field changes.
    let updated = lc
        .update_project(UpdateProjectRequest {
            project: Some(Project {
                name: created.name.clone(),
                description: "second".into(),
                etag: created.etag.clone(),
                ..Default::default()
            }),
            update_mask: Some(FieldMask {
                paths: vec!["description".into()],
            }),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(updated.description, "second");
    assert_eq!(
        updated.labels, created.labels,
        "labels not in the mask are kept"
    );
    assert_ne!(updated.etag, created.etag);
    // The old etag is stale now.
    let err = error_view(
        lc.update_project(UpdateProjectRequest {
            project: Some(Project {
                name: created.name.clone(),
                etag: created.etag.clone(),
                ..Default::default()
            }),
            update_mask: None,
        })
        .await,
    );
    assert_eq!(err.code, Code::Aborted);
    assert_eq!(err.reason, "ETAG_MISMATCH");
    // An etag is opaque: one the server never issued is told the same way, on updates,
    // deletes and verbs alike.
    for never_issued in [
        "W/\"abc\"",
        "not-an-etag",
        "0",
        "-7",
        "99999999999999999999",
    ] {
        let err = error_view(
            lc.update_project(UpdateProjectRequest {
                project: Some(Project {
                    name: created.name.clone(),
                    etag: never_issued.into(),
                    ..Default::default()
                }),
                update_mask: None,
            })
            .await,
        );
        assert_eq!(
            (err.code, err.reason.as_str()),
            (Code::Aborted, "ETAG_MISMATCH"),
            "{never_issued}"
        );
        let err = error_view(
            lc.delete_project(DeleteProjectRequest {
                name: created.name.clone(),
                etag: never_issued.into(),
            })
            .await,
        );
        assert_eq!(
            (err.code, err.reason.as_str()),
            (Code::Aborted, "ETAG_MISMATCH"),
            "{never_issued}"
        );
    }
    let err = error_view(
        lc.update_project(UpdateProjectRequest {
            project: Some(Project {
                name: created.name.clone(),
                ..Default::default()
            }),
            update_mask: Some(FieldMask {
                paths: vec!["uid".into()],
            }),
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "update_mask.paths[0]");
    let err = error_view(
        lc.delete_project(DeleteProjectRequest {
            name: created.name.clone(),
            etag: created.etag.clone(),
        })
        .await,
    );
    assert_eq!(err.code, Code::Aborted);
    lc.delete_project(DeleteProjectRequest {
        name: created.name.clone(),
        etag: updated.etag,
    })
    .await
    .unwrap();
    let err = error_view(
        lc.get_project(GetProjectRequest {
            name: created.name.clone(),
        })
        .await,
    );
    assert_eq!(err.code, Code::NotFound);
    assert_eq!(err.resource_name.as_deref(), Some("projects/p"));
}

async fn pagination_is_opaque_and_complete(server: &TestServer) {
    let mut client = server.client().await;
    let lc = &mut client.lifecycle;
    for i in 0..23 {
        lc.create_cluster_provider(CreateClusterProviderRequest {
            cluster_provider_id: format!("cp{i:02}"),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = lc
            .list_cluster_providers(ListClusterProvidersRequest {
                page_size: 5,
                page_token: token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.cluster_providers.len() <= 5);
        seen.extend(page.cluster_providers.into_iter().map(|p| p.name));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(seen.len(), 23);
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted);
    // Default page size is 50; negative sizes and foreign tokens are refused.
    let all = lc
        .list_cluster_providers(ListClusterProvidersRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(all.cluster_providers.len(), 23);
    let err = error_view(
        lc.list_cluster_providers(ListClusterProvidersRequest {
            page_size: -1,
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "page_size");
    let err = error_view(
        lc.list_projects(ListProjectsRequest {
            page_token: token,
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "page_token");
}

async fn request_ids_make_creates_and_verbs_idempotent(server: &TestServer) {
    let mut client = server.client().await;
    let dig = seed(&mut client).await;
    let lc = &mut client.lifecycle;
    let request = CreateClusterProviderRequest {
        cluster_provider_id: "idem".into(),
        request_id: "8c2b0a4e-create".into(),
        ..Default::default()
    };
    let first = lc
        .create_cluster_provider(request.clone())
        .await
        .unwrap()
        .into_inner();
    let retry = lc
        .create_cluster_provider(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first, retry);
    let mut different = request.clone();
    different.cluster_provider_id = "other".into();
    let err = error_view(lc.create_cluster_provider(different).await);
    assert_eq!(err.code, Code::FailedPrecondition);
    assert_eq!(err.reason, "REQUEST_ID_REUSED");

    lc.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
        name: dig.clone(),
        ..Default::default()
    })
    .await
    .unwrap();
    let verb = InstantiateDeploymentIntentGroupRequest {
        name: dig.clone(),
        request_id: "inst-1".into(),
        ..Default::default()
    };
    let first = lc
        .instantiate_deployment_intent_group(verb.clone())
        .await
        .unwrap()
        .into_inner();
    let retry = lc
        .instantiate_deployment_intent_group(verb)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        first.current_instance, retry.current_instance,
        "no second instance"
    );
    assert_eq!(first.history.len(), retry.history.len());
}

async fn network_intents_apply_and_terminate(server: &TestServer) {
    let mut client = server.client().await;
    seed(&mut client).await;
    let lc = &mut client.lifecycle;
    let cluster = names::cluster("cp", "c1");
    lc.create_network_intent(CreateNetworkIntentRequest {
        parent: cluster.clone(),
        network_intent_id: "provider-net".into(),
        network_intent: Some(NetworkIntent {
            spec: Some(network_intent::Spec::ProviderNetwork(ProviderNetworkSpec {
                cni_type: "ovn4nfv".into(),
                ipv4_subnets: vec![Ipv4Subnet {
                    name: "subnet1".into(),
                    subnet: "172.16.33.0/24".into(),
                    gateway: "172.16.33.1/24".into(),
                    exclude_ips: vec!["172.16.33.2..172.16.33.5".into()],
                }],
                provider_net_type: ProviderNetworkType::Vlan as i32,
                vlan: Some(Vlan {
                    vlan_id: 100,
                    provider_interface_name: "eth1".into(),
                    logical_interface_name: "eth1.100".into(),
                    vlan_node_selector: "all".into(),
                    node_label_list: vec![],
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    let applied = lc
        .apply_cluster_network_intents(ApplyClusterNetworkIntentsRequest {
            name: cluster.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        applied.network_intents_state,
        NetworkIntentsState::Applied as i32
    );
    let rendered = lc
        .list_rendered_resources(ListRenderedResourcesRequest {
            parent: cluster.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rendered.rendered_resources.len(), 1);
    assert_eq!(
        rendered.rendered_resources[0].gvk.as_ref().unwrap().kind,
        "ProviderNetwork"
    );
    assert_eq!(rendered.rendered_resources[0].app, "network-intents");
    let err = error_view(
        lc.delete_network_intent(DeleteNetworkIntentRequest {
            name: names::network_intent(&cluster, "provider-net"),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(err.code, Code::FailedPrecondition);
    assert_eq!(err.reason, "INVALID_STATE_TRANSITION");
    let terminated = lc
        .terminate_cluster_network_intents(TerminateClusterNetworkIntentsRequest {
            name: cluster.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        terminated.network_intents_state,
        NetworkIntentsState::Terminated as i32
    );
    let history: Vec<_> = terminated
        .network_history
        .iter()
        .map(|h| h.state())
        .collect();
    assert_eq!(
        history,
        [
            NetworkIntentsState::Created,
            NetworkIntentsState::Applied,
            NetworkIntentsState::Terminated
        ]
    );
}

/// A cluster provider with no clusters is still in use while a placement intent places
/// apps on it: deleting it is refused (IN_USE naming the intent) until the intent goes.
async fn a_provider_placement_intents_name_is_not_deleted(server: &TestServer) {
    let mut client = server.client().await;
    let dig = seed(&mut client).await;
    let lc = &mut client.lifecycle;
    lc.create_cluster_provider(CreateClusterProviderRequest {
        cluster_provider_id: "spare".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    let intent = lc
        .create_placement_intent(CreatePlacementIntentRequest {
            parent: dig.clone(),
            placement_intent_id: "a1-spare".into(),
            placement_intent: Some(PlacementIntent {
                app: "a1".into(),
                cluster_provider: "spare".into(),
                cluster_selector: BTreeMap::from([("site".to_string(), "b".to_string())]),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let delete = DeleteClusterProviderRequest {
        name: names::cluster_provider("spare"),
        ..Default::default()
    };
    let refused = error_view(lc.delete_cluster_provider(delete.clone()).await);
    assert_eq!(refused.code, Code::FailedPrecondition, "{refused:?}");
    assert_eq!(refused.reason, "IN_USE", "{refused:?}");
    assert!(refused.message.contains(&intent.name), "{refused:?}");
    lc.delete_placement_intent(DeletePlacementIntentRequest {
        name: intent.name,
        ..Default::default()
    })
    .await
    .unwrap();
    lc.delete_cluster_provider(delete).await.unwrap();
}
