//! One WatchActions subscriber: the open actions of a cluster (or of one node) as a
//! snapshot, SYNCED, then every create, change and deletion, with the WatchStatus
//! contract: the same hub, feeds, event log and resume tokens (every cluster's action
//! events share the target `actions`; a stream selects its cluster's), RESYNC_REQUIRED for positions the log no longer holds,
//! heartbeats with the latest token, UNAVAILABLE at shutdown.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use tokio::sync::{Notify, OwnedSemaphorePermit, mpsc};
use tokio::time::Instant;
use tonic::Status;
use tracing::warn;

use super::token::{self, Position, TargetTokens};
use super::{Feed, Next, WatchHub};
use crate::api::convert::action_to_proto;
use crate::app::actions::ACTIONS_TARGET;
use crate::error::{Error, Result};
use crate::store::action::{ActionFilter, ActionRecord, action_list};
use crate::store::watch::{ActionChange, Event, Payload, events_after, target_revision};

/// Events per read of the feed or the log.
const CHUNK: usize = 512;
/// Response messages buffered towards the client.
const BUFFER: usize = 8;

/// What a WatchActions call asks for.
#[derive(Debug, Clone)]
pub struct ActionWatch {
    pub cluster: String,
    /// "" = every node.
    pub node: String,
    pub resume: Option<Position>,
}

type Item = std::result::Result<pb::WatchActionsResponse, Status>;

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

/// Starts a watch of `request.cluster`'s actions.
pub async fn start(hub: Arc<WatchHub>, request: ActionWatch) -> Result<mpsc::Receiver<Item>> {
    let permit = hub.admit()?;
    let target = ACTIONS_TARGET.to_string();
    if let Some(position) = request.resume {
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
    feed.register(std::slice::from_ref(&request.cluster), &wake);
    let (out, receiver) = mpsc::channel(BUFFER);
    let subscriber = Subscriber {
        hub,
        feed,
        wake,
        tokens: TargetTokens::new(&target),
        target,
        request,
        out,
        pos: 0,
        last_send: Instant::now(),
        _permit: permit,
    };
    tokio::spawn(subscriber.run());
    Ok(receiver)
}

struct Subscriber {
    hub: Arc<WatchHub>,
    feed: Arc<Feed>,
    wake: Arc<Notify>,
    target: String,
    tokens: TargetTokens,
    request: ActionWatch,
    out: mpsc::Sender<Item>,
    /// The last revision processed.
    pos: i64,
    last_send: Instant,
    _permit: OwnedSemaphorePermit,
}

impl Subscriber {
    async fn run(mut self) {
        let mut started = match self.request.resume {
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
                    let event = self.marker(pb::ActionEventType::ResyncRequired);
                    if self.send(vec![event]).await.is_err() {
                        return;
                    }
                    started = self.snapshot().await;
                }
                Stop::Closed => return,
                Stop::Shutdown => {
                    let _ = self.out.send(Err(super::shutting_down())).await;
                    return;
                }
                Stop::Failed(error) => {
                    warn!(target = %self.target, %error, "action watch failed");
                    let _ = self.out.send(Err(error.into())).await;
                    return;
                }
            }
        }
    }

    fn marker(&self, kind: pb::ActionEventType) -> pb::ActionEvent {
        pb::ActionEvent {
            r#type: kind as i32,
            action: None,
            resume_token: self.tokens.encode(Position {
                sub: token::DONE,
                ..Position::after(self.pos)
            }),
        }
    }

    async fn send(&mut self, events: Vec<pb::ActionEvent>) -> std::result::Result<(), Stop> {
        if events.is_empty() {
            return Ok(());
        }
        tokio::select! {
            sent = self.out.send(Ok(pb::WatchActionsResponse { events })) => sent.map_err(|_| Stop::Closed)?,
            () = self.hub.shutdown().cancelled() => return Err(Stop::Shutdown),
        }
        self.last_send = Instant::now();
        Ok(())
    }

    fn wanted(&self, action: &ActionRecord) -> bool {
        self.request.node.is_empty() || action.node == self.request.node
    }

    /// The open actions as ADDED events, read with the revision in one consistent
    /// snapshot, then SYNCED.
    async fn snapshot(&mut self) -> std::result::Result<(), Stop> {
        let store = self.hub.store().clone();
        let turn = self.hub.snapshot_turn().await;
        let mut tx = store.snapshot().await?;
        let (revision, _) = target_revision(&mut tx, &self.target).await?;
        let filter = ActionFilter {
            cluster: self.request.cluster.clone(),
            node: self.request.node.clone(),
            open_only: true,
            ..Default::default()
        };
        let mut open = action_list(&mut tx, &filter, None, usize::MAX >> 1).await?;
        drop(tx);
        drop(turn);
        open.reverse();
        self.pos = revision;
        let mut events = Vec::new();
        for (sub, action) in open.iter().enumerate() {
            events.push(pb::ActionEvent {
                r#type: pb::ActionEventType::Added as i32,
                action: Some(action_to_proto(action)),
                resume_token: self.tokens.encode(Position {
                    revision,
                    sub: sub as i64 + 1,
                    snapshot: true,
                }),
            });
            if events.len() == CHUNK {
                self.send(std::mem::take(&mut events)).await?;
            }
        }
        events.push(self.marker(pb::ActionEventType::Synced));
        self.send(events).await
    }

    async fn resume(&mut self, position: Position) -> std::result::Result<(), Stop> {
        let mut conn = self.hub.store().read().await?;
        let (_, compacted) = target_revision(&mut conn, &self.target).await?;
        if position.revision < compacted {
            return Err(Stop::Resync);
        }
        self.pos = position.revision;
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
                    if let Some(message) = self.message(event)? {
                        out.push(message);
                    }
                }
                self.send(out).await?;
                continue;
            }
            let idle = heartbeat.saturating_sub(self.last_send.elapsed());
            tokio::select! {
                () = self.wake.notified() => {}
                () = tokio::time::sleep(idle) => {
                    let beat = self.marker(pb::ActionEventType::Heartbeat);
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

    fn message(&self, event: &Event) -> std::result::Result<Option<pb::ActionEvent>, Stop> {
        let Payload::Action { change, record } = &event.payload else {
            return Ok(None);
        };
        if event.cluster != self.request.cluster {
            return Ok(None);
        }
        let action: ActionRecord = serde_json::from_str(record.text())
            .map_err(|e| Stop::Failed(Error::internal(format!("action event: {e}"))))?;
        if !self.wanted(&action) {
            return Ok(None);
        }
        let kind = match change {
            ActionChange::Added => pb::ActionEventType::Added,
            ActionChange::Modified => pb::ActionEventType::Modified,
            ActionChange::Deleted => pb::ActionEventType::Deleted,
        };
        Ok(Some(pb::ActionEvent {
            r#type: kind as i32,
            action: Some(action_to_proto(&action)),
            resume_token: self.tokens.encode(Position::after(event.revision)),
        }))
    }
}
