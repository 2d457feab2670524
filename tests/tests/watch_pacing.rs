//! WatchStatus is paced to what its client reads (`wire::outbound`): a subscriber whose
//! client stops reading holds at most its stream's share of response bytes in the
//! server, its events wait in the event log, and it gets every one of them once the
//! client reads again. A real server and agent fleet on SQLite and PostgreSQL; the
//! client is a tonic channel with 64 KiB HTTP/2 windows, so that what it does not read
//! stays on the server's side.

use std::time::{Duration, Instant};

use flotilla_client::Client;
use flotilla_client::v1::{StatusOutput, WatchEventType, WatchStatusRequest, WatchStatusResponse};
use flotilla_tests::metrics::{scrape, value};
use flotilla_tests::{Backend, TestAgent, TestServer, e2e_suite, eventually, free_port};
use prost::Message;

use crate::common::fleet::{WAIT, agent_fleet, deployment, instantiate, wait_counts};

e2e_suite!(backend =>
    a_watch_that_is_not_read_holds_its_share_and_no_more,
    watches_that_are_not_read_do_not_hold_up_the_snapshots_of_others,
);

/// `net::outbound::PER_STREAM`: four full watch messages.
const PER_STREAM: f64 = (4 * 17 * 1024) as f64;
/// The client's HTTP/2 windows.
const WINDOW: u32 = 65_535;

async fn a_watch_that_is_not_read_holds_its_share_and_no_more(backend: Backend) {
    let Fleet {
        server,
        dig,
        metrics,
        ..
    } = converged(backend).await;
    let held = || value(&scrape(&metrics), "flotilla_watch_output_bytes", &[]);
    let mut slow = slow_client(&server).await;
    let mut stream = watch(&mut slow, &dig).await;
    // Nothing is read: the server fills the client's window, then holds its share.
    eventually(WAIT, "the stream to hold output", || async {
        (held() > 0.0).then_some(())
    })
    .await;
    let since = Instant::now();
    while since.elapsed() < Duration::from_secs(2) {
        let now = held();
        assert!(
            now <= PER_STREAM,
            "{now} bytes held for one stream whose share is {PER_STREAM}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Reading again, the client gets the whole snapshot, then SYNCED (live events may
    // follow in SYNCED's message).
    let (mut resources, mut bytes) = (0, 0);
    'read: loop {
        let message = stream.message().await.expect("read").expect("not ended");
        bytes += message.encoded_len();
        for event in &message.events {
            if event.r#type == WatchEventType::Synced as i32 {
                break 'read;
            }
            if event.r#type == WatchEventType::ResourceChanged as i32 {
                resources += 1;
            }
        }
    }
    assert_eq!(resources, 8000, "every resource of the snapshot");
    // Without pacing the server would have held all of it but the client's window.
    assert!(
        bytes as f64 > 4.0 * (PER_STREAM + f64::from(WINDOW)),
        "the snapshot ({bytes} bytes) is much larger than what the server may hold"
    );
    // The client goes: what the server still held for it is given back.
    drop(stream);
    eventually(WAIT, "nothing held once the client has gone", || async {
        (held() == 0.0).then_some(())
    })
    .await;
}

/// 64 watches that never read hold every slot of a snapshot waiting for its stream
/// (`watch::HELD_SNAPSHOTS`): the next watch waits for one, sees that none has come
/// back for 5 s, and syncs without one.
async fn watches_that_are_not_read_do_not_hold_up_the_snapshots_of_others(backend: Backend) {
    let Fleet { server, dig, .. } = converged(backend).await;
    let mut slow = slow_client(&server).await;
    let mut stalled = Vec::new();
    for _ in 0..64 {
        stalled.push(watch(&mut slow, &dig).await);
    }
    // Their subscribers take their slots as they start.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut client = server.client().await;
    let started = Instant::now();
    let mut stream = watch(&mut client, &dig).await;
    let mut resources = 0;
    'read: loop {
        let message = tokio::time::timeout(WAIT, stream.message())
            .await
            .expect("the snapshot in time")
            .expect("read")
            .expect("not ended");
        for event in &message.events {
            if event.r#type == WatchEventType::Synced as i32 {
                break 'read;
            }
            if event.r#type == WatchEventType::ResourceChanged as i32 {
                resources += 1;
            }
        }
    }
    assert_eq!(resources, 8000);
    // It did wait for a slot first (the stalled watches held them all).
    assert!(
        started.elapsed() >= Duration::from_secs(4),
        "synced after {:?}: no slot was held up",
        started.elapsed()
    );
    drop(stalled);
}

struct Fleet {
    server: TestServer,
    _agent: TestAgent,
    /// The group's name.
    dig: String,
    /// The metrics listener's address.
    metrics: String,
}

/// A server with an agent fleet of two clusters and a converged instance of 8,000
/// resources (4 apps x 1,000 ConfigMaps), whose snapshot is about 1 MB.
async fn converged(backend: Backend) -> Fleet {
    let metrics = format!("127.0.0.1:{}", free_port());
    let server =
        TestServer::start_with(backend, &["--sim", "false", "--metrics-listen", &metrics]).await;
    let mut client = server.client().await;
    let ids = ["w1", "w2"];
    let _agent = agent_fleet(&server, &mut client, "w", &ids).await;
    // 4 apps x 1,000 ConfigMaps on 2 clusters: 8,000 resources, a snapshot of about 1 MB.
    let dig = deployment(&mut client, 4, 1000, false, &ids).await;
    instantiate(&mut client, &dig).await;
    wait_counts(&client, &dig, &[], 8000, 8000, "the instance to converge").await;
    Fleet {
        server,
        _agent,
        dig,
        metrics,
    }
}

/// A client whose HTTP/2 windows are 64 KiB: what it does not read stays on the server.
async fn slow_client(server: &TestServer) -> Client {
    let options = server.options();
    let channel = options
        .endpoint()
        .expect("endpoint")
        .initial_stream_window_size(WINDOW)
        .initial_connection_window_size(WINDOW)
        .connect()
        .await
        .expect("connect");
    Client::with_token(channel, options.token.as_ref()).expect("client")
}

async fn watch(client: &mut Client, dig: &str) -> tonic::Streaming<WatchStatusResponse> {
    client
        .status
        .watch_status(WatchStatusRequest {
            name: dig.to_string(),
            output: StatusOutput::All as i32,
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner()
}
