//! One WatchStatus subscriber: snapshot or resume, then live events from its target's
//! feed (or from the log while it is behind), with counts kept per subscriber so every
//! filter gets exact COUNTS_CHANGED events.
//!
//! Counts: resource events carry the old and new statuses of a resource, so a
//! subscriber keeps the counts of its selection by applying the deltas of the events
//! it matches. Its starting counts come from the snapshot, or on resume from the
//! current aggregates minus the deltas of the events after the token (both read in one
//! consistent snapshot). A new instance starts with every rendered resource Pending
//! and Unknown; the stream sends those resources (they are fixed per instance) after
//! the LIFECYCLE_CHANGED event that announces the instance.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::store::Conn;
use flotilla_api::v1 as pb;
use prost::bytes::{BufMut, BytesMut};
use tokio::sync::{Notify, OwnedSemaphorePermit, mpsc};
use tokio::time::Instant;
use tracing::{debug, warn};

use super::token::{self, Position, TargetTokens};
use super::{BATCH_BYTES, Feed, FeedEvent, Next, Segment, WatchHub, Whole};
use crate::app::status::{Output, Selection, StatusApp, StatusEntry, StatusQuery, entry};
use crate::domain::names::{ClusterName, ResourceName};
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;
use crate::domain::status::{CountKey, Counts};
use crate::error::{Error, Result};
use crate::ids::InstanceId;
use crate::store::carry::{instance_carried, start_counts};
use crate::store::history::DELETED;
use crate::store::instance::instance_clusters;
use crate::store::now_micros;
use crate::store::rsync_resource::{
    KeyPage, ResourceFilter, ResourceKey, rendered_count, rsync_resources_at_start,
};
use crate::store::status::{
    counts_before_takeover, counts_from_rows, counts_sum, placed_connectivity,
    rendered_reports_page,
};
use crate::store::watch::{
    Event, Payload, Statuses, batch_events, connectivity_at, events_after, target_revision,
};
use crate::wire::convert::timestamp;
use crate::wire::convert::{connectivity_to_proto, counts_to_proto, entry_into_proto};
use crate::wire::outbound::{Outbound, Sent};
use crate::wire::{EVENTS_FIELD, Encoded};

mod events;
mod start;
mod switch;

use events::{
    Batch, Messages, apply_delta, connectivity_event, dimensions, net_delta, resource_event,
};

/// Events per read of the feed or the log.
const CHUNK: usize = 512;
/// Rows per read of a snapshot or of a new instance's resources.
const PAGE: usize = 5000;
/// Response messages (each up to about [`BATCH_BYTES`]) buffered towards the client
/// before the subscriber waits: at most ~128 KiB per watch; a subscriber further
/// behind reads the log, not this buffer.
const BUFFER: usize = 8;

/// What a WatchStatus call asks for.
#[derive(Debug, Clone)]
pub struct WatchRequest {
    pub owner: ResourceName,
    pub selection: Selection,
    pub resume: Option<Position>,
}

/// Why a subscriber stops (or restarts with a snapshot).
enum Stop {
    /// The client went away.
    Closed,
    /// The server shuts down.
    Shutdown,
    /// The position cannot be replayed: RESYNC_REQUIRED and a fresh snapshot.
    Resync,
    /// The target was deleted: the stream ends after telling so.
    Deleted,
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(error: Error) -> Self {
        Stop::Failed(error)
    }
}

/// Starts a watch: validates the request (NOT_FOUND, INVALID_ARGUMENT,
/// RESOURCE_EXHAUSTED come back as the RPC's status) and spawns the subscriber.
pub async fn start(
    hub: Arc<WatchHub>,
    status: StatusApp,
    request: WatchRequest,
    outbound: Option<Arc<Outbound>>,
) -> Result<mpsc::Receiver<Sent>> {
    let permit = hub.admit()?;
    let target = request.owner.to_string();
    {
        let _turn = hub.snapshot_turn().await;
        // The owner must exist and the filters fit its instance, as for a query.
        let mut conn = hub.store().read().await?;
        status
            .query_on(&mut conn, &request.owner, &summary(&request))
            .await?;
        if let Some(position) = request.resume {
            let (revision, _) = target_revision(&mut conn, &target).await?;
            if position.revision > revision {
                return Err(Error::invalid(
                    "resume_token",
                    format!(
                        "is ahead of {target}'s event log (revision {}): not a token of this server's data",
                        revision
                    ),
                ));
            }
        }
    }
    let feed = hub.feed(&target).await?;
    let wake = Arc::new(Notify::new());
    feed.register(&request.selection.clusters, &wake);
    let (out, receiver) = mpsc::channel(BUFFER);
    let subscriber = Subscriber {
        hub,
        status,
        feed,
        wake,
        tokens: TargetTokens::new(&target),
        target,
        request,
        out,
        outbound,
        batch: Batch::default(),
        pos: 0,
        last_sent: Position::after(0),
        last_send: Instant::now(),
        instance: String::new(),
        counts: Counts::new(),
        counts_dirty: false,
        _permit: permit,
    };
    tokio::spawn(subscriber.run());
    Ok(receiver)
}

/// The request's selection as a summary query: validates it and tells the current
/// instance without reading the resource tree.
fn summary(request: &WatchRequest) -> StatusQuery {
    let mut query = query(request, None);
    query.selection.output = Output::Summary;
    query
}

fn query(request: &WatchRequest, after: Option<ResourceKey>) -> StatusQuery {
    StatusQuery {
        selection: request.selection.clone(),
        instance: None,
        page_size: PAGE,
        after,
    }
}

/// The delivered-events counter of status watches, resolved once (the hot path).
static DELIVERED: std::sync::LazyLock<prometheus::IntCounter> = std::sync::LazyLock::new(|| {
    crate::metrics::METRICS
        .watch_events_delivered
        .with_label_values(&["status"])
});

struct Subscriber {
    hub: Arc<WatchHub>,
    status: StatusApp,
    feed: Arc<Feed>,
    /// Woken by the feed when events that may concern the request arrive.
    wake: Arc<Notify>,
    target: String,
    /// Encodes the resume tokens of `target`'s stream.
    tokens: TargetTokens,
    request: WatchRequest,
    out: mpsc::Sender<Sent>,
    /// Paces the messages to what the client reads.
    outbound: Option<Arc<Outbound>>,
    /// The events written but not sent yet: entries of the next response message,
    /// sent when it is [`BATCH_BYTES`] long or before the subscriber waits for
    /// anything else (new events, the database, a timer).
    batch: Batch,
    /// The last revision processed.
    pos: i64,
    /// The position of the last event sent (heartbeats repeat it, or `pos` if later).
    last_sent: Position,
    last_send: Instant,
    /// The instance whose resources the stream describes ("" = none yet).
    instance: String,
    /// The counts of the selection in `instance`.
    counts: Counts,
    counts_dirty: bool,
    _permit: OwnedSemaphorePermit,
}

impl Subscriber {
    async fn run(mut self) {
        let resume = self.request.resume;
        // The start's futures are boxed: a subscriber's task is then only as large
        // as its live loop, for the hours it may run (thousands of subscribers).
        let mut started = match resume {
            None => Box::pin(self.snapshot()).await,
            Some(p) if p.snapshot => Err(Stop::Resync),
            Some(p) => Box::pin(self.resume(p)).await,
        };
        loop {
            let stop = match started {
                Ok(()) => self.live().await,
                Err(stop) => stop,
            };
            match stop {
                Stop::Resync => {
                    let event = self.event(pb::WatchEventType::ResyncRequired, self.last_sent);
                    if self.send(event).await.is_err() {
                        return;
                    }
                    started = Box::pin(self.snapshot()).await;
                }
                Stop::Closed => return,
                Stop::Deleted => {
                    // The events up to the deletion are still owed.
                    let _ = self.flush().await;
                    return;
                }
                Stop::Shutdown => {
                    // Events written but not sent go first; the token then points right
                    // after them (only if they reached the client's queue).
                    let flushed = match self.batch.take() {
                        None => true,
                        Some((message, _)) => tokio::time::timeout(
                            super::SHUTDOWN_FLUSH,
                            self.out.send((Ok(message), None)),
                        )
                        .await
                        .is_ok_and(|sent| sent.is_ok()),
                    };
                    // Nothing sent yet (still at the start): the client has no state
                    // a token could resume, it watches afresh.
                    let token = (flushed && self.last_sent != Position::after(0))
                        .then(|| self.tokens.encode(self.last_sent));
                    let end = Err(super::shutting_down(token));
                    let _ = tokio::time::timeout(super::SHUTDOWN_FLUSH, self.out.send((end, None)))
                        .await;
                    return;
                }
                Stop::Failed(error) => {
                    warn!(target = %self.target, %error, "watch failed");
                    let _ = self.flush().await;
                    let _ = self.out.send((Err(error.into()), None)).await;
                    return;
                }
            }
        }
    }

    fn event(&self, kind: pb::WatchEventType, position: Position) -> pb::WatchEvent {
        pb::WatchEvent {
            r#type: kind as i32,
            resume_token: self.tokens.encode(position),
            ..Default::default()
        }
    }

    /// Writes `event` into the next response message.
    async fn send(&mut self, event: pb::WatchEvent) -> std::result::Result<(), Stop> {
        self.batch.push(&event);
        self.flush_if_full().await
    }

    /// Writes an event already encoded as a response entry into the next message.
    async fn send_encoded(&mut self, entry: Encoded) -> std::result::Result<(), Stop> {
        self.batch.push_encoded(&entry, 1);
        self.flush_if_full().await
    }

    async fn flush_if_full(&mut self) -> std::result::Result<(), Stop> {
        if self.batch.is_full() {
            self.flush().await?;
        }
        Ok(())
    }

    /// Sends the events written so far as one response message.
    async fn flush(&mut self) -> std::result::Result<(), Stop> {
        if let Some((message, events)) = self.batch.take() {
            self.send_message(message).await?;
            DELIVERED.inc_by(events);
        }
        Ok(())
    }

    /// Sends `message` as one response message.
    /// Paced: waits first for output credit, so that a client that reads slowly
    /// holds its events back in the log rather than in memory.
    async fn send_message(&mut self, message: Encoded) -> std::result::Result<(), Stop> {
        let credit = match &self.outbound {
            Some(outbound) => tokio::select! {
                credit = outbound.credit(message.0.len()) => Some(credit),
                () = self.out.closed() => return Err(Stop::Closed),
                () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
            },
            None => None,
        };
        tokio::select! {
            sent = self.out.send((Ok(message), credit)) => sent.map_err(|_| Stop::Closed)?,
            () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
        }
        self.last_send = Instant::now();
        Ok(())
    }

    /// Sends `event` at `position` and remembers the position.
    async fn send_at(
        &mut self,
        mut event: pb::WatchEvent,
        position: Position,
    ) -> std::result::Result<(), Stop> {
        event.resume_token = self.tokens.encode(position);
        self.send(event).await?;
        self.last_sent = position;
        Ok(())
    }

    fn instance_name(&self, id: &str) -> String {
        if id.is_empty() {
            String::new()
        } else {
            format!("{}/instances/{id}", self.target)
        }
    }

    fn counts_event(&self, time: i64) -> pb::WatchEvent {
        let (rsync_status, cluster_status, readiness) =
            counts_to_proto(&self.counts, self.request.selection.output != Output::Rsync);
        pb::WatchEvent {
            r#type: pb::WatchEventType::CountsChanged as i32,
            time: timestamp(time),
            rsync_status,
            cluster_status,
            readiness,
            ..Default::default()
        }
    }

    /// Delivers events until the client leaves, the server stops or the log cannot
    /// serve the position any more.
    async fn live(&mut self) -> Stop {
        match self.live_inner().await {
            Ok(()) => Stop::Closed,
            Err(stop) => stop,
        }
    }

    async fn live_inner(&mut self) -> std::result::Result<(), Stop> {
        let heartbeat = self.hub.options().heartbeat;
        loop {
            if !self.counts_dirty {
                // Counts owed at a transaction's end stop the passing over: the
                // transaction's last event is looked at and sends them.
                self.pos = self
                    .feed
                    .pass_over(self.pos, |segment| self.wanted(segment));
            }
            if let Some(segment) = self.feed.segment_after(self.pos)
                && self.takes_whole(&segment)
                && self.apply_whole(&segment).await?
            {
                continue;
            }
            let events = match self.feed.after(self.pos, CHUNK) {
                Next::Events(events) => events,
                Next::Behind => self.read_log().await?,
            };
            if events.is_empty() {
                self.flush().await?;
                let deadline = self.last_send + heartbeat;
                tokio::select! {
                    () = self.wake.notified() => {}
                    () = tokio::time::sleep_until(deadline) => self.heartbeat().await?,
                    () = self.out.closed() => return Err(Stop::Closed),
                    () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
                }
                continue;
            }
            for event in &events {
                self.apply(event, event.revision == event.batch).await?;
            }
            if let Some(last) = events.last() {
                // From the commit of the newest event to its processing here.
                let lag = (now_micros() - last.time).max(0) as f64 / 1e6;
                crate::metrics::METRICS.watch_lag.observe(lag);
            }
        }
    }

    /// Events after `pos` from the log itself (the subscriber is behind the feed).
    async fn read_log(&mut self) -> std::result::Result<Vec<Arc<FeedEvent>>, Stop> {
        self.flush().await?;
        let _turn = self.hub.read_turn().await;
        let mut conn = self.hub.store().read().await?;
        let events =
            events_after(&mut conn, &self.target, self.pos, i64::MAX, CHUNK as i64).await?;
        if let Some(first) = events.first() {
            if first.revision != self.pos + 1 {
                debug!(target = %self.target, pos = self.pos, "position compacted away");
                return Err(Stop::Resync);
            }
        } else {
            let (_, compacted) = target_revision(&mut conn, &self.target).await?;
            if compacted > self.pos {
                return Err(Stop::Resync);
            }
        }
        Ok(events
            .into_iter()
            .map(|e| Arc::new(FeedEvent::new(e)))
            .collect())
    }

    async fn heartbeat(&mut self) -> std::result::Result<(), Stop> {
        // Past events that sent nothing: after them and what they derive, unless a
        // transaction's counts are still owed (then resuming recomputes them).
        let position = if self.pos > self.last_sent.revision {
            Position {
                sub: if self.counts_dirty { 0 } else { token::DONE },
                ..Position::after(self.pos)
            }
        } else {
            self.last_sent
        };
        let mut event = self.event(pb::WatchEventType::Heartbeat, position);
        event.time = timestamp(now_micros());
        self.send(event).await?;
        self.flush().await?;
        self.last_sent = position;
        Ok(())
    }

    async fn apply(
        &mut self,
        event: &FeedEvent,
        batch_ends: bool,
    ) -> std::result::Result<(), Stop> {
        self.pos = event.revision;
        let position = Position::after(event.revision);
        match &event.payload {
            Payload::Lifecycle {
                state,
                instance,
                previous,
            } => {
                let message = pb::WatchEvent {
                    r#type: pb::WatchEventType::LifecycleChanged as i32,
                    time: timestamp(event.time),
                    state: state.clone(),
                    instance: self.instance_name(instance),
                    ..Default::default()
                };
                self.send_at(message, position).await?;
                if state == DELETED {
                    return Err(Stop::Deleted);
                }
                if !instance.is_empty() && instance != previous && *instance != self.instance {
                    self.new_instance(event, 0).await?;
                }
            }
            // Action and container cluster events live under their own targets.
            Payload::Action { .. } | Payload::ContainerCluster { .. } => {}
            Payload::Connectivity { connectivity, .. } => {
                if self.request.selection.has_cluster(&event.cluster) {
                    let message = connectivity_event(&event.cluster, *connectivity, event.time);
                    self.send_at(message, position).await?;
                }
            }
            Payload::Resource {
                rendered, old, new, ..
            } => {
                if event.instance != self.instance || !self.matches(event) {
                    return self.flush_counts(event, batch_ends).await;
                }
                // The counts move exactly when a counted dimension changed.
                if dimensions(*rendered, old.as_ref()) != dimensions(*rendered, Some(new)) {
                    apply_delta(&mut self.counts, *rendered, old.as_ref(), -1);
                    apply_delta(&mut self.counts, *rendered, Some(new), 1);
                    self.counts.retain(|_, n| *n != 0);
                    self.counts_dirty = true;
                }
                if let Some(message) = self.resource_message(event) {
                    self.send_encoded(message).await?;
                    self.last_sent = position;
                }
            }
        }
        self.flush_counts(event, batch_ends).await
    }

    /// Sends COUNTS_CHANGED at the end of a transaction's events if they moved.
    async fn flush_counts(
        &mut self,
        event: &Event,
        batch_ends: bool,
    ) -> std::result::Result<(), Stop> {
        if batch_ends {
            self.flush_counts_at(event.revision, event.time).await?;
        }
        Ok(())
    }

    /// Sends COUNTS_CHANGED after event `revision`, the last of its transaction, if
    /// the counts moved.
    async fn flush_counts_at(&mut self, revision: i64, time: i64) -> std::result::Result<(), Stop> {
        if self.counts_dirty {
            self.counts_dirty = false;
            let message = self.counts_event(time);
            let position = Position {
                sub: 1,
                ..Position::after(revision)
            };
            self.send_at(message, position).await?;
        }
        Ok(())
    }

    /// The output level's index among a feed event's cached messages; `None` for
    /// SUMMARY, which sends no resource events.
    fn message_level(&self) -> Option<usize> {
        match self.request.selection.output {
            Output::Summary => None,
            Output::All => Some(0),
            Output::Detail => Some(1),
            Output::Rsync => Some(2),
        }
    }

    /// The response entry a resource event of the stream's instance that the stream
    /// selects becomes at its output level (`None`: the level does not send it). Every
    /// subscriber of the target at that level sends the same entry: the first one
    /// encodes it.
    fn resource_message(&self, event: &FeedEvent) -> Option<Encoded> {
        let Payload::Resource {
            kind,
            group,
            version,
            namespace,
            rendered,
            old,
            new,
            body,
        } = &event.payload
        else {
            return None;
        };
        let output = self.request.selection.output;
        let level = self.message_level()?;
        let rsync_changed = *rendered && old.as_ref().map(|o| &o.rsync) != Some(&new.rsync);
        if output == Output::Rsync && !rsync_changed {
            return None;
        }
        Some(event.message(level, || {
            let mut entry = StatusEntry {
                key: ResourceKey {
                    app: event.app.clone(),
                    cluster: ClusterName::from(event.cluster.as_str()),
                    kind: kind.clone(),
                    group: group.clone(),
                    namespace: namespace.clone(),
                    name: event.name.clone(),
                },
                version: version.clone(),
                rsync_status: new.rsync,
                cluster_status: (output != Output::Rsync)
                    .then(|| new.cluster.unwrap_or(ClusterStatus::Unknown)),
                readiness: if output == Output::Rsync {
                    Readiness::None
                } else {
                    new.readiness
                },
                metadata: None,
                spec: None,
                status: None,
            };
            if output == Output::Detail
                && let Some(body) = body
            {
                let body = body.value();
                entry.metadata = body.get("metadata").cloned();
                entry.spec = body.get("spec").cloned();
                entry.status = body.get("status").cloned().filter(|s| !s.is_null());
            }
            let mut message = resource_event(entry, event.time);
            message.resume_token = self.tokens.encode(Position::after(event.revision));
            message
        }))
    }

    /// Whether the stream selects every event of `segment`: resource events of its
    /// instance on clusters and apps it selects, with no resource-name filter.
    fn takes_whole(&self, segment: &Segment) -> bool {
        let apps = &self.request.selection.apps;
        segment
            .resources_of()
            .is_some_and(|instance| !instance.is_empty() && instance == self.instance)
            && segment.clusters.as_ref().is_some_and(|clusters| {
                clusters
                    .iter()
                    .all(|c| self.request.selection.has_cluster(c))
            })
            && (apps.is_empty()
                || segment
                    .apps
                    .as_ref()
                    .is_some_and(|list| list.iter().all(|a| apps.contains(a))))
            && self.request.selection.resources.is_empty()
    }

    /// Sends a run the stream selects whole (see [`Self::takes_whole`]) as the
    /// messages its first taker built, and applies its net change of the counts: what
    /// applying its events one by one would send and count. False if the tail no longer
    /// holds the run (the caller then reads it event by event).
    async fn apply_whole(&mut self, segment: &Segment) -> std::result::Result<bool, Stop> {
        let level = self.message_level();
        // The run's events, read from the tail only if this stream is the first to
        // need its count change or its messages.
        let mut events = Vec::new();
        if segment.delta().is_none() || level.is_some_and(|l| segment.whole(l).is_none()) {
            let len = usize::try_from(segment.end - self.pos).unwrap_or(0);
            match self.feed.after(self.pos, len) {
                Next::Events(run) if run.len() == len => events = run,
                _ => return Ok(false),
            }
        }
        let delta = match segment.delta() {
            Some(delta) => delta,
            None => segment.keep_delta(net_delta(&events)),
        };
        let whole = level.map(|level| match segment.whole(level) {
            Some(whole) => whole,
            None => segment.keep_whole(
                level,
                Whole::of(
                    events
                        .iter()
                        .map(|e| (e.revision, self.resource_message(e))),
                ),
            ),
        });
        let (net, moved) = delta;
        if *moved {
            for (key, n) in net {
                *self.counts.entry(*key).or_default() += n;
            }
            self.counts.retain(|_, n| *n != 0);
            self.counts_dirty = true;
        }
        if let Some(whole) = whole {
            if let Some((last, full)) = whole.messages.split_last() {
                // The events written before this run go first.
                self.flush().await?;
                for message in full {
                    self.send_message(message.clone()).await?;
                }
                // The rest starts the next message (counts may follow in it); the
                // whole's events are counted with it.
                self.batch.push_encoded(last, whole.events);
                self.flush_if_full().await?;
            }
            if let Some(revision) = whole.last_sent {
                self.last_sent = Position::after(revision);
            }
        }
        self.pos = segment.end;
        if segment.ends_batch {
            self.flush_counts_at(segment.end, segment.time).await?;
        }
        Ok(true)
    }

    /// Whether a segment of the feed may hold an event this stream looks at; a
    /// segment it does not want changes neither what it sends nor its counts.
    fn wanted(&self, segment: &Segment) -> bool {
        segment.may_concern(
            &self.instance,
            |c| self.request.selection.has_cluster(c),
            &self.request.selection.apps,
        )
    }

    fn matches(&self, event: &Event) -> bool {
        self.request
            .selection
            .has(&event.app, &event.cluster, &event.name)
    }

    /// The selection as SQL for `instance` (cluster ids resolved to its clusters).
    async fn sql_filter(&self, conn: &mut Conn, instance: InstanceId) -> Result<ResourceFilter> {
        let mut clusters = Vec::new();
        if !self.request.selection.clusters.is_empty() {
            clusters = instance_clusters(conn, instance)
                .await?
                .into_iter()
                .filter(|c| self.request.selection.has_cluster(c))
                .map(ClusterName::into_string)
                .collect();
            if clusters.is_empty() {
                // None of the wanted clusters is placed: match nothing, with a name no
                // cluster has ("provider/cluster", both parts non-empty) that PostgreSQL
                // can bind (it refuses NUL in text).
                clusters.push(String::from("/"));
            }
        }
        Ok(ResourceFilter {
            apps: self.request.selection.apps.clone(),
            clusters,
            names: self.request.selection.resources.clone(),
        })
    }
}
