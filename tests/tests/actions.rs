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
);

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

async fn bad_requests_are_refused(server: &TestServer) {
    let mut client = server.client().await;
    converge(&mut client).await;
    let c1 = cluster1();
    let checker = client.clone();
    let check =
        async |request: CreatePodActionRequest, code: Code, reason: &str, field: Option<&str>| {
            let mut client = checker.clone();
            let error = error_view(client.actions.create_pod_action(request.clone()).await);
            assert_eq!(error.code, code, "{request:?}: {error:?}");
            assert_eq!(error.reason, reason, "{request:?}: {error:?}");
            if let Some(field) = field {
                assert!(error.fields().contains(&field), "{field}: {error:?}");
            }
            error
        };
    let bad = |name: &str, params| CreatePodActionRequest {
        action_name: name.into(),
        params,
        ..reboot(&c1, "guest-0", 0)
    };
    use create_pod_action_request::Params;
    let cases = [
        (bad("Dance", None), "action_name"),
        (bad("reboot", None), "action_name"),
        (bad("Reboot", None), "reboot_params"),
        (bad("Snapshot", None), "snapshot_params"),
        (
            bad(
                "Snapshot",
                Some(Params::RebootParams(RebootParams {
                    delay_in_seconds: 1,
                })),
            ),
            "reboot_params",
        ),
        (
            bad(
                "Reboot",
                Some(Params::RebootParams(RebootParams {
                    delay_in_seconds: -1,
                })),
            ),
            "reboot_params.delay_in_seconds",
        ),
        (
            bad(
                "Reboot",
                Some(Params::RebootParams(RebootParams {
                    delay_in_seconds: 86_401,
                })),
            ),
            "reboot_params.delay_in_seconds",
        ),
        (
            snapshot(&c1, "guest-0", "var/tmp"),
            "snapshot_params.snapshot_location",
        ),
        (reboot("clusters/c1", "guest-0", 0), "cluster"),
        (reboot(&c1, "Bad_Pod", 0), "pod"),
        (reboot(&c1, "", 0), "pod"),
    ];
    for (request, field) in cases {
        check(
            request,
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
            Some(field),
        )
        .await;
    }
    // What does not exist.
    check(
        reboot(&names::cluster("edge", "nope"), "guest-0", 0),
        Code::NotFound,
        "NOT_FOUND",
        Some("cluster"),
    )
    .await;
    check(
        reboot(&c1, "no-such-pod", 0),
        Code::NotFound,
        "NOT_FOUND",
        Some("pod"),
    )
    .await;
    let mut node = client.clone();
    let error = error_view(
        node.actions
            .create_node_action(CreateNodeActionRequest {
                cluster: c1.clone(),
                node: "cluster1-node-9".into(),
                action_name: "Reboot".into(),
                params: Some(create_node_action_request::Params::RebootParams(
                    RebootParams::default(),
                )),
                request_id: String::new(),
            })
            .await,
    );
    assert_eq!((error.code, error.fields()), (Code::NotFound, vec!["node"]));
    let error = error_view(
        node.actions
            .create_node_action(CreateNodeActionRequest {
                cluster: c1.clone(),
                node: "cluster1-node-0".into(),
                action_name: "Snapshot".into(),
                params: Some(create_node_action_request::Params::SnapshotParams(
                    SnapshotParams {
                        snapshot_location: "/var/tmp".into(),
                    },
                )),
                request_id: String::new(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.fields()),
        (Code::InvalidArgument, vec!["action_name"])
    );
    // What cannot take the action.
    let error = check(
        snapshot(&c1, "collectd-0", "/var/tmp"),
        Code::FailedPrecondition,
        "NOT_A_VM_POD",
        None,
    )
    .await;
    assert!(error.message.contains("kubevirt.io/domain"), "{error:?}");
    let never = client
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: "clusterProviders/edge".into(),
            cluster_id: "lonely".into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::Agent as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    check(
        reboot(&never.name, "guest-0", 0),
        Code::FailedPrecondition,
        "CLUSTER_NEVER_CONNECTED",
        None,
    )
    .await;
    // A pod that is not running: new pods stay Pending for a minute.
    client
        .simulator
        .set_pod_readiness_delay(SetPodReadinessDelayRequest {
            cluster: c1.clone(),
            delay_millis: 60_000,
        })
        .await
        .unwrap();
    client
        .simulator
        .delete_pod(DeletePodRequest {
            cluster: c1.clone(),
            namespace: String::new(),
            pod: "operator-0".into(),
        })
        .await
        .unwrap();
    eventually(WAIT, "operator-0 back, Pending", || {
        let mut client = client.clone();
        async move {
            let error = client
                .actions
                .create_pod_action(reboot(&cluster1(), "operator-0", 0))
                .await
                .err()?;
            (error.code() == Code::FailedPrecondition && error.message().contains("Pending"))
                .then_some(())
        }
    })
    .await;

    // request_id: a retry returns the first action; a second open action is ABORTED
    // naming the one in flight.
    let first = CreatePodActionRequest {
        request_id: "once".into(),
        ..reboot(&c1, "guest-0", 600)
    };
    let a = client
        .actions
        .create_pod_action(first.clone())
        .await
        .unwrap()
        .into_inner();
    let b = client
        .actions
        .create_pod_action(first)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(a.name, b.name);
    let error = check(
        snapshot(&c1, "guest-0", "/var/tmp"),
        Code::Aborted,
        "ACTION_IN_PROGRESS",
        None,
    )
    .await;
    assert!(error.message.contains(&a.name), "{error:?}");
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

async fn next_events(stream: &mut tonic::Streaming<WatchActionsResponse>) -> Vec<ActionEvent> {
    tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("an event within 10 s")
        .unwrap()
        .expect("the stream goes on")
        .events
}

/// The events of the next messages, up to and with SYNCED.
async fn until_synced(stream: &mut tonic::Streaming<WatchActionsResponse>) -> Vec<ActionEvent> {
    let mut events = Vec::new();
    while events
        .last()
        .is_none_or(|e: &ActionEvent| e.r#type() != ActionEventType::Synced)
    {
        events.extend(next_events(stream).await);
    }
    events
}

async fn watch_actions(
    client: &mut Client,
    cluster: &str,
    node: &str,
    token: &str,
) -> tonic::Streaming<WatchActionsResponse> {
    client
        .actions
        .watch_actions(WatchActionsRequest {
            cluster: cluster.into(),
            node_name: node.into(),
            resume_token: token.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

/// The seed's node agent: a cluster whose session agent leaves actions to node agents;
/// a node agent watches its node's actions and posts their status.
async fn watch_actions_streams_a_node_and_resumes(server: &TestServer) {
    let mut admin = server.client().await;
    let created = admin
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: "clusterProviders/edge".into(),
            cluster_id: "nodes".into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::Agent as i32,
                labels: [("site".to_string(), "store".to_string())].into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let cluster = created.name.clone();
    let _session = flotilla_tests::TestAgent::start_with(
        server,
        &cluster,
        &created.agent_token,
        &["--execute-actions", "false"],
    );
    flotilla_tests::wait_connectivity(&admin, &cluster, Connectivity::Available).await;
    // Place the demo's operator app (with the guest VM) on it too.
    let intent = format!("{DIG}/placementIntents/operator");
    let mut placement = admin
        .lifecycle
        .get_placement_intent(GetPlacementIntentRequest {
            name: intent.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    placement.cluster_names.push("nodes".into());
    admin
        .lifecycle
        .update_placement_intent(UpdatePlacementIntentRequest {
            placement_intent: Some(placement),
            update_mask: None,
        })
        .await
        .unwrap();
    flotilla_tests::demo::approve_and_instantiate(&mut admin).await;
    let guest = eventually(WAIT, "guest-0 on the agent cluster", || {
        let mut client = admin.clone();
        let cluster = cluster.clone();
        async move {
            let status = client
                .status
                .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                    name: DIG.into(),
                    output: StatusOutput::Detail as i32,
                    clusters: vec!["nodes".into()],
                    resources: vec!["guest-0".into()],
                    ..Default::default()
                })
                .await
                .ok()?
                .into_inner();
            let entry = status
                .resources
                .iter()
                .flat_map(|a| a.clusters.iter().flat_map(|c| c.resources.iter()))
                .find(|r| r.name == "guest-0" && r.readiness() == Readiness::Ready)?;
            let _ = cluster;
            Some(struct_json(entry.spec.as_ref()?))
        }
    })
    .await;
    let node = guest["nodeName"].as_str().unwrap().to_string();

    // The node agent acts with the cluster's agent token.
    let mut agent = server.client_as(&created.agent_token).await;
    let mut stream = watch_actions(&mut agent, &cluster, &node, "").await;
    let synced = until_synced(&mut stream).await;
    assert_eq!(synced.len(), 1, "an empty snapshot: {synced:?}");
    let action = admin
        .actions
        .create_pod_action(reboot(&cluster, "guest-0", 0))
        .await
        .unwrap()
        .into_inner();
    let added = next_events(&mut stream).await;
    assert_eq!(added[0].r#type(), ActionEventType::Added);
    assert_eq!(added[0].action.as_ref().unwrap().name, action.name);
    let token_after_add = added[0].resume_token.clone();
    // Nobody took it: the session agent leaves it to node agents.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pending = admin
        .actions
        .get_action(GetActionRequest {
            name: action.name.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&pending), ActionState::Pending);
    // Another cluster's agent cannot post it; this node agent can, with the etag.
    let stale = error_view(
        agent
            .actions
            .update_action_status(UpdateActionStatusRequest {
                name: action.name.clone(),
                status: Some(ActionStatus {
                    state: ActionState::Running as i32,
                    ..Default::default()
                }),
                etag: "99".into(),
            })
            .await,
    );
    assert_eq!(stale.code, Code::Aborted);
    let running = agent
        .actions
        .update_action_status(UpdateActionStatusRequest {
            name: action.name.clone(),
            status: Some(ActionStatus {
                state: ActionState::Running as i32,
                ..Default::default()
            }),
            etag: pending.etag.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&running), ActionState::Running);
    let done = agent
        .actions
        .update_action_status(UpdateActionStatusRequest {
            name: action.name.clone(),
            status: Some(ActionStatus {
                state: ActionState::Succeeded as i32,
                reboot_status: Some(RebootStatus {
                    reboot_successful: true,
                }),
                ..Default::default()
            }),
            etag: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&done), ActionState::Succeeded);
    // SUCCEEDED -> RUNNING is refused.
    let error = error_view(
        agent
            .actions
            .update_action_status(UpdateActionStatusRequest {
                name: action.name.clone(),
                status: Some(ActionStatus {
                    state: ActionState::Running as i32,
                    ..Default::default()
                }),
                etag: String::new(),
            })
            .await,
    );
    assert_eq!(error.code, Code::FailedPrecondition);
    // The stream saw both changes.
    let mut seen = Vec::new();
    while seen.len() < 2 {
        for event in next_events(&mut stream).await {
            if event.r#type() == ActionEventType::Modified {
                seen.push(state(event.action.as_ref().unwrap()));
            }
        }
    }
    assert_eq!(seen, [ActionState::Running, ActionState::Succeeded]);
    drop(stream);
    // Resuming after the ADDED event replays exactly the two changes.
    let mut resumed = watch_actions(&mut agent, &cluster, &node, &token_after_add).await;
    let replayed: Vec<ActionState> = next_events(&mut resumed)
        .await
        .iter()
        .filter(|e| e.r#type() == ActionEventType::Modified)
        .map(|e| state(e.action.as_ref().unwrap()))
        .collect();
    assert_eq!(replayed, [ActionState::Running, ActionState::Succeeded]);
    // A snapshot event's token cannot be resumed from: RESYNC_REQUIRED, then a fresh
    // snapshot (with the open action) and SYNCED.
    let open = admin
        .actions
        .create_pod_action(reboot(&cluster, "guest-0", 600))
        .await
        .unwrap()
        .into_inner();
    let mut fresh = watch_actions(&mut agent, &cluster, &node, "").await;
    let snapshot = until_synced(&mut fresh).await;
    assert_eq!(
        snapshot.iter().map(|e| e.r#type()).collect::<Vec<_>>(),
        [ActionEventType::Added, ActionEventType::Synced]
    );
    assert_eq!(snapshot[0].action.as_ref().unwrap().name, open.name);
    let mut again = watch_actions(&mut agent, &cluster, &node, &snapshot[0].resume_token).await;
    let resync = until_synced(&mut again).await;
    assert_eq!(
        resync.iter().map(|e| e.r#type()).collect::<Vec<_>>(),
        [
            ActionEventType::ResyncRequired,
            ActionEventType::Added,
            ActionEventType::Synced
        ]
    );
    // Cancelling it streams a MODIFIED event to the node's watchers.
    admin
        .actions
        .cancel_action(CancelActionRequest {
            name: open.name.clone(),
        })
        .await
        .unwrap();
    let cancelled = next_events(&mut fresh).await;
    assert_eq!(cancelled[0].r#type(), ActionEventType::Modified);
    assert_eq!(
        state(cancelled[0].action.as_ref().unwrap()),
        ActionState::Cancelled
    );
    // The agent of another cluster may not watch this one.
    let other = admin
        .lifecycle
        .create_cluster(CreateClusterRequest {
            parent: "clusterProviders/edge".into(),
            cluster_id: "other".into(),
            cluster: Some(Cluster {
                connection_mode: ConnectionMode::Agent as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut stranger = server.client_as(&other.agent_token).await;
    let error = error_view(
        stranger
            .actions
            .watch_actions(WatchActionsRequest {
                cluster: cluster.clone(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(error.code, Code::PermissionDenied);
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
