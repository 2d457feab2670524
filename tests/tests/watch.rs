//! End-to-end: WatchStatus. Snapshot + SYNCED + live events mirror the status query;
//! resume tokens replay every change exactly once (across reconnects and restarts);
//! expired tokens get RESYNC_REQUIRED; one stalled subscriber among 1,000 neither
//! slows the others nor loses events; limits, bad input and shutdown. On SQLite and
//! PostgreSQL.

use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, WatchEvents, names};
use flotilla_tests::{TestServer, e2e_suite, error_view, eventually, wait_connectivity};
use tonic::Code;
use tonic::codec::Streaming;

e2e_suite!(
    args = [
        "--demo",
        "--sim-pod-ready-millis",
        "100",
        "--watch-heartbeat-millis",
        "300",
        "--watch-tail-events",
        "16",
        "--max-watches",
        "1100",
    ],
    snapshot_then_live_events_mirror_the_query,
    filtered_and_summary_watches_count_their_selection,
    reconnect_with_last_token_gets_every_change_exactly_once,
    resume_at_an_instance_switch_sends_its_resources,
    resume_before_a_takeover_counts_what_was_taken_over,
    restart_then_resume_misses_nothing,
    stalled_subscriber_among_a_thousand,
    bad_watch_requests_are_refused,
    shutdown_ends_streams_cleanly,
    events_at_hand_share_a_message,
);

mod expiry {
    use super::*;
    e2e_suite!(
        args = [
            "--demo",
            "--sim-pod-ready-millis",
            "100",
            "--watch-retention-secs",
            "1",
        ],
        expired_token_gets_resync_required,
    );
}

mod instance_expiry {
    use super::*;
    e2e_suite!(
        args = [
            "--demo",
            "--sim-pod-ready-millis",
            "100",
            "--instance-retention",
            "1",
        ],
        resume_onto_an_expired_instance_gets_resync_required,
    );
}

mod limit {
    use super::*;
    e2e_suite!(
        args = ["--demo", "--max-watches", "2"],
        watch_limit_is_resource_exhausted,
    );
}

use flotilla_tests::demo::{DIG, terminate};

use crate::common::mirror;
#[path = "watch/resume.rs"]
mod resume;
use mirror::{
    Mirror, WAIT, drain, next, next_event, read_snapshot, settle, settled_watch, watch,
    watch_request,
};
use resume::*;

async fn query(
    client: &mut Client,
    output: StatusOutput,
    apps: &[&str],
    clusters: &[&str],
) -> ResourceStatus {
    mirror::query(client, DIG, output, apps, clusters).await
}

async fn approve_and_instantiate(client: &mut Client) {
    flotilla_tests::demo::approve_and_instantiate(client).await;
}
async fn converge(client: &mut Client) {
    eventually(WAIT, "the demo to converge", || {
        let mut client = client.clone();
        async move {
            let s = query(&mut client, StatusOutput::Summary, &[], &[]).await;
            (s.rsync_status.unwrap_or_default().applied == 8
                && s.readiness.unwrap_or_default().ready == 16)
                .then_some(())
        }
    })
    .await;
}

/// Deletes `pod`; while a deleted pod is not back yet (its controller recreates it,
/// and the agent reports it), the simulator answers NOT_FOUND: wait for it.
async fn delete_pod(client: &mut Client, cluster: &str, pod: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let result = client
            .simulator
            .delete_pod(DeletePodRequest {
                cluster: names::cluster("edge", cluster),
                namespace: String::new(),
                pod: pod.into(),
            })
            .await;
        match result {
            Err(status) if status.code() == tonic::Code::NotFound => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{pod} never came back"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => return drop(other.unwrap()),
        }
    }
}

/// Some churn: pods deleted (NotPresent, then recreated and Ready again).
async fn churn(client: &mut Client, rounds: usize) {
    for i in 0..rounds {
        let cluster = if i % 2 == 0 { "cluster1" } else { "cluster2" };
        delete_pod(client, cluster, &format!("collectd-{}", i % 2)).await;
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

async fn snapshot_then_live_events_mirror_the_query(server: &TestServer) {
    let mut client = server.client().await;
    // Before any instance: the snapshot is the state and SYNCED.
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let first = next_event(&mut stream).await;
    assert_eq!(first.r#type, WatchEventType::LifecycleChanged as i32);
    assert_eq!(first.state, "CREATED");
    let mut mirror = Mirror::default();
    mirror.apply(&first);
    loop {
        let event = next_event(&mut stream).await;
        mirror.apply(&event);
        if mirror.synced {
            break;
        }
    }
    approve_and_instantiate(&mut client).await;
    let events = settle(
        &mut client,
        &mut stream,
        &mut mirror,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    assert_eq!(mirror.state, "INSTANTIATED");
    // The new instance's 8 rendered resources were announced, then went Applied.
    assert!(
        events
            .iter()
            .any(|e| e.r#type == WatchEventType::ResourceChanged as i32
                && e.resource.as_ref().unwrap().rsync_status == RsyncStatus::Applied as i32)
    );
    assert_eq!(mirror.rsync.applied, 8);
    // Tokens increase.
    let tokens: Vec<(i64, i64)> = events.iter().map(|e| position(&e.resume_token)).collect();
    assert!(tokens.windows(2).all(|w| w[0] < w[1]), "{tokens:?}");

    // A pod deleted out of band: NotPresent then Present again, live.
    delete_pod(&mut client, "cluster1", "collectd-0").await;
    let events = settle(
        &mut client,
        &mut stream,
        &mut mirror,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    let statuses: Vec<i32> = events
        .iter()
        .filter_map(|e| {
            e.resource
                .as_ref()
                .filter(|r| r.name == "collectd-0" && e.cluster.ends_with("cluster1"))
        })
        .map(|r| r.cluster_status)
        .collect();
    assert!(
        statuses.contains(&(ClusterResourceStatus::NotPresent as i32)),
        "{statuses:?}"
    );
    assert_eq!(
        statuses.last(),
        Some(&(ClusterResourceStatus::Present as i32))
    );

    // Idle, the stream sends heartbeats carrying the latest token: at or after the
    // last event sent, so a client that resumes from it misses nothing and gets
    // nothing again.
    let mut latest = events.last().map(|e| position(&e.resume_token)).unwrap();
    let heartbeat = loop {
        let event = next(&mut stream).await;
        mirror.apply(&event);
        if event.r#type == WatchEventType::Heartbeat as i32 {
            break event;
        }
        latest = latest.max(position(&event.resume_token));
    };
    assert!(heartbeat.time.is_some(), "{heartbeat:?}");
    let at = position(&heartbeat.resume_token);
    assert!(
        at >= latest,
        "heartbeat at {at:?}, last event at {latest:?}"
    );
    let mut resumed = watch(
        &mut client,
        watch_request(StatusOutput::All, &heartbeat.resume_token),
    )
    .await;
    loop {
        let event = next(&mut resumed).await;
        if event.r#type == WatchEventType::Heartbeat as i32 {
            assert!(position(&event.resume_token) >= at);
            break;
        }
        assert!(
            position(&event.resume_token) > at,
            "replayed after the heartbeat's token: {event:?}"
        );
    }

    // A second snapshot of the settled system equals the mirror.
    let mut again = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let fresh = read_snapshot(&mut again).await;
    assert_eq!(fresh.comparable(), mirror.comparable());
    assert_eq!(fresh.connectivity.len(), 2, "{:?}", fresh.connectivity);
    // The stream opened before the first instance learnt where it was placed: the
    // connectivity of each cluster it placed, as the fresh snapshot has it.
    assert_eq!(mirror.connectivity, fresh.connectivity);
}

/// The (revision, sub) a token names (the test knows the format).
fn position(token: &str) -> (i64, i64) {
    use base64::Engine;
    let text = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .unwrap();
    let text = String::from_utf8(text).unwrap();
    let parts: Vec<&str> = text.split('.').collect();
    (parts[1].parse().unwrap(), parts[2].parse().unwrap())
}

/// Reads `stream` until its token reaches `until` (or beyond), skipping heartbeats.
async fn read_until(stream: &mut WatchEvents, until: (i64, i64)) -> Vec<WatchEvent> {
    let mut events = Vec::new();
    loop {
        let event = next(stream).await;
        let at = position(&event.resume_token);
        if event.r#type != WatchEventType::Heartbeat as i32 {
            events.push(event);
        }
        if at >= until {
            return events;
        }
    }
}

async fn filtered_and_summary_watches_count_their_selection(server: &TestServer) {
    let mut client = server.client().await;
    approve_and_instantiate(&mut client).await;
    let mut filtered = watch(
        &mut client,
        WatchStatusRequest {
            apps: vec!["collectd".into()],
            clusters: vec!["cluster1".into()],
            ..watch_request(StatusOutput::All, "")
        },
    )
    .await;
    let mut summary = watch(&mut client, watch_request(StatusOutput::Summary, "")).await;
    let mut rsync = watch(&mut client, watch_request(StatusOutput::Rsync, "")).await;
    // ALL and DETAIL subscribers of the same target share the live events but not
    // their messages (each output level has its own encoding).
    let mut all = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let mut detail = watch(&mut client, watch_request(StatusOutput::Detail, "")).await;
    let (mut m1, mut m2, mut m3) = (Mirror::default(), Mirror::default(), Mirror::default());
    // Both synced before the churn, so that it is live for both.
    let mut synced_all = Vec::new();
    let mut synced_detail = Vec::new();
    for (stream, seen) in [
        (&mut all, &mut synced_all),
        (&mut detail, &mut synced_detail),
    ] {
        loop {
            let event = next_event(stream).await;
            let done = event.r#type == WatchEventType::Synced as i32;
            seen.push(event);
            if done {
                break;
            }
        }
    }
    churn(&mut client, 4).await;
    converge(&mut client).await;
    settle(
        &mut client,
        &mut filtered,
        &mut m1,
        StatusOutput::All,
        &["collectd"],
        &["cluster1"],
    )
    .await;
    assert!(
        m1.resources
            .keys()
            .all(|k| k.0 == "collectd" && k.1 == "cluster1"),
        "{:?}",
        m1.resources
    );
    assert!(m1.connectivity.keys().all(|c| c.ends_with("cluster1")));
    let events = settle(
        &mut client,
        &mut summary,
        &mut m2,
        StatusOutput::Summary,
        &[],
        &[],
    )
    .await;
    assert!(m2.resources.is_empty());
    assert!(
        events
            .iter()
            .all(|e| e.r#type != WatchEventType::ResourceChanged as i32)
    );
    // RSYNC: rsync statuses only, no cluster counts.
    // Drained up to each heartbeat: one sent in a lull of the churn can come before
    // the last events.
    let mut events = drain(&mut rsync, &mut m3).await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while m3.rsync.applied != 8 && tokio::time::Instant::now() < deadline {
        events.extend(drain(&mut rsync, &mut m3).await);
    }
    assert!(m3.synced);
    assert_eq!(m3.rsync.applied, 8);
    assert_eq!(m3.cluster, ClusterStatusCounts::default());
    assert!(
        events
            .iter()
            .filter_map(|e| e.resource.as_ref())
            .all(|r| r.cluster_status == 0 && r.rsync_status != 0)
    );
    // The live resource events after both snapshots (the second subscriber's snapshot
    // may be later than the first's).
    synced_all.extend(drain(&mut all, &mut Mirror::default()).await);
    synced_detail.extend(drain(&mut detail, &mut Mirror::default()).await);
    // A drain ends at a heartbeat, and a heartbeat sent in a lull of the churn can sit
    // in one stream's buffer ahead of the last events: read the stream that stopped
    // first up to where the other one did.
    let last = |events: &[WatchEvent]| {
        events
            .iter()
            .filter(|e| e.r#type == WatchEventType::ResourceChanged as i32)
            .map(|e| position(&e.resume_token))
            .max()
            .unwrap_or((0, 0))
    };
    let until = last(&synced_all).max(last(&synced_detail));
    if last(&synced_all) < until {
        synced_all.extend(read_until(&mut all, until).await);
    }
    if last(&synced_detail) < until {
        synced_detail.extend(read_until(&mut detail, until).await);
    }
    let (all, detail) = (synced_all, synced_detail);
    let synced = |events: &[WatchEvent]| {
        events
            .iter()
            .find(|e| e.r#type == WatchEventType::Synced as i32)
            .map(|e| position(&e.resume_token).0)
            .expect("a SYNCED event")
    };
    let after = synced(&all).max(synced(&detail));
    let live = |events: Vec<WatchEvent>| -> Vec<WatchEvent> {
        events
            .into_iter()
            .filter(|e| {
                e.r#type == WatchEventType::ResourceChanged as i32
                    && position(&e.resume_token).0 > after
            })
            .collect()
    };
    let (all, detail) = (live(all), live(detail));
    let id = |e: &WatchEvent| {
        let r = e.resource.as_ref().unwrap();
        (e.resume_token.clone(), r.name.clone(), r.cluster_status)
    };
    assert!(!all.is_empty());
    assert_eq!(
        all.iter().map(id).collect::<Vec<_>>(),
        detail.iter().map(id).collect::<Vec<_>>()
    );
    assert!(
        all.iter()
            .all(|e| e.resource.as_ref().unwrap().metadata.is_none())
    );
    let present = ClusterResourceStatus::Present as i32;
    let detailed: Vec<_> = detail
        .iter()
        .filter_map(|e| e.resource.as_ref())
        .filter(|r| r.cluster_status == present)
        .collect();
    assert!(!detailed.is_empty());
    assert!(
        detailed.iter().all(|r| r.metadata.is_some()),
        "{detailed:?}"
    );
}

async fn stalled_subscriber_among_a_thousand(server: &TestServer) {
    let mut client = server.client().await;
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    let (mut first, mut mirror) = settled_watch(&mut client).await;
    let start = mirror.token.clone();
    // 999 readers on 10 connections plus one that never reads, all from `start`.
    let mut channels = Vec::new();
    for _ in 0..10 {
        channels.push(server.client().await);
    }
    let stalled = watch(&mut channels[0], watch_request(StatusOutput::All, &start)).await;
    let mut readers = Vec::new();
    for i in 0..999 {
        let mut c = channels[i % 10].clone();
        readers.push(watch(&mut c, watch_request(StatusOutput::All, &start)).await);
    }
    terminate(&mut client).await;
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    let reference = settle(
        &mut client,
        &mut first,
        &mut mirror,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    let end = position(&reference.last().unwrap().resume_token);
    // Every reader gets exactly the reference sequence while one subscriber stalls.
    let mut tasks = Vec::new();
    for mut stream in readers {
        tasks.push(tokio::spawn(
            async move { read_until(&mut stream, end).await },
        ));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), reference);
    }
    // The stalled one is far behind the 16-event tail; it catches up from the log.
    let mut stalled = stalled;
    assert_eq!(read_until(&mut stalled, end).await, reference);
}

/// The events a subscriber has at hand travel together: the snapshot of the
/// instantiated demo (state, connectivity, every resource, counts, SYNCED) is one or a
/// few messages, never an empty one, none much over the cap; each event still has its
/// own token. A token from inside the snapshot's message resyncs (as every snapshot
/// token does); one from inside a live burst continues with the burst's next event.
async fn events_at_hand_share_a_message(server: &TestServer) {
    let mut client = server.client().await;
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    let mut raw = client
        .status
        .watch_status(watch_request(StatusOutput::Detail, ""))
        .await
        .expect("watch starts")
        .into_inner();
    let mut messages = Vec::new();
    loop {
        let message = tokio::time::timeout(WAIT, raw.message())
            .await
            .expect("a message in time")
            .expect("the stream is healthy")
            .expect("the stream goes on");
        let synced = message
            .events
            .iter()
            .any(|e| e.r#type == WatchEventType::Synced as i32);
        messages.push(message);
        if synced {
            break;
        }
    }
    let events: Vec<WatchEvent> = messages.iter().flat_map(|m| m.events.clone()).collect();
    assert!(
        messages.iter().all(|m| !m.events.is_empty()),
        "an empty message"
    );
    assert!(
        events.len() > 20 && messages.len() * 4 <= events.len(),
        "{} events in {} messages",
        events.len(),
        messages.len()
    );
    // The cap: a message is sent once it holds 16 KiB, so none is much larger.
    let largest_event = events
        .iter()
        .map(prost::Message::encoded_len)
        .max()
        .unwrap();
    for message in &messages {
        assert!(prost::Message::encoded_len(message) <= 16 * 1024 + largest_event + 8);
    }
    let tokens: Vec<(i64, i64)> = events.iter().map(|e| position(&e.resume_token)).collect();
    assert!(tokens.windows(2).all(|w| w[0] < w[1]), "{tokens:?}");
    // The fifth event's token, from the middle of the snapshot's first message.
    let first = &messages[0].events;
    assert!(
        first.len() > 6,
        "{} events in the first message",
        first.len()
    );
    let mut resumed = watch(
        &mut client,
        watch_request(StatusOutput::Detail, &first[4].resume_token),
    )
    .await;
    let after = next(&mut resumed).await;
    assert!(
        after.r#type == WatchEventType::ResyncRequired as i32,
        "a snapshot token resumes with a fresh snapshot: {after:?}"
    );
    // A live token inside a message: the burst of a pod deletion.
    let mut live = watch(
        &mut client,
        watch_request(StatusOutput::All, &events.last().unwrap().resume_token),
    )
    .await;
    delete_pod(&mut client, "cluster1", "collectd-0").await;
    let mut burst = Vec::new();
    while burst.len() < 3 {
        burst.push(next_event(&mut live).await);
    }
    let mut again = watch(
        &mut client,
        watch_request(StatusOutput::All, &burst[0].resume_token),
    )
    .await;
    assert_eq!(next_event(&mut again).await, burst[1]);
    assert_eq!(next_event(&mut again).await, burst[2]);
}

async fn bad_watch_requests_are_refused(server: &TestServer) {
    let mut client = server.client().await;
    let err = |r: Result<tonic::Response<Streaming<WatchStatusResponse>>, tonic::Status>| {
        error_view(r.map(|_| ()))
    };
    let e = err(client
        .status
        .watch_status(WatchStatusRequest {
            name: format!("{DIG}x"),
            ..Default::default()
        })
        .await);
    assert_eq!(e.code, Code::NotFound);
    let e = err(client
        .status
        .watch_status(watch_request(StatusOutput::All, "not-a-token"))
        .await);
    assert_eq!(
        (e.code, e.fields()),
        (Code::InvalidArgument, vec!["resume_token"]),
        "{e:?}"
    );
    let e = err(client
        .status
        .watch_status(WatchStatusRequest {
            name: "nope".into(),
            ..Default::default()
        })
        .await);
    assert_eq!(e.code, Code::InvalidArgument);
    let e = err(client
        .status
        .watch_status(WatchStatusRequest {
            output: 42,
            ..watch_request(StatusOutput::All, "")
        })
        .await);
    assert_eq!(
        (e.code, e.fields()),
        (Code::InvalidArgument, vec!["output"])
    );
    approve_and_instantiate(&mut client).await;
    let e = err(client
        .status
        .watch_status(WatchStatusRequest {
            apps: vec!["ghost".into()],
            ..watch_request(StatusOutput::All, "")
        })
        .await);
    assert_eq!(
        (e.code, e.fields()),
        (Code::InvalidArgument, vec!["apps[0]"])
    );
    // A token of another target.
    let cluster = names::cluster("edge", "cluster1");
    let mut stream = watch(
        &mut client,
        WatchStatusRequest {
            name: cluster,
            ..Default::default()
        },
    )
    .await;
    let token = loop {
        let e = next_event(&mut stream).await;
        if e.r#type == WatchEventType::Synced as i32 {
            break e.resume_token;
        }
    };
    let e = err(client
        .status
        .watch_status(watch_request(StatusOutput::All, &token))
        .await);
    assert_eq!(
        (e.code, e.fields()),
        (Code::InvalidArgument, vec!["resume_token"])
    );
}

async fn shutdown_ends_streams_cleanly(server: &TestServer) {
    let mut own = TestServer::start_with(server.backend, &["--demo"]).await;
    let mut client = own.client().await;
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    read_snapshot(&mut stream).await;
    let started = std::time::Instant::now();
    assert_eq!(own.stop_with(libc::SIGTERM).code(), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "shutdown waited for the stream"
    );
    let status = loop {
        match stream.next().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream should say why it ends"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(status.message().contains("resume token"), "{status:?}");
}

async fn expired_token_gets_resync_required(server: &TestServer) {
    let mut client = server.client().await;
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let mirror = read_snapshot(&mut stream).await;
    drop(stream);
    let token = mirror.token.clone();
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    // Retention is one second; compaction runs every 200 ms.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, &token)).await;
    let first = next_event(&mut stream).await;
    assert_eq!(first.r#type, WatchEventType::ResyncRequired as i32);
    let fresh = read_snapshot(&mut stream).await;
    let expected = Mirror::of_query(&query(&mut client, StatusOutput::All, &[], &[]).await);
    assert_eq!(fresh.comparable(), expected);
    // A token from inside a snapshot cannot be resumed either.
    let snapshot_token = {
        let mut s = watch(&mut client, watch_request(StatusOutput::All, "")).await;
        next_event(&mut s).await.resume_token
    };
    let mut stream = watch(
        &mut client,
        watch_request(StatusOutput::All, &snapshot_token),
    )
    .await;
    assert_eq!(
        next_event(&mut stream).await.r#type,
        WatchEventType::ResyncRequired as i32
    );
}

/// A token whose stream was on an instance, or would switch to one, that has expired
/// since (`--instance-retention`: its resources are gone) cannot be replayed as the
/// live stream was: RESYNC_REQUIRED and a fresh snapshot, never a silent gap.
async fn resume_onto_an_expired_instance_gets_resync_required(server: &TestServer) {
    let mut client = server.client().await;
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let before_first = read_snapshot(&mut stream).await.token;
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    let mut mirror = Mirror::default();
    mirror.apply(&next_event(&mut stream).await);
    drain(&mut stream, &mut mirror).await;
    let on_first = mirror.token.clone();
    drop(stream);
    // Terminated and instantiated again: with a retention of one, the first instance
    // goes with its rendered resources.
    terminate(&mut client).await;
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .expect("instantiate again");
    converge(&mut client).await;
    let instances = client
        .status
        .list_instances(ListInstancesRequest {
            name: DIG.into(),
            ..Default::default()
        })
        .await
        .expect("list instances")
        .into_inner();
    assert_eq!(instances.instances.len(), 1, "{instances:?}");
    for (what, token) in [
        ("a token before the first instance", &before_first),
        ("a token on the first instance", &on_first),
    ] {
        // What can be replayed as it was is (the approval), then the stream starts
        // over where the expired instance's resources would follow.
        let mut stream = watch(&mut client, watch_request(StatusOutput::All, token)).await;
        loop {
            let event = next_event(&mut stream).await;
            if event.r#type == WatchEventType::ResyncRequired as i32 {
                break;
            }
            assert!(
                ![
                    WatchEventType::ResourceChanged as i32,
                    WatchEventType::CountsChanged as i32
                ]
                .contains(&event.r#type),
                "{what}: {event:?} before RESYNC_REQUIRED"
            );
        }
        let fresh = read_snapshot(&mut stream).await;
        let expected = Mirror::of_query(&query(&mut client, StatusOutput::All, &[], &[]).await);
        assert_eq!(fresh.comparable(), expected, "{what}");
    }
}

async fn watch_limit_is_resource_exhausted(server: &TestServer) {
    let mut client = server.client().await;
    let _a = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let b = watch(&mut client, watch_request(StatusOutput::Summary, "")).await;
    let e = error_view(
        client
            .status
            .watch_status(watch_request(StatusOutput::All, ""))
            .await
            .map(|_| ()),
    );
    assert_eq!(e.code, Code::ResourceExhausted);
    assert_eq!(e.reason, "TOO_MANY_WATCHES");
    // A closed watch frees its slot.
    drop(b);
    eventually(WAIT, "a watch slot to free up", || {
        let mut client = client.clone();
        async move {
            client
                .status
                .watch_status(watch_request(StatusOutput::All, ""))
                .await
                .ok()
                .map(|_| ())
        }
    })
    .await;
}
