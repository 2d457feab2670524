//! End-to-end with real `flotilla-agent` processes: tokens, convergence, a silent
//! agent cut after one heartbeat interval, malformed messages, token rotation, one
//! process serving a fleet of sim clusters. On SQLite and PostgreSQL. (Server crashes and shutdowns: `faults.rs`.)

use std::time::{Duration, Instant};

use flotilla_client::names;
use flotilla_client::v1::connect_request::Message as Up;
use flotilla_client::v1::*;
use flotilla_tests::{
    TestAgent, TestServer, e2e_suite, eventually, json_struct, wait_action, wait_connectivity,
};
use serde_json::json;

e2e_suite!(
    args = ["--agent-heartbeat-millis", "1000", "--sim", "false"],
    remote_agents_converge_and_survive_a_silent_agent,
    tokens_are_checked_and_rotatable,
    malformed_agent_message_closes_the_session_only,
    partial_bundle_states_change_only_what_they_list,
    one_process_serves_a_sim_fleet,
);

use crate::common::fleet;
use fleet::{WAIT, clusters, deployment, instantiate, summary, wait_counts, wait_ready};

async fn remote_agents_converge_and_survive_a_silent_agent(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["east", "west"]).await;
    let _east = TestAgent::start(server, &names::cluster("cp", "east"), &tokens["east"]);
    let west = TestAgent::start(server, &names::cluster("cp", "west"), &tokens["west"]);
    let dig = deployment(&mut client, 2, 2, true, &["east", "west"]).await;
    instantiate(&mut client, &dig).await;
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
    west.signal(libc::SIGSTOP);
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
    west.signal(libc::SIGCONT);
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

/// A session's partial bundle states (only what changed) leave the resources they do
/// not list as they were; a full one still takes away what it omits. The agent here
/// is the test itself, so that it controls each state exactly.
async fn partial_bundle_states_change_only_what_they_list(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["r"]).await;
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let send = |message| {
        let tx = tx.clone();
        async move {
            tx.send(ConnectRequest {
                message: Some(message),
            })
            .await
            .unwrap()
        }
    };
    send(Up::Hello(AgentHello {
        cluster: names::cluster("cp", "r"),
        ..Default::default()
    }))
    .await;
    let mut request = tonic::Request::new(tokio_stream::wrappers::ReceiverStream::new(rx));
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {}", tokens["r"]).parse().unwrap(),
    );
    let mut down = client.agent.connect(request).await.unwrap().into_inner();
    match down.message().await.unwrap().unwrap().message {
        Some(connect_response::Message::Accepted(accepted)) => {
            assert!(accepted.partial_bundles, "the server takes partial states")
        }
        other => panic!("expected the acceptance, got {other:?}"),
    }
    // One app of two ConfigMaps: apply both.
    let dig = deployment(&mut client, 1, 2, false, &["r"]).await;
    instantiate(&mut client, &dig).await;
    let mut deployment_id = String::new();
    for _ in 0..2 {
        let apply = loop {
            match down.message().await.unwrap().unwrap().message {
                Some(connect_response::Message::Apply(apply)) => break apply,
                _ => continue,
            }
        };
        deployment_id = apply.deployment_id.clone();
        send(Up::Result(ResourceResult {
            operation_id: apply.operation_id,
            success: true,
            error: String::new(),
        }))
        .await;
    }
    let config_map = |name: &str| ObservedResource {
        gvk: Some(GroupVersionKind {
            version: "v1".into(),
            kind: "ConfigMap".into(),
            ..Default::default()
        }),
        name: name.into(),
        metadata: Some(json_struct(&json!({"name": name}))),
        ..Default::default()
    };
    let pod = |name: &str, ready: bool| ObservedResource {
        gvk: Some(GroupVersionKind {
            version: "v1".into(),
            kind: "Pod".into(),
            ..Default::default()
        }),
        name: name.into(),
        metadata: Some(json_struct(&json!({
            "name": name,
            "ownerReferences": [{"kind": "ReplicaSet", "name": "app0"}],
        }))),
        status: Some(json_struct(&json!({
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
        }))),
        ..Default::default()
    };
    let state = |resources: Vec<ObservedResource>, partial: bool| {
        Up::BundleState(ResourceBundleState {
            deployment_id: deployment_id.clone(),
            resources,
            partial,
            ..Default::default()
        })
    };
    let wait = |present: i32, ready: i32, not_ready: i32, what: &'static str| {
        let client = client.clone();
        let dig = dig.clone();
        async move {
            eventually(WAIT, what, || {
                let mut client = client.clone();
                let dig = dig.clone();
                async move {
                    let s = summary(&mut client, &dig, &[]).await;
                    let c = s.cluster_status.unwrap_or_default();
                    let r = s.readiness.unwrap_or_default();
                    (c.present == present && r.ready == ready && r.not_ready == not_ready)
                        .then_some(())
                }
            })
            .await
        }
    };
    let cms = || vec![config_map("app0-cm0"), config_map("app0-cm1")];
    let mut full = cms();
    full.extend([pod("app0-a", true), pod("app0-b", true)]);
    send(state(full, false)).await;
    wait(4, 4, 0, "the full state: 2 ConfigMaps and 2 ready pods").await;

    // A partial state of one pod changes that pod only.
    send(state(vec![pod("app0-b", false)], true)).await;
    wait(4, 3, 1, "app0-b not ready, the rest as it was").await;
    // One that lists a new pod adds it.
    send(state(vec![pod("app0-c", true)], true)).await;
    wait(5, 4, 1, "app0-c joins").await;
    // A full state still takes away what it omits (app0-a).
    let mut full = cms();
    full.extend([pod("app0-b", true), pod("app0-c", true)]);
    send(state(full, false)).await;
    wait(4, 4, 0, "app0-a gone, app0-b ready again").await;
}

/// `--sim-fleet`: one process, a session per cluster. Both good clusters converge and
/// run their own actions; the one with a wrong token is refused alone, the others stay
/// served, and the exit status reports the refusal.
async fn one_process_serves_a_sim_fleet(server: &TestServer) {
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["f1", "f2", "f3"]).await;
    let fleet: Vec<(String, String)> = [
        ("f1", tokens["f1"].clone()),
        ("f2", tokens["f2"].clone()),
        ("f3", "flt_wrong".to_string()),
    ]
    .into_iter()
    .map(|(id, token)| (names::cluster("cp", id), token))
    .collect();
    let mut agent = TestAgent::start_fleet(server, "f", &fleet, &["--nodes", "2"]);
    let dig = deployment(&mut client, 1, 1, true, &["f1", "f2"]).await;
    instantiate(&mut client, &dig).await;
    // 1 app x 2 clusters x (1 ConfigMap + 1 Deployment) applied; plus 1 pod each.
    wait_counts(&client, &dig, &[], 4, 6, "convergence through the fleet").await;
    wait_ready(&client, &dig, 6, "the fleet's resources to be ready").await;
    eventually(WAIT, "the refusal of f3 in the fleet's log", || {
        let log = agent.log_text();
        async move {
            log.contains("token no longer valid for cluster clusterProviders/cp/clusters/f3")
                .then_some(())
        }
    })
    .await;
    assert!(
        agent.wait_exit(Duration::from_millis(500)).is_none(),
        "one refusal does not end the fleet"
    );
    wait_connectivity(
        &client,
        &names::cluster("cp", "f1"),
        Connectivity::Available,
    )
    .await;

    // A cluster's actions reach its own sim: f2's reboot runs on one of f2's nodes.
    let action = client
        .actions
        .create_pod_action(CreatePodActionRequest {
            cluster: names::cluster("cp", "f2"),
            pod: "app0-0".into(),
            action_name: "Reboot".into(),
            params: Some(create_pod_action_request::Params::RebootParams(
                RebootParams {
                    delay_in_seconds: 0,
                },
            )),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let finished = wait_action(&client, &action.name).await;
    let status = finished.status.unwrap();
    assert_eq!(status.state(), ActionState::Succeeded, "{status:?}");
    let node = finished.spec.unwrap().node_name;
    assert!(node.starts_with("f2-node-"), "{node}");

    // SIGTERM: the served clusters stop cleanly; the exit status reports f3.
    agent.signal(libc::SIGTERM);
    let exit = agent
        .wait_exit(Duration::from_secs(10))
        .expect("the fleet exits on SIGTERM");
    assert_eq!(
        exit.code(),
        Some(1),
        "a refused cluster fails the exit status"
    );
    assert!(
        agent
            .log_text()
            .contains("the server refused 1 of the fleet's 3 clusters"),
        "{}",
        agent.log_text()
    );
}
