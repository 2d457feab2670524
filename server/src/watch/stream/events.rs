//! Counts deltas and the events a subscriber builds from status entries.

use super::*;

const DIMENSIONS: [&str; 3] = ["rsync", "cluster", "readiness"];

/// The value a resource counts under in each of DIMENSIONS ("" = not counted).
pub(super) fn dimensions(rendered: bool, statuses: Option<&Statuses>) -> [&str; 3] {
    match statuses {
        Some(s) => [
            if rendered { &s.rsync } else { "" },
            &s.cluster,
            &s.readiness,
        ],
        None => ["", "", ""],
    }
}

/// Applies one resource's statuses to `counts` with `sign` (+1 new, -1 old).
pub(super) fn apply_delta(
    counts: &mut Counts,
    rendered: bool,
    statuses: Option<&Statuses>,
    sign: i64,
) {
    for (dimension, value) in DIMENSIONS.into_iter().zip(dimensions(rendered, statuses)) {
        if let Some(key) = CountKey::parse(dimension, value) {
            *counts.entry(key).or_default() += sign;
        }
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

pub(super) fn resource_event(entry: &StatusEntry, time: i64) -> pb::WatchEvent {
    pb::WatchEvent {
        r#type: pb::WatchEventType::ResourceChanged as i32,
        time: timestamp(time),
        app_name: entry.key.app.clone(),
        cluster: entry.key.cluster.clone(),
        resource: Some(entry_to_proto(entry)),
        ..Default::default()
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
