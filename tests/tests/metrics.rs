//! The Prometheus endpoint (`--metrics-listen`) of a real server: scraped before and
//! after a scenario, each family checked to have moved, and `promtool check metrics`
//! run on the exposition.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_tests::demo::{DIG, approve_and_instantiate};
use flotilla_tests::metrics::{scrape, value};
use flotilla_tests::{Backend, TestServer, e2e_suite, eventually, free_port, wait_action};

e2e_suite!(backend => metrics_follow_a_scenario);

async fn metrics_follow_a_scenario(backend: Backend) {
    let metrics = format!("127.0.0.1:{}", free_port());
    let server = TestServer::start_with(backend, &["--demo", "--metrics-listen", &metrics]).await;
    let before = scrape(&metrics);
    let mut client = server.client().await;

    // A scenario: instantiate the demo (8 applies through 2 agent sessions), a refused
    // verb, and a watch held open.
    approve_and_instantiate(&mut client).await;
    let refused = client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await;
    assert!(refused.is_err());
    let mut watch = client
        .status
        .watch_status(WatchStatusRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner();
    watch.message().await.expect("snapshot").expect("a message");

    let text = eventually(Duration::from_secs(20), "metrics move", || {
        let metrics = metrics.clone();
        async move {
            let text = scrape(&metrics);
            let applied = value(
                &text,
                "flotilla_rsync_operations_total",
                &[("operation", "apply"), ("outcome", "succeeded")],
            );
            let tasks = value(
                &text,
                "flotilla_task_runs_total",
                &[("task", "container_cluster_workflows"), ("outcome", "ok")],
            );
            (applied == 8.0 && tasks > 0.0).then_some(text)
        }
    })
    .await;

    let lifecycle = ("grpc_service", "flotilla.v1.LifecycleService");
    let handled = |text: &str, method: &str, code: &str| {
        value(
            text,
            "flotilla_grpc_server_handled_total",
            &[lifecycle, ("grpc_method", method), ("grpc_code", code)],
        )
    };
    assert_eq!(
        handled(&before, "InstantiateDeploymentIntentGroup", "OK"),
        0.0
    );
    assert_eq!(
        handled(&text, "InstantiateDeploymentIntentGroup", "OK"),
        1.0
    );
    assert_eq!(handled(&text, "ApproveDeploymentIntentGroup", "OK"), 1.0);
    assert_eq!(
        handled(
            &text,
            "InstantiateDeploymentIntentGroup",
            "FailedPrecondition"
        ),
        1.0
    );
    assert!(
        value(
            &text,
            "flotilla_grpc_server_handling_seconds_count",
            &[
                lifecycle,
                ("grpc_method", "InstantiateDeploymentIntentGroup")
            ],
        ) == 2.0
    );
    // Streams: this watch, and the two embedded agents' sessions.
    let open = |text: &str, method: &str| {
        value(
            text,
            "flotilla_grpc_server_open_streams",
            &[("grpc_method", method)],
        )
    };
    assert_eq!(open(&text, "WatchStatus"), 1.0);
    assert_eq!(open(&text, "Connect"), 2.0);
    assert_eq!(value(&text, "flotilla_agent_sessions", &[]), 2.0);
    // The agents reported each deployment whole first, then what changed; a reboot of
    // the VM pod goes out as that pod, not as its deployment again.
    let bundled = |text: &str, state: &str| {
        value(
            text,
            "flotilla_agent_bundle_resources_total",
            &[("state", state)],
        )
    };
    let text = eventually(
        Duration::from_secs(20),
        "the applied resources reported",
        || {
            let metrics = metrics.clone();
            async move {
                let text = scrape(&metrics);
                (bundled(&text, "full") > 0.0
                    && bundled(&text, "full") + bundled(&text, "partial") >= 8.0)
                    .then_some(text)
            }
        },
    )
    .await;
    // Once the VM pod runs (the demo's pods start after a while), reboot it after a
    // second: the reports from before are in by then.
    let (reboot, settled) = eventually(Duration::from_secs(30), "guest-0 to run", || {
        let mut client = client.clone();
        let metrics = metrics.clone();
        async move {
            let reboot = client
                .actions
                .create_pod_action(CreatePodActionRequest {
                    cluster: "clusterProviders/edge/clusters/cluster1".into(),
                    pod: "guest-0".into(),
                    action_name: "Reboot".into(),
                    params: Some(create_pod_action_request::Params::RebootParams(
                        RebootParams {
                            delay_in_seconds: 1,
                        },
                    )),
                    ..Default::default()
                })
                .await
                .ok()?
                .into_inner();
            Some((reboot, scrape(&metrics)))
        }
    })
    .await;
    wait_action(&client, &reboot.name).await;
    let rebooted = eventually(Duration::from_secs(20), "the reboot reported", || {
        let metrics = metrics.clone();
        let settled = settled.clone();
        async move {
            let text = scrape(&metrics);
            (bundled(&text, "partial") > bundled(&settled, "partial")).then_some(text)
        }
    })
    .await;
    assert_eq!(
        bundled(&rebooted, "full"),
        bundled(&settled, "full"),
        "{rebooted}"
    );

    // A text PostgreSQL cannot store (NUL) is the request's fault: counted as
    // invalid input, never as an internal database error.
    let nul = client
        .simulator
        .set_host_reachable(SetHostReachableRequest {
            host: "h\u{0}".into(),
            reachable: true,
        })
        .await;
    let db_errors =
        |text: &str, kind: &str| value(text, "flotilla_db_errors_total", &[("kind", kind)]);
    let after_nul = scrape(&metrics);
    if backend == Backend::Postgres {
        assert_eq!(nul.unwrap_err().code(), tonic::Code::InvalidArgument);
        assert_eq!(db_errors(&after_nul, "invalid_input"), 1.0, "{after_nul}");
    }
    assert_eq!(db_errors(&after_nul, "internal"), 0.0, "{after_nul}");
    assert_eq!(
        value(
            &text,
            "flotilla_cluster_connectivity",
            &[("cluster", "clusterProviders/edge/clusters/cluster1")]
        ),
        1.0
    );
    assert_eq!(value(&text, "flotilla_rsync_workers", &[]), 2.0);
    assert_eq!(
        value(&text, "flotilla_rsync_in_flight_operations", &[]),
        0.0
    );
    // Status events: appended by the instantiate and the agents' reports, delivered
    // to the watch; commits and watch lag observed.
    let appended = value(&text, "flotilla_status_events_appended_total", &[]);
    assert!(
        appended > value(&before, "flotilla_status_events_appended_total", &[]),
        "{appended}"
    );
    assert!(
        value(
            &text,
            "flotilla_watch_events_delivered_total",
            &[("kind", "status")]
        ) > 0.0
    );
    assert!(value(&text, "flotilla_db_commit_seconds_count", &[]) > 0.0);
    assert!(
        value(
            &text,
            "flotilla_task_last_success_timestamp_seconds",
            &[("task", "container_cluster_workflows")]
        ) > 1.7e9
    );
    assert!(
        value(
            &text,
            "flotilla_db_pool_connections",
            &[("pool", "read"), ("state", "open")]
        ) >= 1.0
    );
    assert!(value(&text, "flotilla_process_resident_memory_bytes", &[]) > 0.0);

    // The watch ends: its stream is no longer open, and it counts as cancelled. A
    // scrape reads one family after another, so it can see the stream closed but not
    // yet counted as handled: wait for both.
    drop(watch);
    let text = eventually(Duration::from_secs(10), "the watch closes", || {
        let metrics = metrics.clone();
        async move {
            let text = scrape(&metrics);
            let handled = value(
                &text,
                "flotilla_grpc_server_handled_total",
                &[("grpc_method", "WatchStatus")],
            );
            (open(&text, "WatchStatus") == 0.0 && handled == 1.0).then_some(text)
        }
    })
    .await;
    assert_eq!(
        value(
            &text,
            "flotilla_grpc_server_handled_total",
            &[("grpc_method", "WatchStatus"), ("grpc_code", "Canceled")]
        ),
        1.0
    );
    promtool_accepts(&text);
}

/// `promtool check metrics` (Debian's prometheus package) lints the exposition.
fn promtool_accepts(text: &str) {
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (apt-get install prometheus) is needed by this test");
    promtool
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = promtool.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "promtool check metrics:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
