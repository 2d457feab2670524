//! WatchFleet: the fleet's groups (state, revision, instance, summary counts) and
//! clusters (connectivity, conditions) as rows, a snapshot then each row that changed.
//!
//! Rows are state, not a log. One reader per process keeps the fleet's current view:
//! it reads it again (a few statements, see `store::fleet`) after the commits that
//! touched the `FLEET` signal, which every write transaction touches and the relay
//! carries from the other replicas, waiting [`COALESCE`] after the first so a burst of
//! commits costs one read. Every watcher shares that view and sends the rows that
//! differ from what it sent last, filtered to the projects its token may read. A
//! watcher that misses intermediate views loses nothing: what it sends next is the
//! difference to the latest. There is no resume token: watching again starts with a
//! fresh snapshot, which holds whatever was missed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use flotilla_api::v1 as pb;
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio::time::Instant;
use tonic::Status;
use tracing::warn;

use super::WatchHub;
use crate::error::Result;
use crate::store::fleet::{fleet_clusters, fleet_groups};
use crate::store::signals::FLEET;
use crate::store::{Reach, Store};
use crate::wire::convert::{fleet_cluster_to_proto, fleet_group_to_proto};

/// How long the reader waits after a signal before it reads, so that a burst of
/// commits (a rollout, an agent's reports) costs one read of the fleet.
pub const COALESCE: Duration = Duration::from_millis(200);
/// Events per response message.
const CHUNK: usize = 512;

/// A row of the fleet, as sent.
#[derive(Debug, Clone, PartialEq)]
enum Row {
    /// A group, with its project.
    Group(pb::FleetGroup),
    Cluster(pb::FleetCluster),
}

impl Row {
    fn event(&self, kind: pb::FleetEventType) -> pb::FleetEvent {
        pb::FleetEvent {
            r#type: kind as i32,
            row: Some(match self {
                Row::Group(group) => pb::fleet_event::Row::Group(group.clone()),
                Row::Cluster(cluster) => pb::fleet_event::Row::Cluster(cluster.clone()),
            }),
        }
    }

    /// Whether a token that may read `projects` (None: every project) sees the row:
    /// groups of its projects, and every cluster (any human role reads infrastructure).
    fn visible(&self, projects: Option<&[String]>) -> bool {
        match (self, projects) {
            (Row::Group(group), Some(projects)) => projects.contains(&group.project),
            _ => true,
        }
    }
}

/// The fleet as last read, by row name (group and cluster names never collide).
type View = BTreeMap<String, Row>;

/// The shared view: None until the first read.
pub struct FleetFeed {
    view: watch::Receiver<Option<Arc<View>>>,
}

/// Where the hub keeps the running reader's feed (it stops with its last watcher).
pub type Slot = Mutex<Weak<FleetFeed>>;

impl WatchHub {
    /// The fleet's shared view, with its reader started on first use.
    fn fleet_feed(self: &Arc<Self>) -> Arc<FleetFeed> {
        let mut slot = self.fleet.lock().expect("fleet slot");
        if let Some(feed) = slot.upgrade() {
            return feed;
        }
        // Subscribed before the first read, so no commit falls between the two.
        let signal = self.store().signals().subscribe(FLEET);
        let (sender, view) = watch::channel(None);
        let feed = Arc::new(FleetFeed { view });
        *slot = Arc::downgrade(&feed);
        tokio::spawn(read_fleet(self.clone(), sender, signal));
        feed
    }
}

/// Reads the fleet once.
async fn read_view(store: &Store) -> Result<View> {
    let mut tx = store.snapshot().await?;
    let groups = fleet_groups(&mut tx).await?;
    let clusters = fleet_clusters(&mut tx).await?;
    drop(tx);
    let mut view = View::new();
    for group in &groups {
        view.insert(
            group.name.to_string(),
            Row::Group(fleet_group_to_proto(group)),
        );
    }
    for cluster in &clusters {
        view.insert(
            cluster.name.to_string(),
            Row::Cluster(fleet_cluster_to_proto(cluster)),
        );
    }
    Ok(view)
}

/// Keeps the view current until its last watcher is gone or the server stops.
async fn read_fleet(
    hub: Arc<WatchHub>,
    sender: watch::Sender<Option<Arc<View>>>,
    mut signal: watch::Receiver<u64>,
) {
    let store = hub.store().clone();
    let mut reach = store.signals().reach();
    let poll = hub.options().poll;
    loop {
        let turn = hub.read_turn().await;
        match read_view(&store).await {
            Ok(view) => {
                sender.send_if_modified(|now| {
                    let changed = now.as_deref() != Some(&view);
                    if changed {
                        *now = Some(Arc::new(view));
                    }
                    changed
                });
            }
            Err(error) => warn!(%error, "cannot read the fleet; retrying"),
        }
        drop(turn);
        // Other replicas' commits are heard only while the relay is up: poll otherwise.
        let polling = *reach.borrow_and_update() == Reach::Cut;
        tokio::select! {
            () = hub.shutdown().cancelled() => return,
            () = sender.closed() => return,
            changed = signal.changed() => if changed.is_err() { return },
            changed = reach.changed() => if changed.is_err() { return },
            () = tokio::time::sleep(poll), if polling => {}
        }
        tokio::select! {
            () = hub.shutdown().cancelled() => return,
            () = tokio::time::sleep(COALESCE) => {}
        }
        signal.borrow_and_update();
    }
}

type Item = std::result::Result<pb::WatchFleetResponse, Status>;

/// Starts a WatchFleet stream for a token that may read `projects` (None: all); it
/// counts against `--max-watches`.
pub fn start(hub: Arc<WatchHub>, projects: Option<Vec<String>>) -> Result<mpsc::Receiver<Item>> {
    let permit = hub.admit()?;
    let feed = hub.fleet_feed();
    let (out, receiver) = mpsc::channel(super::records::BUFFER);
    let watcher = Watcher {
        view: feed.view.clone(),
        _feed: feed,
        hub,
        projects,
        out,
        sent: View::new(),
        last_send: Instant::now(),
        _permit: permit,
    };
    tokio::spawn(watcher.run());
    Ok(receiver)
}

struct Watcher {
    hub: Arc<WatchHub>,
    _feed: Arc<FleetFeed>,
    view: watch::Receiver<Option<Arc<View>>>,
    projects: Option<Vec<String>>,
    out: mpsc::Sender<Item>,
    /// The rows as the client has them.
    sent: View,
    last_send: Instant,
    _permit: OwnedSemaphorePermit,
}

/// Why a watcher stopped.
enum Stop {
    Closed,
    Shutdown,
}

impl Watcher {
    async fn run(mut self) {
        if let Err(Stop::Shutdown) = self.serve().await {
            let end = Err(super::shutting_down(None));
            let _ = tokio::time::timeout(super::SHUTDOWN_FLUSH, self.out.send(end)).await;
        }
    }

    async fn serve(&mut self) -> std::result::Result<(), Stop> {
        let first = loop {
            if let Some(view) = self.view.borrow_and_update().clone() {
                break view;
            }
            self.wait_view().await?;
        };
        let mut events = self.difference(&first);
        events.push(marker(pb::FleetEventType::Synced));
        self.send(events).await?;
        let heartbeat = self.hub.options().heartbeat;
        loop {
            let idle = heartbeat.saturating_sub(self.last_send.elapsed());
            tokio::select! {
                changed = self.view.changed() => {
                    if changed.is_err() {
                        // The reader stopped: only at shutdown.
                        return Err(Stop::Shutdown);
                    }
                    let view = self.view.borrow_and_update().clone();
                    if let Some(view) = view {
                        let events = self.difference(&view);
                        self.send(events).await?;
                    }
                }
                () = tokio::time::sleep(idle) => {
                    self.send(vec![marker(pb::FleetEventType::Heartbeat)]).await?;
                }
                () = self.out.closed() => return Err(Stop::Closed),
                () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
            }
        }
    }

    async fn wait_view(&mut self) -> std::result::Result<(), Stop> {
        tokio::select! {
            changed = self.view.changed() => changed.map_err(|_| Stop::Shutdown),
            () = self.out.closed() => Err(Stop::Closed),
            () = self.hub.shutdown().cancelled() => Err(Stop::Shutdown),
        }
    }

    /// The events that take the client from what it has to `view` (as this token sees
    /// it), and records them as sent.
    fn difference(&mut self, view: &View) -> Vec<pb::FleetEvent> {
        let projects = self.projects.as_deref();
        let mut events = Vec::new();
        for (name, row) in view.iter().filter(|(_, row)| row.visible(projects)) {
            let kind = match self.sent.get(name) {
                Some(sent) if sent == row => continue,
                Some(_) => pb::FleetEventType::Modified,
                None => pb::FleetEventType::Added,
            };
            events.push(row.event(kind));
            self.sent.insert(name.clone(), row.clone());
        }
        self.sent.retain(|name, row| {
            let kept = view.get(name).is_some_and(|now| now.visible(projects));
            if !kept {
                events.push(row.event(pb::FleetEventType::Deleted));
            }
            kept
        });
        events
    }

    async fn send(&mut self, events: Vec<pb::FleetEvent>) -> std::result::Result<(), Stop> {
        let mut events = events.into_iter().peekable();
        while events.peek().is_some() {
            let chunk: Vec<_> = events.by_ref().take(CHUNK).collect();
            let n = chunk.len() as u64;
            let message = pb::WatchFleetResponse { events: chunk };
            tokio::select! {
                sent = self.out.send(Ok(message)) => sent.map_err(|_| Stop::Closed)?,
                () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
            }
            crate::metrics::METRICS
                .watch_events_delivered
                .with_label_values(&["fleet"])
                .inc_by(n);
            self.last_send = Instant::now();
        }
        Ok(())
    }
}

fn marker(kind: pb::FleetEventType) -> pb::FleetEvent {
    pb::FleetEvent {
        r#type: kind as i32,
        row: None,
    }
}
