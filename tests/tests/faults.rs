//! Server faults that prove where they landed (DESIGN §15), with a real
//! `flotilla-agent` and 10,000 resources, on SQLite and PostgreSQL:
//!
//! - kill -9 while the instantiate's transaction is open (the log says rendering began,
//!   the database then holds no instance), while rsync has applied part of the
//!   instance, and while rsync has deleted part of it after a terminate (the database
//!   read after the kill shows the operation half done): after each restart the
//!   operation completes, nothing lost, duplicated or stuck;
//! - kill -9 while a rollout (an update of the 10,000: 1,000 changed, 500 dropped) is
//!   half sent (the database read after the kill shows part of the changed ones
//!   applied): after the restart it completes, and nothing that stays is deleted;
//! - SIGTERM while an instantiate is in flight and a watch is open: the in-flight
//!   request finishes (staged shutdown drains it), the watch ends UNAVAILABLE with a
//!   resume token, and after the restart that token resumes exactly where the stream
//!   ended: the instantiate's events, then rsync's, to 10,000 Applied.

use std::time::{Duration, Instant};

use flotilla_client::names;
use flotilla_client::v1::*;
use flotilla_client::{Client, WatchEvents};
use flotilla_tests::{TestAgent, TestServer, e2e_suite, error_view, eventually, sql_count};

use crate::common::fleet;
use fleet::{WAIT, clusters, deployment, summary, wait_counts};

e2e_suite!(
    args = ["--agent-heartbeat-millis", "1000", "--sim", "false"],
    kill_9_mid_instantiate_mid_apply_and_mid_terminate,
    kill_9_mid_rollout_completes_it_and_keeps_what_stays,
    sigterm_mid_instantiate_drains_it_and_ends_watches_resumably,
);

const TOTAL: i64 = 10_000;

/// A server of its own (it is killed), an AGENT cluster `big` served by a real agent,
/// and an approved group of 10 apps × 1,000 ConfigMaps placed on it.
async fn big_fleet(backend: flotilla_tests::Backend) -> (TestServer, TestAgent, String) {
    let server = TestServer::start_with(
        backend,
        &["--agent-heartbeat-millis", "1000", "--sim", "false"],
    )
    .await;
    let mut client = server.client().await;
    let tokens = clusters(&mut client, &["big"]).await;
    let agent = TestAgent::start(&server, &names::cluster("cp", "big"), &tokens["big"]);
    let dig = deployment(&mut client, 10, 1000, false, &["big"]).await;
    (server, agent, dig)
}

/// Polls until `ready` holds of the server log, as fast as the log can be read.
async fn wait_log(server: &TestServer, what: &str, ready: impl Fn(&str) -> bool) {
    let started = Instant::now();
    while !ready(&server.log()) {
        assert!(started.elapsed() < WAIT, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Rows of the database in `status`, read by SQL (works while the server is dead).
async fn rows_in(server: &TestServer, status: &str) -> i64 {
    sql_count(
        &server.database_url,
        &format!("SELECT COUNT(*) FROM rsync_resources WHERE rsync_status = '{status}'"),
    )
    .await
}

/// Polls SQL until `low <= rows in status < high`, then returns (the server runs on).
async fn wait_rows_between(server: &TestServer, status: &str, low: i64, high: i64) -> i64 {
    let started = Instant::now();
    loop {
        let n = rows_in(server, status).await;
        if (low..high).contains(&n) {
            return n;
        }
        assert!(n < high, "rsync finished before the kill: {n} {status}");
        assert!(
            started.elapsed() < WAIT,
            "timed out waiting for {status} rows"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn kill_9_mid_instantiate_mid_apply_and_mid_terminate(server: &TestServer) {
    let (mut server, _agent, dig) = big_fleet(server.backend).await;
    let client = server.client().await;
    let instances = format!("SELECT COUNT(*) FROM instances WHERE owner = '{dig}'");

    // 1. kill -9 while the instantiate's transaction is open.
    let request = InstantiateDeploymentIntentGroupRequest {
        name: dig.clone(),
        request_id: "crash-1".into(),
        ..Default::default()
    };
    let inflight = tokio::spawn({
        let (mut client, request) = (client.clone(), request.clone());
        async move {
            client
                .lifecycle
                .instantiate_deployment_intent_group(request)
                .await
        }
    });
    wait_log(&server, "rendering to begin", |log| {
        log.contains("rendering an instance")
    })
    .await;
    server.kill9();
    assert!(
        inflight.await.unwrap().is_err(),
        "the request died with the server"
    );
    assert_eq!(
        sql_count(&server.database_url, &instances).await,
        0,
        "the kill landed inside the transaction: nothing of it was committed"
    );
    server.respawn().await;
    let mut client = server.client().await;
    let retried = client
        .lifecycle
        .instantiate_deployment_intent_group(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        retried.state,
        DeploymentIntentGroupState::Instantiated as i32
    );

    // 2. kill -9 while rsync has applied part of the instance.
    wait_rows_between(&server, "Applied", 500, TOTAL - 1000).await;
    server.kill9();
    let applied = rows_in(&server, "Applied").await;
    assert!(
        applied > 0 && applied < TOTAL,
        "the kill landed mid-apply: {applied} of {TOTAL} Applied"
    );
    eprintln!("killed with {applied} of {TOTAL} applied");
    server.respawn().await;
    let mut client = server.client().await;
    // The same request again answers with the same instance: not a second one.
    let again = client
        .lifecycle
        .instantiate_deployment_intent_group(request)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.current_instance, retried.current_instance);
    wait_counts(
        &client,
        &dig,
        &[],
        TOTAL as i32,
        TOTAL as i32,
        "10,000 Applied and Present after the restart",
    )
    .await;
    assert_eq!(sql_count(&server.database_url, &instances).await, 1);
    let r = summary(&mut client, &dig, &[])
        .await
        .rsync_status
        .unwrap_or_default();
    assert_eq!(
        (r.applied, r.pending, r.retrying, r.failed),
        (10_000, 0, 0, 0)
    );

    // 3. kill -9 while rsync has deleted part of it.
    client
        .lifecycle
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: dig.clone(),
            request_id: "crash-2".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    wait_rows_between(&server, "Terminated", 500, TOTAL - 1000).await;
    server.kill9();
    let terminated = rows_in(&server, "Terminated").await;
    assert!(
        terminated > 0 && terminated < TOTAL,
        "the kill landed mid-terminate: {terminated} of {TOTAL} deleted"
    );
    eprintln!("killed with {terminated} of {TOTAL} deleted");
    server.respawn().await;
    let mut client = server.client().await;
    eventually(WAIT, "every delete done after the restart", || {
        let mut client = client.clone();
        let dig = dig.clone();
        async move {
            let r = summary(&mut client, &dig, &[])
                .await
                .rsync_status
                .unwrap_or_default();
            (r.terminated == TOTAL as i32).then_some(())
        }
    })
    .await;
    let r = summary(&mut client, &dig, &[])
        .await
        .rsync_status
        .unwrap_or_default();
    assert_eq!((r.applied, r.retrying, r.failed), (0, 0, 0), "{r:?}");
    // Nothing is stuck: the group is no longer terminating, so it can be deleted.
    for app in 0..10 {
        client
            .lifecycle
            .delete_placement_intent(DeletePlacementIntentRequest {
                name: format!("{dig}/placementIntents/app{app}"),
                ..Default::default()
            })
            .await
            .unwrap();
    }
    client
        .lifecycle
        .delete_deployment_intent_group(DeleteDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
}

/// The manifests of app `a` of the big fleet: `count` ConfigMaps with data `value`.
fn config_maps(a: usize, count: usize, value: &str) -> String {
    (0..count)
        .map(|d| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app{a}-cm{d}\ndata:\n  k: {value}\n---\n"
            )
        })
        .collect()
}

async fn kill_9_mid_rollout_completes_it_and_keeps_what_stays(server: &TestServer) {
    let (mut server, _agent, dig) = big_fleet(server.backend).await;
    let mut client = server.client().await;
    let first = client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    wait_counts(
        &client,
        &dig,
        &[],
        TOTAL as i32,
        TOTAL as i32,
        "10,000 Applied",
    )
    .await;

    // The update: app0's 1,000 ConfigMaps change, app1 keeps 500 of its 1,000.
    let ca = dig
        .rsplit_once("/deploymentIntentGroups/")
        .unwrap()
        .0
        .to_string();
    for (a, count, value) in [(0, 1000, "v2"), (1, 500, "v")] {
        client
            .lifecycle
            .update_app(UpdateAppRequest {
                app: Some(App {
                    name: format!("{ca}/apps/app{a}"),
                    manifests: config_maps(a, count, value),
                    ..Default::default()
                }),
                update_mask: Some(prost_types::FieldMask {
                    paths: vec!["manifests".into()],
                }),
            })
            .await
            .unwrap();
    }
    client
        .lifecycle
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let updated = client
        .lifecycle
        .rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let new = updated.current_instance.clone();
    // 8,500 unchanged rows are carried over Applied; the 1,000 changed ones are sent.
    let applied_new = format!(
        "SELECT COUNT(*) FROM rsync_resources WHERE instance_id = '{new}' AND rsync_status = 'Applied'"
    );
    let started = Instant::now();
    loop {
        let n = sql_count(&server.database_url, &applied_new).await;
        if (8_600..9_400).contains(&n) {
            break;
        }
        assert!(n < 9_400, "the rollout finished before the kill: {n}");
        assert!(
            started.elapsed() < WAIT,
            "timed out waiting for the rollout"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill9();
    let applied = sql_count(&server.database_url, &applied_new).await;
    assert!(
        (8_500..9_500).contains(&applied),
        "the kill landed mid-rollout: {applied} of 9,500 Applied"
    );
    eprintln!("killed with {} of 1,000 changes sent", applied - 8_500);
    server.respawn().await;
    let mut client = server.client().await;
    // It completes: 9,500 Applied and Present, none missing on the cluster.
    wait_counts(
        &client,
        &dig,
        &[],
        9_500,
        9_500,
        "the rollout completed after the restart",
    )
    .await;
    let s = summary(&mut client, &dig, &[]).await;
    let (r, c) = (
        s.rsync_status.unwrap_or_default(),
        s.cluster_status.unwrap_or_default(),
    );
    assert_eq!((r.pending, r.retrying, r.failed), (0, 0, 0), "{r:?}");
    assert_eq!((c.present, c.not_present), (9_500, 0), "{c:?}");
    // The old instance: what the new one renders again Superseded, the 500 it dropped
    // deleted; nothing else.
    let old = eventually(WAIT, "the dropped ones deleted", || {
        let mut client = client.clone();
        let (dig, first) = (dig.clone(), first.current_instance.clone());
        async move {
            let r = flotilla_tests::rsync_counts(&mut client, &dig, &first, &[]).await;
            (r.terminated == 500).then_some(r)
        }
    })
    .await;
    assert_eq!(
        (old.superseded, old.applied, old.retrying),
        (9_500, 0, 0),
        "{old:?}"
    );
}

async fn sigterm_mid_instantiate_drains_it_and_ends_watches_resumably(server: &TestServer) {
    let (mut server, _agent, dig) = big_fleet(server.backend).await;
    let mut client = server.client().await;
    let mut stream = WatchEvents::new(
        client
            .status
            .watch_status(WatchStatusRequest {
                name: dig.clone(),
                output: StatusOutput::Summary as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner(),
    );
    loop {
        let event = stream.next().await.unwrap().expect("the snapshot");
        if event.r#type == WatchEventType::Synced as i32 {
            break;
        }
    }

    let inflight = tokio::spawn({
        let mut client = client.clone();
        let dig = dig.clone();
        async move {
            client
                .lifecycle
                .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                    name: dig,
                    ..Default::default()
                })
                .await
        }
    });
    wait_log(&server, "rendering to begin", |log| {
        log.contains("rendering an instance")
    })
    .await;
    server.signal(libc::SIGTERM);
    assert!(!inflight.is_finished(), "SIGTERM came before the answer");

    // The watch ends at once, UNAVAILABLE, with where to resume.
    let ended = tokio::time::timeout(WAIT, async {
        loop {
            match stream.next().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream should say why it ends"),
                Err(status) => return status,
            }
        }
    })
    .await
    .expect("the watch ends");
    let ended = error_view::<()>(Err(ended));
    assert_eq!(ended.code, tonic::Code::Unavailable, "{ended:?}");
    assert_eq!(ended.reason, "SHUTTING_DOWN", "{ended:?}");
    let token = ended
        .metadata
        .get("resume_token")
        .cloned()
        .expect("a resume token");

    // The in-flight instantiate is drained, not dropped.
    let answered = inflight
        .await
        .unwrap()
        .expect("the in-flight instantiate finished");
    let instance = answered.into_inner().current_instance;
    assert!(!instance.is_empty());
    assert!(server.wait_exit().success(), "clean exit");
    let log = server.log();
    let began = log.find("rendering an instance").unwrap();
    let shutdown = log.find("shutting down").expect("shutdown logged");
    assert!(began < shutdown, "the signal landed after rendering began");
    for stage in [
        "in-flight requests finished",
        "rsync workers stopped",
        "background tasks stopped",
        "database pool closed",
    ] {
        let at = log
            .find(&format!("stage=\"{stage}\""))
            .or_else(|| log.find(&format!("stage={stage}")))
            .unwrap_or_else(|| panic!("stage {stage:?} not logged:\n{log}"));
        assert!(at > shutdown, "{stage} after the shutdown began");
    }
    assert!(!log.contains("cut short"), "{log}");

    // After the restart, the token resumes right where the stream ended: the
    // instantiate first (its lifecycle event), then rsync's counts up to 10,000.
    server.respawn().await;
    let mut client = server.client().await;
    let mut resumed = resume(&mut client, &dig, &token).await;
    let lifecycle = loop {
        let event = next(&mut resumed).await;
        assert!(
            event.r#type != WatchEventType::ResyncRequired as i32
                && event.r#type != WatchEventType::Synced as i32,
            "a resume, not a new snapshot: {event:?}"
        );
        if event.r#type == WatchEventType::LifecycleChanged as i32 {
            break event;
        }
    };
    assert_eq!(lifecycle.state, "INSTANTIATED");
    assert!(lifecycle.instance.ends_with(&instance), "{lifecycle:?}");
    loop {
        let event = next(&mut resumed).await;
        assert_ne!(event.r#type, WatchEventType::ResyncRequired as i32);
        let applied = event.rsync_status.map(|r| r.applied).unwrap_or(0);
        if event.r#type == WatchEventType::CountsChanged as i32 && applied == TOTAL as i32 {
            break;
        }
    }
}

async fn resume(client: &mut Client, dig: &str, token: &str) -> WatchEvents {
    WatchEvents::new(
        client
            .status
            .watch_status(WatchStatusRequest {
                name: dig.into(),
                output: StatusOutput::Summary as i32,
                resume_token: token.into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner(),
    )
}

async fn next(stream: &mut WatchEvents) -> WatchEvent {
    tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("an event in time")
        .expect("the stream is healthy")
        .expect("the stream goes on")
}
