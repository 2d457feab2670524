//! A client's view of a WatchStatus stream (a mirror rebuilt from its events) and the
//! helpers that read a stream until it matches the status query.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use flotilla_client::v1::*;
use flotilla_client::{Client, WatchEvents};
use flotilla_tests::demo::DIG;

pub const WAIT: Duration = Duration::from_secs(60);

pub fn watch_request(output: StatusOutput, token: &str) -> WatchStatusRequest {
    watch_request_of(DIG, output, token)
}

/// A watch request of the group `dig`.
pub fn watch_request_of(dig: &str, output: StatusOutput, token: &str) -> WatchStatusRequest {
    WatchStatusRequest {
        name: dig.into(),
        output: output as i32,
        resume_token: token.into(),
        ..Default::default()
    }
}

pub async fn watch(client: &mut Client, request: WatchStatusRequest) -> WatchEvents {
    let started = tokio::time::timeout(WAIT, client.status.watch_status(request))
        .await
        .expect("the watch starts in time");
    WatchEvents::new(started.expect("watch starts").into_inner())
}

pub async fn next(stream: &mut WatchEvents) -> WatchEvent {
    tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("an event in time")
        .expect("the stream is healthy")
        .expect("the stream goes on")
}

/// The next event that is not a heartbeat (within [`WAIT`], heartbeats or not).
pub async fn next_event(stream: &mut WatchEvents) -> WatchEvent {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let event = next(stream).await;
        if event.r#type != WatchEventType::Heartbeat as i32 {
            return event;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "only heartbeats for {WAIT:?}: the stream has nothing more to send"
        );
    }
}

/// A status query of the group `dig`.
pub async fn query(
    client: &mut Client,
    dig: &str,
    output: StatusOutput,
    apps: &[&str],
    clusters: &[&str],
) -> ResourceStatus {
    client
        .status
        .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
            name: dig.into(),
            output: output as i32,
            apps: apps.iter().map(|s| s.to_string()).collect(),
            clusters: clusters.iter().map(|s| s.to_string()).collect(),
            // Whole trees of up to 10,000 resources in one page, as a watch's snapshot.
            page_size: 10_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

pub type Key = (String, String, String, String, String);
pub type Statuses = (i32, i32, i32);

/// What a client rebuilds from the events of a watch.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Mirror {
    pub state: String,
    pub instance: String,
    pub resources: BTreeMap<Key, Statuses>,
    /// DETAIL: each resource's metadata as the cluster reported it.
    pub metadata: BTreeMap<Key, prost_types::Struct>,
    pub rsync: RsyncStatusCounts,
    pub cluster: ClusterStatusCounts,
    pub readiness: ReadinessCounts,
    pub connectivity: BTreeMap<String, i32>,
    pub synced: bool,
    pub token: String,
}

impl Mirror {
    pub fn apply(&mut self, event: &WatchEvent) {
        let kind = WatchEventType::try_from(event.r#type).unwrap();
        if kind != WatchEventType::Heartbeat {
            assert!(!event.resume_token.is_empty(), "{event:?} has a token");
        }
        match kind {
            WatchEventType::LifecycleChanged => {
                if event.instance != self.instance {
                    self.resources.clear();
                    self.metadata.clear();
                }
                self.state = event.state.clone();
                self.instance = event.instance.clone();
            }
            WatchEventType::ResourceChanged => {
                let r = event.resource.as_ref().unwrap();
                let gvk = r.gvk.clone().unwrap_or_default();
                let cluster = event.cluster.rsplit('/').next().unwrap().to_string();
                let key = (
                    event.app_name.clone(),
                    cluster,
                    gvk.kind,
                    r.namespace.clone(),
                    r.name.clone(),
                );
                match &r.metadata {
                    Some(metadata) => self.metadata.insert(key.clone(), metadata.clone()),
                    None => self.metadata.remove(&key),
                };
                self.resources
                    .insert(key, (r.rsync_status, r.cluster_status, r.readiness));
            }
            WatchEventType::CountsChanged => {
                self.rsync = event.rsync_status.unwrap_or_default();
                self.cluster = event.cluster_status.unwrap_or_default();
                self.readiness = event.readiness.unwrap_or_default();
            }
            WatchEventType::ConnectivityChanged => {
                self.connectivity
                    .insert(event.cluster.clone(), event.connectivity);
            }
            WatchEventType::Synced => self.synced = true,
            WatchEventType::ResyncRequired => {
                *self = Mirror::default();
            }
            WatchEventType::Heartbeat | WatchEventType::Unspecified => {}
        }
        if !event.resume_token.is_empty() {
            self.token = event.resume_token.clone();
        }
    }

    /// The mirror of a status query's answer.
    pub fn of_query(status: &ResourceStatus) -> Mirror {
        let mut mirror = Mirror {
            state: status.state.clone(),
            instance: status.instance.clone(),
            rsync: status.rsync_status.unwrap_or_default(),
            cluster: status.cluster_status.unwrap_or_default(),
            readiness: status.readiness.unwrap_or_default(),
            ..Default::default()
        };
        for app in &status.resources {
            for cluster in &app.clusters {
                for r in &cluster.resources {
                    let gvk = r.gvk.clone().unwrap_or_default();
                    let key = (
                        app.app_name.clone(),
                        cluster.name.clone(),
                        gvk.kind,
                        r.namespace.clone(),
                        r.name.clone(),
                    );
                    if let Some(metadata) = &r.metadata {
                        mirror.metadata.insert(key.clone(), metadata.clone());
                    }
                    mirror
                        .resources
                        .insert(key, (r.rsync_status, r.cluster_status, r.readiness));
                }
            }
        }
        mirror
    }

    /// The parts a status query also shows.
    pub fn comparable(&self) -> Mirror {
        Mirror {
            connectivity: BTreeMap::new(),
            synced: false,
            token: String::new(),
            ..self.clone()
        }
    }
}

/// Reads `stream` into a fresh mirror up to SYNCED.
pub async fn read_snapshot(stream: &mut WatchEvents) -> Mirror {
    let mut mirror = Mirror::default();
    while !mirror.synced {
        mirror.apply(&next_event(stream).await);
    }
    mirror
}

/// An ALL watch of the group read until it matches the settled status query.
pub async fn settled_watch(client: &mut Client) -> (WatchEvents, Mirror) {
    settled_watch_of(client, DIG).await
}

/// An ALL watch of the group `dig` read until it matches the settled status query.
pub async fn settled_watch_of(client: &mut Client, dig: &str) -> (WatchEvents, Mirror) {
    let mut stream = watch(client, watch_request_of(dig, StatusOutput::All, "")).await;
    let mut mirror = Mirror::default();
    settle_of(
        client,
        dig,
        &mut stream,
        &mut mirror,
        StatusOutput::All,
        &[],
        &[],
    )
    .await;
    (stream, mirror)
}

/// Reads events into `mirror` until the stream is idle (a heartbeat arrives).
pub async fn drain(stream: &mut WatchEvents, mirror: &mut Mirror) -> Vec<WatchEvent> {
    let mut seen = Vec::new();
    loop {
        let event = next(stream).await;
        mirror.apply(&event);
        if event.r#type == WatchEventType::Heartbeat as i32 {
            return seen;
        }
        seen.push(event);
    }
}

/// Reads until the mirror equals the query's answer (the system settled).
pub async fn settle(
    client: &mut Client,
    stream: &mut WatchEvents,
    mirror: &mut Mirror,
    output: StatusOutput,
    apps: &[&str],
    clusters: &[&str],
) -> Vec<WatchEvent> {
    settle_of(client, DIG, stream, mirror, output, apps, clusters).await
}

/// [`settle`] for the group `dig`.
pub async fn settle_of(
    client: &mut Client,
    dig: &str,
    stream: &mut WatchEvents,
    mirror: &mut Mirror,
    output: StatusOutput,
    apps: &[&str],
    clusters: &[&str],
) -> Vec<WatchEvent> {
    let mut all = Vec::new();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        all.extend(drain(stream, mirror).await);
        let expected = Mirror::of_query(&query(client, dig, output, apps, clusters).await);
        let mut got = mirror.comparable();
        if output == StatusOutput::Summary {
            got.resources.clear();
        }
        if got == expected {
            // Settled only if nothing arrives in the meantime either.
            let more = drain(stream, mirror).await;
            if more.is_empty() {
                return all;
            }
            all.extend(more);
            continue;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "watch mirror never matched the query:\n got {got:#?}\nwant {expected:#?}"
        );
    }
}
