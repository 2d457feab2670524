//! How a subscriber starts: a snapshot of the selection, or a resume after a token.

use super::*;
use crate::store::rsync_resource::Shown;

impl Subscriber {
    /// The current status as events, read in one consistent snapshot, then SYNCED.
    ///
    /// Each page of resources is encoded into response messages as it is read, so a
    /// snapshot waiting for its client to read it holds its wire bytes (about a third
    /// of the entries they come from), not the entries.
    pub(super) async fn snapshot(&mut self) -> std::result::Result<(), Stop> {
        self.flush().await?;
        let store = self.hub.store().clone();
        // Held from the read until the stream has taken the snapshot.
        let slot = self.hub.snapshot_slot().await;
        let turn = self.hub.snapshot_turn().await;
        let mut tx = store.snapshot().await?;
        let (revision, _) = target_revision(&mut tx, &self.target).await?;
        let mut result = self
            .status
            .query_on(&mut tx, &self.request.owner, &query(&self.request, None))
            .await?;
        let instance = result.instance.as_ref().map(|i| i.id);
        let connectivity: Vec<_> = match instance {
            Some(id) => {
                // The selection's clusters by their full names (its own may be short).
                let only = self.sql_filter(&mut tx, id).await?.clusters;
                placed_connectivity(&mut tx, id, &only).await?
            }
            None => Vec::new(),
        }
        .into_iter()
        .filter(|(cluster, _)| self.request.selection.has_cluster(cluster))
        .collect();
        let now = now_micros();
        let at = |sub| Position {
            revision,
            sub,
            snapshot: true,
        };
        self.instance = instance.map(|i| i.to_string()).unwrap_or_default();
        let mut messages = Messages::default();
        let push = |messages: &mut Messages, mut event: pb::WatchEvent, sub| {
            event.resume_token = self.tokens.encode(at(sub));
            messages.push(&event);
        };
        // Positions: the lifecycle event is 1, the clusters' connectivity follows, then
        // the resources.
        let lifecycle = pb::WatchEvent {
            r#type: pb::WatchEventType::LifecycleChanged as i32,
            time: timestamp(now),
            state: result.state.to_string(),
            instance: self.instance_name(&self.instance),
            ..Default::default()
        };
        push(&mut messages, lifecycle, 1);
        let mut sub = 1;
        for (cluster, state) in connectivity {
            sub += 1;
            push(&mut messages, connectivity_event(&cluster, state, now), sub);
        }
        loop {
            for entry in std::mem::take(&mut result.entries) {
                sub += 1;
                push(&mut messages, resource_event(entry, now), sub);
            }
            let Some(after) = result.next.take() else {
                break;
            };
            result = self
                .status
                .query_on(
                    &mut tx,
                    &self.request.owner,
                    &query(&self.request, Some(after)),
                )
                .await?;
        }
        drop(tx);
        drop(turn);

        self.counts = result.counts.clone();
        self.counts_dirty = false;
        self.pos = revision;
        // The batch is empty (flushed above): the full messages go as they are, the
        // rest starts the batch COUNTS_CHANGED and SYNCED join.
        for (message, events) in messages.full {
            self.send_message(message).await?;
            DELIVERED.inc_by(events);
        }
        drop(slot);
        self.batch = messages.rest;
        self.last_sent = at(sub);
        sub += 1;
        let counts = self.counts_event(now);
        self.send_at(counts, at(sub)).await?;
        let synced = pb::WatchEvent {
            r#type: pb::WatchEventType::Synced as i32,
            time: timestamp(now),
            ..Default::default()
        };
        let done = Position {
            sub: token::DONE,
            ..Position::after(revision)
        };
        self.send_at(synced, done).await
    }

    /// Positions the stream after `position` without sending anything: the instance and
    /// counts as of that revision, then the derived events after `position.sub`.
    pub(super) async fn resume(&mut self, position: Position) -> std::result::Result<(), Stop> {
        let store = self.hub.store().clone();
        let turn = self.hub.snapshot_turn().await;
        let mut tx = store.snapshot().await?;
        let (now, compacted) = target_revision(&mut tx, &self.target).await?;
        if position.revision < compacted {
            return Err(Stop::Resync);
        }
        let current = self
            .status
            .query_on(&mut tx, &self.request.owner, &summary(&self.request))
            .await?;
        // Walk the events after the token: the first instance switch tells which
        // instance the stream was on; the deltas of that instance's matching events
        // lead from today's counts back to the token's.
        let mut instance_then: Option<String> = None;
        let mut deltas: BTreeMap<String, Counts> = BTreeMap::new();
        let mut at = position.revision;
        loop {
            let events = events_after(&mut tx, &self.target, at, now, CHUNK as i64).await?;
            if events.first().is_some_and(|e| e.revision != at + 1) {
                return Err(Stop::Resync);
            }
            let Some(last) = events.last() else { break };
            at = last.revision;
            for event in &events {
                match &event.payload {
                    Payload::Lifecycle {
                        instance, previous, ..
                    } if instance_then.is_none() && instance != previous => {
                        instance_then = Some(previous.clone());
                    }
                    Payload::Resource {
                        rendered, old, new, ..
                    } if self.matches(event) => {
                        let counts = deltas.entry(event.instance.clone()).or_default();
                        apply_delta(counts, *rendered, old.as_ref(), -1);
                        apply_delta(counts, *rendered, Some(new), 1);
                    }
                    _ => {}
                }
            }
        }
        if at != now {
            return Err(Stop::Resync);
        }
        // An instance switched away from after the token had its resources that the
        // new instance took over moved without events: count those as they were.
        let taken_over = instance_then.is_some();
        let instance = instance_then.unwrap_or_else(|| {
            current
                .instance
                .as_ref()
                .map(|i| i.id.to_string())
                .unwrap_or_default()
        });
        let mut counts = if instance.is_empty() {
            Counts::new()
        } else {
            let id: InstanceId = instance.parse().map_err(Error::internal)?;
            if instance_carried(&mut tx, id).await?.is_none() {
                // The instance the token was on has expired, with the rows its counts
                // are rebuilt from: start over.
                return Err(Stop::Resync);
            }
            let filter = self.sql_filter(&mut tx, id).await?;
            if taken_over {
                counts_before_takeover(&mut tx, id, &filter).await?
            } else if filter.names.is_empty() {
                counts_sum(&mut tx, id, &filter).await?
            } else {
                counts_from_rows(&mut tx, id, &filter, Shown::Own).await?
            }
        };
        for (key, delta) in deltas.remove(&instance).unwrap_or_default() {
            // The deltas were recorded forward; undo them.
            *counts.entry(key).or_default() -= delta;
        }
        counts.retain(|_, n| *n != 0);
        let at_event = if position.revision > 0 {
            events_after(
                &mut tx,
                &self.target,
                position.revision - 1,
                position.revision,
                1,
            )
            .await?
            .pop()
        } else {
            None
        };
        self.instance = instance;
        // Inside a transaction's events, the COUNTS_CHANGED due at its end is still
        // owed if an event of it up to the token moved the selection's counts.
        self.counts_dirty = false;
        if let Some(event) = &at_event
            && position.sub == 0
        {
            let batch = batch_events(&mut tx, &self.target, event.batch, event.revision).await?;
            self.counts_dirty = batch.iter().any(|e| {
                matches!(e.payload, Payload::Resource { .. })
                    && e.instance == self.instance
                    && self.matches(e)
            });
        }
        drop(tx);
        drop(turn);
        // A token at (or inside) an instance switch: the new instance's resources after
        // the token's sub-position are still owed (none were sent yet at sub 0).
        let switch = at_event.clone();
        self.counts = counts;
        self.pos = position.revision;
        self.last_sent = position;
        if let Some(event) = &at_event
            && position.sub == 0
            && event.batch == event.revision
        {
            // The token is the transaction's last event: its counts come next.
            self.flush_counts(event, true).await?;
        }
        if let Some(event) = switch
            && let Payload::Lifecycle {
                instance, previous, ..
            } = &event.payload
            && instance != previous
            && !instance.is_empty()
        {
            self.new_instance(&event, position.sub).await?;
        }
        Ok(())
    }
}
