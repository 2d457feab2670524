//! Wake-ups of event-log readers after commits.

use std::collections::HashMap;

use super::watch;

/// The signal touched after a commit that took pods out of what their clusters report
/// (an ingest, an instance deleted): the action timer then looks for open actions
/// whose pod is gone. A name no watch target has.
pub const PODS_GONE: &str = "pods-gone";

/// Per-target wake-ups for event-log readers (the watch hub's feeds): a counter per
/// target, bumped after each commit that appended to it, and the committed events
/// themselves, so a feed usually needs no read of the log. Both are hints: feeds also
/// read and poll the log, so a lost one only delays delivery.
#[derive(Default)]
pub struct Signals {
    map: std::sync::Mutex<HashMap<String, Signal>>,
    /// The map's size at which unused entries are swept next (see `entry`).
    sweep_at: std::sync::atomic::AtomicUsize,
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

    pub(super) fn signal(&self, target: &str, events: Option<Vec<watch::Event>>) {
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
