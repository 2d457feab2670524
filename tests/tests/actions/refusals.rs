//! Every refusal of CreatePodAction and CreateNodeAction, and of the other action
//! RPCs, with its code, reason and field violations.

use super::*;

pub(super) async fn bad_requests_are_refused(server: &TestServer) {
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
    let in_namespace = |namespace: &str| CreatePodActionRequest {
        namespace: namespace.into(),
        ..reboot(&c1, "guest-0", 0)
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
        (reboot(&c1, &"p".repeat(254), 0), "pod"),
        // A namespace is a label: no dot, no capital, at most 63 characters.
        (in_namespace("kube.system"), "namespace"),
        (in_namespace("Default"), "namespace"),
        (in_namespace(&"n".repeat(64)), "namespace"),
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
                node: "Node_0".into(),
                action_name: "Reboot".into(),
                params: Some(create_node_action_request::Params::RebootParams(
                    RebootParams::default(),
                )),
                request_id: String::new(),
            })
            .await,
    );
    assert_eq!(
        (error.code, error.fields()),
        (Code::InvalidArgument, vec!["node"])
    );
    // Filters are names too: every malformed one is named, at once.
    let error = error_view(
        node.actions
            .list_actions(ListActionsRequest {
                cluster: c1.clone(),
                node_name: "Node_0".into(),
                namespace: "a.b".into(),
                pod: "Pod".into(),
                ..Default::default()
            })
            .await,
    );
    assert_eq!(
        (error.code, error.fields()),
        (Code::InvalidArgument, vec!["node_name", "namespace", "pod"])
    );
    let error = error_view(
        node.actions
            .watch_actions(WatchActionsRequest {
                cluster: c1.clone(),
                node_name: "-node".into(),
                ..Default::default()
            })
            .await
            .map(|_| ()),
    );
    assert_eq!(
        (error.code, error.fields()),
        (Code::InvalidArgument, vec!["node_name"])
    );
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
