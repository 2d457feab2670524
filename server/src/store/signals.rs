//! Wake-ups of event-log readers after commits.

use std::collections::HashMap;

use super::watch;

/// The signal touched after a commit that took pods out of what their clusters report
/// (an ingest, an instance deleted): the action timer then looks for open actions
/// whose pod is gone. A name no watch target has.
pub const PODS_GONE: &str = "pods-gone";

/// The signal touched after every write transaction (and relayed to the other
/// replicas): WatchFleet's summary of groups and clusters reads the fleet again when
/// it changes (coalesced; see `watch::fleet`). A name no watch target has.
pub const FLEET: &str = "fleet";

/// Per-target wake-ups for event-log readers (the watch hub's feeds) and caches: a
/// counter per target, bumped after each commit that appended to it or touched it, and
/// the committed events themselves, so a feed usually needs no read of the log.
///
/// With replicas, other processes commit too: their signals arrive through the
/// coordination store's relay ([`Signals::relay_through`], [`Signals::remote`]) and
/// this process's go out through it. While the relay is cut, other replicas' commits
/// may go unsignalled: feeds then poll the log and caches are not trusted
/// ([`Reach::Cut`]).
pub struct Signals {
    map: std::sync::Mutex<HashMap<String, Signal>>,
    /// The map's size at which unused entries are swept next (see `entry`).
    sweep_at: std::sync::atomic::AtomicUsize,
    /// Where this process's signals go for the other replicas (with coordination).
    relay: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<String>>,
    reach: tokio::sync::watch::Sender<Reach>,
}

/// Whether this process hears of every commit to the shared database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// One process: every commit is made here. Feeds still poll the log now and then,
    /// as a safety net for a hand-over they missed.
    Local,
    /// Replicas, and the relay is up: other replicas' commits are signalled here
    /// within a round trip to the coordination store. No polling.
    Relayed,
    /// Replicas, and the relay is down (or not up yet): feeds poll the log, and
    /// caches checked against signals are not used.
    Cut,
}

impl Default for Signals {
    fn default() -> Self {
        Signals {
            map: Default::default(),
            sweep_at: Default::default(),
            relay: Default::default(),
            reach: tokio::sync::watch::channel(Reach::Local).0,
        }
    }
}

/// The smallest map size that triggers a sweep of unused entries.
const SIGNALS_SWEEP_MIN: usize = 1024;

struct Signal {
    counter: tokio::sync::watch::Sender<u64>,
    events: Option<tokio::sync::mpsc::UnboundedSender<Vec<watch::Event>>>,
}

impl Signals {
    /// A receiver that changes after each commit to `target`.
    pub fn subscribe(&self, target: &str) -> tokio::sync::watch::Receiver<u64> {
        let mut map = self.map.lock().expect("signals lock");
        self.entry(&mut map, target).counter.subscribe()
    }

    /// Receives the events committed to `target` from now on (replacing an earlier
    /// receiver of the same target).
    pub fn attach(&self, target: &str) -> tokio::sync::mpsc::UnboundedReceiver<Vec<watch::Event>> {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        let mut map = self.map.lock().expect("signals lock");
        self.entry(&mut map, target).events = Some(sender);
        receiver
    }

    /// Whether committed events of `target` are handed to a live receiver.
    pub fn attached(&self, target: &str) -> bool {
        let map = self.map.lock().expect("signals lock");
        map.get(target)
            .and_then(|s| s.events.as_ref())
            .is_some_and(|sender| !sender.is_closed())
    }

    /// The entry of `target`, created if needed. An entry is removed when a signal
    /// finds nobody listening, but a target that never commits (a name that does not
    /// exist, asked about once) gets no signal: when the map has doubled since the last
    /// sweep, entries without receivers go, so the map stays proportional to what is
    /// listened to (amortized O(1) per insert).
    fn entry<'a>(&self, map: &'a mut HashMap<String, Signal>, target: &str) -> &'a mut Signal {
        use std::sync::atomic::Ordering;
        if !map.contains_key(target)
            && map.len() >= self.sweep_at.load(Ordering::Relaxed).max(SIGNALS_SWEEP_MIN)
        {
            map.retain(|_, signal| {
                signal.counter.receiver_count() > 0
                    || signal
                        .events
                        .as_ref()
                        .is_some_and(|sender| !sender.is_closed())
            });
            self.sweep_at.store(map.len() * 2, Ordering::Relaxed);
        }
        map.entry(target.to_string()).or_insert_with(|| Signal {
            counter: tokio::sync::watch::channel(0).0,
            events: None,
        })
    }

    /// Signals `target`'s readers after a commit of this process, and the other
    /// replicas' through the relay.
    pub(super) fn signal(&self, target: &str, events: Option<Vec<watch::Event>>) {
        if let Some(relay) = self.relay.get() {
            let _ = relay.send(target.to_owned());
        }
        self.signal_here(target, events);
    }

    /// Signals `target`'s readers after another replica's commit (relayed to this one).
    pub fn remote(&self, target: &str) {
        self.signal_here(target, None);
    }

    /// Sends this process's signals to the receiver from now on (for the relay to the
    /// other replicas), and counts other replicas' signals as missed until
    /// [`Signals::set_reach`] says the relay is up.
    pub fn relay_through(&self) -> tokio::sync::mpsc::UnboundedReceiver<String> {
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        if self.relay.set(sender).is_err() {
            panic!("the signals are relayed once");
        }
        self.set_reach(Reach::Cut);
        receiver
    }

    /// Records whether the relay is up. Every change signals every target: entering
    /// `Cut`, caches must stop trusting what they hold; leaving it, readers catch up
    /// on what they may have missed.
    pub fn set_reach(&self, reach: Reach) {
        if self
            .reach
            .send_if_modified(|now| std::mem::replace(now, reach) != reach)
        {
            let targets: Vec<String> = self
                .map
                .lock()
                .expect("signals lock")
                .keys()
                .cloned()
                .collect();
            for target in targets {
                self.signal_here(&target, None);
            }
        }
    }

    /// Follows [`Reach`] changes.
    pub fn reach(&self) -> tokio::sync::watch::Receiver<Reach> {
        self.reach.subscribe()
    }

    /// Whether a reader may trust that no signal means no commit (not while the relay
    /// is cut).
    pub fn trusted(&self) -> bool {
        *self.reach.borrow() != Reach::Cut
    }

    fn signal_here(&self, target: &str, events: Option<Vec<watch::Event>>) {
        let mut map = self.map.lock().expect("signals lock");
        let Some(signal) = map.get_mut(target) else {
            return;
        };
        if let (Some(sender), Some(events)) = (&signal.events, events)
            && sender.send(events).is_err()
        {
            signal.events = None;
        }
        if signal.counter.receiver_count() == 0 && signal.events.is_none() {
            map.remove(target);
        } else {
            signal.counter.send_modify(|n| *n += 1);
        }
    }
}
