//! A WatchStatus subscriber of a replica set's tests, and the check that it saw every
//! event exactly once: its view brought up to date equals a fresh status query, and the
//! events it saw are exactly those a fresh watch from its first token replays, in order.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, StatusWatch};
use tokio::sync::oneshot;

use crate::common::mirror::{Mirror, query, watch_request_of};

/// What a watcher saw after its first snapshot: every event but heartbeats, and how
/// many times it resumed.
pub struct Watched {
    pub events: Vec<WatchEvent>,
    pub mirror: Mirror,
    pub first_token: String,
    pub resumes: u32,
}

/// Watches `dig` (ALL) with the client's resuming watch until `stop`: a snapshot (then
/// `synced` is told), then events; the watch resumes by itself from its last token when
/// its replica leaves. The server must send heartbeats often (they let `stop` be seen).
pub async fn watcher(
    client: Client,
    dig: String,
    stop: Arc<AtomicBool>,
    synced: Option<oneshot::Sender<()>>,
) -> Watched {
    let mut watch = client
        .watch_status(watch_request_of(&dig, StatusOutput::All, ""))
        .with_heartbeats(true);
    let mut mirror = Mirror::default();
    while !mirror.synced {
        mirror.apply(&watch.next().await.expect("the first snapshot"));
    }
    if let Some(synced) = synced {
        let _ = synced.send(());
    }
    let first_token = mirror.token.clone();
    let mut events = Vec::new();
    let mut seen_reconnects = 0;
    while !stop.load(Ordering::SeqCst) {
        let event = watch.next().await.expect("the watch goes on");
        assert_ne!(
            event.r#type,
            WatchEventType::ResyncRequired as i32,
            "a resumed watch was told to start over"
        );
        mirror.apply(&event);
        if event.r#type != WatchEventType::Heartbeat as i32 {
            if watch.reconnects() != seen_reconnects {
                seen_reconnects = watch.reconnects();
                eprintln!("a watcher resumed before its event {}", events.len());
            }
            events.push(event);
        }
    }
    Watched {
        events,
        mirror,
        first_token,
        resumes: watch.reconnects(),
    }
}

/// The events of a watch of `dig` from `token`.
fn open(client: &Client, dig: &str, token: &str) -> StatusWatch {
    client.watch_status(watch_request_of(dig, StatusOutput::All, token))
}

/// Asserts that `watched` saw every event of `dig` exactly once, in the log's order:
/// its mirror, brought up to date from its last token until it equals a fresh status
/// query (within 30 s), and the events it saw are exactly those a fresh watch from its
/// first token replays. Returns how many events that was.
pub async fn assert_exactly_once(client: &mut Client, dig: &str, watched: Watched) -> usize {
    let Watched {
        mut mirror,
        mut events,
        first_token,
        ..
    } = watched;
    let mut tail = open(client, dig, &mirror.token);
    let expected_mirror = loop {
        let wanted = Mirror::of_query(&query(client, dig, StatusOutput::All, &[], &[]).await);
        if mirror.comparable() == wanted {
            break wanted;
        }
        let Ok(event) = tokio::time::timeout(Duration::from_secs(30), tail.next()).await else {
            panic!(
                "the watcher's view and the status differ 30 s on: {}",
                difference(&mirror.comparable(), &wanted)
            );
        };
        let event = event.expect("the watch goes on");
        mirror.apply(&event);
        events.push(event);
    };
    assert_eq!(mirror.comparable(), expected_mirror);
    let mut replay = open(client, dig, &first_token);
    for (i, seen) in events.iter().enumerate() {
        let again = tokio::time::timeout(Duration::from_secs(30), replay.next())
            .await
            .expect("the replay goes on")
            .expect("the replay is healthy");
        if (again.r#type, &again.resume_token) != (seen.r#type, &seen.resume_token) {
            for (k, e) in events.iter().enumerate().skip(i.saturating_sub(8)).take(16) {
                eprintln!("seen {k}: {}", shown(e));
            }
            eprintln!("replayed {i}: {}", shown(&again));
        }
        assert_eq!(
            (again.r#type, &again.resume_token),
            (seen.r#type, &seen.resume_token),
            "event {i} of {}: the watcher's view differs from the log",
            events.len()
        );
    }
    events.len()
}

/// An event on one line, its token decoded: for a failure's context.
fn shown(e: &WatchEvent) -> String {
    use base64::Engine;
    let token = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&e.resume_token)
        .unwrap_or_default();
    format!(
        "{:?} {} {} {} {:?}",
        e.r#type(),
        String::from_utf8_lossy(&token),
        e.cluster,
        e.state,
        e.resource
            .as_ref()
            .map(|r| (&r.name, r.rsync_status, r.cluster_status))
    )
}

/// Where two mirrors differ, briefly.
fn difference(seen: &Mirror, wanted: &Mirror) -> String {
    let mut out = Vec::new();
    if (&seen.state, &seen.instance) != (&wanted.state, &wanted.instance) {
        out.push(format!(
            "state {:?}/{} against {:?}/{}",
            seen.state, seen.instance, wanted.state, wanted.instance
        ));
    }
    if (seen.rsync, seen.cluster, seen.readiness)
        != (wanted.rsync, wanted.cluster, wanted.readiness)
    {
        out.push(format!(
            "counts {:?} {:?} {:?} against {:?} {:?} {:?}",
            seen.rsync,
            seen.cluster,
            seen.readiness,
            wanted.rsync,
            wanted.cluster,
            wanted.readiness
        ));
    }
    let keys: std::collections::BTreeSet<_> = seen
        .resources
        .keys()
        .chain(wanted.resources.keys())
        .collect();
    let differing: Vec<String> = keys
        .into_iter()
        .filter(|k| seen.resources.get(*k) != wanted.resources.get(*k))
        .map(|k| {
            format!(
                "{k:?}: {:?} against {:?}",
                seen.resources.get(k),
                wanted.resources.get(k)
            )
        })
        .collect();
    if !differing.is_empty() {
        out.push(format!(
            "{} resources, e.g. {:?}",
            differing.len(),
            &differing[..differing.len().min(5)]
        ));
    }
    if seen.metadata != wanted.metadata {
        out.push(format!(
            "metadata of {} against {} resources",
            seen.metadata.len(),
            wanted.metadata.len()
        ));
    }
    out.join("; ")
}
