//! Counts deltas and the events a subscriber builds from status entries.

use super::*;

/// The keys a resource counts under (a dimension it has no value in counts nothing;
/// nor does readiness None, nor the rsync status of a resource nothing rendered).
pub(super) fn dimensions(rendered: bool, statuses: Option<&Statuses>) -> [Option<CountKey>; 3] {
    match statuses {
        Some(s) => [
            s.rsync.filter(|_| rendered).map(CountKey::Rsync),
            s.cluster.map(CountKey::Cluster),
            Some(s.readiness)
                .filter(|r| *r != Readiness::None)
                .map(CountKey::Readiness),
        ],
        None => [None; 3],
    }
}

/// Applies one resource's statuses to `counts` with `sign` (+1 new, -1 old).
pub(super) fn apply_delta(
    counts: &mut Counts,
    rendered: bool,
    statuses: Option<&Statuses>,
    sign: i64,
) {
    for key in dimensions(rendered, statuses).into_iter().flatten() {
        *counts.entry(key).or_default() += sign;
    }
}

/// The net change of the counts of a run of events a stream selects whole, and
/// whether any of them moved a count (then COUNTS_CHANGED follows at the
/// transaction's end even if the changes cancel out, as event by event).
pub(super) fn net_delta(events: &[Arc<FeedEvent>]) -> (Counts, bool) {
    let mut counts = Counts::new();
    let mut moved = false;
    for event in events {
        if let Payload::Resource {
            rendered, old, new, ..
        } = &event.payload
            && dimensions(*rendered, old.as_ref()) != dimensions(*rendered, Some(new))
        {
            apply_delta(&mut counts, *rendered, old.as_ref(), -1);
            apply_delta(&mut counts, *rendered, Some(new), 1);
            moved = true;
        }
    }
    counts.retain(|_, n| *n != 0);
    (counts, moved)
}

pub(super) fn resource_event(entry: StatusEntry, time: i64) -> pb::WatchEvent {
    pb::WatchEvent {
        r#type: pb::WatchEventType::ResourceChanged as i32,
        time: timestamp(time),
        app_name: entry.key.app.clone(),
        cluster: entry.key.cluster.to_string(),
        resource: Some(entry_into_proto(entry)),
        ..Default::default()
    }
}

/// The events of the next response message, encoded as its entries.
#[derive(Default)]
pub(super) struct Batch {
    bytes: BytesMut,
    events: u64,
}

impl Batch {
    /// Writes `event` as the next entry.
    pub(super) fn push(&mut self, event: &pb::WatchEvent) {
        self.start();
        prost::encoding::message::encode(EVENTS_FIELD, event, &mut self.bytes);
        self.events += 1;
    }

    /// Writes entries already encoded, holding `events` events.
    pub(super) fn push_encoded(&mut self, entries: &Encoded, events: u64) {
        self.start();
        self.bytes.put_slice(&entries.0);
        self.events += events;
    }

    /// A new message gets room for a full batch at once, so that it does not grow by
    /// doubling from nothing.
    fn start(&mut self) {
        if self.bytes.is_empty() {
            self.bytes.reserve(BATCH_BYTES + 1024);
        }
    }

    pub(super) fn is_full(&self) -> bool {
        self.bytes.len() >= BATCH_BYTES
    }

    /// The message written so far, with how many events it holds. Its buffer goes
    /// with it: an idle stream keeps no allocation.
    pub(super) fn take(&mut self) -> Option<(Encoded, u64)> {
        if self.bytes.is_empty() {
            return None;
        }
        let message = Encoded(std::mem::take(&mut self.bytes).freeze());
        Some((message, std::mem::take(&mut self.events)))
    }
}

/// Events encoded into response messages of about [`BATCH_BYTES`] each, ahead of
/// sending them.
#[derive(Default)]
pub(super) struct Messages {
    /// Full messages, with how many events each holds.
    pub(super) full: Vec<(Encoded, u64)>,
    /// The events of a message not full yet.
    pub(super) rest: Batch,
}

impl Messages {
    pub(super) fn push(&mut self, event: &pb::WatchEvent) {
        self.rest.push(event);
        if self.rest.is_full() {
            self.full.extend(self.rest.take());
        }
    }
}

pub(super) fn connectivity_event(
    cluster: &str,
    connectivity: Connectivity,
    time: i64,
) -> pb::WatchEvent {
    let value = connectivity_to_proto(connectivity);
    pb::WatchEvent {
        r#type: pb::WatchEventType::ConnectivityChanged as i32,
        time: timestamp(time),
        cluster: cluster.to_string(),
        connectivity: value as i32,
        ..Default::default()
    }
}
