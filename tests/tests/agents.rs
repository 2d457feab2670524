//! End-to-end with real `flotilla-agent` processes: tokens, convergence, a silent
//! agent cut after one heartbeat interval, malformed messages, token rotation, and a
//! kill -9 of the server during the instantiate of 10,000 resources. On SQLite and
//! PostgreSQL.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use flotilla_client::v1::connect_request::Message as Up;
use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::{TestAgent, TestServer, e2e_suite, eventually, wait_connectivity};

e2e_suite!(
    args = ["--agent-heartbeat-millis", "1000", "--sim", "false"],
    remote_agents_converge_and_survive_a_silent_agent,
    tokens_are_checked_and_rotatable,
    malformed_agent_message_closes_the_session_only,
    kill_9_during_a_large_instantiate_converges,
);

const WAIT: Duration = Duration::from_secs(120);

/// A provider `cp` with AGENT clusters; returns their tokens by cluster id.
async fn clusters(client: &mut Client, ids: &[&str]) -> BTreeMap<String, String> {
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
async fn deployment(
    client: &mut Client,
    apps: usize,
    documents: usize,
    deployment: bool,
    cluster_ids: &[&str],
) -> String {
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
    lc.create_composite_profile(CreateCompositeProfileRequest {
        parent: ca.clone(),
        composite_profile_id: "prof".into(),
        ..Default::default()
    })
    .await
    .unwrap();
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
    for a in 0..apps {
        let app = format!("app{a}");
        let mut manifests: String = (0..documents)
            .map(|d| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {app}-cm{d}\ndata:\n  k: v\n---\n"))
            .collect();
        if deployment {
            manifests.push_str(&format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\nspec:\n  replicas: 1\n"));
        }
        lc.create_app(CreateAppRequest {
            parent: ca.clone(),
            app_id: app.clone(),
            app: Some(App {
                manifests,
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
                app,
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

async fn summary(client: &mut Client, dig: &str, clusters: &[&str]) -> ResourceStatus {
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

async fn wait_counts(
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

async fn remote_agents_converge_and_survive_a_silent_agent(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["east", "west"]).await;
    let _east = TestAgent::start(server, &names::cluster("cp", "east"), &tokens["east"]);
    let west = TestAgent::start(server, &names::cluster("cp", "west"), &tokens["west"]);
    let dig = deployment(&mut client, 2, 2, true, &["east", "west"]).await;
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    // 2 apps x 2 clusters x (2 ConfigMaps + 1 Deployment) applied; plus 1 pod each present.
    wait_counts(
        &client,
        &dig,
        &[],
        12,
        16,
        "convergence through two remote agents",
    )
    .await;

    // A silent agent (SIGSTOP) is cut after one heartbeat interval; its resources retry.
    let pid = west_pid(&west);
    signal(pid, libc_sigstop());
    let start = Instant::now();
    eventually(WAIT, "west to retry", || {
        let mut client = client.clone();
        let dig = dig.clone();
        async move {
            let s = summary(&mut client, &dig, &["west"]).await;
            (s.rsync_status.unwrap_or_default().retrying == 6).then_some(())
        }
    })
    .await;
    let elapsed = start.elapsed();
    assert!(
        elapsed < Duration::from_millis(2500),
        "cut after {elapsed:?}; heartbeat interval is 1s"
    );
    signal(pid, libc_sigcont());
    wait_counts(
        &client,
        &dig,
        &[],
        12,
        16,
        "the resumed agent to reconnect and converge",
    )
    .await;
}

fn west_pid(agent: &TestAgent) -> i32 {
    agent.pid() as i32
}

fn signal(pid: i32, signal: i32) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

fn libc_sigstop() -> i32 {
    19
}

fn libc_sigcont() -> i32 {
    18
}

async fn tokens_are_checked_and_rotatable(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["a", "b"]).await;
    let mut bogus = TestAgent::start(server, &names::cluster("cp", "a"), "flt_not-a-token");
    let status = bogus
        .wait_exit(Duration::from_secs(20))
        .expect("a refused agent exits");
    assert!(!status.success());
    // One clear line, no backtrace.
    let log = bogus.log_text();
    assert!(
        log.contains(
            "token no longer valid for cluster clusterProviders/cp/clusters/a (unknown token)"
        ) && log.contains("RotateClusterAgentToken")
            && !log.contains("panicked")
            && !log.contains("stack backtrace"),
        "{log}"
    );

    let mut wrong = TestAgent::start(server, &names::cluster("cp", "b"), &tokens["a"]);
    let status = wrong
        .wait_exit(Duration::from_secs(20))
        .expect("an agent with another cluster's token exits");
    assert!(!status.success());
    assert!(
        wrong
            .log_text()
            .contains("acts for clusterProviders/cp/clusters/a"),
        "{}",
        wrong.log_text()
    );

    // A connected agent: rotating its token ends its session, and it exits saying why.
    let cluster_a = names::cluster("cp", "a");
    let mut old = TestAgent::start(server, &cluster_a, &tokens["a"]);
    wait_connectivity(&client, &cluster_a, Connectivity::Available).await;
    let rotated = client
        .lifecycle
        .rotate_cluster_agent_token(RotateClusterAgentTokenRequest {
            name: cluster_a.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(rotated.agent_token.starts_with("flt_") && rotated.agent_token != tokens["a"]);
    let status = old
        .wait_exit(Duration::from_secs(10))
        .expect("the agent holding the rotated token is cut and exits");
    assert!(!status.success());
    assert!(
        old.log_text()
            .contains("token no longer valid for cluster clusterProviders/cp/clusters/a"),
        "{}",
        old.log_text()
    );
    wait_connectivity(&client, &cluster_a, Connectivity::Retrying).await;
    // The old token stays refused; the new one serves the cluster.
    let mut again = TestAgent::start(server, &cluster_a, &tokens["a"]);
    assert!(
        again.wait_exit(Duration::from_secs(20)).is_some(),
        "the old token no longer works"
    );
    let _new = TestAgent::start(server, &cluster_a, &rotated.agent_token);
    wait_connectivity(&client, &cluster_a, Connectivity::Available).await;
}

async fn malformed_agent_message_closes_the_session_only(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["m"]).await;
    let cluster = names::cluster("cp", "m");
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tx.send(ConnectRequest {
        message: Some(Up::Hello(AgentHello {
            cluster: cluster.clone(),
            ..Default::default()
        })),
    })
    .await
    .unwrap();
    let mut request = tonic::Request::new(tokio_stream::wrappers::ReceiverStream::new(rx));
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {}", tokens["m"]).parse().unwrap(),
    );
    let mut down = client.agent.connect(request).await.unwrap().into_inner();
    let first = down.message().await.unwrap().unwrap();
    assert!(matches!(
        first.message,
        Some(connect_response::Message::Accepted(_))
    ));
    // A bundle state whose deployment id is not <instance>-<app>.
    tx.send(ConnectRequest {
        message: Some(Up::BundleState(ResourceBundleState {
            deployment_id: "garbage".into(),
            ..Default::default()
        })),
    })
    .await
    .unwrap();
    let error = loop {
        match down.message().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without an error"),
            Err(status) => break status,
        }
    };
    assert_eq!(error.code(), tonic::Code::InvalidArgument);
    assert!(
        error.message().contains("deployment_id"),
        "{}",
        error.message()
    );
    wait_connectivity(&client, &cluster, Connectivity::Retrying).await;
    // Nothing else was touched: the cluster and its token still work.
    let _agent = TestAgent::start(server, &cluster, &tokens["m"]);
    wait_connectivity(&client, &cluster, Connectivity::Available).await;
}

/// kill -9 of the server while it instantiates 10,000 resources: after a restart the
/// same request (same request_id) completes, and every resource converges to Applied
/// and Present exactly once.
async fn kill_9_during_a_large_instantiate_converges(server: &TestServer) {
    let mut server = TestServer::start_with(
        server.backend,
        &["--agent-heartbeat-millis", "1000", "--sim", "false"],
    )
    .await;
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["big"]).await;
    let _agent = TestAgent::start(&server, &names::cluster("cp", "big"), &tokens["big"]);
    let dig = deployment(&mut client, 10, 1000, false, &["big"]).await;
    let request = InstantiateDeploymentIntentGroupRequest {
        name: dig.clone(),
        request_id: "crash-1".into(),
        ..Default::default()
    };
    let mut during = client.clone();
    let inflight = tokio::spawn({
        let request = request.clone();
        async move {
            during
                .lifecycle
                .instantiate_deployment_intent_group(request)
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    server.kill9();
    let _ = inflight.await;
    // Same address: the running agent reconnects by itself.
    server.respawn().await;
    let mut client = server.client().await;
    let instantiated = client
        .lifecycle
        .instantiate_deployment_intent_group(request)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        instantiated.state,
        DeploymentIntentGroupState::Instantiated as i32
    );
    wait_counts(
        &client,
        &dig,
        &[],
        10_000,
        10_000,
        "10,000 resources Applied and Present",
    )
    .await;
    let instances = client
        .status
        .list_instances(ListInstancesRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .instances;
    assert_eq!(instances.len(), 1, "one instance, no duplicate");
    assert_eq!(instances[0].resource_count, 10_000);
    let s = summary(&mut client, &dig, &[]).await;
    let r = s.rsync_status.unwrap_or_default();
    assert_eq!((r.pending, r.retrying, r.failed), (0, 0, 0));
}
