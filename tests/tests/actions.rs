//! End-to-end: ActionService through real gRPC and real agent sessions, on SQLite and
//! PostgreSQL. Pods run on nodes and VM pods are marked; reboots and snapshots are
//! executed by the agents and show in status; every refusal of the API; one open
//! action per pod under 100 concurrent creates; cancel, delete, faults, deadlines,
//! expiry; WatchActions and an external node agent posting status.

use std::time::{Duration, Instant};

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::demo::DIG;
use flotilla_tests::{TestServer, e2e_suite, error_view, eventually, struct_json};
use serde_json::Value;
use tonic::Code;

e2e_suite!(
    args = [
        "--demo",
        "--sim-pod-ready-millis",
        "200",
        "--action-check-millis",
        "100",
    ],
    pods_run_on_nodes_and_the_guest_is_a_vm,
    reboot_and_snapshot_run_through_the_agent,
    bad_requests_are_refused,
    one_open_action_per_pod_under_concurrent_creates,
    cancel_and_delete_follow_the_lifecycle,
    injected_faults_fail_actions,
    node_reboot_restarts_the_pods_on_the_node,
    watch_actions_streams_a_node_and_resumes,
    the_default_namespace_has_one_spelling,
);

#[path = "actions/refusals.rs"]
mod refusals;
#[path = "actions/watch.rs"]
mod watch;
use refusals::*;
use watch::*;

mod deadlines {
    use super::*;
    e2e_suite!(
        args = [
            "--demo",
            "--sim-pod-ready-millis",
            "100",
            "--action-pickup-timeout-secs",
            "1",
            "--action-ttl-after-finished-secs",
            "1",
            "--action-check-millis",
            "100",
            // Pods gone are found through the ingest's signal: no rescan within WAIT.
            "--action-pod-rescan-secs",
            "3600",
        ],
        deadlines_pod_loss_and_expiry,
    );
}

pub const WAIT: Duration = Duration::from_secs(60);

fn cluster1() -> String {
    names::cluster("edge", "cluster1")
}

async fn converge(client: &mut Client) {
    flotilla_tests::demo::approve_and_instantiate(client).await;
    eventually(WAIT, "the demo to converge", || {
        let mut client = client.clone();
        async move {
            let s = client
                .status
                .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                    name: DIG.into(),
                    output: StatusOutput::Summary as i32,
                    ..Default::default()
                })
                .await
                .ok()?
                .into_inner();
            (s.readiness.unwrap_or_default().ready == 16).then_some(())
        }
    })
    .await;
}

/// The pod as the cluster reports it (DETAIL status): {metadata, spec, status}.
async fn pod(client: &mut Client, cluster: &str, pod: &str) -> Value {
    let status = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: DIG.into(),
            output: StatusOutput::Detail as i32,
            clusters: vec![cluster.rsplit('/').next().unwrap().into()],
            resources: vec![pod.into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let entry = status
        .resources
        .iter()
        .flat_map(|a| a.clusters.iter().flat_map(|c| c.resources.iter()))
        .find(|r| r.name == pod)
        .unwrap_or_else(|| panic!("{pod} not in {status:?}"));
    serde_json::json!({
        "metadata": struct_json(entry.metadata.as_ref().unwrap()),
        "spec": struct_json(entry.spec.as_ref().unwrap()),
        "status": struct_json(entry.status.as_ref().unwrap()),
        "readiness": entry.readiness,
    })
}

fn restarts(pod: &Value) -> i64 {
    pod.pointer("/status/containerStatuses/0/restartCount")
        .and_then(Value::as_f64)
        .unwrap_or(0.0) as i64
}

fn reboot(cluster: &str, pod: &str, delay: i32) -> CreatePodActionRequest {
    CreatePodActionRequest {
        cluster: cluster.into(),
        namespace: String::new(),
        pod: pod.into(),
        action_name: "Reboot".into(),
        params: Some(create_pod_action_request::Params::RebootParams(
            RebootParams {
                delay_in_seconds: delay,
            },
        )),
        request_id: String::new(),
    }
}

fn snapshot(cluster: &str, pod: &str, location: &str) -> CreatePodActionRequest {
    CreatePodActionRequest {
        cluster: cluster.into(),
        namespace: String::new(),
        pod: pod.into(),
        action_name: "Snapshot".into(),
        params: Some(create_pod_action_request::Params::SnapshotParams(
            SnapshotParams {
                snapshot_location: location.into(),
            },
        )),
        request_id: String::new(),
    }
}

fn state(action: &Action) -> ActionState {
    action.status.as_ref().unwrap().state()
}

/// Polls the action until it is in `want`.
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

fn condition<'a>(action: &'a Action, type_: &str) -> &'a Condition {
    action
        .status
        .as_ref()
        .unwrap()
        .conditions
        .iter()
        .find(|c| c.r#type == type_)
        .unwrap_or_else(|| panic!("no {type_} in {action:?}"))
}

async fn pods_run_on_nodes_and_the_guest_is_a_vm(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let guest = pod(&mut client, &cluster1(), "guest-0").await;
    assert_eq!(guest["metadata"]["labels"]["kubevirt.io/domain"], "guest");
    let node = guest["spec"]["nodeName"].as_str().unwrap().to_string();
    assert!(node.starts_with("cluster1-node-"), "{node}");
    // Every pod has a node of its cluster (3 by default).
    for name in ["collectd-0", "collectd-1", "operator-0"] {
        let p = pod(&mut client, &cluster1(), name).await;
        let node = p["spec"]["nodeName"].as_str().unwrap();
        assert!(
            ["cluster1-node-0", "cluster1-node-1", "cluster1-node-2"].contains(&node),
            "{name} on {node}"
        );
    }
}

async fn reboot_and_snapshot_run_through_the_agent(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let before = pod(&mut client, &cluster1(), "guest-0").await;
    let mut watch = flotilla_client::WatchEvents::new(
        client
            .status
            .watch_status(WatchStatusRequest {
                name: DIG.into(),
                clusters: vec!["cluster1".into()],
                resources: vec!["guest-0".into()],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner(),
    );
    while watch.next().await.unwrap().unwrap().r#type() != WatchEventType::Synced {}

    let created = client
        .actions
        .create_pod_action(reboot(&cluster1(), "guest-0", 0))
        .await
        .unwrap()
        .into_inner();
    assert!(created.name.starts_with("actions/") && created.name.ends_with(&created.uid));
    assert_eq!(state(&created), ActionState::Pending);
    assert_eq!(created.action_name, "Reboot");
    let spec = created.spec.as_ref().unwrap();
    assert_eq!(spec.node_name, before["spec"]["nodeName"].as_str().unwrap());
    let done = wait_state(&client, &created.name, ActionState::Succeeded).await;
    let status = done.status.as_ref().unwrap();
    assert!(status.complete);
    assert_eq!(
        status.reboot_status,
        Some(RebootStatus {
            reboot_successful: true
        })
    );
    assert!(status.start_time.is_some() && status.finish_time.is_some());
    for type_ in ["Ready", "Delivered", "Completed"] {
        assert_eq!(
            condition(&done, type_).status,
            ConditionStatus::True as i32,
            "{type_}"
        );
    }
    // The pod restarted once and is Ready again (as soon as the agent's next report is in).
    let after = eventually(WAIT, "guest-0 Ready after the reboot", || {
        let mut client = client.clone();
        async move {
            let p = pod(&mut client, &cluster1(), "guest-0").await;
            (p["readiness"] == Readiness::Ready as i32 && restarts(&p) > 0).then_some(p)
        }
    })
    .await;
    assert_eq!(restarts(&after), restarts(&before) + 1);
    // WatchStatus saw the dip: NotReady, then Ready.
    let mut readiness = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while readiness.last() != Some(&Readiness::Ready) || readiness.len() < 2 {
        assert!(Instant::now() < deadline, "{readiness:?}");
        let event = tokio::time::timeout(Duration::from_secs(10), watch.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Some(resource) = event.resource.filter(|r| r.name == "guest-0") {
            readiness.push(resource.readiness());
        }
    }
    assert!(readiness.contains(&Readiness::NotReady), "{readiness:?}");

    // A snapshot of the VM: a size and where it was written.
    let snap = client
        .actions
        .create_pod_action(snapshot(&cluster1(), "guest-0", "/var/tmp/snapshots/"))
        .await
        .unwrap()
        .into_inner();
    let snap = wait_state(&client, &snap.name, ActionState::Succeeded).await;
    let written = snap.status.unwrap().snapshot_status.unwrap();
    assert!(written.snapshot_size_in_bytes >= 256 << 20, "{written:?}");
    assert!(
        written
            .snapshot_path
            .starts_with("/var/tmp/snapshots/default-guest-0-"),
        "{written:?}"
    );
    // Query by pod: newest first.
    let listed = client
        .actions
        .list_actions(ListActionsRequest {
            cluster: cluster1(),
            pod: "guest-0".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let names: Vec<&str> = listed.actions.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, [snap.name.as_str(), created.name.as_str()]);
    // Filtered by state and node.
    let succeeded = client
        .actions
        .list_actions(ListActionsRequest {
            cluster: cluster1(),
            node_name: spec.node_name.clone(),
            state: ActionState::Succeeded as i32,
            page_size: 1,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(succeeded.actions.len(), 1);
    assert!(!succeeded.next_page_token.is_empty());
}

async fn one_open_action_per_pod_under_concurrent_creates(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move {
                client
                    .actions
                    .create_pod_action(reboot(&cluster1(), "collectd-1", 600))
                    .await
            })
        })
        .collect();
    let mut created = Vec::new();
    let mut aborted = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(action) => created.push(action.into_inner()),
            Err(status) => {
                assert_eq!(status.code(), Code::Aborted, "{status:?}");
                aborted += 1;
            }
        }
    }
    assert_eq!(created.len(), 1, "exactly one action");
    assert_eq!(aborted, 99);
    // The database holds exactly one action for the pod.
    let listed = client
        .actions
        .list_actions(ListActionsRequest {
            cluster: cluster1(),
            pod: "collectd-1".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.actions.len(), 1);
    let count = flotilla_tests::sql_count(
        &server.database_url,
        "SELECT COUNT(*) FROM actions WHERE pod = 'collectd-1'",
    )
    .await;
    assert_eq!(count, 1);
}

async fn cancel_and_delete_follow_the_lifecycle(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let before = restarts(&pod(&mut client, &cluster1(), "guest-0").await);
    // A reboot in its delay: RUNNING (the agent took it), then cancelled; it never runs.
    let waiting = client
        .actions
        .create_pod_action(reboot(&cluster1(), "guest-0", 2))
        .await
        .unwrap()
        .into_inner();
    wait_state(&client, &waiting.name, ActionState::Running).await;
    let error = error_view(
        client
            .actions
            .delete_action(DeleteActionRequest {
                name: waiting.name.clone(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::FailedPrecondition, "INVALID_STATE_TRANSITION")
    );
    let cancelled = client
        .actions
        .cancel_action(CancelActionRequest {
            name: waiting.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&cancelled), ActionState::Cancelled);
    assert_eq!(cancelled.status.as_ref().unwrap().reason, "Cancelled");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        restarts(&pod(&mut client, &cluster1(), "guest-0").await),
        before,
        "never rebooted"
    );
    // Anything out of CANCELLED is refused.
    let error = error_view(
        client
            .actions
            .cancel_action(CancelActionRequest {
                name: waiting.name.clone(),
            })
            .await,
    );
    assert_eq!(error.code, Code::FailedPrecondition);

    // A reboot whose delay has passed cannot be cancelled: the pod restarts slowly.
    client
        .simulator
        .set_pod_readiness_delay(SetPodReadinessDelayRequest {
            cluster: cluster1(),
            delay_millis: 3000,
        })
        .await
        .unwrap();
    let rebooting = client
        .actions
        .create_pod_action(reboot(&cluster1(), "guest-0", 0))
        .await
        .unwrap()
        .into_inner();
    wait_state(&client, &rebooting.name, ActionState::Running).await;
    let error = error_view(
        client
            .actions
            .cancel_action(CancelActionRequest {
                name: rebooting.name.clone(),
            })
            .await,
    );
    assert_eq!(error.code, Code::FailedPrecondition, "{error:?}");
    assert!(
        error.message.contains("reboot delay has passed"),
        "{error:?}"
    );
    let done = wait_state(&client, &rebooting.name, ActionState::Succeeded).await;
    // Finished: deleted on request, then gone.
    client
        .actions
        .delete_action(DeleteActionRequest {
            name: done.name.clone(),
        })
        .await
        .unwrap();
    let error = error_view(
        client
            .actions
            .get_action(GetActionRequest {
                name: done.name.clone(),
            })
            .await,
    );
    assert_eq!(error.code, Code::NotFound);
}

async fn injected_faults_fail_actions(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    client
        .simulator
        .fail_actions(FailActionsRequest {
            cluster: cluster1(),
            target_pattern: "guest-*".into(),
            action_name: String::new(),
        })
        .await
        .unwrap();
    let rebooted = client
        .actions
        .create_pod_action(reboot(&cluster1(), "guest-0", 0))
        .await
        .unwrap()
        .into_inner();
    let failed = wait_state(&client, &rebooted.name, ActionState::Failed).await;
    let status = failed.status.as_ref().unwrap();
    assert!(status.complete);
    assert_eq!(status.reason, "RebootFailed");
    assert_eq!(
        status.reboot_status,
        Some(RebootStatus {
            reboot_successful: false
        })
    );
    let ready = condition(&failed, "Ready");
    assert_eq!(
        (ready.status, ready.severity, ready.reason.as_str()),
        (
            ConditionStatus::False as i32,
            ConditionSeverity::Error as i32,
            "RebootFailed"
        )
    );
    let snapped = client
        .actions
        .create_pod_action(snapshot(&cluster1(), "guest-0", "/var/tmp"))
        .await
        .unwrap()
        .into_inner();
    let failed = wait_state(&client, &snapped.name, ActionState::Failed).await;
    let status = failed.status.unwrap();
    assert_eq!(status.reason, "OutOfSpace");
    assert!(
        status.error.contains("no space left on device"),
        "{status:?}"
    );
    // A late report cannot move the finished action: the agent's session reports are
    // CAS-guarded; an external post is refused alike.
    let error = error_view(
        client
            .actions
            .update_action_status(UpdateActionStatusRequest {
                name: snapped.name.clone(),
                status: Some(ActionStatus {
                    state: ActionState::Running as i32,
                    ..Default::default()
                }),
                etag: String::new(),
            })
            .await,
    );
    assert_eq!(error.code, Code::FailedPrecondition);
}

async fn node_reboot_restarts_the_pods_on_the_node(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let node = pod(&mut client, &cluster1(), "guest-0").await["spec"]["nodeName"]
        .as_str()
        .unwrap()
        .to_string();
    let mut on_node = Vec::new();
    let mut elsewhere = Vec::new();
    for name in ["collectd-0", "collectd-1", "operator-0", "guest-0"] {
        let p = pod(&mut client, &cluster1(), name).await;
        let entry = (name, restarts(&p));
        if p["spec"]["nodeName"] == node.as_str() {
            on_node.push(entry);
        } else {
            elsewhere.push(entry);
        }
    }
    let action = client
        .actions
        .create_node_action(CreateNodeActionRequest {
            cluster: cluster1(),
            node: node.clone(),
            action_name: "Reboot".into(),
            params: Some(create_node_action_request::Params::RebootParams(
                RebootParams::default(),
            )),
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(action.spec.as_ref().unwrap().node_name, node);
    wait_state(&client, &action.name, ActionState::Succeeded).await;
    for (name, before) in on_node {
        assert_eq!(
            restarts(&pod(&mut client, &cluster1(), name).await),
            before + 1,
            "{name}"
        );
    }
    for (name, before) in elsewhere {
        assert_eq!(
            restarts(&pod(&mut client, &cluster1(), name).await),
            before,
            "{name}"
        );
    }
}

async fn deadlines_pod_loss_and_expiry(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    // The cluster's agent is away: the action is not taken within the pickup timeout.
    flotilla_tests::disconnect(&client, &cluster1()).await;
    flotilla_tests::wait_connectivity(&client, &cluster1(), Connectivity::Retrying).await;
    let stranded = client
        .actions
        .create_pod_action(reboot(&cluster1(), "guest-0", 0))
        .await
        .unwrap()
        .into_inner();
    let delivered = condition(&stranded, "Delivered");
    assert_eq!(delivered.reason, "AgentDisconnected", "{stranded:?}");
    let failed = wait_state(&client, &stranded.name, ActionState::Failed).await;
    assert_eq!(failed.status.as_ref().unwrap().reason, "DeadlineExceeded");
    // Finished actions are deleted their TTL (1 s) after they finished.
    eventually(WAIT, "the failed action to expire", || {
        let mut client = client.clone();
        let name = stranded.name.clone();
        async move {
            let error = client
                .actions
                .get_action(GetActionRequest { name })
                .await
                .err()?;
            (error.code() == Code::NotFound).then_some(())
        }
    })
    .await;
    flotilla_tests::reconnect(&client, &cluster1()).await;
    flotilla_tests::wait_connectivity(&client, &cluster1(), Connectivity::Available).await;

    // The pod disappears while its action waits: FAILED, PodNotFound.
    let waiting = client
        .actions
        .create_pod_action(reboot(&cluster2(), "guest-0", 600))
        .await
        .unwrap()
        .into_inner();
    flotilla_tests::demo::terminate(&mut client).await;
    let gone = wait_state(&client, &waiting.name, ActionState::Failed).await;
    assert_eq!(
        gone.status.as_ref().unwrap().reason,
        "PodNotFound",
        "{gone:?}"
    );
}

fn cluster2() -> String {
    names::cluster("edge", "cluster2")
}

/// The demo's pods name no namespace; a caller who says "default" means the same pods
/// (it was accepted, then failed at the agent: "pod collectd-0 does not exist"). The
/// action runs to the end, lists under either spelling, and the simulator's DeletePod
/// takes either too.
async fn the_default_namespace_has_one_spelling(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let mut request = reboot(&cluster1(), "collectd-0", 0);
    request.namespace = "default".into();
    let created = client
        .actions
        .create_pod_action(request)
        .await
        .expect("a reboot in the default namespace, by name")
        .into_inner();
    let done = wait_state(&client, &created.name, ActionState::Succeeded).await;
    assert_eq!(done.name, created.name);
    for namespace in ["default", ""] {
        let listed = client
            .actions
            .list_actions(ListActionsRequest {
                cluster: cluster1(),
                namespace: namespace.into(),
                pod: "collectd-0".into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(listed.actions.len(), 1, "{namespace:?}: {listed:?}");
    }
    client
        .simulator
        .delete_pod(DeletePodRequest {
            cluster: cluster1(),
            namespace: "default".into(),
            pod: "collectd-0".into(),
        })
        .await
        .expect("the simulator deletes the pod by either spelling");
}
