//! The Rust client's helpers against a real server: the walk-through example, the
//! auto-resuming watch across a server restart, paging streams and the error view.
//! (The Python and TypeScript clients have their own suites under client/, run by
//! scripts/test.sh against real servers too.)

use std::collections::{BTreeMap, HashSet};
use std::process::Command;

use flotilla_client::v1::*;
use flotilla_client::{ApiError, Client, names, pages};
use flotilla_tests::demo::DIG;
use flotilla_tests::{Backend, TestServer, binary, e2e_suite};
use futures::TryStreamExt;
use tonic::Code;

e2e_suite!(backend =>
    a_watch_survives_a_server_restart_without_losing_or_repeating_events,
    paging_streams_yield_every_item_once,
    errors_carry_reason_preconditions_and_fields,
    refused_transitions_and_the_other_watches,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_walkthrough_example_runs_green() {
    let server = TestServer::start(Backend::Sqlite).await;
    let example = binary("examples/walkthrough");
    let output = Command::new(example)
        .env("FLOTILLA_SERVER", server.url())
        .env("FLOTILLA_TOKEN", server.admin_token.expose())
        .output()
        .expect("run the example");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "instantiated: every resource applied and ready",
            // 2 documents of frontend and 1 of cache on each of 2 clusters; present
            // and ready count frontend's 3 pods on each cluster too
            "summary: state INSTANTIATED, applied 6, present 12, ready 12",
            "instantiate again: FailedPrecondition INVALID_STATE_TRANSITION (state INSTANTIATED)",
            "terminated: TERMINATED",
        ]
    );
}

type State = BTreeMap<(String, String, String, String), (i32, i32, i32)>;

fn apply(state: &mut State, event: &WatchEvent) {
    if let (WatchEventType::ResourceChanged, Some(r)) = (event.r#type(), &event.resource) {
        let kind = r.gvk.as_ref().map(|g| g.kind.clone()).unwrap_or_default();
        let key = (
            event.app_name.clone(),
            event.cluster.clone(),
            kind,
            r.name.clone(),
        );
        state.insert(key, (r.rsync_status, r.cluster_status, r.readiness));
    }
}

fn settled(event: &WatchEvent) -> bool {
    let (Some(r), Some(c), Some(d)) =
        (&event.rsync_status, &event.cluster_status, &event.readiness)
    else {
        return false;
    };
    r.applied > 0
        && r.pending + r.retrying + r.failed + c.not_present + c.unknown == 0
        && d.not_ready == 0
}

fn watch_request() -> WatchStatusRequest {
    WatchStatusRequest {
        name: DIG.into(),
        ..Default::default()
    }
}

async fn a_watch_survives_a_server_restart_without_losing_or_repeating_events(backend: Backend) {
    let mut server = TestServer::start_with(backend, &["--demo"]).await;
    let mut client = server.client().await;
    client
        .lifecycle
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .expect("approve");
    let mut watch = client.watch_status(watch_request());
    let (mut state, mut tokens, mut synced, mut restarted_after) = (State::new(), vec![], false, 0);
    loop {
        let event = watch.next().await.expect("the watch resumes by itself");
        tokens.push(event.resume_token.clone());
        apply(&mut state, &event);
        match event.r#type() {
            WatchEventType::Synced if !synced => {
                synced = true;
                client
                    .lifecycle
                    .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
                        name: DIG.into(),
                        ..Default::default()
                    })
                    .await
                    .expect("instantiate");
            }
            // The first resource change of the instantiate: kill -9 and restart the
            // server now, in the middle of the rollout, under the open stream.
            WatchEventType::ResourceChanged if synced && restarted_after == 0 => {
                restarted_after = tokens.len();
                server.kill9();
                server.respawn().await;
            }
            WatchEventType::CountsChanged if restarted_after > 0 && settled(&event) => break,
            _ => {}
        }
    }
    assert!(watch.reconnects() >= 1, "the restart cut the stream");
    assert!(
        tokens.len() > restarted_after,
        "events arrived after the restart"
    );
    assert_eq!(
        tokens.iter().collect::<HashSet<_>>().len(),
        tokens.len(),
        "no event is handed out twice"
    );
    assert_eq!(watch.resume_token(), tokens.last().unwrap());
    // The events add up to what a fresh snapshot shows.
    let mut fresh = server.client().await.watch_status(watch_request());
    let mut snapshot = State::new();
    loop {
        let event = fresh.next().await.expect("snapshot");
        if event.r#type() == WatchEventType::Synced {
            break;
        }
        apply(&mut snapshot, &event);
    }
    assert_eq!(state, snapshot);
}

async fn paging_streams_yield_every_item_once(backend: Backend) {
    let server = TestServer::start(backend).await;
    let client = server.client().await;
    let ids: Vec<String> = (0..7).map(|i| format!("p{i}")).collect();
    for id in &ids {
        client
            .lifecycle
            .clone()
            .create_project(CreateProjectRequest {
                project_id: id.clone(),
                ..Default::default()
            })
            .await
            .expect("create project");
    }
    let request = ListProjectsRequest {
        page_size: 2,
        ..Default::default()
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let projects: Vec<Project> = pages(request, |r| {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut lifecycle = client.lifecycle.clone();
        async move { lifecycle.list_projects(r).await }
    })
    .try_collect()
    .await
    .expect("every page");
    let mut names: Vec<_> = projects.into_iter().map(|p| p.name).collect();
    names.sort();
    let expected: Vec<_> = ids.iter().map(|id| names::project(id)).collect();
    assert_eq!(names, expected);
    assert_eq!(calls.into_inner(), 4, "7 projects in pages of 2");
}

async fn errors_carry_reason_preconditions_and_fields(backend: Backend) {
    let server = TestServer::start(backend).await;
    let mut client: Client = server.client().await;
    let refused = client
        .lifecycle
        .create_project(CreateProjectRequest {
            project_id: "Bad_Name".into(),
            ..Default::default()
        })
        .await
        .map_err(ApiError::from)
        .expect_err("a bad id is refused");
    assert_eq!(refused.code, Code::InvalidArgument);
    assert_eq!(refused.fields(), ["project_id"]);
    assert!(refused.to_string().contains("project_id: "), "{refused}");
    assert!(names::checked::project("Bad_Name").is_err());
    let pages_error = pages(
        ListClustersRequest {
            parent: "clusterProviders/none".into(),
            ..Default::default()
        },
        |r| {
            let mut lifecycle = client.lifecycle.clone();
            async move { lifecycle.list_clusters(r).await }
        },
    )
    .try_collect::<Vec<_>>()
    .await
    .expect_err("an unknown parent");
    assert_eq!(pages_error.code, Code::NotFound, "{pages_error}");
    // A watch refused for a reason that retrying cannot fix ends with that reason.
    let mut watch = client.watch_status(WatchStatusRequest {
        name: "projects/none/compositeApps/x/versions/v1/deploymentIntentGroups/y".into(),
        ..Default::default()
    });
    let error = watch.next().await.expect_err("no such group");
    assert_eq!(error.code, Code::NotFound, "{error}");
    assert_eq!(watch.reconnects(), 0);
}

async fn refused_transitions_and_the_other_watches(backend: Backend) {
    let server = TestServer::start_with(backend, &["--demo"]).await;
    let mut client = server.client().await;
    let refused = client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .map_err(ApiError::from)
        .expect_err("a CREATED group cannot be instantiated");
    assert_eq!(refused.code, Code::FailedPrecondition);
    assert_eq!(refused.reason, "INVALID_STATE_TRANSITION");
    assert_eq!(refused.metadata["current_state"], "CREATED");
    assert_eq!(refused.precondition_violations[0].kind, "STATE");
    assert_eq!(refused.precondition_violations[0].subject, DIG);
    // WatchActions and WatchContainerClusters resume the same way; both start with
    // their snapshot.
    let mut actions = client.watch_actions(WatchActionsRequest {
        cluster: names::cluster("edge", "cluster1"),
        ..Default::default()
    });
    let synced = actions.next().await.expect("actions snapshot");
    assert_eq!(synced.r#type(), ActionEventType::Synced);
    assert_eq!(actions.resume_token(), synced.resume_token);
    let mut clusters = client.watch_container_clusters(WatchContainerClustersRequest::default());
    let synced = clusters.next().await.expect("container clusters snapshot");
    assert_eq!(synced.r#type(), ContainerClusterEventType::Synced);
}
