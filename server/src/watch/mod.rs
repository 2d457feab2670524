//! The watch hub: fans the SQL event log out to streaming subscribers.
//!
//! One *feed* per watched target reads new events from the log once (woken by the
//! committing transaction, with a poll as a safety net) into a bounded in-memory tail
//! shared by every subscriber of that target; events are decoded once for all of them.
//! A subscriber that falls behind the tail (slow reader, resume from an old token)
//! reads the log itself until it catches up, so nobody is ever silently skipped; a
//! position older than the retention window gets RESYNC_REQUIRED and a fresh snapshot.
//!
//! The hub is generic over the target: WatchActions and WatchContainerClusters reuse
//! feeds and the subscriber loop with their own targets and event payloads.

pub mod stream;
pub mod token;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::sync::CancellationToken;
use tracing::warn;

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::watch::{Event, events_after, target_revision};

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
    /// The last revision in the tail; subscribers wait for it to change.
    latest: watch::Sender<i64>,
}

struct Tail {
    /// The revision just before the first event held.
    start: i64,
    events: VecDeque<Arc<Event>>,
}

/// What a subscriber gets from a feed.
pub enum Next {
    /// Events after the position (possibly none yet).
    Events(Vec<Arc<Event>>),
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
        Next::Events(tail.events.iter().skip(skip).take(max).cloned().collect())
    }

    /// A receiver of the latest revision.
    pub fn subscribe(&self) -> watch::Receiver<i64> {
        self.latest.subscribe()
    }
}

/// The hub: feeds by target, the watch limit, shutdown.
pub struct WatchHub {
    store: Store,
    options: WatchOptions,
    feeds: Mutex<HashMap<String, Weak<Feed>>>,
    permits: Arc<Semaphore>,
    /// Bounds the watches reading a snapshot (or positioning a resume) at once, so a
    /// burst of new watches queues here instead of exhausting the database pool.
    snapshots: Arc<Semaphore>,
    shutdown: CancellationToken,
}

/// Concurrent snapshot reads.
const SNAPSHOT_READERS: usize = 4;

impl WatchHub {
    pub fn new(store: Store, options: WatchOptions, shutdown: CancellationToken) -> Arc<Self> {
        Arc::new(Self {
            permits: Arc::new(Semaphore::new(options.max_watches)),
            snapshots: Arc::new(Semaphore::new(SNAPSHOT_READERS)),
            store,
            options,
            feeds: Mutex::default(),
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
        // Subscribe to commit signals before reading the start revision, so no commit
        // falls between the two.
        let signals = self.store.signals().subscribe(target);
        let committed = self.store.signals().attach(target);
        let (start, _) = {
            let mut conn = self.store.read().await?;
            target_revision(&mut conn, target).await?
        };
        let mut feeds = self.feeds.lock().expect("feeds lock");
        if let Some(feed) = feeds.get(target).and_then(Weak::upgrade) {
            return Ok(feed);
        }
        let feed = Arc::new(Feed {
            tail: RwLock::new(Tail {
                start,
                events: VecDeque::new(),
            }),
            latest: watch::channel(start).0,
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
        let last = *self.latest.borrow();
        if newest <= last {
            return true;
        }
        let mut tail = self.tail.write().expect("tail lock");
        let fresh: Vec<Event> = events.into_iter().filter(|e| e.revision > last).collect();
        if fresh[0].revision != last + 1 {
            return false;
        }
        tail.events.extend(fresh.into_iter().map(Arc::new));
        while tail.events.len() > tail_len {
            if let Some(dropped) = tail.events.pop_front() {
                tail.start = dropped.revision;
            }
        }
        drop(tail);
        self.latest.send_replace(newest);
        true
    }

    /// Restarts the tail after a gap the log cannot fill (compacted while idle).
    fn restart(&self, before: i64) {
        let mut tail = self.tail.write().expect("tail lock");
        tail.events.clear();
        tail.start = before;
        drop(tail);
        self.latest.send_replace(before);
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
    loop {
        let Some(strong) = feed.upgrade() else { return };
        if read_log {
            let last = *strong.latest.borrow();
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
        tokio::select! {
            () = shutdown.cancelled() => return,
            batch = committed.recv(), if attached => match batch {
                Some(events) => match feed.upgrade() {
                    Some(strong) => read_log = !strong.push(events, options.tail),
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
            () = tokio::time::sleep(options.poll) => read_log = true,
        }
    }
}
