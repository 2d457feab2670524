//! A watch of stored records (actions, container clusters) with the WatchStatus
//! contract: the records as a snapshot read with the log's revision in one
//! consistent read, SYNCED, then every create, change and deletion from the same hub,
//! feeds, event log and resume tokens; RESYNC_REQUIRED (and a fresh snapshot) for a
//! position the log no longer holds; heartbeats with the latest token; UNAVAILABLE at
//! shutdown. What differs per kind of record — its target, its snapshot, which events
//! a stream selects, its proto messages — is a [`Records`] implementation.

use std::sync::Arc;

use flotilla_api::v1 as pb;

use crate::store::Conn;
use tokio::sync::{Notify, OwnedSemaphorePermit, mpsc};
use tokio::time::Instant;
use tonic::Status;
use tracing::warn;

use super::token::{self, Position, TargetTokens};
use super::{Feed, Next, WatchHub};
use crate::error::{Error, Result};
use crate::store::watch::{ActionChange, Event, events_after, target_revision};

/// Events per read of the feed or the log.
const CHUNK: usize = 512;
/// Response messages buffered towards the client.
pub(super) const BUFFER: usize = 8;

/// What an event of a record watch says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Added,
    Modified,
    Deleted,
    Synced,
    ResyncRequired,
    Heartbeat,
}

impl From<ActionChange> for Kind {
    fn from(change: ActionChange) -> Self {
        match change {
            ActionChange::Added => Kind::Added,
            ActionChange::Modified => Kind::Modified,
            ActionChange::Deleted => Kind::Deleted,
        }
    }
}

/// A record watch's event message: its type (the six values of [`Kind`]), the record
/// (none for a marker) and a resume token; and the response that carries a batch.
pub trait ProtoEvent: Sized + Send + 'static {
    /// The record as sent.
    type Record: Send + 'static;
    type Response: Send + 'static;
    fn new(kind: Kind, record: Option<Self::Record>, token: String) -> Self;
    fn response(events: Vec<Self>) -> Self::Response;
}

/// Every record watch's messages have one shape; each is declared here, one row:
/// `event { record field: record } in response, event type enum`.
macro_rules! proto_events {
    ($(pb::$event:ident { $field:ident: pb::$record:ident }
        in pb::$response:ident, pb::$event_type:ident;)+) => {$(
        impl ProtoEvent for pb::$event {
            type Record = pb::$record;
            type Response = pb::$response;

            fn new(kind: Kind, $field: Option<pb::$record>, token: String) -> Self {
                let r#type = match kind {
                    Kind::Added => pb::$event_type::Added,
                    Kind::Modified => pb::$event_type::Modified,
                    Kind::Deleted => pb::$event_type::Deleted,
                    Kind::Synced => pb::$event_type::Synced,
                    Kind::ResyncRequired => pb::$event_type::ResyncRequired,
                    Kind::Heartbeat => pb::$event_type::Heartbeat,
                };
                Self { r#type: r#type as i32, $field, resume_token: token }
            }

            fn response(events: Vec<Self>) -> pb::$response {
                pb::$response { events }
            }
        }
    )+};
}

proto_events! {
    pb::ActionEvent { action: pb::Action }
        in pb::WatchActionsResponse, pb::ActionEventType;
    pb::ContainerClusterEvent { container_cluster: pb::ContainerCluster }
        in pb::WatchContainerClustersResponse, pb::ContainerClusterEventType;
}

/// The record a [`Records`] kind sends.
pub type RecordOf<R> = <<R as Records>::Event as ProtoEvent>::Record;

/// A kind of watched record.
#[tonic::async_trait]
pub trait Records: Send + Sync + 'static {
    /// One event as sent (it names the record and the response).
    type Event: ProtoEvent;
    /// The watch kind, as metrics label it.
    const KIND: &'static str;

    /// The event log target of the records' events.
    const TARGET: &'static str;

    /// The clusters whose events wake the stream; by default none in particular: every
    /// event of the target does.
    fn clusters(&self) -> Vec<String> {
        Vec::new()
    }
    /// The records a snapshot starts with (sent as ADDED events).
    async fn snapshot(&self, conn: &mut Conn) -> Result<Vec<RecordOf<Self>>>;
    /// What a logged event says to this stream (its change and the record), None if
    /// the stream does not select it.
    fn select(&self, event: &Event) -> Result<Option<(Kind, RecordOf<Self>)>>;
}

type Item<R> = std::result::Result<<<R as Records>::Event as ProtoEvent>::Response, Status>;

enum Stop {
    Closed,
    Shutdown,
    Resync,
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(error: Error) -> Self {
        Stop::Failed(error)
    }
}

/// Starts a client's watch of `records`, from a snapshot or after `resume` (it counts
/// against `--max-watches`).
pub async fn start<R: Records>(
    hub: Arc<WatchHub>,
    records: R,
    resume: Option<Position>,
) -> Result<mpsc::Receiver<Item<R>>> {
    let permit = hub.admit()?;
    start_with(hub, records, resume, Some(permit)).await
}

/// Starts a watch the server itself keeps (not a client's: no watch slot is taken).
pub async fn follow<R: Records>(hub: Arc<WatchHub>, records: R) -> Result<mpsc::Receiver<Item<R>>> {
    start_with(hub, records, None, None).await
}

async fn start_with<R: Records>(
    hub: Arc<WatchHub>,
    records: R,
    resume: Option<Position>,
    permit: Option<OwnedSemaphorePermit>,
) -> Result<mpsc::Receiver<Item<R>>> {
    let target = R::TARGET.to_string();
    if let Some(position) = resume {
        let mut conn = hub.store().read().await?;
        let (revision, _) = target_revision(&mut conn, &target).await?;
        if position.revision > revision {
            return Err(Error::invalid(
                "resume_token",
                format!("is ahead of {target}'s event log (revision {revision})"),
            ));
        }
    }
    let feed = hub.feed(&target).await?;
    let wake = Arc::new(Notify::new());
    feed.register(&records.clusters(), &wake);
    let (out, receiver) = mpsc::channel(BUFFER);
    let subscriber = Subscriber {
        hub,
        feed,
        wake,
        tokens: TargetTokens::new(&target),
        target,
        records,
        resume,
        out,
        pos: 0,
        sent: None,
        last_send: Instant::now(),
        _permit: permit,
    };
    tokio::spawn(subscriber.run());
    Ok(receiver)
}

struct Subscriber<R: Records> {
    hub: Arc<WatchHub>,
    feed: Arc<Feed>,
    wake: Arc<Notify>,
    target: String,
    tokens: TargetTokens,
    records: R,
    resume: Option<Position>,
    out: mpsc::Sender<Item<R>>,
    /// The last revision processed.
    pos: i64,
    /// The last revision whose events reached the client's queue (none before the
    /// snapshot was complete).
    sent: Option<i64>,
    last_send: Instant,
    _permit: Option<OwnedSemaphorePermit>,
}

impl<R: Records> Subscriber<R> {
    async fn run(mut self) {
        let mut started = match self.resume {
            None => self.snapshot().await,
            Some(p) if p.snapshot => Err(Stop::Resync),
            Some(p) => self.resume(p).await,
        };
        loop {
            let stop = match started {
                Ok(()) => match self.live().await {
                    Ok(()) => Stop::Closed,
                    Err(stop) => stop,
                },
                Err(stop) => stop,
            };
            match stop {
                Stop::Resync => {
                    let event = self.marker(Kind::ResyncRequired);
                    if self.send(vec![event]).await.is_err() {
                        return;
                    }
                    started = self.snapshot().await;
                }
                Stop::Closed => return,
                Stop::Shutdown => {
                    let token = self.sent.map(|sent| {
                        self.tokens.encode(Position {
                            sub: token::DONE,
                            ..Position::after(sent)
                        })
                    });
                    let end = Err(super::shutting_down(token));
                    let _ = tokio::time::timeout(super::SHUTDOWN_FLUSH, self.out.send(end)).await;
                    return;
                }
                Stop::Failed(error) => {
                    warn!(target = %self.target, %error, "record watch failed");
                    let _ = self.out.send(Err(error.into())).await;
                    return;
                }
            }
        }
    }

    fn marker(&self, kind: Kind) -> R::Event {
        let token = self.tokens.encode(Position {
            sub: token::DONE,
            ..Position::after(self.pos)
        });
        R::Event::new(kind, None, token)
    }

    async fn send(&mut self, events: Vec<R::Event>) -> std::result::Result<(), Stop> {
        if events.is_empty() {
            return Ok(());
        }
        let n = events.len() as u64;
        tokio::select! {
            sent = self.out.send(Ok(R::Event::response(events))) => sent.map_err(|_| Stop::Closed)?,
            () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
        }
        crate::metrics::METRICS
            .watch_events_delivered
            .with_label_values(&[R::KIND])
            .inc_by(n);
        self.last_send = Instant::now();
        Ok(())
    }

    /// The records as ADDED events, read with the revision in one consistent
    /// snapshot, then SYNCED.
    async fn snapshot(&mut self) -> std::result::Result<(), Stop> {
        let store = self.hub.store().clone();
        let turn = self.hub.snapshot_turn().await;
        let mut tx = store.snapshot().await?;
        let (revision, _) = target_revision(&mut tx, &self.target).await?;
        let tokens = &self.tokens;
        let mut sub = 0;
        let mut token = || {
            sub += 1;
            tokens.encode(Position {
                revision,
                sub,
                snapshot: true,
            })
        };
        let records = self.records.snapshot(&mut tx).await?;
        drop(tx);
        drop(turn);
        let events: Vec<R::Event> = records
            .into_iter()
            .map(|record| R::Event::new(Kind::Added, Some(record), token()))
            .collect();
        self.pos = revision;
        let mut events = events.into_iter();
        loop {
            let chunk: Vec<R::Event> = events.by_ref().take(CHUNK).collect();
            if chunk.len() < CHUNK {
                let mut last = chunk;
                last.push(self.marker(Kind::Synced));
                self.send(last).await?;
                self.sent = Some(self.pos);
                return Ok(());
            }
            self.send(chunk).await?;
        }
    }

    async fn resume(&mut self, position: Position) -> std::result::Result<(), Stop> {
        let mut conn = self.hub.store().read().await?;
        let (_, compacted) = target_revision(&mut conn, &self.target).await?;
        if position.revision < compacted {
            return Err(Stop::Resync);
        }
        self.pos = position.revision;
        self.sent = Some(self.pos);
        Ok(())
    }

    /// Live events until the stream stops.
    async fn live(&mut self) -> std::result::Result<(), Stop> {
        let heartbeat = self.hub.options().heartbeat;
        loop {
            let events = match self.feed.after(self.pos, CHUNK) {
                Next::Events(events) => events.iter().map(|e| e.event.clone()).collect(),
                Next::Behind => self.read_log().await?,
            };
            if !events.is_empty() {
                let mut out = Vec::new();
                for event in &events {
                    self.pos = event.revision;
                    if let Some((kind, record)) = self.records.select(event)? {
                        let token = self.tokens.encode(Position::after(event.revision));
                        out.push(R::Event::new(kind, Some(record), token));
                    }
                }
                self.send(out).await?;
                self.sent = Some(self.pos);
                continue;
            }
            let idle = heartbeat.saturating_sub(self.last_send.elapsed());
            tokio::select! {
                () = self.wake.notified() => {}
                () = tokio::time::sleep(idle) => {
                    let beat = self.marker(Kind::Heartbeat);
                    self.send(vec![beat]).await?;
                }
                () = self.out.closed() => return Err(Stop::Closed),
                () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
            }
        }
    }

    /// The events after the position, from the log (the feed's tail no longer holds
    /// them); RESYNC_REQUIRED when compaction removed them.
    async fn read_log(&mut self) -> std::result::Result<Vec<Event>, Stop> {
        let _turn = self.hub.read_turn().await;
        let mut conn = self.hub.store().read().await?;
        let (latest, compacted) = target_revision(&mut conn, &self.target).await?;
        if self.pos < compacted {
            return Err(Stop::Resync);
        }
        let events = events_after(&mut conn, &self.target, self.pos, latest, CHUNK as i64).await?;
        if events.is_empty() && self.pos < latest {
            return Err(Stop::Resync);
        }
        Ok(events)
    }
}
