//! WatchActions: a node's actions as a snapshot, SYNCED and live events, resumed by
//! token; an external node agent posting status.

use super::*;

pub(super) async fn next_events(
    stream: &mut tonic::Streaming<WatchActionsResponse>,
) -> Vec<ActionEvent> {
    tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("an event within 10 s")
        .unwrap()
        .expect("the stream goes on")
        .events
}

/// The events of the next messages, up to and with SYNCED.
pub(super) async fn until_synced(
    stream: &mut tonic::Streaming<WatchActionsResponse>,
) -> Vec<ActionEvent> {
    let mut events = Vec::new();
    while events
        .last()
        .is_none_or(|e: &ActionEvent| e.r#type() != ActionEventType::Synced)
    {
        events.extend(next_events(stream).await);
    }
    events
}

pub(super) async fn watch_actions(
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
pub(super) async fn watch_actions_streams_a_node_and_resumes(server: &TestServer) {
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
