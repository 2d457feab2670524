//! The watch hub: fans the SQL event log out to streaming subscribers.
//!
//! One *feed* per watched target reads new events from the log once (woken by the
//! committing transaction, or by another replica's commit through the coordination
//! store's relay; a single process also polls as a safety net) into a bounded tail
//! shared by every subscriber of that target; events are decoded once for all of them,
//! and the message a live event becomes is encoded once per output level and shared
//! (subscribers of a target send the same bytes, resume token included). A subscriber
//! writes the events it sends end to end into one response message until it has
//! nothing more at hand or the message is [`BATCH_BYTES`] long, as etcd's watch does:
//! a change of a thousand resources is a few messages per stream, not a thousand.
//! A subscriber that selects a whole run of one transaction's events (a watch of the
//! cluster a change happened on, or of the whole group) sends the run's messages as
//! the first such subscriber cut them, and applies the run's net change of the counts:
//! the ten watchers of one cluster share those bytes instead of each filtering and
//! copying a thousand events.
//! A subscriber that falls behind the tail (slow reader, resume from an old token)
//! reads the log itself until it catches up, so nobody is ever silently skipped; a
//! position older than the retention window gets RESYNC_REQUIRED and a fresh snapshot.
//!
//! The hub is generic over the target: WatchActions and WatchContainerClusters reuse
//! feeds and the subscriber loop with their own targets and event payloads.
//! WatchFleet (`fleet`) is level-based instead: rows read again after commits.

pub mod actions;
pub mod container_clusters;
pub mod fleet;
pub mod records;
pub mod stream;
pub mod token;

use std::collections::{HashMap, VecDeque};
use std::ops::Deref;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};
use std::time::Duration;

use prost::bytes::{BufMut, BytesMut};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use crate::domain::status::Counts;
use crate::error::{Error, Result};
use crate::store::watch::{Event, Payload, events_after, target_revision};
use crate::store::{Reach, Store};
use crate::wire::Encoded;

/// How long a stream that ends at shutdown waits for its client to take what it still
/// holds (the last events, then the status).
pub(crate) const SHUTDOWN_FLUSH: Duration = Duration::from_millis(500);

/// What a watch ends with when the server shuts down: UNAVAILABLE, retryable, with
/// ErrorInfo `SHUTTING_DOWN` whose metadata `resume_token` (when the stream sent
/// anything) resumes right after the last event the client received; what was written
/// but not sent is replayed on resume.
pub(crate) fn shutting_down(resume_token: Option<String>) -> tonic::Status {
    let mut details = tonic_types::ErrorDetails::new();
    details.set_error_info(
        "SHUTTING_DOWN",
        crate::wire::status::ERROR_DOMAIN,
        resume_token
            .map(|token| ("resume_token".to_string(), token))
            .into_iter()
            .collect::<std::collections::HashMap<_, _>>(),
    );
    <tonic::Status as tonic_types::StatusExt>::with_error_details(
        tonic::Code::Unavailable,
        "the server is shutting down; watch again with the resume token of this error \
         (or of the last event received)",
        details,
    )
}

/// Tunables of the hub.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// How often an idle stream sends a heartbeat with its latest token.
    pub heartbeat: Duration,
    /// Concurrent watches; more are refused with RESOURCE_EXHAUSTED.
    pub max_watches: usize,
    /// Events kept in memory per watched target.
    pub tail: usize,
    /// How often a feed polls the log when no commit woke it.
    pub poll: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self {
            heartbeat: Duration::from_secs(15),
            max_watches: 10_000,
            tail: 50_000,
            poll: Duration::from_secs(1),
        }
    }
}

/// The shared recent events of one target.
pub struct Feed {
    tail: RwLock<Tail>,
    /// The last revision in the tail.
    latest: AtomicI64,
    /// Who to wake when events arrive, by the cluster id they watch ("" = all).
    waiters: Mutex<HashMap<String, Vec<Weak<Notify>>>>,
}

/// Wakes the live waiters of `list` and forgets the ones that are gone.
fn notify(list: &mut Vec<Weak<Notify>>) {
    list.retain(|waiter| waiter.upgrade().map(|w| w.notify_one()).is_some());
}

/// The key a cluster (a name `clusterProviders/{cp}/clusters/{c}` or an id) is
/// waited on by: its id. Ids of different providers may share a key; that only wakes
/// a subscriber for nothing.
fn cluster_key(cluster: &str) -> &str {
    cluster.rsplit('/').next().unwrap_or(cluster)
}

struct Tail {
    /// The revision just before the first event held.
    start: i64,
    events: VecDeque<Held>,
    /// What the runs dropped from the front of `events` touched (their events gone:
    /// see [`Segment::trimmed`]), the newest [`TRIMMED_RUNS`]. A subscriber that slept
    /// through runs none of which concerned it (a watch of an idle cluster, woken by
    /// its heartbeat) passes over them here instead of reading them all from the log.
    trimmed: VecDeque<Segment>,
}

/// The dropped runs a feed remembers what they touched of (a few hundred bytes each).
const TRIMMED_RUNS: usize = 20_000;

/// A response message is sent once it holds this many bytes of events (or when the
/// subscriber has nothing more at hand): large enough that a burst is a few messages,
/// small enough that a stream's buffered messages stay small (see the subscriber's
/// buffer) and that clients see the first events of a burst without waiting for all.
pub const BATCH_BYTES: usize = 16 * 1024;

/// Output levels whose resource messages a feed event caches (ALL, DETAIL, RSYNC).
pub const MESSAGE_LEVELS: usize = 3;

/// An event as subscribers see it: the log's event plus the response entries it
/// becomes, encoded by the first subscriber that sends it at each output level.
#[derive(Debug)]
pub struct FeedEvent {
    pub event: Event,
    messages: [OnceLock<Encoded>; MESSAGE_LEVELS],
}

impl FeedEvent {
    pub fn new(event: Event) -> FeedEvent {
        FeedEvent {
            event,
            messages: Default::default(),
        }
    }

    /// The response entry of output level `level` (< MESSAGE_LEVELS), built and
    /// encoded once (see [`Encoded::entry`]).
    pub fn message<M: prost::Message>(&self, level: usize, build: impl FnOnce() -> M) -> Encoded {
        self.messages[level]
            .get_or_init(|| Encoded::entry(&build()))
            .clone()
    }
}

impl Deref for FeedEvent {
    type Target = Event;

    fn deref(&self) -> &Event {
        &self.event
    }
}

/// An event in the tail, with the segment it belongs to.
struct Held {
    event: Arc<FeedEvent>,
    segment: Arc<Segment>,
}

/// What a run of consecutive events of one transaction touches, so a subscriber can
/// pass over a run none of whose events it selects without looking at each event
/// (1,000 watches filtered to one cluster each must not all walk every event of a
/// change to another cluster).
#[derive(Debug, Default)]
pub struct Segment {
    /// The first and last revisions of the run.
    pub start: i64,
    pub end: i64,
    /// The time of the run's events (they are one transaction's).
    pub time: i64,
    /// Whether the run's last event is its transaction's last.
    pub ends_batch: bool,
    /// Whether the run holds events every watch looks at (lifecycle: a new instance
    /// or state concerns every selection).
    pub other: bool,
    /// The distinct instances, clusters and apps of the run's resource events; `None`
    /// when there are more than [`SEGMENT_KEYS`] (then the run is looked at).
    pub instances: Option<Vec<String>>,
    pub clusters: Option<Vec<String>>,
    pub apps: Option<Vec<String>>,
    /// The distinct clusters of the run's connectivity events (`None`: too many). A
    /// cluster cut with its resources is one transaction: the watches of the other
    /// clusters pass over its thousand resource events without looking at them.
    pub connectivity: Option<Vec<String>>,
    /// What a stream that takes the whole run sends, by output level (see [`Whole`]).
    wholes: [OnceLock<Whole>; MESSAGE_LEVELS],
    /// The run's net change of the counts, and whether any event moved them.
    delta: OnceLock<(Counts, bool)>,
}

/// A run as the response messages a stream that selects all of it sends at one output
/// level: its events' entries end to end in one buffer, cut into messages of about
/// [`BATCH_BYTES`]. The streams of a cluster's watchers all send these same bytes, so
/// a change of a thousand resources costs each of them a few message sends instead of
/// a thousand filter checks and copies.
#[derive(Debug, Default)]
pub struct Whole {
    pub messages: Vec<Encoded>,
    /// How many events the messages hold.
    pub events: u64,
    /// The revision of the last event sent (`None`: the level sends none of them).
    pub last_sent: Option<i64>,
}

impl Whole {
    /// Cuts `entries` (each an encoded response entry, `None` for an event the level
    /// does not send) into messages.
    pub fn of(entries: impl Iterator<Item = (i64, Option<Encoded>)>) -> Whole {
        let mut buf = BytesMut::new();
        let mut cuts = Vec::new();
        let mut last_sent = None;
        let mut events = 0;
        for (revision, entry) in entries {
            let Some(entry) = entry else { continue };
            events += 1;
            buf.put_slice(&entry.0);
            last_sent = Some(revision);
            if buf.len() - cuts.last().copied().unwrap_or(0) >= BATCH_BYTES {
                cuts.push(buf.len());
            }
        }
        if cuts.last().copied().unwrap_or(0) < buf.len() {
            cuts.push(buf.len());
        }
        let bytes = buf.freeze();
        let mut from = 0;
        let messages = cuts
            .into_iter()
            .map(|to| {
                let message = Encoded(bytes.slice(from..to));
                from = to;
                message
            })
            .collect();
        Whole {
            messages,
            events,
            last_sent,
        }
    }
}

/// Distinct values a segment lists per field.
const SEGMENT_KEYS: usize = 16;

impl Segment {
    fn of(events: &[Arc<FeedEvent>]) -> Segment {
        fn note(values: &mut Option<Vec<String>>, value: &str) {
            if let Some(list) = values
                && !list.iter().any(|v| v == value)
            {
                if list.len() == SEGMENT_KEYS {
                    *values = None;
                } else {
                    list.push(value.to_string());
                }
            }
        }
        let (first, last) = (events.first(), events.last());
        let mut segment = Segment {
            start: first.map_or(0, |e| e.revision),
            end: last.map_or(0, |e| e.revision),
            time: last.map_or(0, |e| e.time),
            ends_batch: last.is_some_and(|e| e.revision == e.batch),
            other: false,
            instances: Some(Vec::new()),
            clusters: Some(Vec::new()),
            apps: Some(Vec::new()),
            connectivity: Some(Vec::new()),
            ..Segment::default()
        };
        for event in events {
            match event.payload {
                Payload::Resource { .. } => {
                    note(&mut segment.instances, &event.instance);
                    note(&mut segment.clusters, &event.cluster);
                    note(&mut segment.apps, &event.app);
                }
                Payload::Connectivity { .. } => note(&mut segment.connectivity, &event.cluster),
                Payload::Lifecycle { .. } => segment.other = true,
                // Action events concern the watchers of their cluster.
                Payload::Action { .. } => note(&mut segment.clusters, &event.cluster),
                // Container cluster events concern every watcher of their target.
                Payload::ContainerCluster { .. } => segment.other = true,
            }
        }
        segment
    }

    /// What is left of the run once its events leave the tail: what it touched, for
    /// [`Feed::pass_over`], without the messages and counts cached for its events.
    fn trimmed(&self) -> Segment {
        Segment {
            start: self.start,
            end: self.end,
            time: self.time,
            ends_batch: self.ends_batch,
            other: self.other,
            instances: self.instances.clone(),
            clusters: self.clusters.clone(),
            apps: self.apps.clone(),
            connectivity: self.connectivity.clone(),
            ..Segment::default()
        }
    }

    /// Whether the run may hold an event a watch of `instance`'s resources looks at:
    /// one of its clusters (`cluster_wanted`) and apps (`apps`, empty = all).
    pub fn may_concern(
        &self,
        instance: &str,
        cluster_wanted: impl Fn(&str) -> bool,
        apps: &[String],
    ) -> bool {
        fn any(values: &Option<Vec<String>>, wanted: impl Fn(&str) -> bool) -> bool {
            values.as_ref().is_none_or(|v| v.iter().any(|x| wanted(x)))
        }
        self.other
            || any(&self.connectivity, &cluster_wanted)
            || (any(&self.instances, |i| i == instance)
                && any(&self.clusters, &cluster_wanted)
                && (apps.is_empty() || any(&self.apps, |a| apps.iter().any(|w| w == a))))
    }

    /// The one instance all of the run's events are resource events of, if so.
    pub fn resources_of(&self) -> Option<&str> {
        match (&self.instances, &self.connectivity) {
            (Some(instances), Some(connectivity))
                if !self.other && instances.len() == 1 && connectivity.is_empty() =>
            {
                Some(&instances[0])
            }
            _ => None,
        }
    }

    /// What the run sends whole at output `level`, if a stream built it already.
    pub fn whole(&self, level: usize) -> Option<&Whole> {
        self.wholes[level].get()
    }

    /// Keeps `whole` as what the run sends at `level` (or the one another stream kept
    /// first: both are built from the same events) and returns it.
    pub fn keep_whole(&self, level: usize, whole: Whole) -> &Whole {
        self.wholes[level].get_or_init(|| whole)
    }

    /// The run's net change of the counts, if a stream worked it out already.
    pub fn delta(&self) -> Option<&(Counts, bool)> {
        self.delta.get()
    }

    /// Keeps the run's net change of the counts and returns it.
    pub fn keep_delta(&self, delta: (Counts, bool)) -> &(Counts, bool) {
        self.delta.get_or_init(|| delta)
    }

    /// The clusters the run's events may concern; `None` for every cluster.
    fn cluster_keys(&self) -> Option<impl Iterator<Item = &str>> {
        if self.other {
            return None;
        }
        let (clusters, connectivity) = (self.clusters.as_ref()?, self.connectivity.as_ref()?);
        Some(clusters.iter().chain(connectivity).map(|c| cluster_key(c)))
    }
}

/// What a subscriber gets from a feed.
pub enum Next {
    /// Events after the position (possibly none yet).
    Events(Vec<Arc<FeedEvent>>),
    /// The position is older than the tail: read the log.
    Behind,
}

impl Feed {
    /// Up to `max` events after revision `after`.
    pub fn after(&self, after: i64, max: usize) -> Next {
        let tail = self.tail.read().expect("tail lock");
        if after < tail.start {
            return Next::Behind;
        }
        let skip = (after - tail.start) as usize;
        Next::Events(
            tail.events
                .iter()
                .skip(skip)
                .take(max)
                .map(|held| held.event.clone())
                .collect(),
        )
    }

    /// The run of events that starts right after `after`, if the tail holds it.
    pub fn segment_after(&self, after: i64) -> Option<Arc<Segment>> {
        let tail = self.tail.read().expect("tail lock");
        let held = tail.events.get(usize::try_from(after - tail.start).ok()?)?;
        (held.segment.start == after + 1).then(|| held.segment.clone())
    }

    /// Moves `after` past the whole segments that `wanted` rejects, as far as the tail
    /// goes; the position is unchanged when the next segment is wanted. A position
    /// older than the tail passes over the runs dropped from it by what they touched,
    /// and stays where a wanted run (or one no longer remembered) starts: the log
    /// holds its events.
    pub fn pass_over(&self, mut after: i64, wanted: impl Fn(&Segment) -> bool) -> i64 {
        let tail = self.tail.read().expect("tail lock");
        if after < tail.start {
            let next = tail.trimmed.partition_point(|run| run.end <= after);
            for run in tail.trimmed.range(next..) {
                if run.start != after + 1 || wanted(run) {
                    return after;
                }
                after = run.end;
            }
            if after < tail.start {
                return after;
            }
        }
        while let Some(held) = tail.events.get((after - tail.start) as usize) {
            if wanted(&held.segment) {
                break;
            }
            after = held.segment.end;
        }
        after
    }

    /// Wakes `waiter` when events that may concern `clusters` (empty = every
    /// cluster) arrive, for as long as the waiter lives. A wake-up that finds the
    /// waiter busy is kept for its next wait (`Notify` holds one permit), so none is
    /// lost. Waking only the subscribers of the clusters a transaction touched keeps
    /// a thousand per-cluster watches from all waking on every commit.
    pub fn register(&self, clusters: &[String], waiter: &Arc<Notify>) {
        let mut waiters = self.waiters.lock().expect("waiters lock");
        let mut keys: Vec<&str> = clusters.iter().map(|c| cluster_key(c)).collect();
        if keys.is_empty() {
            keys.push("");
        }
        keys.dedup();
        for key in keys {
            waiters
                .entry(key.to_string())
                .or_default()
                .push(Arc::downgrade(waiter));
        }
    }

    /// Wakes the waiters the segments may concern (all, for a segment of other
    /// events or of too many clusters), dropping the ones that are gone.
    fn wake(&self, segments: &[Arc<Segment>]) {
        let mut keys: Vec<&str> = vec![""];
        for segment in segments {
            match segment.cluster_keys() {
                Some(clusters) => keys.extend(clusters),
                None => return self.wake_all(),
            }
        }
        let mut waiters = self.waiters.lock().expect("waiters lock");
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            if let Some(list) = waiters.get_mut(key) {
                notify(list);
                if list.is_empty() {
                    waiters.remove(key);
                }
            }
        }
    }

    fn wake_all(&self) {
        let mut waiters = self.waiters.lock().expect("waiters lock");
        waiters.values_mut().for_each(notify);
        waiters.retain(|_, list| !list.is_empty());
    }
}

/// The hub: feeds by target, the watch limit, shutdown.
pub struct WatchHub {
    store: Store,
    options: WatchOptions,
    feeds: Mutex<HashMap<String, Weak<Feed>>>,
    /// Feeds start one at a time: starting attaches the target's commit hand-over, and
    /// a start that lost a race to another would take it from the feed that won
    /// (leaving that feed to read the log after every commit).
    starting: tokio::sync::Mutex<()>,
    permits: Arc<Semaphore>,
    /// Bounds the watches reading a snapshot (or positioning a resume) at once, so a
    /// burst of new watches queues here instead of exhausting the database pool.
    snapshots: Arc<Semaphore>,
    /// Snapshots read and not yet handed to their streams.
    held: Arc<HeldSnapshots>,
    /// Bounds the short reads of live watches (catching up from the log, a new
    /// instance's resources): a thousand watches behind the tail queue here rather than
    /// time out waiting for a pooled connection.
    reads: Arc<Semaphore>,
    /// WatchFleet's shared view, while anyone watches it.
    fleet: fleet::Slot,
    shutdown: CancellationToken,
}

/// Concurrent snapshot reads.
const SNAPSHOT_READERS: usize = 4;
/// Concurrent short reads of live watches.
const LOG_READERS: usize = 4;
/// Snapshots read and not yet handed to their streams (which take them as fast as
/// their clients read): a thousand watches starting together read theirs as the
/// earlier ones go out, instead of all holding theirs at once.
const HELD_SNAPSHOTS: usize = 64;
/// When no held snapshot went out for this long, their clients are not reading: a
/// snapshot then goes ahead without a slot rather than wait for them.
const HELD_STALL: std::time::Duration = std::time::Duration::from_secs(5);

/// The slots of snapshots held, and when one was last given back.
struct HeldSnapshots {
    slots: Arc<Semaphore>,
    started: std::time::Instant,
    /// Milliseconds after `started` of the last slot given back.
    released: std::sync::atomic::AtomicU64,
}

impl HeldSnapshots {
    fn millis(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// A held snapshot's slot (or none, when the slots were stalled): given back on drop.
pub struct SnapshotSlot {
    permit: Option<OwnedSemaphorePermit>,
    held: Arc<HeldSnapshots>,
}

impl Drop for SnapshotSlot {
    fn drop(&mut self) {
        if self.permit.take().is_some() {
            let now = self.held.millis();
            self.held
                .released
                .store(now, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl WatchHub {
    pub fn new(store: Store, options: WatchOptions, shutdown: CancellationToken) -> Arc<Self> {
        Arc::new(Self {
            permits: Arc::new(Semaphore::new(options.max_watches)),
            snapshots: Arc::new(Semaphore::new(SNAPSHOT_READERS)),
            held: Arc::new(HeldSnapshots {
                slots: Arc::new(Semaphore::new(HELD_SNAPSHOTS)),
                started: std::time::Instant::now(),
                released: Default::default(),
            }),
            reads: Arc::new(Semaphore::new(LOG_READERS)),
            store,
            options,
            feeds: Mutex::default(),
            starting: tokio::sync::Mutex::default(),
            fleet: fleet::Slot::default(),
            shutdown,
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn options(&self) -> &WatchOptions {
        &self.options
    }

    /// Cancelled when the server shuts down.
    pub fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// Waits for a turn to read a snapshot.
    pub async fn snapshot_turn(&self) -> OwnedSemaphorePermit {
        self.snapshots
            .clone()
            .acquire_owned()
            .await
            .expect("the snapshot semaphore is never closed")
    }

    /// Waits for a slot to hold a snapshot until its stream takes it; goes on without
    /// one if no slot was given back for [`HELD_STALL`] (their clients do not read).
    pub async fn snapshot_slot(&self) -> SnapshotSlot {
        let held = self.held.clone();
        let acquire = held.slots.clone().acquire_owned();
        tokio::pin!(acquire);
        loop {
            tokio::select! {
                permit = &mut acquire => {
                    let permit = permit.expect("the held-snapshot semaphore is never closed");
                    return SnapshotSlot { permit: Some(permit), held };
                }
                () = tokio::time::sleep(HELD_STALL) => {
                    let last = held.released.load(std::sync::atomic::Ordering::Relaxed);
                    if held.millis().saturating_sub(last) >= HELD_STALL.as_millis() as u64 {
                        debug!("the held snapshots' clients do not read: going on without a slot");
                        return SnapshotSlot { permit: None, held };
                    }
                }
            }
        }
    }

    /// Waits for a turn to read the log or a new instance's resources.
    pub async fn read_turn(&self) -> OwnedSemaphorePermit {
        self.reads
            .clone()
            .acquire_owned()
            .await
            .expect("the read semaphore is never closed")
    }

    /// Takes one of the concurrent-watch slots, or RESOURCE_EXHAUSTED.
    pub fn admit(&self) -> Result<OwnedSemaphorePermit> {
        self.permits
            .clone()
            .try_acquire_owned()
            .map_err(|_| Error::ResourceExhausted {
                reason: "TOO_MANY_WATCHES",
                message: format!(
                    "the server already serves {} watches (--max-watches); retry later",
                    self.options.max_watches
                ),
                violations: Vec::new(),
            })
    }

    /// The feed of `target`, started on first use; it stops when its last subscriber
    /// drops it.
    pub async fn feed(&self, target: &str) -> Result<Arc<Feed>> {
        if let Some(feed) = self.live_feed(target) {
            return Ok(feed);
        }
        let _starting = self.starting.lock().await;
        if let Some(feed) = self.live_feed(target) {
            return Ok(feed);
        }
        // Subscribe to commit signals before reading the start revision, so no commit
        // falls between the two.
        let signals = self.store.signals().subscribe(target);
        let committed = self.store.signals().attach(target);
        let (start, _) = {
            let mut conn = self.store.read().await?;
            target_revision(&mut conn, target).await?
        };
        let mut feeds = self.feeds.lock().expect("feeds lock");
        let feed = Arc::new(Feed {
            tail: RwLock::new(Tail {
                start,
                events: VecDeque::new(),
                trimmed: VecDeque::new(),
            }),
            latest: AtomicI64::new(start),
            waiters: Mutex::default(),
        });
        feeds.insert(target.to_string(), Arc::downgrade(&feed));
        feeds.retain(|_, f| f.strong_count() > 0);
        tokio::spawn(run_feed(
            self.store.clone(),
            target.to_string(),
            Arc::downgrade(&feed),
            signals,
            committed,
            self.options.clone(),
            self.shutdown.clone(),
        ));
        Ok(feed)
    }

    fn live_feed(&self, target: &str) -> Option<Arc<Feed>> {
        self.feeds
            .lock()
            .expect("feeds lock")
            .get(target)
            .and_then(Weak::upgrade)
    }
}

impl Feed {
    /// Appends events that follow the tail; false if they do not (a gap).
    fn push(&self, events: Vec<Event>, tail_len: usize) -> bool {
        let Some(newest) = events.last().map(|e| e.revision) else {
            return true;
        };
        let last = self.latest.load(Ordering::Acquire);
        if newest <= last {
            return true;
        }
        let mut tail = self.tail.write().expect("tail lock");
        let fresh: Vec<Arc<FeedEvent>> = events
            .into_iter()
            .filter(|e| e.revision > last)
            .map(|e| Arc::new(FeedEvent::new(e)))
            .collect();
        if fresh[0].revision != last + 1 {
            return false;
        }
        // The rest of a transaction whose start came with the previous push: its
        // segment may not name the clusters a waiter owes that transaction's counts to.
        let continues = tail
            .events
            .back()
            .is_some_and(|held| held.event.batch == fresh[0].batch);
        let mut segments = Vec::new();
        for run in fresh.chunk_by(|a, b| a.batch == b.batch) {
            let segment = Arc::new(Segment::of(run));
            tail.events.extend(run.iter().map(|event| Held {
                event: event.clone(),
                segment: segment.clone(),
            }));
            segments.push(segment);
        }
        while tail.events.len() > tail_len {
            if let Some(dropped) = tail.events.pop_front() {
                tail.start = dropped.event.revision;
                if dropped.segment.start == dropped.event.revision {
                    tail.trimmed.push_back(dropped.segment.trimmed());
                    if tail.trimmed.len() > TRIMMED_RUNS {
                        tail.trimmed.pop_front();
                    }
                }
            }
        }
        drop(tail);
        self.latest.store(newest, Ordering::Release);
        if continues {
            self.wake_all();
        } else {
            self.wake(&segments);
        }
        true
    }

    /// Restarts the tail after a gap the log cannot fill (compacted while idle).
    fn restart(&self, before: i64) {
        let mut tail = self.tail.write().expect("tail lock");
        tail.events.clear();
        tail.trimmed.clear();
        tail.start = before;
        drop(tail);
        self.latest.store(before, Ordering::Release);
        self.wake_all();
    }
}

/// Feeds `target`'s events into its feed until the feed has no subscribers: events
/// handed over by committing transactions, or read from the log when those do not
/// follow on (a commit raced another, the feed started late, a poll found more).
async fn run_feed(
    store: Store,
    target: String,
    feed: Weak<Feed>,
    mut signals: watch::Receiver<u64>,
    mut committed: tokio::sync::mpsc::UnboundedReceiver<Vec<Event>>,
    options: WatchOptions,
    shutdown: CancellationToken,
) {
    const PAGE: i64 = 2000;
    let mut read_log = true;
    let mut attached = true;
    let mut reach = store.signals().reach();
    loop {
        let Some(strong) = feed.upgrade() else { return };
        if read_log {
            let last = strong.latest.load(Ordering::Acquire);
            let read = async {
                let mut conn = store.read().await?;
                events_after(&mut conn, &target, last, i64::MAX, PAGE).await
            }
            .await;
            match read {
                Ok(events) => {
                    let full = events.len() as i64 == PAGE;
                    if let Some(first) = events.first().map(|e| e.revision)
                        && first != last + 1
                    {
                        warn!(%target, from = last, to = first, "event log gap in feed; restarting its tail");
                        strong.restart(first - 1);
                    }
                    strong.push(events, options.tail);
                    read_log = full;
                }
                Err(error) => {
                    warn!(%target, %error, "cannot read the event log; retrying");
                    read_log = false;
                }
            }
            if read_log {
                continue;
            }
        }
        drop(strong);
        // Replicas with the relay up hear of every commit: no poll.
        let poll = *reach.borrow_and_update() != Reach::Relayed;
        tokio::select! {
            () = shutdown.cancelled() => return,
            batch = committed.recv(), if attached => match batch {
                Some(events) => match feed.upgrade() {
                    Some(strong) => {
                        if let Some(first) = events.first() {
                            let since_stamp_us = crate::store::now_micros() - first.time;
                            debug!(events = events.len(), since_stamp_us, "feed hand-over");
                        }
                        read_log = !strong.push(events, options.tail)
                    }
                    None => return,
                },
                // A newer feed of the target took the hand-over: poll the log.
                None => {
                    attached = false;
                    read_log = true;
                }
            },
            changed = signals.changed() => {
                if changed.is_err() {
                    return;
                }
                // Handed-over events usually arrive with the signal; read the log only
                // if they do not come right away.
                read_log = committed.is_empty();
            }
            // The relay came up (read what it may have missed) or went down.
            changed = reach.changed() => read_log = changed.is_ok(),
            () = tokio::time::sleep(options.poll), if poll => read_log = true,
        }
    }
}

#[cfg(test)]
mod tests;
