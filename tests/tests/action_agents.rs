//! End-to-end: actions through real `flotilla-agent` processes across faults, on SQLite
//! and PostgreSQL. An action created while the agent is away waits and is delivered
//! when it reconnects; an action running when the session drops is reconciled on
//! reconnect; a server killed with SIGKILL loses nothing and runs nothing twice (the
//! pod's restart count rises exactly once per reboot); an embedded agent that restarted
//! with the server reports what it cannot know instead of running it again.

use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::demo::DIG;
use flotilla_tests::{TestAgent, TestServer, eventually, struct_json, wait_connectivity};
use serde_json::Value;

const ARGS: [&str; 5] = [
    "--demo",
    "--sim-pod-ready-millis",
    "100",
    "--agent-heartbeat-millis",
    "1000",
];

macro_rules! on_both_backends {
    ($($test:ident),+ $(,)?) => {
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                let server = flotilla_tests::TestServer::start_with(flotilla_tests::Backend::Sqlite, &super::ARGS).await;
                super::$test(server).await;
            })+
        }
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $test() {
                let server = flotilla_tests::TestServer::start_with(flotilla_tests::Backend::Postgres, &super::ARGS).await;
                super::$test(server).await;
            })+
        }
    };
}

on_both_backends!(
    actions_wait_for_a_disconnected_agent_and_reconcile_on_reconnect,
    server_kill_loses_nothing_and_runs_nothing_twice,
);

const WAIT: Duration = Duration::from_secs(60);

/// The demo, with its operator app (and the guest VM) also on an AGENT cluster
/// `remote` served by a flotilla-agent process.
async fn setup(server: &TestServer) -> (Client, TestAgent, String) {
    let mut client = server.client().await;
    let created = client
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: "clusterProviders/edge".into(),
            cluster_id: "remote".into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::Agent as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let agent = TestAgent::start(server, &created.name, &created.agent_token);
    wait_connectivity(&client, &created.name, Connectivity::Available).await;
    let intent = format!("{DIG}/placementIntents/operator");
    let mut placement = client
        .lifecycle
        .get_placement_intent(GetPlacementIntentRequest {
            name: intent.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    placement.cluster_names.push("remote".into());
    client
        .lifecycle
        .update_placement_intent(UpdatePlacementIntentRequest {
            placement_intent: Some(placement),
            update_mask: None,
        })
        .await
        .unwrap();
    flotilla_tests::demo::approve_and_instantiate(&mut client).await;
    guest_restarts(&client, "remote", |_| true).await;
    (client, agent, created.name)
}

/// The guest VM's restart count on `cluster` once `accept` holds for it (and it is
/// Ready).
async fn guest_restarts(client: &Client, cluster: &str, accept: impl Fn(i64) -> bool) -> i64 {
    let cluster = cluster.to_string();
    eventually(WAIT, &format!("guest-0 on {cluster}"), || {
        let mut client = client.clone();
        let cluster = cluster.clone();
        let accept = &accept;
        async move {
            let status = client
                .status
                .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                    name: DIG.into(),
                    output: StatusOutput::Detail as i32,
                    clusters: vec![cluster],
                    resources: vec!["guest-0".into()],
                    ..Default::default()
                })
                .await
                .ok()?
                .into_inner();
            let pod = status
                .resources
                .iter()
                .flat_map(|a| a.clusters.iter().flat_map(|c| c.resources.iter()))
                .find(|r| r.name == "guest-0" && r.readiness() == Readiness::Ready)?;
            let count = struct_json(pod.status.as_ref()?)
                .pointer("/containerStatuses/0/restartCount")
                .and_then(Value::as_f64)
                .unwrap_or(0.0) as i64;
            accept(count).then_some(count)
        }
    })
    .await
}

async fn reboot(client: &mut Client, cluster: &str, delay: i32) -> Action {
    client
        .actions
        .create_pod_action(CreatePodActionRequest {
            cluster: cluster.into(),
            namespace: String::new(),
            pod: "guest-0".into(),
            action_name: "Reboot".into(),
            params: Some(create_pod_action_request::Params::RebootParams(
                RebootParams {
                    delay_in_seconds: delay,
                },
            )),
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
}

fn state(action: &Action) -> ActionState {
    action.status.as_ref().unwrap().state()
}

async fn wait_state(client: &Client, name: &str, want: ActionState) -> Action {
    eventually(WAIT, &format!("{name} to be {want:?}"), || {
        let mut client = client.clone();
        let name = name.to_string();
        async move {
            let action = client
                .actions
                .get_action(GetActionRequest { name })
                .await
                .ok()?
                .into_inner();
            (state(&action) == want).then_some(action)
        }
    })
    .await
}

async fn actions_wait_for_a_disconnected_agent_and_reconcile_on_reconnect(server: TestServer) {
    let (mut client, agent, remote) = setup(&server).await;
    let before = guest_restarts(&client, "remote", |_| true).await;

    // The agent is frozen: the session is cut after a heartbeat interval.
    agent.signal(libc::SIGSTOP);
    wait_connectivity(&client, &remote, Connectivity::Retrying).await;
    let waiting = reboot(&mut client, &remote, 0).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pending = wait_state(&client, &waiting.name, ActionState::Pending).await;
    let delivered = pending
        .status
        .as_ref()
        .unwrap()
        .conditions
        .iter()
        .find(|c| c.r#type == "Delivered")
        .unwrap();
    assert_eq!(delivered.reason, "AgentDisconnected");
    // Back: the action is delivered and runs, once.
    agent.signal(libc::SIGCONT);
    wait_state(&client, &waiting.name, ActionState::Succeeded).await;
    let after_first = guest_restarts(&client, "remote", |n| n > before).await;
    assert_eq!(after_first, before + 1);

    // Running when the session drops: the agent finishes it and the server takes the
    // outcome from the new session.
    let running = reboot(&mut client, &remote, 3).await;
    wait_state(&client, &running.name, ActionState::Running).await;
    agent.signal(libc::SIGSTOP);
    wait_connectivity(&client, &remote, Connectivity::Retrying).await;
    agent.signal(libc::SIGCONT);
    let done = wait_state(&client, &running.name, ActionState::Succeeded).await;
    assert_eq!(
        done.status.unwrap().reboot_status,
        Some(RebootStatus {
            reboot_successful: true
        })
    );
    let after_second = guest_restarts(&client, "remote", |n| n > after_first).await;
    assert_eq!(after_second, after_first + 1, "rebooted exactly once more");
    // Nothing runs again later.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        guest_restarts(&client, "remote", |_| true).await,
        after_second
    );
    assert!(agent.log_text().contains("agent session established"));
}

async fn server_kill_loses_nothing_and_runs_nothing_twice(mut server: TestServer) {
    let (mut client, agent, remote) = setup(&server).await;
    let before = guest_restarts(&client, "remote", |_| true).await;
    let cluster1 = names::cluster("edge", "cluster1");
    let embedded_before = guest_restarts(&client, "cluster1", |_| true).await;

    // A reboot in its delay on the remote agent, one on an embedded agent, and one
    // created while the remote agent is frozen (PENDING), then SIGKILL.
    let running = reboot(&mut client, &remote, 3).await;
    let embedded = reboot(&mut client, &cluster1, 3).await;
    wait_state(&client, &running.name, ActionState::Running).await;
    wait_state(&client, &embedded.name, ActionState::Running).await;
    server.kill9();
    server.respawn().await;
    let mut client = server.client().await;

    // The remote agent reconnects: the running reboot completes, once.
    let done = wait_state(&client, &running.name, ActionState::Succeeded).await;
    assert!(done.status.unwrap().complete);
    let after = guest_restarts(&client, "remote", |n| n > before).await;
    assert_eq!(after, before + 1);
    // The embedded agent restarted with the server: it cannot know whether the reboot
    // happened, so it says so rather than rebooting again.
    let lost = wait_state(&client, &embedded.name, ActionState::Failed).await;
    assert_eq!(lost.status.as_ref().unwrap().reason, "AgentRestarted");
    let embedded_after = guest_restarts(&client, "cluster1", |_| true).await;
    assert!(
        embedded_after <= embedded_before,
        "not rebooted again after the restart"
    );

    // A PENDING action survives a kill too.
    agent.signal(libc::SIGSTOP);
    wait_connectivity(&client, &remote, Connectivity::Retrying).await;
    let pending = reboot(&mut client, &remote, 0).await;
    server.kill9();
    server.respawn().await;
    let client = server.client().await;
    agent.signal(libc::SIGCONT);
    wait_state(&client, &pending.name, ActionState::Succeeded).await;
    let last = guest_restarts(&client, "remote", |n| n > after).await;
    assert_eq!(last, after + 1);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        guest_restarts(&client, "remote", |_| true).await,
        last,
        "ran once"
    );
}
