//! Changing a running deployment (issue 22) on the demo's two embedded sim clusters,
//! through real agent sessions, on SQLite and PostgreSQL:
//!
//! - an edit of a running group's profile is a pending revision (Get lists it), which
//!   must be approved; the rollout re-applies only what changed (rsync's apply counter
//!   moves by exactly that), running pods of unchanged controllers are never replaced,
//!   the old instance ends `Superseded`, and a WatchStatus client's mirror follows;
//! - rollback to revision 1 by the same difference; bad and unknown revisions;
//! - a placement that shrinks deletes only what left; a part-way failure leaves an
//!   honest mixed status and a rollback still works;
//! - concurrent verbs with one etag: one wins;
//! - migrate to a group of version v2: only the difference moves, the source ends
//!   TERMINATED without deleting what the target runs.

use std::collections::BTreeMap;
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, names};
use flotilla_tests::demo::{self, DIG};
use flotilla_tests::metrics::{rsync_succeeded, scrape, value};
use flotilla_tests::{Backend, TestServer, e2e_suite, error_view, eventually, free_port};
use tonic::Code;

#[path = "revisions/migrate.rs"]
mod migrate;
use crate::common::mirror;

e2e_suite!(backend =>
    a_rollout_sends_only_the_difference_and_rolls_back,
    a_smaller_placement_deletes_only_what_left,
    a_failed_rollout_is_honest_and_rolls_back,
    concurrent_verbs_with_one_etag_have_one_winner,
    concurrent_verbs_without_an_etag_are_serialised,
    an_expired_revision_cannot_be_rolled_back_to,
    an_unreachable_cluster_waits_and_a_rollback_still_works,
    a_verb_storm_leaves_no_pod_believed_present,
);

const WAIT: Duration = Duration::from_secs(60);
const VERSION: &str = "projects/demo/compositeApps/shop/versions/v1";
const PROFILE: &str =
    "projects/demo/compositeApps/shop/versions/v1/compositeProfiles/default/appProfiles/collectd";

use flotilla_tests::rsync_counts as counts;
use flotilla_tests::rsync_tree;

/// A server of the demo with its metrics endpoint; returns it and the endpoint.
async fn start(backend: Backend) -> (TestServer, String) {
    start_with(backend, &[]).await
}

/// [`start`] with more flags.
async fn start_with(backend: Backend, more: &[&str]) -> (TestServer, String) {
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut args = vec![
        "--demo",
        "--sim-pod-ready-millis",
        "100",
        "--watch-heartbeat-millis",
        "300",
        "--metrics-listen",
        &metrics,
    ];
    args.extend(more);
    let server = TestServer::start_with(backend, &args).await;
    (server, metrics)
}

fn total(c: &RsyncStatusCounts) -> i32 {
    c.pending + c.applied + c.failed + c.retrying + c.terminated + c.superseded
}

async fn get(client: &mut Client, dig: &str) -> DeploymentIntentGroup {
    client
        .lifecycle
        .get_deployment_intent_group(GetDeploymentIntentGroupRequest { name: dig.into() })
        .await
        .expect("get")
        .into_inner()
}

fn last_event(dig: &DeploymentIntentGroup) -> (DeploymentIntentGroupEventKind, i64, String) {
    let e = dig.history.last().expect("a history");
    (e.kind(), e.revision, e.instance.clone())
}

/// Every pod the clusters report for `dig`'s current instance, (cluster, pod) -> uid,
/// and whether the instance's cluster-status counts agree with its resource
/// tree (every entry counted once: a rollout counts the pods it shares with the
/// instance it replaced for itself, and no later report counts them again).
async fn pods_and_agreement(
    client: &mut Client,
    dig: &str,
) -> (BTreeMap<(String, String), String>, bool) {
    let status = mirror::query(client, dig, StatusOutput::Detail, &[], &[]).await;
    let mut pods = BTreeMap::new();
    let mut tree = ClusterStatusCounts::default();
    for app in &status.resources {
        for cluster in &app.clusters {
            for r in &cluster.resources {
                match r.cluster_status() {
                    ClusterResourceStatus::Present => tree.present += 1,
                    ClusterResourceStatus::NotPresent => tree.not_present += 1,
                    _ => tree.unknown += 1,
                }
                let kind = r.gvk.as_ref().map(|g| g.kind.as_str()).unwrap_or_default();
                if kind != "Pod" || r.cluster_status != ClusterResourceStatus::Present as i32 {
                    continue;
                }
                let uid = r
                    .metadata
                    .as_ref()
                    .and_then(|m| m.fields.get("uid"))
                    .and_then(|v| match &v.kind {
                        Some(prost_types::value::Kind::StringValue(s)) => Some(s.clone()),
                        _ => None,
                    })
                    .expect("sim pods carry a uid");
                pods.insert((cluster.name.clone(), r.name.clone()), uid);
            }
        }
    }
    (pods, status.cluster_status == Some(tree))
}

/// Waits until every rendered resource of `dig`'s current instance is Applied, the
/// clusters report `pod_count` pods and the counts agree with the tree; returns the
/// pods.
async fn converged(
    client: &Client,
    dig: &str,
    applied: i32,
    pod_count: usize,
) -> BTreeMap<(String, String), String> {
    eventually(WAIT, "the group to converge", || {
        let mut client = client.clone();
        let dig = dig.to_string();
        async move {
            let c = counts(&mut client, &dig, "", &[]).await;
            if c.applied != applied || total(&c) != applied {
                return None;
            }
            let (pods, agree) = pods_and_agreement(&mut client, &dig).await;
            (pods.len() == pod_count && agree).then_some(pods)
        }
    })
    .await
}

/// Waits until rsync is idle: nothing sent and waiting for its result, no worker
/// backing off, and no apply or delete finished for half a second (an outcome is
/// counted before it is recorded, so one counted is recorded well within that).
async fn rsync_idle(metrics: &str) {
    eventually(WAIT, "rsync to be idle", || {
        let metrics = metrics.to_string();
        async move {
            let busy = |text: &str| {
                value(text, "flotilla_rsync_in_flight_operations", &[])
                    + value(text, "flotilla_rsync_backing_off_workers", &[])
            };
            let finished = |text: &str| value(text, "flotilla_rsync_operations_total", &[]);
            let before = scrape(&metrics);
            tokio::time::sleep(Duration::from_millis(500)).await;
            let after = scrape(&metrics);
            (busy(&before) == 0.0 && busy(&after) == 0.0 && finished(&before) == finished(&after))
                .then_some(())
        }
    })
    .await;
}

/// Waits until rsync's succeeded applies reach `expected`, then checks they stay there.
async fn applies_settle_at(metrics: &str, operation: &str, expected: f64) {
    eventually(WAIT, "rsync's operations", || {
        let metrics = metrics.to_string();
        async move { (rsync_succeeded(&metrics, operation) >= expected).then_some(()) }
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        rsync_succeeded(metrics, operation),
        expected,
        "{operation}s sent beyond the difference"
    );
}

async fn set_collectd_replicas(client: &mut Client, replicas: i64) {
    client
        .lifecycle
        .update_app_profile(UpdateAppProfileRequest {
            app_profile: Some(AppProfile {
                name: PROFILE.into(),
                app: "collectd".into(),
                patches: vec![ManifestPatch {
                    target_kind: "Deployment".into(),
                    target_name: String::new(),
                    merge_patch: Some(flotilla_tests::json_struct(
                        &serde_json::json!({"spec": {"replicas": replicas}}),
                    )),
                }],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("a running group's profile can change");
}

async fn approve(client: &mut Client, dig: &str) -> DeploymentIntentGroup {
    client
        .lifecycle
        .approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
            name: dig.into(),
            ..Default::default()
        })
        .await
        .expect("approve")
        .into_inner()
}

async fn rollout(client: &mut Client, dig: &str) -> Result<DeploymentIntentGroup, tonic::Status> {
    client
        .lifecycle
        .rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
            name: dig.into(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn rollback(
    client: &mut Client,
    dig: &str,
    revision: i64,
) -> Result<DeploymentIntentGroup, tonic::Status> {
    client
        .lifecycle
        .rollback_deployment_intent_group(RollbackDeploymentIntentGroupRequest {
            name: dig.into(),
            revision,
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn a_rollout_sends_only_the_difference_and_rolls_back(backend: Backend) {
    let (server, metrics) = start(backend).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    let rev1 = first.running_revision;
    assert_eq!(rev1, first.revision);
    assert!(first.pending_changes.is_empty());
    // 8 rendered resources; pods: collectd 2 + operator 1 + guest 1 per cluster.
    let before = converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 8.0).await;
    let (mut stream, mut view) = mirror::settled_watch(&mut client).await;
    // And a DETAIL watcher: carried resources come with what the cluster reported.
    let mut detail_stream =
        mirror::watch(&mut client, mirror::watch_request(StatusOutput::Detail, "")).await;
    let mut detail = mirror::Mirror::default();
    mirror::settle(
        &mut client,
        &mut detail_stream,
        &mut detail,
        StatusOutput::Detail,
        &[],
        &[],
    )
    .await;

    // An edit of the running group is a pending revision, not refused.
    set_collectd_replicas(&mut client, 3).await;
    // Its watchers are told (same state, same instance), so a page showing the group
    // reads the pending revision again.
    let told = mirror::next_event(&mut stream).await;
    assert_eq!(
        (told.r#type(), told.state.as_str()),
        (WatchEventType::LifecycleChanged, "INSTANTIATED"),
        "{told:?}"
    );
    assert!(told.instance.ends_with(&first.current_instance), "{told:?}");
    view.apply(&told);
    let pending = get(&mut client, DIG).await;
    assert_eq!(
        pending.state(),
        DeploymentIntentGroupState::Instantiated,
        "the running instance is untouched"
    );
    assert_eq!(pending.current_instance, first.current_instance);
    assert_eq!(pending.running_revision, rev1);
    assert!(pending.revision > rev1);
    assert_eq!(
        pending
            .pending_changes
            .iter()
            .map(|c| (c.name.as_str(), c.kind()))
            .collect::<Vec<_>>(),
        [(PROFILE, PendingChangeKind::Changed)]
    );
    assert!(!pending.pending_approved);

    // Not approved: refused, nothing changes.
    let refused = error_view(rollout(&mut client, DIG).await);
    assert_eq!(refused.code, Code::FailedPrecondition, "{refused:?}");
    assert_eq!(refused.reason, "CONTENT_CHANGED");
    let approved = approve(&mut client, DIG).await;
    assert!(approved.pending_approved);
    assert_eq!(
        last_event(&approved).0,
        DeploymentIntentGroupEventKind::RevisionApproved
    );
    assert_eq!(approved.state(), DeploymentIntentGroupState::Instantiated);

    let updated = rollout(&mut client, DIG).await.expect("rollout");
    assert_ne!(updated.current_instance, first.current_instance);
    assert_eq!(updated.state(), DeploymentIntentGroupState::Instantiated);
    assert_eq!(updated.running_revision, pending.revision);
    assert!(updated.pending_changes.is_empty());
    assert_eq!(
        last_event(&updated),
        (
            DeploymentIntentGroupEventKind::Updated,
            pending.revision,
            updated.current_instance.clone()
        )
    );
    let again = error_view(rollout(&mut client, DIG).await);
    assert_eq!(again.code, Code::FailedPrecondition, "{again:?}");
    assert_eq!(again.reason, "NOTHING_PENDING");

    // Only the collectd Deployment on each cluster is sent; one more pod per cluster,
    // and no running pod was replaced.
    let after = converged(&client, DIG, 8, 10).await;
    applies_settle_at(&metrics, "apply", 10.0).await;
    assert_eq!(rsync_succeeded(&metrics, "delete"), 0.0);
    for (pod, uid) in &before {
        assert_eq!(after.get(pod), Some(uid), "{pod:?} kept running");
    }
    let old = counts(&mut client, DIG, &first.current_instance, &[]).await;
    assert_eq!(
        (old.superseded, total(&old)),
        (8, 8),
        "the old instance ends Superseded: {old:?}"
    );
    // Resource by resource too, and counted from the rows when a name is asked for.
    let tree = rsync_tree(&mut client, DIG, &first.current_instance).await;
    assert_eq!(tree.len(), 8, "{tree:?}");
    assert!(
        tree.values().all(|s| *s == RsyncStatus::Superseded),
        "{tree:?}"
    );
    let name = tree.keys().next().expect("resources").2.clone();
    let named = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: DIG.into(),
            instance: first.current_instance.clone(),
            resources: vec![name.clone()],
            output: StatusOutput::Summary as i32,
            ..Default::default()
        })
        .await
        .expect("status by name")
        .into_inner()
        .rsync_status
        .unwrap_or_default();
    let of_name = tree.keys().filter(|k| k.2 == name).count() as i32;
    assert_eq!(
        (named.superseded, total(&named)),
        (of_name, of_name),
        "{named:?}"
    );
    // A watcher saw the new instance, then the moves: its mirror is the query's answer.
    mirror::settle(
        &mut client,
        &mut stream,
        &mut view,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    assert!(
        view.instance.ends_with(&updated.current_instance),
        "{}",
        view.instance
    );
    mirror::settle(
        &mut client,
        &mut detail_stream,
        &mut detail,
        StatusOutput::Detail,
        &[],
        &[],
    )
    .await;
    assert_eq!(
        detail.metadata.len(),
        8 + 10,
        "every resource has its metadata"
    );

    // Rollback: bad and unknown revisions first.
    let bad = rollback(&mut client, DIG, 0).await.unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument, "{bad:?}");
    let unknown = rollback(&mut client, DIG, 999).await.unwrap_err();
    assert_eq!(unknown.code(), Code::NotFound, "{unknown:?}");
    let back = rollback(&mut client, DIG, rev1).await.expect("rollback");
    assert_eq!(back.running_revision, rev1);
    assert_eq!(
        last_event(&back),
        (
            DeploymentIntentGroupEventKind::RolledBack,
            rev1,
            back.current_instance.clone()
        )
    );
    // The profile still says 3: that is pending again (and approved).
    assert_eq!(back.pending_changes.len(), 1, "{:?}", back.pending_changes);
    assert!(back.pending_approved);
    let rolled_back = converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 12.0).await;
    for (pod, uid) in &before {
        assert_eq!(rolled_back.get(pod), Some(uid), "{pod:?} kept running");
    }
    mirror::settle(
        &mut client,
        &mut stream,
        &mut view,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    // Rolling back to the running revision changes nothing.
    let same = rollback(&mut client, DIG, rev1).await.expect("no-op");
    assert_eq!(same.current_instance, back.current_instance);

    // Once terminated, no instance of the three claims anything still runs.
    demo::terminate(&mut client).await;
    for instance in [
        &first.current_instance,
        &updated.current_instance,
        &back.current_instance,
    ] {
        nothing_left(&client, DIG, instance).await;
    }
}

/// Waits until `instance` of `dig` reports nothing present or ready, in its counts
/// and in its tree: a superseded instance's final statuses are as true as the
/// current one's.
async fn nothing_left(client: &Client, dig: &str, instance: &str) {
    let status = eventually(WAIT, "nothing of the instance to be left", || {
        let mut client = client.clone();
        let (dig, instance) = (dig.to_string(), instance.to_string());
        async move {
            let s = client
                .status
                .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                    name: dig,
                    instance,
                    output: StatusOutput::All as i32,
                    ..Default::default()
                })
                .await
                .expect("the instance's status")
                .into_inner();
            let (cluster, ready) = (
                s.cluster_status.unwrap_or_default(),
                s.readiness.unwrap_or_default(),
            );
            (cluster.present == 0 && ready.ready == 0).then_some(s)
        }
    })
    .await;
    let listed: Vec<_> = status
        .resources
        .iter()
        .flat_map(|a| a.clusters.iter().flat_map(|c| c.resources.iter()))
        .filter(|r| {
            r.cluster_status() == ClusterResourceStatus::Present
                || r.readiness() == Readiness::Ready
        })
        .map(|r| r.name.clone())
        .collect();
    assert!(listed.is_empty(), "listed present: {listed:?}");
}

async fn a_smaller_placement_deletes_only_what_left(backend: Backend) {
    let (server, metrics) = start(backend).await;
    let mut client = server.client().await;
    demo::approve_and_instantiate(&mut client).await;
    let before = converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 8.0).await;
    // The operator app leaves cluster2.
    client
        .lifecycle
        .update_placement_intent(UpdatePlacementIntentRequest {
            placement_intent: Some(PlacementIntent {
                name: format!("{DIG}/placementIntents/operator"),
                app: "operator".into(),
                cluster_provider: "edge".into(),
                cluster_names: vec!["cluster1".into()],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("placement change");
    let pending = get(&mut client, DIG).await;
    assert_eq!(
        pending.pending_changes.len(),
        1,
        "{:?}",
        pending.pending_changes
    );
    approve(&mut client, DIG).await;
    let first = pending.current_instance.clone();
    rollout(&mut client, DIG).await.expect("rollout");
    // operator and guest leave cluster2 (2 deletes), nothing is applied again.
    let after = converged(&client, DIG, 6, 6).await;
    applies_settle_at(&metrics, "delete", 2.0).await;
    assert_eq!(rsync_succeeded(&metrics, "apply"), 8.0);
    for (pod, uid) in &after {
        assert_eq!(before.get(pod), Some(uid), "{pod:?} kept running");
    }
    let cluster2 = names::cluster("edge", "cluster2");
    let old = counts(&mut client, DIG, &first, &[&cluster2]).await;
    assert_eq!((old.superseded, old.terminated), (2, 2), "{old:?}");
    // What left cluster2 ends Terminated; what stays is Superseded, everywhere.
    let tree = rsync_tree(&mut client, DIG, &first).await;
    let terminated: Vec<_> = tree
        .iter()
        .filter(|(_, s)| **s == RsyncStatus::Terminated)
        .map(|(k, _)| k.1.as_str())
        .collect();
    assert_eq!(terminated, ["cluster2", "cluster2"], "{tree:?}");
    assert_eq!(
        tree.values()
            .filter(|s| **s == RsyncStatus::Superseded)
            .count(),
        tree.len() - 2,
        "{tree:?}"
    );
}

async fn a_failed_rollout_is_honest_and_rolls_back(backend: Backend) {
    let (server, metrics) = start(backend).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 8.0).await;
    // cluster2 rejects the changed Deployment.
    client
        .simulator
        .fail_applies(FailAppliesRequest {
            cluster: names::cluster("edge", "cluster2"),
            kind_pattern: "Deployment".into(),
            name_pattern: "collectd".into(),
        })
        .await
        .unwrap();
    set_collectd_replicas(&mut client, 3).await;
    approve(&mut client, DIG).await;
    rollout(&mut client, DIG).await.expect("rollout");
    let cluster1 = names::cluster("edge", "cluster1");
    let cluster2 = names::cluster("edge", "cluster2");
    eventually(WAIT, "a mixed status", || {
        let mut client = client.clone();
        let (c1, c2) = (cluster1.clone(), cluster2.clone());
        async move {
            let one = counts(&mut client, DIG, "", &[&c1]).await;
            let two = counts(&mut client, DIG, "", &[&c2]).await;
            (one.applied == 4 && two.failed == 1 && two.applied == 3).then_some(())
        }
    })
    .await;
    let group = get(&mut client, DIG).await;
    let applied = group
        .conditions
        .iter()
        .find(|c| c.r#type == "ResourcesApplied")
        .expect("a ResourcesApplied condition");
    assert_eq!(applied.status(), ConditionStatus::False, "{applied:?}");
    assert!(applied.message.contains("cluster2"), "{applied:?}");
    // A rollback still works, and converges once the cluster accepts again.
    client
        .simulator
        .fail_applies(FailAppliesRequest {
            cluster: names::cluster("edge", "cluster2"),
            kind_pattern: String::new(),
            name_pattern: String::new(),
        })
        .await
        .unwrap();
    rollback(&mut client, DIG, first.running_revision)
        .await
        .expect("rollback after a failure");
    converged(&client, DIG, 8, 8).await;
}

async fn concurrent_verbs_with_one_etag_have_one_winner(backend: Backend) {
    let (server, _metrics) = start(backend).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    converged(&client, DIG, 8, 8).await;
    set_collectd_replicas(&mut client, 3).await;
    let etag = approve(&mut client, DIG).await.etag;
    let mut tasks = Vec::new();
    for verb in 0..3 {
        let mut client = client.clone();
        let etag = etag.clone();
        let revision = first.running_revision;
        tasks.push(tokio::spawn(async move {
            let lc = &mut client.lifecycle;
            match verb {
                0 => lc
                    .rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
                        name: DIG.into(),
                        etag,
                        ..Default::default()
                    })
                    .await
                    .map(|_| "rollout"),
                1 => lc
                    .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
                        name: DIG.into(),
                        etag,
                        ..Default::default()
                    })
                    .await
                    .map(|_| "terminate"),
                _ => lc
                    .rollback_deployment_intent_group(RollbackDeploymentIntentGroupRequest {
                        name: DIG.into(),
                        revision,
                        etag,
                        ..Default::default()
                    })
                    .await
                    .map(|_| "rollback"),
            }
        }));
    }
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(verb) => winners.push(verb),
            Err(status) => assert!(
                matches!(status.code(), Code::Aborted | Code::FailedPrecondition),
                "{status:?}"
            ),
        }
    }
    // Rollback to the running revision is a no-op that does not move the etag, so it
    // may succeed beside the winner; rollout and terminate move it: one of them wins.
    let movers: Vec<_> = winners.iter().filter(|v| **v != "rollback").collect();
    assert_eq!(movers.len(), 1, "{winners:?}");
}

/// Without an etag, a rollback and a rollout sent together are applied one after the
/// other (README, "Changing a running deployment"): each answers OK or is refused, the
/// history holds what succeeded in one order, and the group runs (and its clusters
/// converge to) what the last entry says.
async fn concurrent_verbs_without_an_etag_are_serialised(backend: Backend) {
    let (server, _metrics) = start(backend).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    converged(&client, DIG, 8, 8).await;
    set_collectd_replicas(&mut client, 3).await;
    approve(&mut client, DIG).await;
    rollout(&mut client, DIG)
        .await
        .expect("a rollout to revision 2");
    set_collectd_replicas(&mut client, 4).await;
    let before = approve(&mut client, DIG).await.history.len();
    let (back, out) = tokio::join!(
        {
            let mut client = client.clone();
            async move { rollback(&mut client, DIG, first.running_revision).await }
        },
        {
            let mut client = client.clone();
            async move { rollout(&mut client, DIG).await }
        }
    );
    let mut succeeded = Vec::new();
    for (verb, outcome) in [("rollback", back), ("rollout", out)] {
        match outcome {
            Ok(_) => succeeded.push(verb),
            Err(status) => assert!(
                matches!(status.code(), Code::Aborted | Code::FailedPrecondition),
                "{verb}: {status:?}"
            ),
        }
    }
    assert!(!succeeded.is_empty());
    let group = get(&mut client, DIG).await;
    let added: Vec<_> = group.history[before..].iter().map(|e| e.kind()).collect();
    assert_eq!(added.len(), succeeded.len(), "{added:?} for {succeeded:?}");
    let last = group.history.last().unwrap();
    assert_eq!(group.running_revision, last.revision, "{:?}", group.history);
    // The clusters run what the last entry says: 4 collectd replicas after a rollout
    // came last, 2 (revision 1's) after a rollback did.
    let replicas = if last.kind() == DeploymentIntentGroupEventKind::RolledBack {
        2
    } else {
        4
    };
    converged(&client, DIG, 8, 8 + 2 * (replicas - 2)).await;
}

/// With a retention of one instance, the replaced instance goes in the rollout's own
/// transaction, after what it ran was carried over: the rollout still sends only the
/// difference, and a rollback to it is FAILED_PRECONDITION `REVISION_EXPIRED`.
async fn an_expired_revision_cannot_be_rolled_back_to(backend: Backend) {
    let (server, metrics) = start_with(backend, &["--instance-retention", "1"]).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    let before = converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 8.0).await;
    set_collectd_replicas(&mut client, 3).await;
    approve(&mut client, DIG).await;
    rollout(&mut client, DIG).await.expect("rollout");
    let after = converged(&client, DIG, 8, 10).await;
    applies_settle_at(&metrics, "apply", 10.0).await;
    for (pod, uid) in &before {
        assert_eq!(after.get(pod), Some(uid), "{pod:?} kept running");
    }
    let gone = client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: DIG.into(),
            instance: first.current_instance.clone(),
            ..Default::default()
        })
        .await
        .expect_err("the first instance is gone");
    assert_eq!(gone.code(), Code::NotFound, "{gone:?}");
    let expired = error_view(rollback(&mut client, DIG, first.running_revision).await);
    assert_eq!(expired.code, Code::FailedPrecondition, "{expired:?}");
    assert_eq!(expired.reason, "REVISION_EXPIRED");
}

/// A rollout while cluster2's agent is cut: its changed resource waits (Retrying, the
/// condition names the cluster), cluster1 converges; a rollback meanwhile is accepted,
/// and once cluster2 is back everything converges on the rolled-back content.
async fn an_unreachable_cluster_waits_and_a_rollback_still_works(backend: Backend) {
    let (server, metrics) = start(backend).await;
    let mut client = server.client().await;
    let first = demo::approve_and_instantiate(&mut client).await;
    converged(&client, DIG, 8, 8).await;
    applies_settle_at(&metrics, "apply", 8.0).await;
    let cluster2 = names::cluster("edge", "cluster2");
    flotilla_tests::disconnect(&client, &cluster2).await;
    set_collectd_replicas(&mut client, 3).await;
    approve(&mut client, DIG).await;
    rollout(&mut client, DIG)
        .await
        .expect("rollout with a cluster down");
    let cluster1 = names::cluster("edge", "cluster1");
    eventually(WAIT, "cluster1 applied, cluster2 waiting", || {
        let mut client = client.clone();
        let (c1, c2) = (cluster1.clone(), cluster2.clone());
        async move {
            let one = counts(&mut client, DIG, "", &[&c1]).await;
            let two = counts(&mut client, DIG, "", &[&c2]).await;
            (one.applied == 4 && two.retrying >= 1).then_some(())
        }
    })
    .await;
    let group = get(&mut client, DIG).await;
    let applied = group
        .conditions
        .iter()
        .find(|c| c.r#type == "ResourcesApplied")
        .expect("a ResourcesApplied condition");
    assert_eq!(applied.reason, "Retrying", "{applied:?}");
    assert!(applied.message.contains("cluster2"), "{applied:?}");
    rollback(&mut client, DIG, first.running_revision)
        .await
        .expect("a rollback while a cluster is down");
    flotilla_tests::reconnect(&client, &cluster2).await;
    converged(&client, DIG, 8, 8).await;
}

/// Rollout, terminate and instantiate back to back, round after round (issue 56: the
/// server went on believing 8-12 pods present after such a storm): once the group is
/// terminated, no instance lists anything present, and the simulator and actions
/// find no pod to act on.
async fn a_verb_storm_leaves_no_pod_believed_present(backend: Backend) {
    let (server, metrics) = start(backend).await;
    let mut client = server.client().await;
    demo::approve_and_instantiate(&mut client).await;
    converged(&client, DIG, 8, 8).await;
    for round in 0..6 {
        set_collectd_replicas(&mut client, 2 + (round % 3)).await;
        approve(&mut client, DIG).await;
        let verbs = [
            Some(tokio::spawn({
                let mut client = client.clone();
                async move { rollout(&mut client, DIG).await.map(|_| ()) }
            })),
            Some(tokio::spawn({
                let mut client = client.clone();
                async move {
                    client
                        .lifecycle
                        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
                            name: DIG.into(),
                            ..Default::default()
                        })
                        .await
                        .map(|_| ())
                }
            })),
            Some(tokio::spawn({
                let mut client = client.clone();
                async move {
                    client
                        .lifecycle
                        .instantiate_deployment_intent_group(
                            InstantiateDeploymentIntentGroupRequest {
                                name: DIG.into(),
                                ..Default::default()
                            },
                        )
                        .await
                        .map(|_| ())
                }
            })),
        ];
        for verb in verbs.into_iter().flatten() {
            if let Err(status) = verb.await.expect("the verb's task") {
                assert!(
                    matches!(status.code(), Code::FailedPrecondition | Code::Aborted),
                    "{status:?}"
                );
            }
        }
    }
    let _ = client
        .lifecycle
        .terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await;
    // An apply sent before the last terminate can still come back after it: the row
    // that said Terminated goes Applied and rsync deletes the object again (and the
    // pods it made are reported present, then gone). The storm is over once rsync is.
    rsync_idle(&metrics).await;
    let instances = flotilla_tests::instances(&mut client, DIG).await;
    assert!(instances.len() > 2, "{instances:?}");
    for instance in &instances {
        nothing_left(&client, DIG, &instance.id).await;
    }
    for cluster in ["cluster1", "cluster2"] {
        let cluster = names::cluster("edge", cluster);
        for pod in [
            "collectd-0",
            "collectd-1",
            "collectd-2",
            "collectd-3",
            "guest-0",
        ] {
            let deleted = client
                .simulator
                .delete_pod(DeletePodRequest {
                    cluster: cluster.clone(),
                    namespace: String::new(),
                    pod: pod.into(),
                })
                .await
                .map(|_| format!("{pod} on {cluster} was still there"))
                .expect_err("no pod to delete");
            assert_eq!(
                deleted.code(),
                Code::NotFound,
                "{pod} on {cluster}: {deleted:?}"
            );
            let acted = client
                .actions
                .create_pod_action(CreatePodActionRequest {
                    cluster: cluster.clone(),
                    pod: pod.into(),
                    action_name: "Reboot".into(),
                    params: Some(create_pod_action_request::Params::RebootParams(
                        RebootParams::default(),
                    )),
                    ..Default::default()
                })
                .await
                .expect_err("no pod to act on");
            assert_eq!(
                acted.code(),
                Code::NotFound,
                "{pod} on {cluster}: {acted:?}"
            );
        }
    }
}
