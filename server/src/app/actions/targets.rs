//! The first stage of a create on PostgreSQL: its target (the cluster, with the pod as
//! its agent reported it) is read before the create joins a write group, in a group of
//! its own with the other creates that arrive meanwhile (one statement a group), so a
//! write group holds its writer for its writes only.
//!
//! Invariant: reading ahead changes nothing a create can see. The write still checks,
//! under a lock, that the cluster exists, and a pod that disappears while its action is
//! open is failed by the action timer. SQLite's creates read their targets inside
//! their write group (its writer has the pages at hand; a read connection does not).
//! Why and the figures: docs/decisions/2026-11-29-actions-ahead-in-the-write-slot.md.

use std::sync::OnceLock;

use super::write::GROUP_CHANGES;
use super::{NewAction, pod_of};
use crate::domain::names::ClusterName;
use crate::error::Result;
use crate::store::Store;
use crate::store::action::{ActionCluster, action_clusters};
use crate::store::group_commit::{GroupCommit, GroupWriter};

/// A create's target as read ahead: its cluster, None if there is no such cluster.
pub(super) struct ReadTarget(pub(super) Option<ActionCluster>);

/// The queue of target reads.
pub(super) struct TargetReads {
    group: GroupCommit<Asked>,
}

/// One create's target, and what was found (set by the group that read it).
struct Asked {
    cluster: ClusterName,
    namespace: String,
    pod: String,
    found: OnceLock<Option<ActionCluster>>,
}

impl TargetReads {
    pub(super) fn new() -> TargetReads {
        TargetReads {
            // One read group at a time: each is a single statement, and whatever
            // queues while it runs goes in the next.
            group: GroupCommit::new(GROUP_CHANGES, |_| 1),
        }
    }

    /// Reads the target of `new` (with whatever else is queued).
    pub(super) async fn read(&self, store: &Store, new: &NewAction) -> Result<ReadTarget> {
        let (namespace, pod) = pod_of(new);
        let asked = Asked {
            cluster: new.cluster.clone(),
            namespace: namespace.to_string(),
            pod: pod.to_string(),
            found: OnceLock::new(),
        };
        let (asked, result) = self.group.submit(asked, &Reader(store)).await;
        result?;
        Ok(ReadTarget(
            asked
                .found
                .into_inner()
                .expect("set by the read that answered"),
        ))
    }
}

/// Reads a group's targets in one statement.
struct Reader<'a>(&'a Store);

impl GroupWriter<Asked> for Reader<'_> {
    async fn write(&self, items: &[&Asked]) -> Result<()> {
        let mut conn = self.0.read().await?;
        let targets: Vec<(&str, &str, &str)> = items
            .iter()
            .map(|a| (a.cluster.as_str(), a.namespace.as_str(), a.pod.as_str()))
            .collect();
        let found = action_clusters(&mut conn, &targets).await?;
        for (asked, found) in items.iter().zip(found) {
            let _ = asked.found.set(found);
        }
        Ok(())
    }
}
