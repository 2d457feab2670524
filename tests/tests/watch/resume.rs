//! Resuming WatchStatus streams: at an instance switch, before a takeover, after
//! reconnects and after a server restart, a resumed stream sends exactly what the
//! uninterrupted one did.

use super::*;

/// Resuming with the token of the LIFECYCLE_CHANGED that announces a new instance
/// replays the connectivity of its clusters, its resources and counts, as the
/// uninterrupted stream had them: even when a cluster's connectivity changed between
/// the first stream's read and the resume (the change follows as its own event).
pub(super) async fn resume_at_an_instance_switch_sends_its_resources(server: &TestServer) {
    let mut client = server.client().await;
    let cluster2 = names::cluster("edge", "cluster2");
    for cluster in [names::cluster("edge", "cluster1"), cluster2.clone()] {
        wait_connectivity(&client, &cluster, Connectivity::Available).await;
    }
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    read_snapshot(&mut stream).await;
    approve_and_instantiate(&mut client).await;
    let switch = loop {
        let event = next_event(&mut stream).await;
        if event.r#type == WatchEventType::LifecycleChanged as i32 && !event.instance.is_empty() {
            break event;
        }
    };
    let mut expansion = Vec::new();
    loop {
        let event = next_event(&mut stream).await;
        let counts = event.r#type == WatchEventType::CountsChanged as i32;
        expansion.push(event);
        if counts {
            break;
        }
    }
    assert!(expansion.len() > 1, "{expansion:?}");
    // cluster2 goes down after the switch: stored now, it was Available then.
    client
        .simulator
        .disconnect_cluster(DisconnectClusterRequest {
            cluster: cluster2.clone(),
        })
        .await
        .unwrap();
    wait_connectivity(&client, &cluster2, Connectivity::Retrying).await;
    let mut resumed = watch(
        &mut client,
        watch_request(StatusOutput::All, &switch.resume_token),
    )
    .await;
    let mut again = Vec::new();
    for _ in 0..expansion.len() {
        again.push(next_event(&mut resumed).await);
    }
    assert_eq!(again, expansion);
    let down = loop {
        let event = next_event(&mut resumed).await;
        if event.r#type == WatchEventType::ConnectivityChanged as i32 {
            break event;
        }
    };
    assert_eq!(
        (down.cluster.as_str(), down.connectivity()),
        (cluster2.as_str(), Connectivity::Retrying)
    );
    client
        .simulator
        .reconnect_cluster(ReconnectClusterRequest {
            cluster: cluster2.clone(),
        })
        .await
        .unwrap();
    wait_connectivity(&client, &cluster2, Connectivity::Available).await;
    // The stream opened before any instance: the switch first announces where the
    // instance is placed, and a resume between those events goes on after them.
    let connectivity = WatchEventType::ConnectivityChanged as i32;
    assert_eq!(
        expansion
            .iter()
            .take(3)
            .map(|e| e.r#type)
            .collect::<Vec<_>>(),
        [
            connectivity,
            connectivity,
            WatchEventType::ResourceChanged as i32
        ],
        "{expansion:?}"
    );
    let mut resumed = watch(
        &mut client,
        watch_request(StatusOutput::All, &expansion[0].resume_token),
    )
    .await;
    let mut again = Vec::new();
    for _ in 1..expansion.len() {
        again.push(next_event(&mut resumed).await);
    }
    assert_eq!(again, expansion[1..]);
}

/// Terminating while cluster1 is down leaves its resources Applied (their deletes
/// wait for the cluster); instantiating again takes them over, which moves them to
/// Superseded without an event. A stream resumed at any token from before that
/// takeover, while it was on the old instance, sends exactly what the uninterrupted
/// stream sent: it counts the old instance as it was then, not as the takeover left
/// it. (This raced in `reconnect_with_last_token_gets_every_change_exactly_once`.)
pub(super) async fn resume_before_a_takeover_counts_what_was_taken_over(server: &TestServer) {
    let mut client = server.client().await;
    let mut reference = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let mut mirror = read_snapshot(&mut reference).await;
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    let cluster1 = names::cluster("edge", "cluster1");
    flotilla_tests::disconnect(&client, &cluster1).await;
    wait_connectivity(&client, &cluster1, Connectivity::Retrying).await;
    terminate(&mut client).await;
    eventually(WAIT, "cluster2's resources to be deleted", || {
        let mut client = client.clone();
        async move {
            let counts = flotilla_tests::rsync_counts(&mut client, DIG, "", &[]).await;
            (counts.terminated == 4).then_some(())
        }
    })
    .await;
    approve_and_instantiate(&mut client).await;
    flotilla_tests::reconnect(&client, &cluster1).await;
    converge(&mut client).await;
    let expected = settle(
        &mut client,
        &mut reference,
        &mut mirror,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    // Lifecycle events name the current instance: a switch is where it changes.
    let mut switches = Vec::new();
    let mut instance = String::new();
    for (i, event) in expected.iter().enumerate() {
        if event.r#type == WatchEventType::LifecycleChanged as i32 && event.instance != instance {
            instance = event.instance.clone();
            switches.push(i);
        }
    }
    assert_eq!(switches.len(), 2, "{expected:#?}");
    // Through the second switch's expansion, up to its counts.
    let end = (switches[1]..expected.len())
        .find(|&i| expected[i].r#type == WatchEventType::CountsChanged as i32)
        .expect("the new instance's counts");
    // Before the takeover, the old instance held cluster1's four (their deletes
    // waiting for the cluster) and had cluster2's four deleted.
    let before = expected[..switches[1]]
        .iter()
        .rev()
        .find_map(|e| e.rsync_status)
        .expect("the old instance's counts");
    assert_eq!(
        (before.applied + before.retrying, before.terminated),
        (4, 4),
        "{before:?}"
    );
    for from in switches[0]..switches[1] {
        let token = &expected[from].resume_token;
        let mut resumed = watch(&mut client, watch_request(StatusOutput::All, token)).await;
        for (i, want) in expected.iter().enumerate().take(end + 1).skip(from + 1) {
            let got = next_event(&mut resumed).await;
            assert_eq!(&got, want, "resumed after event {from}: event {i} differs");
        }
    }
}

pub(super) async fn reconnect_with_last_token_gets_every_change_exactly_once(server: &TestServer) {
    let mut client = server.client().await;
    // Start both subscribers from the same token (after the snapshot of an empty group).
    let mut first = watch(&mut client, watch_request(StatusOutput::All, "")).await;
    let mirror = read_snapshot(&mut first).await;
    drop(first);
    let start = mirror.token.clone();
    let mut reference = watch(&mut client, watch_request(StatusOutput::All, &start)).await;

    // Load: instantiate, churn, terminate, re-instantiate, churn — while the other
    // subscriber disconnects every few events and resumes with its last token.
    let load = {
        let mut client = client.clone();
        tokio::spawn(async move {
            approve_and_instantiate(&mut client).await;
            churn(&mut client, 6).await;
            terminate(&mut client).await;
            approve_and_instantiate(&mut client).await;
            churn(&mut client, 6).await;
        })
    };
    let mut resumed: Vec<WatchEvent> = Vec::new();
    let mut token = start.clone();
    let mut reconnects = 0;
    while !load.is_finished() || reconnects < 3 {
        let mut stream = watch(&mut client, watch_request(StatusOutput::All, &token)).await;
        let mut read = 0;
        while read < 3 + reconnects % 5 {
            let event = next(&mut stream).await;
            if event.r#type == WatchEventType::Heartbeat as i32 {
                // Idle: once the load is done, no more events may come.
                if load.is_finished() {
                    break;
                }
                continue;
            }
            token = event.resume_token.clone();
            resumed.push(event);
            read += 1;
        }
        reconnects += 1;
        drop(stream);
    }
    load.await.unwrap();
    converge(&mut client).await;
    // Let the reference settle, then read the resumed one up to the same point.
    let mut reference_mirror = Mirror::default();
    let expected =
        [reference_mirror_events(&mut client, &mut reference, &mut reference_mirror).await]
            .concat();
    let end = position(&expected.last().unwrap().resume_token);
    let mut stream = watch(&mut client, watch_request(StatusOutput::All, &token)).await;
    if position(&token) < end {
        resumed.extend(read_until(&mut stream, end).await);
    }
    assert!(reconnects >= 3);
    for (i, (got, want)) in resumed.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "event {i} differs");
    }
    assert_eq!(
        resumed.len(),
        expected.len(),
        "resumed and uninterrupted streams differ in length"
    );
}

async fn reference_mirror_events(
    client: &mut Client,
    stream: &mut WatchEvents,
    mirror: &mut Mirror,
) -> Vec<WatchEvent> {
    settle(client, stream, mirror, StatusOutput::All, &[], &[]).await
}

pub(super) async fn restart_then_resume_misses_nothing(server: &TestServer) {
    let mut server_owned = TestServer::start_with(
        server.backend,
        &[
            "--demo",
            "--sim-pod-ready-millis",
            "100",
            "--watch-heartbeat-millis",
            "300",
        ],
    )
    .await;
    let mut client = server_owned.client().await;
    approve_and_instantiate(&mut client).await;
    converge(&mut client).await;
    let (mut stream, mut mirror) = settled_watch(&mut client).await;
    let token = mirror.token.clone();
    // Restart: the stream ends with UNAVAILABLE; the sim clusters come back, agents
    // reconnect (connectivity events) and pods are recreated (status events).
    assert_eq!(server_owned.stop_with(libc::SIGTERM).code(), Some(0));
    let end = tokio::time::timeout(WAIT, async {
        loop {
            match stream.next().await {
                Ok(Some(_)) => continue,
                Ok(None) => return Code::Ok,
                Err(status) => return status.code(),
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(end, Code::Unavailable);
    server_owned.spawn().await;
    let mut client = server_owned.client().await;
    for cluster in ["cluster1", "cluster2"] {
        wait_connectivity(
            &client,
            &names::cluster("edge", cluster),
            Connectivity::Available,
        )
        .await;
    }
    churn(&mut client, 2).await;
    converge(&mut client).await;
    let mut resumed = watch(&mut client, watch_request(StatusOutput::All, &token)).await;
    let events = settle(
        &mut client,
        &mut resumed,
        &mut mirror,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    assert!(
        !events.is_empty(),
        "changes after the restart were replayed"
    );
    // Resuming twice from the same token replays the same events.
    let mut twice = watch(&mut client, watch_request(StatusOutput::All, &token)).await;
    let end = position(&events.last().unwrap().resume_token);
    assert_eq!(read_until(&mut twice, end).await, events);
}
