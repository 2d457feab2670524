//! End-to-end: rsync through embedded sim agents, cluster status and the status query
//! (seed 000's scenario), conditions, faults injected through the SimulatorService.
//! On SQLite and PostgreSQL.

use std::time::{Duration, Instant};

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{TestServer, e2e_suite, error_view, eventually, wait_connectivity};
use tonic::Code;

e2e_suite!(
    args = ["--demo", "--sim-pod-ready-millis", "100"],
    seed_scenario_status_queries,
    failing_applies_are_failed_and_the_rest_applied,
    disconnected_cluster_retries_then_recovers,
    flapping_cluster_ends_available,
    status_tree_agrees_with_sql_and_is_never_stale,
    pod_deleted_out_of_band_goes_not_present_then_present,
    terminate_and_historical_instances,
    network_intents_render_and_apply,
);

use flotilla_tests::demo::{DIG, approve_and_instantiate as instantiate};

const WAIT: Duration = Duration::from_secs(60);

fn query(
    output: StatusOutput,
    apps: &[&str],
    clusters: &[&str],
) -> GetDeploymentIntentGroupStatusRequest {
    GetDeploymentIntentGroupStatusRequest {
        name: DIG.into(),
        output: output as i32,
        apps: apps.iter().map(|s| s.to_string()).collect(),
        clusters: clusters.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

async fn status(
    client: &mut Client,
    request: GetDeploymentIntentGroupStatusRequest,
) -> ResourceStatus {
    client
        .status
        .get_deployment_intent_group_status(request)
        .await
        .unwrap()
        .into_inner()
}

/// 2 apps x 2 clusters x 2 documents rendered; pods: collectd 2 (profile) + operator 2 per cluster.
async fn converged(client: &mut Client) -> ResourceStatus {
    eventually(WAIT, "the demo to converge", || {
        let mut client = client.clone();
        async move {
            let s = status(&mut client, query(StatusOutput::Summary, &[], &[])).await;
            let rsync = s.rsync_status.unwrap_or_default();
            let cluster = s.cluster_status.unwrap_or_default();
            let ready = s.readiness.unwrap_or_default();
            let all_ready = s
                .conditions
                .iter()
                .any(|c| c.r#type == "Ready" && c.status == ConditionStatus::True as i32);
            (rsync.applied == 8 && cluster.present == 16 && ready.ready == 16 && all_ready)
                .then_some(s)
        }
    })
    .await
}

fn entries(status: &ResourceStatus) -> Vec<(String, String, String, String)> {
    status
        .resources
        .iter()
        .flat_map(|app| {
            app.clusters.iter().flat_map(move |c| {
                c.resources.iter().map(move |r| {
                    (
                        app.app_name.clone(),
                        c.name.clone(),
                        r.gvk.as_ref().unwrap().kind.clone(),
                        r.name.clone(),
                    )
                })
            })
        })
        .collect()
}

fn condition<'a>(conditions: &'a [Condition], type_: &str) -> &'a Condition {
    conditions
        .iter()
        .find(|c| c.r#type == type_)
        .unwrap_or_else(|| panic!("no {type_} in {conditions:?}"))
}

async fn seed_scenario_status_queries(server: &TestServer) {
    let mut client = server.client().await;
    instantiate(&mut client).await;
    let summary = converged(&mut client).await;
    // summary: identification, state, counts; no resources.
    assert_eq!(summary.name, DIG);
    assert_eq!(
        (
            summary.project.as_str(),
            summary.composite_app_name.as_str()
        ),
        ("demo", "shop")
    );
    assert_eq!(
        (
            summary.composite_app_version.as_str(),
            summary.composite_profile_name.as_str()
        ),
        ("v1", "default")
    );
    assert_eq!(summary.state, "INSTANTIATED");
    assert!(summary.resources.is_empty());
    assert_eq!(
        condition(&summary.conditions, "Ready").status,
        ConditionStatus::True as i32
    );

    // all (the default): the tree app -> cluster -> resource, with statuses but no bodies.
    let all = status(&mut client, query(StatusOutput::Unspecified, &[], &[])).await;
    let tree = entries(&all);
    assert_eq!(tree.len(), 16);
    let expected_collectd_c1 = [
        ("ConfigMap", "collectd-config"),
        ("Deployment", "collectd"),
        ("Pod", "collectd-0"),
        ("Pod", "collectd-1"),
    ];
    let got: Vec<(&str, &str)> = tree
        .iter()
        .filter(|(a, c, ..)| a == "collectd" && c == "cluster1")
        .map(|(_, _, k, n)| (k.as_str(), n.as_str()))
        .collect();
    assert_eq!(got, expected_collectd_c1);
    assert_eq!(
        all.resources
            .iter()
            .map(|a| a.app_name.as_str())
            .collect::<Vec<_>>(),
        ["collectd", "operator"]
    );
    for app in &all.resources {
        assert_eq!(
            app.clusters
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["cluster1", "cluster2"]
        );
        for cluster in &app.clusters {
            assert_eq!(cluster.cluster_provider, "edge");
            for r in &cluster.resources {
                assert!(
                    r.metadata.is_none() && r.spec.is_none() && r.status.is_none(),
                    "all has no bodies"
                );
                assert_eq!(r.cluster_status, ClusterResourceStatus::Present as i32);
                let kind = &r.gvk.as_ref().unwrap().kind;
                if kind == "Pod" {
                    assert_eq!(
                        r.rsync_status,
                        RsyncStatus::Unspecified as i32,
                        "pods are cluster-only"
                    );
                    assert_eq!(r.gvk.as_ref().unwrap().version, "v1");
                } else {
                    assert_eq!(r.rsync_status, RsyncStatus::Applied as i32);
                }
            }
        }
    }

    // detail: metadata, spec and status as the cluster reports them.
    let detail = status(
        &mut client,
        query(StatusOutput::Detail, &["collectd"], &["cluster1"]),
    )
    .await;
    let deployment = &detail.resources[0].clusters[0].resources[1];
    assert_eq!(deployment.name, "collectd");
    let status_text = format!("{:?}", deployment.status);
    assert!(status_text.contains("availableReplicas"), "{status_text}");
    assert!(deployment.metadata.is_some() && deployment.spec.is_some());

    // rsync: only rendered resources, bodies from the rendered manifest, no cluster status.
    let rsync = status(&mut client, query(StatusOutput::Rsync, &[], &[])).await;
    assert!(
        rsync.cluster_status.is_none(),
        "rsync output has no cluster-status counts"
    );
    assert_eq!(rsync.rsync_status.as_ref().unwrap().applied, 8);
    let rsync_tree = entries(&rsync);
    assert_eq!(rsync_tree.len(), 8);
    assert!(rsync_tree.iter().all(|(_, _, kind, _)| kind != "Pod"));
    for app in &rsync.resources {
        for cluster in &app.clusters {
            for r in &cluster.resources {
                assert_eq!(r.cluster_status, ClusterResourceStatus::Unspecified as i32);
                assert!(r.status.is_none());
                let metadata = format!("{:?}", r.metadata);
                assert!(metadata.contains("flotilla/deployment-id"), "{metadata}");
            }
        }
    }

    // Filters narrow the tree and the counts: by cluster2, by app2, by both.
    for (apps, clusters, applied, present) in [
        (&[][..], &["cluster2"][..], 4, 8),
        (&["operator"][..], &[][..], 4, 8),
        (&["operator"][..], &["cluster2"][..], 2, 4),
    ] {
        let filtered = status(&mut client, query(StatusOutput::All, apps, clusters)).await;
        assert_eq!(
            filtered.rsync_status.as_ref().unwrap().applied,
            applied,
            "{apps:?} {clusters:?}"
        );
        assert_eq!(
            filtered.cluster_status.as_ref().unwrap().present,
            present,
            "{apps:?} {clusters:?}"
        );
        for (app, cluster, ..) in entries(&filtered) {
            assert!(apps.is_empty() || apps.contains(&app.as_str()));
            assert!(clusters.is_empty() || clusters.contains(&cluster.as_str()));
        }
    }
    // By resource name.
    let mut by_name = query(StatusOutput::All, &[], &[]);
    by_name.resources = vec!["collectd".into()];
    let named = status(&mut client, by_name).await;
    assert_eq!(named.rsync_status.as_ref().unwrap().applied, 2);
    assert!(entries(&named).iter().all(|(.., name)| name == "collectd"));

    // Paging: page_size counts resources; counts stay whole on every page.
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let mut request = query(StatusOutput::All, &[], &[]);
        request.page_size = 5;
        request.page_token = token.clone();
        let page = status(&mut client, request).await;
        assert_eq!(page.rsync_status.as_ref().unwrap().applied, 8);
        let page_entries = entries(&page);
        assert!(page_entries.len() <= 5);
        seen.extend(page_entries);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(seen, tree, "pages add up to the whole tree, in order");

    // Bad filters.
    let err = error_view(
        client
            .status
            .get_deployment_intent_group_status(query(StatusOutput::All, &["nope"], &[]))
            .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "apps[0]");
    assert!(err.field_violations[0].description.contains("nope"));
    let err = error_view(
        client
            .status
            .get_deployment_intent_group_status(query(StatusOutput::All, &[], &["cluster9"]))
            .await,
    );
    assert_eq!(err.code, Code::InvalidArgument);
    assert_eq!(err.field_violations[0].field, "clusters[0]");
    let mut unknown = query(StatusOutput::All, &[], &[]);
    unknown.instance = uuid_like();
    let err = error_view(
        client
            .status
            .get_deployment_intent_group_status(unknown)
            .await,
    );
    assert_eq!(err.code, Code::NotFound);
}

fn uuid_like() -> String {
    "01a1fd00-0000-7000-8000-000000000000".to_string()
}

async fn failing_applies_are_failed_and_the_rest_applied(server: &TestServer) {
    let mut client = server.client().await;
    // Wait for the sim agents to be connected before injecting the fault.
    let cluster1 = names::cluster("edge", "cluster1");
    wait_connectivity(&client, &cluster1, Connectivity::Available).await;
    client
        .simulator
        .fail_applies(FailAppliesRequest {
            cluster: cluster1,
            kind_pattern: "ConfigMap".into(),
            name_pattern: "*".into(),
        })
        .await
        .unwrap();
    instantiate(&mut client).await;
    let s = eventually(WAIT, "one failure and seven applies", || {
        let mut client = client.clone();
        async move {
            let s = status(&mut client, query(StatusOutput::All, &[], &[])).await;
            let r = s.rsync_status.unwrap_or_default();
            (r.failed == 1 && r.applied == 7).then_some(s)
        }
    })
    .await;
    let failed: Vec<_> = s
        .resources
        .iter()
        .flat_map(|a| {
            a.clusters
                .iter()
                .flat_map(move |c| c.resources.iter().map(move |r| (a, c, r)))
        })
        .filter(|(.., r)| r.rsync_status == RsyncStatus::Failed as i32)
        .map(|(a, c, r)| (a.app_name.clone(), c.name.clone(), r.name.clone()))
        .collect();
    assert_eq!(
        failed,
        [(
            "collectd".to_string(),
            "cluster1".to_string(),
            "collectd-config".to_string()
        )]
    );
    let applied = condition(&s.conditions, "ResourcesApplied");
    assert_eq!(applied.status, ConditionStatus::False as i32);
    assert_eq!(applied.severity, ConditionSeverity::Error as i32);
    assert_eq!(applied.reason, "ApplyFailed");
}

async fn disconnected_cluster_retries_then_recovers(server: &TestServer) {
    let mut client = server.client().await;
    instantiate(&mut client).await;
    converged(&mut client).await;
    let cluster2 = names::cluster("edge", "cluster2");
    let start = Instant::now();
    flotilla_tests::disconnect(&client, &cluster2).await;
    let s = eventually(WAIT, "cluster2's resources to retry", || {
        let mut client = client.clone();
        async move {
            let s = status(
                &mut client,
                query(StatusOutput::Summary, &[], &["cluster2"]),
            )
            .await;
            (s.rsync_status.unwrap_or_default().retrying == 4).then_some(s)
        }
    })
    .await;
    let elapsed = start.elapsed();
    // The simulator cuts the session at once; a silent agent would be cut after one
    // heartbeat interval (3 s by default; tests/agents.rs checks that case).
    assert!(
        elapsed <= Duration::from_millis(3000),
        "Retrying after {elapsed:?}, more than one heartbeat interval"
    );
    assert_eq!(s.rsync_status.as_ref().unwrap().applied, 0);
    let cluster = client
        .lifecycle
        .get_cluster(GetClusterRequest {
            name: cluster2.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(cluster.connectivity, Connectivity::Retrying as i32);
    assert_eq!(
        condition(&cluster.conditions, "AgentConnected").status,
        ConditionStatus::False as i32
    );
    let whole = status(&mut client, query(StatusOutput::Summary, &[], &[])).await;
    assert_eq!(
        condition(&whole.conditions, "ClustersReachable").reason,
        "ClusterUnreachable"
    );
    assert_eq!(
        whole.rsync_status.as_ref().unwrap().applied,
        4,
        "cluster1 is untouched"
    );

    flotilla_tests::reconnect(&client, &cluster2).await;
    converged(&mut client).await;
    let cluster = client
        .lifecycle
        .get_cluster(GetClusterRequest { name: cluster2 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(cluster.connectivity, Connectivity::Available as i32);
}

/// A cluster whose agent flaps while its resources are delivered ends Available and
/// converged: the rsync worker's "unreachable" write, decided while no session was
/// open, never lands after the Available of a session that opened meanwhile.
async fn flapping_cluster_ends_available(server: &TestServer) {
    let mut client = server.client().await;
    let cluster1 = names::cluster("edge", "cluster1");
    wait_connectivity(&client, &cluster1, Connectivity::Available).await;
    instantiate(&mut client).await;
    for round in 0..30 {
        flotilla_tests::disconnect(&client, &cluster1).await;
        if round % 2 == 1 {
            tokio::time::sleep(Duration::from_millis(5 * (round % 7))).await;
        }
        flotilla_tests::reconnect(&client, &cluster1).await;
        // Let the agent's backoff (100 ms + jitter) bring the session back sometimes.
        tokio::time::sleep(Duration::from_millis(40 * (round % 5))).await;
    }
    converged(&mut client).await;
    wait_connectivity(&client, &cluster1, Connectivity::Available).await;
}

/// Deletes cluster1's collectd-0 pod out of band (the sim recreates it).
async fn delete_collectd_pod(client: &mut Client) {
    client
        .simulator
        .delete_pod(DeletePodRequest {
            cluster: names::cluster("edge", "cluster1"),
            namespace: String::new(),
            pod: "collectd-0".into(),
        })
        .await
        .unwrap();
}

/// Every resource of `request`'s status, paged by `page_size`, as (app, cluster,
/// kind, name, version, rsync status, cluster status, readiness).
async fn status_rows(
    client: &mut Client,
    mut request: GetDeploymentIntentGroupStatusRequest,
    page_size: i32,
) -> Vec<(String, String, String, String, String, i32, i32, i32)> {
    let mut rows = Vec::new();
    request.page_size = page_size;
    loop {
        let page = status(client, request.clone()).await;
        for app in &page.resources {
            for c in &app.clusters {
                for r in &c.resources {
                    let gvk = r.gvk.clone().unwrap_or_default();
                    rows.push((
                        app.app_name.clone(),
                        c.name.clone(),
                        gvk.kind,
                        r.name.clone(),
                        gvk.version,
                        r.rsync_status,
                        r.cluster_status,
                        r.readiness,
                    ));
                }
            }
        }
        if page.next_page_token.is_empty() {
            return rows;
        }
        request.page_token = page.next_page_token;
    }
}

/// Paged ALL status is served from the in-memory status tree once the group is
/// quiet: it agrees with DETAIL (always read from SQL) on every page and filter, and
/// a change the group's watchers have seen is never answered from a stale tree.
async fn status_tree_agrees_with_sql_and_is_never_stale(server: &TestServer) {
    let mut client = server.client().await;
    instantiate(&mut client).await;
    converged(&mut client).await;
    let built = |server: &TestServer| server.log().matches("status tree ready").count();
    eventually(WAIT, "the status tree to be built", || async {
        (built(server) > 0).then_some(())
    })
    .await;
    for (apps, clusters) in [
        (&[][..], &[][..]),
        (&["collectd"][..], &[][..]),
        (&[][..], &["cluster2"][..]),
        (&["collectd", "operator"][..], &["cluster1"][..]),
    ] {
        for page_size in [1, 3, 1000] {
            let all = status_rows(
                &mut client,
                query(StatusOutput::All, apps, clusters),
                page_size,
            )
            .await;
            let detail = status_rows(
                &mut client,
                query(StatusOutput::Detail, apps, clusters),
                page_size,
            )
            .await;
            assert!(!all.is_empty());
            assert_eq!(
                all, detail,
                "apps {apps:?} clusters {clusters:?} page {page_size}"
            );
        }
    }
    // Counts come from the tree too when unfiltered.
    for page_size in [2, 1000] {
        let mut all = query(StatusOutput::All, &[], &[]);
        all.page_size = page_size;
        let mut detail = query(StatusOutput::Detail, &[], &[]);
        detail.page_size = page_size;
        let (all, detail) = (
            status(&mut client, all).await,
            status(&mut client, detail).await,
        );
        assert_eq!(all.rsync_status, detail.rsync_status);
        assert_eq!(all.cluster_status, detail.cluster_status);
        assert_eq!(all.readiness, detail.readiness);
        assert_eq!(all.rsync_status.unwrap().applied, 8);
    }
    let before = built(server);

    // A pod deleted out of band: once a watcher has its event, ALL shows it.
    let mut stream = flotilla_client::WatchEvents::new(
        client
            .status
            .watch_status(WatchStatusRequest {
                name: DIG.into(),
                output: StatusOutput::All as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner(),
    );
    loop {
        let event = stream.next().await.unwrap().expect("the watch goes on");
        if event.r#type == WatchEventType::Synced as i32 {
            break;
        }
    }
    delete_collectd_pod(&mut client).await;
    loop {
        let event = tokio::time::timeout(WAIT, stream.next())
            .await
            .expect("the pod's event in time")
            .unwrap()
            .expect("the watch goes on");
        let gone = event.resource.as_ref().is_some_and(|r| {
            r.name == "collectd-0" && r.cluster_status == ClusterResourceStatus::NotPresent as i32
        });
        if gone {
            break;
        }
    }
    let all = status_rows(&mut client, query(StatusOutput::All, &[], &[]), 1000).await;
    let pod = all
        .iter()
        .find(|row| row.1.ends_with("cluster1") && row.3 == "collectd-0")
        .expect("the pod is listed");
    assert_eq!(pod.6, ClusterResourceStatus::NotPresent as i32, "{pod:?}");

    // Once the group is quiet again the tree is rebuilt, and still agrees.
    converged(&mut client).await;
    eventually(WAIT, "the status tree to be rebuilt", || async {
        (built(server) > before).then_some(())
    })
    .await;
    let all = status_rows(&mut client, query(StatusOutput::All, &[], &[]), 2).await;
    let detail = status_rows(&mut client, query(StatusOutput::Detail, &[], &[]), 2).await;
    assert_eq!(all, detail);
}

async fn pod_deleted_out_of_band_goes_not_present_then_present(server: &TestServer) {
    let mut client = server.client().await;
    instantiate(&mut client).await;
    converged(&mut client).await;
    delete_collectd_pod(&mut client).await;
    let pod_status = |client: &Client| {
        let mut client = client.clone();
        async move {
            let s = status(
                &mut client,
                query(StatusOutput::All, &["collectd"], &["cluster1"]),
            )
            .await;
            s.resources[0].clusters[0]
                .resources
                .iter()
                .find(|r| r.name == "collectd-0")
                .map(|r| r.cluster_status)
        }
    };
    eventually(WAIT, "the deleted pod to be NotPresent", || {
        let client = client.clone();
        async move {
            (pod_status(&client).await == Some(ClusterResourceStatus::NotPresent as i32))
                .then_some(())
        }
    })
    .await;
    eventually(WAIT, "the recreated pod to be Present", || {
        let client = client.clone();
        async move {
            (pod_status(&client).await == Some(ClusterResourceStatus::Present as i32)).then_some(())
        }
    })
    .await;
}

async fn terminate_and_historical_instances(server: &TestServer) {
    let mut client = server.client().await;
    let first = instantiate(&mut client).await.current_instance;
    converged(&mut client).await;
    flotilla_tests::demo::terminate(&mut client).await;
    eventually(WAIT, "rsync to delete everything", || {
        let mut client = client.clone();
        async move {
            let s = status(&mut client, query(StatusOutput::Summary, &[], &[])).await;
            let r = s.rsync_status.unwrap_or_default();
            let c = s.cluster_status.unwrap_or_default();
            (r.terminated == 8 && c.present == 0).then_some(())
        }
    })
    .await;
    // Terminated is deletable again; re-instantiate gives a second instance.
    let second = client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .current_instance;
    assert_ne!(first, second);
    converged(&mut client).await;
    let instances = client
        .status
        .list_instances(ListInstancesRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .instances;
    assert_eq!(instances.len(), 2);
    assert_eq!(instances[0].id, second, "newest first");
    assert!(instances[0].current && !instances[1].current);
    assert!(instances[1].terminated);
    let mut old = query(StatusOutput::Summary, &[], &[]);
    old.instance = first.clone();
    let old = status(&mut client, old).await;
    assert_eq!(
        old.rsync_status.as_ref().unwrap().terminated,
        8,
        "the old instance keeps its statuses"
    );
    assert!(old.instance.ends_with(&first));
    assert_eq!(
        old.state, "TERMINATED",
        "the old instance's state, not the group's"
    );
    let now = status(&mut client, query(StatusOutput::Summary, &[], &[])).await;
    assert_eq!(now.state, "INSTANTIATED");
}

async fn network_intents_render_and_apply(server: &TestServer) {
    let mut client = server.client().await;
    let cluster = names::cluster("edge", "cluster1");
    client
        .lifecycle
        .create_network_intent(CreateNetworkIntentRequest {
            parent: cluster.clone(),
            network_intent_id: "net1".into(),
            network_intent: Some(NetworkIntent {
                spec: Some(network_intent::Spec::Network(NetworkSpec {
                    cni_type: "ovn4nfv".into(),
                    ipv4_subnets: vec![Ipv4Subnet {
                        name: "s1".into(),
                        subnet: "172.16.10.0/24".into(),
                        gateway: "172.16.10.1/24".into(),
                        exclude_ips: vec![],
                    }],
                })),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    client
        .lifecycle
        .apply_cluster_network_intents(ApplyClusterNetworkIntentsRequest {
            name: cluster.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let s = eventually(WAIT, "the network intent to be applied", || {
        let mut client = client.clone();
        let cluster = cluster.clone();
        async move {
            let s = client
                .status
                .get_cluster_network_status(GetClusterNetworkStatusRequest {
                    name: cluster,
                    ..Default::default()
                })
                .await
                .ok()?
                .into_inner();
            (s.rsync_status.unwrap_or_default().applied == 1).then_some(s)
        }
    })
    .await;
    assert_eq!(s.state, "APPLIED");
    assert!(s.project.is_empty());
    let r = &s.resources[0].clusters[0].resources[0];
    assert_eq!(s.resources[0].app_name, "network-intents");
    assert_eq!(r.gvk.as_ref().unwrap().kind, "Network");
    // The sim monitor does not report Network CRs: their cluster status is Unknown.
    assert_eq!(r.cluster_status, ClusterResourceStatus::Unknown as i32);
}
