//! End-to-end: seed 004's provider objects (validated on their own, provisioned only
//! once a container cluster owns them) and one fleet (a container cluster registered
//! as a Flotilla cluster, with a group placed on its VMs), through real gRPC on SQLite
//! and PostgreSQL.

use flotilla_client::v1::*;
use flotilla_tests::{Backend, TestServer, error_view};

use crate::common::container_clusters::*;
use tonic::Code;

flotilla_tests::e2e_suite!(backend => one_fleet, infrastructure_objects);

/// One fleet: a RUNNING container cluster registered as a Flotilla cluster (an
/// embedded sim agent whose nodes are its VMs) takes a deployment intent group and
/// node actions on its VMs; stopping it disconnects the cluster (the group's status
/// shows it), starting it reconnects, deleting it leaves it disconnected.
async fn one_fleet(backend: Backend) {
    let server =
        TestServer::start_with(backend, &["--demo", "--sim-iaas-latency-millis", "20"]).await;
    let mut client = server.client().await;
    let c = create(&mut client, spec("fleet", "zone-a", 2)).await;
    let register = |name: &str, parent: &str, id: &str| RegisterContainerClusterRequest {
        name: name.into(),
        parent: parent.into(),
        cluster_id: id.into(),
        labels: [("site".to_string(), "cloud".to_string())].into(),
    };
    // Refusals: not running yet, bad names.
    let error = error_view(
        client
            .container_clusters
            .register_container_cluster(register(&c.name, "clusterProviders/edge", "web"))
            .await,
    );
    assert_eq!(error.code, Code::FailedPrecondition, "{error:?}");
    let running = wait_state(&client, &c.name, ContainerClusterState::Running).await;
    let error = error_view(
        client
            .container_clusters
            .register_container_cluster(register(&c.name, "edge", "Web!"))
            .await,
    );
    assert_eq!(error.code, Code::InvalidArgument);
    assert_eq!(error.fields(), ["parent", "cluster_id"]);

    let cluster = client
        .container_clusters
        .register_container_cluster(register(&c.name, "clusterProviders/edge", "web"))
        .await
        .unwrap()
        .into_inner();
    let web = "clusterProviders/edge/clusters/web";
    assert_eq!(cluster.name, web);
    let error = error_view(
        client
            .container_clusters
            .register_container_cluster(register(&c.name, "clusterProviders/edge", "web2"))
            .await,
    );
    assert_eq!(error.reason, "ALREADY_REGISTERED");
    assert_eq!(get(&mut client, &c.name).await.registered_cluster, web);
    flotilla_tests::wait_connectivity(&client, web, Connectivity::Available).await;

    // A group placed on it: the demo's apps, on `web`.
    let version = "projects/demo/compositeApps/shop/versions/v1";
    let dig = format!("{version}/deploymentIntentGroups/cloud");
    client
        .lifecycle
        .create_deployment_intent_group(CreateDeploymentIntentGroupRequest {
            parent: version.into(),
            deployment_intent_group_id: "cloud".into(),
            deployment_intent_group: Some(DeploymentIntentGroup {
                composite_profile: "default".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    for app in ["collectd", "operator"] {
        client
            .lifecycle
            .create_placement_intent(CreatePlacementIntentRequest {
                parent: dig.clone(),
                placement_intent_id: app.into(),
                placement_intent: Some(PlacementIntent {
                    app: app.into(),
                    cluster_provider: "edge".into(),
                    cluster_names: vec!["web".into()],
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await
            .unwrap();
    }
    flotilla_tests::demo::approve_and_instantiate_group(&mut client, &dig).await;
    let summary = |client: &flotilla_client::Client| {
        let mut client = client.clone();
        let dig = dig.clone();
        async move {
            client
                .status
                .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                    name: dig,
                    output: StatusOutput::Detail as i32,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
        }
    };
    flotilla_tests::eventually(WAIT, "the group ready on the container cluster", || {
        let client = client.clone();
        async move { (summary(&client).await.readiness.unwrap_or_default().ready == 8).then_some(()) }
    })
    .await;
    // Its pods run on the VMs.
    let detail = format!("{:?}", summary(&client).await);
    let vm = &running.vms[0].name;
    assert!(detail.contains(vm.as_str()), "pods on the VMs: {detail}");

    // A node action on a VM.
    let action = client
        .actions
        .create_node_action(CreateNodeActionRequest {
            cluster: web.into(),
            node: vm.clone(),
            action_name: "Reboot".into(),
            params: Some(create_node_action_request::Params::RebootParams(
                RebootParams {
                    delay_in_seconds: 0,
                },
            )),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let done = flotilla_tests::wait_action(&client, &action.name).await;
    assert_eq!(
        done.status.unwrap_or_default().state(),
        ActionState::Succeeded,
        "the node reboot"
    );

    // Stopped: the cluster is disconnected, and the group's status stream says so;
    // started: connected again; deleted: gone for good.
    let mut group = flotilla_client::WatchEvents::new(
        client
            .status
            .watch_status(WatchStatusRequest {
                name: dig.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner(),
    );
    verb(&mut client, &c.name, "stop").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Stopped).await;
    flotilla_tests::wait_connectivity(&client, web, Connectivity::Retrying).await;
    loop {
        let event = tokio::time::timeout(WAIT, group.next())
            .await
            .expect("the group's stream says the cluster went away")
            .unwrap()
            .unwrap();
        if event.r#type == WatchEventType::ConnectivityChanged as i32
            && event.connectivity == Connectivity::Retrying as i32
        {
            assert!(event.cluster.ends_with("web"), "{event:?}");
            break;
        }
    }
    verb(&mut client, &c.name, "start").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Running).await;
    flotilla_tests::wait_connectivity(&client, web, Connectivity::Available).await;
    verb(&mut client, &c.name, "stop").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Stopped).await;
    verb(&mut client, &c.name, "delete").await.unwrap();
    wait_state(&client, &c.name, ContainerClusterState::Destroyed).await;
    flotilla_tests::wait_connectivity(&client, web, Connectivity::Retrying).await;
}

/// Seed 004's provider object: validated on its own at create, nothing provisioned
/// while no cluster owns it, taken by a cluster through `infrastructure_ref` (whose
/// phase, Ready and endpoint the cluster follows), not deletable while owned, gone
/// with its cluster; an unowned one is deleted by the user.
async fn infrastructure_objects(backend: Backend) {
    let server =
        TestServer::start_with(backend, &["--sim", "--sim-iaas-latency-millis", "20"]).await;
    let mut client = server.client().await;
    let cc = &mut client.container_clusters;
    let object = |zone: &str, offering: &str, size: i32| SimInfrastructure {
        spec: Some(SimInfrastructureSpec {
            zone_id: zone.into(),
            service_offering_id: offering.into(),
            size,
            network_id: String::new(),
        }),
        ..Default::default()
    };
    let error = error_view(
        cc.create_sim_infrastructure(CreateSimInfrastructureRequest {
            sim_infrastructure_id: "bad".into(),
            sim_infrastructure: Some(object("zone-z", "huge", 0)),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(error.code, Code::InvalidArgument);
    assert_eq!(
        error.fields(),
        [
            "sim_infrastructure.spec.zone_id",
            "sim_infrastructure.spec.service_offering_id",
            "sim_infrastructure.spec.size"
        ]
    );
    client
        .simulator
        .set_zone_capacity(SetZoneCapacityRequest {
            zone_id: "zone-b".into(),
            capacity: 5,
        })
        .await
        .unwrap();
    let cc = &mut client.container_clusters;
    let error = error_view(
        cc.create_sim_infrastructure(CreateSimInfrastructureRequest {
            sim_infrastructure_id: "too-big".into(),
            sim_infrastructure: Some(object("zone-b", "small", 6)),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(error.code, Code::ResourceExhausted, "{error:?}");

    let made = cc
        .create_sim_infrastructure(CreateSimInfrastructureRequest {
            sim_infrastructure_id: "infra-1".into(),
            sim_infrastructure: Some(object("zone-b", "medium", 2)),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(made.name, "simInfrastructures/infra-1");
    assert!(made.owner.is_empty());
    let status = made.status.clone().unwrap();
    assert_eq!(status.phase, InfrastructurePhase::Pending as i32);
    assert!(!status.ready);
    let error = error_view(
        cc.create_sim_infrastructure(CreateSimInfrastructureRequest {
            sim_infrastructure_id: "infra-1".into(),
            sim_infrastructure: Some(object("zone-b", "medium", 2)),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(error.code, Code::AlreadyExists);
    // Unowned: the provider does nothing.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(zone_capacity(&mut client, "zone-b").await, 5);

    let cluster = create(
        &mut client,
        ContainerCluster {
            display_name: "owned".into(),
            infrastructure_ref: made.name.clone(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(cluster.zone_id, "zone-b");
    assert_eq!(cluster.service_offering_id, "medium");
    assert_eq!(cluster.size, 2);
    let error = error_view(
        client
            .container_clusters
            .create_container_cluster(CreateContainerClusterRequest {
                container_cluster: Some(ContainerCluster {
                    display_name: "thief".into(),
                    infrastructure_ref: made.name.clone(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(error.code, Code::FailedPrecondition);
    assert_eq!(error.reason, "INFRASTRUCTURE_OWNED");
    let running = wait_state(&client, &cluster.name, ContainerClusterState::Running).await;
    let infra = client
        .container_clusters
        .get_sim_infrastructure(GetSimInfrastructureRequest {
            name: made.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(infra.owner, cluster.name);
    let status = infra.status.unwrap();
    assert!(status.ready);
    assert_eq!(status.phase, InfrastructurePhase::Provisioned as i32);
    assert_eq!(
        status.endpoint, running.endpoint,
        "the cluster copies the object's endpoint"
    );
    let ready = status
        .conditions
        .iter()
        .find(|c| c.r#type == "Ready")
        .unwrap();
    let mirrored = condition(&running, "InfrastructureReady");
    assert_eq!(
        (mirrored.status, &mirrored.reason),
        (ready.status, &ready.reason)
    );
    assert_eq!(zone_capacity(&mut client, "zone-b").await, 3);

    let error = error_view(
        client
            .container_clusters
            .delete_sim_infrastructure(DeleteSimInfrastructureRequest {
                name: made.name.clone(),
                etag: String::new(),
            })
            .await,
    );
    assert_eq!(error.reason, "INFRASTRUCTURE_OWNED");

    // Another, unowned, listed and deleted (with a stale etag refused first).
    let spare = client
        .container_clusters
        .create_sim_infrastructure(CreateSimInfrastructureRequest {
            sim_infrastructure_id: String::new(),
            sim_infrastructure: Some(object("zone-a", "small", 1)),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let page = client
        .container_clusters
        .list_sim_infrastructures(ListSimInfrastructuresRequest {
            page_size: 1,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.sim_infrastructures.len(), 1);
    let rest = client
        .container_clusters
        .list_sim_infrastructures(ListSimInfrastructuresRequest {
            page_size: 10,
            page_token: page.next_page_token,
        })
        .await
        .unwrap()
        .into_inner();
    let mut names: Vec<&str> = page
        .sim_infrastructures
        .iter()
        .chain(&rest.sim_infrastructures)
        .map(|i| i.name.as_str())
        .collect();
    names.sort();
    let mut want = vec![made.name.as_str(), spare.name.as_str()];
    want.sort();
    assert_eq!(
        names, want,
        "infra-1 (the cluster's) and the spare, one per page"
    );
    assert!(rest.next_page_token.is_empty());
    let error = error_view(
        client
            .container_clusters
            .delete_sim_infrastructure(DeleteSimInfrastructureRequest {
                name: spare.name.clone(),
                etag: "\"999\"".into(),
            })
            .await,
    );
    assert_eq!(error.code, Code::Aborted, "{error:?}");
    client
        .container_clusters
        .delete_sim_infrastructure(DeleteSimInfrastructureRequest {
            name: spare.name.clone(),
            etag: spare.etag.clone(),
        })
        .await
        .unwrap();

    // The cluster's object goes with it.
    verb(&mut client, &cluster.name, "stop").await.unwrap();
    wait_state(&client, &cluster.name, ContainerClusterState::Stopped).await;
    verb(&mut client, &cluster.name, "delete").await.unwrap();
    wait_state(&client, &cluster.name, ContainerClusterState::Destroyed).await;
    let error = error_view(
        client
            .container_clusters
            .get_sim_infrastructure(GetSimInfrastructureRequest {
                name: made.name.clone(),
            })
            .await,
    );
    assert_eq!(error.code, Code::NotFound);
}
