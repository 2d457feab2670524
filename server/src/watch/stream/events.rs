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

/// Events encoded into response messages of about [`BATCH_BYTES`] each, ahead of
/// sending them.
#[derive(Default)]
pub(super) struct Messages {
    /// Full messages, with how many events each holds.
    pub(super) full: Vec<(Encoded, u64)>,
    /// The events of a message not full yet.
    pub(super) rest: BytesMut,
    pub(super) rest_events: u64,
}

impl Messages {
    pub(super) fn push(&mut self, event: &pb::WatchEvent) {
        if self.rest.is_empty() {
            self.rest.reserve(BATCH_BYTES + 1024);
        }
        prost::encoding::message::encode(EVENTS_FIELD, event, &mut self.rest);
        self.rest_events += 1;
        if self.rest.len() >= BATCH_BYTES {
            let message = Encoded(self.rest.split().freeze());
            self.full
                .push((message, std::mem::take(&mut self.rest_events)));
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
