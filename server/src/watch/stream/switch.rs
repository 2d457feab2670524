//! A subscriber's switch to a new instance of its target, as a lifecycle event
//! announces it.

use super::*;

impl Subscriber {
    /// Switches to the instance a lifecycle event announced: the connectivity of the
    /// clusters it newly places, then its rendered resources as
    /// they started at that revision (Pending and Unknown; Applied with the statuses
    /// they were carried with for those a rollout carried over) after derived position
    /// `skip`, then its counts. A carried resource's DETAIL body is the one stored when
    /// the stream reads it (later changes of it follow as events anyway).
    pub(super) async fn new_instance(
        &mut self,
        event: &Event,
        skip: i64,
    ) -> std::result::Result<(), Stop> {
        let Payload::Lifecycle {
            instance, previous, ..
        } = &event.payload
        else {
            return Ok(());
        };
        let id: InstanceId = instance.parse().map_err(Error::internal)?;
        self.instance = instance.clone();
        self.counts_dirty = false;
        self.flush().await?;
        let turn = self.hub.read_turn().await;
        let mut conn = self.hub.store().read().await?;
        let filter = self.sql_filter(&mut conn, id).await?;
        // An instance expired since (--instance-retention) took its resources with
        // it: what the switch derived cannot be sent again, so the stream starts over
        // (RESYNC_REQUIRED and a fresh snapshot) rather than skip it.
        let Some(carried) = instance_carried(&mut conn, id).await? else {
            debug!(target = %self.target, %instance, "the instance switched to has expired");
            return Err(Stop::Resync);
        };
        let carried = carried > 0;
        // The clusters the new instance places that the previous one did not: the
        // stream has not announced their connectivity (a stream opened before the
        // first instance has announced none). Decided from the two instances, and
        // each with the state it had at the event's revision (what is stored now,
        // less the changes logged since, which follow as their own events), so a
        // resumed stream sends these events as the first one did.
        let before: std::collections::HashSet<ClusterName> = match previous.parse::<InstanceId>() {
            Ok(previous) => instance_clusters(&mut conn, previous)
                .await?
                .into_iter()
                .collect(),
            Err(_) => Default::default(),
        };
        let mut arriving: Vec<(ClusterName, Connectivity)> =
            placed_connectivity(&mut conn, id, &filter.clusters)
                .await?
                .into_iter()
                .filter(|(cluster, _)| {
                    !before.contains(cluster.as_str())
                        && self.request.selection.has_cluster(cluster)
                })
                .collect();
        if !arriving.is_empty() {
            let clusters = arriving.iter().map(|(c, _)| c.as_str()).collect();
            let then = connectivity_at(&mut conn, &self.target, event.revision, &clusters).await?;
            for (cluster, state) in &mut arriving {
                if let Some(was) = then.get(cluster.as_str()) {
                    *state = *was;
                }
            }
        }
        let start = if carried {
            start_counts(&mut conn, id, &filter).await?
        } else {
            let total = rendered_count(&mut conn, id, &filter).await?;
            vec![(String::new(), String::new(), total)]
        };
        drop(conn);
        drop(turn);
        self.counts = Counts::new();
        for (cluster_status, readiness, n) in start {
            let (rsync, cluster) = match cluster_status.as_str() {
                "" => (RsyncStatus::Pending, ClusterStatus::Unknown.as_str()),
                status => (RsyncStatus::Applied, status),
            };
            for (dimension, value) in [
                ("rsync", rsync.as_str()),
                ("cluster", cluster),
                ("readiness", readiness.as_str()),
            ] {
                if let Some(key) = CountKey::parse(dimension, value)
                    && n > 0
                {
                    *self.counts.entry(key).or_default() += n;
                }
            }
        }
        let mut sub = 0;
        for (cluster, state) in arriving {
            sub += 1;
            if sub <= skip {
                continue;
            }
            let message = connectivity_event(&cluster, state, event.time);
            let position = Position {
                sub,
                ..Position::after(event.revision)
            };
            self.send_at(message, position).await?;
        }
        let output = self.request.selection.output;
        if output != Output::Summary {
            let mut after: Option<ResourceKey> = None;
            loop {
                self.flush().await?;
                let turn = self.hub.read_turn().await;
                let mut conn = self.hub.store().read().await?;
                let of = KeyPage {
                    instance: id,
                    filter: &filter,
                    after: after.as_ref(),
                    limit: PAGE as i64,
                };
                let page = rsync_resources_at_start(&mut conn, of, output == Output::Rsync).await?;
                let mut bodies = std::collections::HashMap::new();
                if carried && output == Output::Detail {
                    let observed = rendered_reports_page(&mut conn, of).await?;
                    bodies.extend(observed.into_iter().map(|o| (o.key(), o)));
                }
                drop(conn);
                drop(turn);
                let Some(last) = page.last() else { break };
                after = Some(last.key());
                let full = page.len() == PAGE;
                for resource in page {
                    sub += 1;
                    if sub <= skip {
                        continue;
                    }
                    let key = resource.key();
                    // A carried resource (started Applied) has its cluster's report;
                    // the base's report of one that changed is of the old version.
                    let observed = bodies
                        .remove(&key)
                        .filter(|_| resource.status == RsyncStatus::Applied);
                    let entry = entry(key, Some(resource), observed, output);
                    let message = resource_event(entry, event.time);
                    let position = Position {
                        sub,
                        ..Position::after(event.revision)
                    };
                    self.send_at(message, position).await?;
                }
                if !full {
                    break;
                }
            }
        }
        sub += 1;
        if sub > skip {
            let message = self.counts_event(event.time);
            let position = Position {
                sub,
                ..Position::after(event.revision)
            };
            self.send_at(message, position).await?;
        }
        Ok(())
    }
}
