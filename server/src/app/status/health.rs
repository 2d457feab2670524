//! The conditions (Cluster API semantics) of intent groups and clusters, recomputed
//! from the aggregates in the transactions that change them.

use super::*;
use crate::domain::names::ClusterName;
use crate::domain::readiness::Connectivity;
use crate::domain::status::{CountKey, Counts, count_of};
use crate::store::RowLock;

/// Recomputes and stores the conditions of `owner` (an intent group or a cluster).
pub async fn refresh_conditions(tx: &mut Tx, owner: &str) -> Result<()> {
    refresh(tx, owner, false).await
}

/// [`refresh_conditions`] after a write that changed only what clusters report
/// (cluster statuses and readiness, not rsync statuses, connectivity or refusals): of a
/// group's conditions only ResourcesReady (and the summary) can move, so the others
/// are kept as stored. A status ingest of a group with Failed or Retrying resources
/// would otherwise look up the clusters holding them in every ingest (a walk over the
/// instance's counts: 9 ms on PostgreSQL for 10,000 app × cluster pairs), and every
/// ingest reads the connectivity of every placed cluster.
pub async fn refresh_ready_conditions(tx: &mut Tx, owner: &str) -> Result<()> {
    refresh(tx, owner, true).await
}

async fn refresh(tx: &mut Tx, owner: &str, reports_only: bool) -> Result<()> {
    let now = now_micros();
    // On PostgreSQL, lock the owner's row first: concurrent transactions then recompute
    // one after the other, each seeing the aggregates the previous one committed. NO KEY
    // UPDATE, the lock the conditions' UPDATE takes anyway: a status write promotes its
    // KEY SHARE owner lock (see `lock_owners`); a verb already holds FOR UPDATE.
    let lock = RowLock::NoKeyUpdate;
    if let Ok(dig) = ResourceName::parse(&DEPLOYMENT_INTENT_GROUP, "owner", owner) {
        let Some(status) = dig_status(tx, &dig, lock).await? else {
            return Ok(());
        };
        let mut list = status.conditions.clone();
        let instantiated = status.state == DigState::Instantiated;
        match status.current_instance.filter(|_| instantiated) {
            Some(instance) => {
                let counts = counts_sum(tx, instance, &ResourceFilter::default()).await?;
                let kept = reports_only
                    && ["ResourcesApplied", "ClustersReachable"]
                        .iter()
                        .all(|t| list.iter().any(|c| c.type_ == *t));
                if !kept {
                    let at = worst_clusters(tx, instance, &counts).await?;
                    let errors = if count_of(&counts, CountKey::Rsync(RsyncStatus::Failed)) > 0 {
                        resource_errors_first(tx, instance, REFUSALS_NAMED).await?
                    } else {
                        Vec::new()
                    };
                    conditions::set(
                        &mut list,
                        applied_condition("ResourcesApplied", &counts, &at, &errors),
                        now,
                    );
                }
                conditions::set(&mut list, ready_condition(&counts), now);
                if !kept {
                    let placed = placed_connectivity(tx, instance, &[]).await?;
                    conditions::set(&mut list, reachable_condition(&placed), now);
                }
            }
            None => {
                for type_ in ["ResourcesApplied", "ResourcesReady", "ClustersReachable"] {
                    conditions::set(
                        &mut list,
                        Condition::unknown(
                            type_,
                            "NotInstantiated",
                            format!("the group is {}", status.state),
                        ),
                        now,
                    );
                }
            }
        }
        let ready = conditions::summary(&list, SummaryOptions { step_counter: true });
        conditions::set(&mut list, ready, now);
        object_set_conditions(tx, &dig, &list).await.map(drop)
    } else if let Ok(cluster) = ResourceName::parse(&CLUSTER, "owner", owner) {
        let Some(network) = cluster_network_status(tx, &cluster, lock).await? else {
            return Ok(());
        };
        let mut list = network.conditions.clone();
        let agent = match network.connectivity {
            Connectivity::Available => Condition::true_("AgentConnected"),
            Connectivity::Retrying => Condition::false_(
                "AgentConnected",
                Severity::Warning,
                "AgentDisconnected",
                "the agent session is down; rsync retries",
            ),
            Connectivity::Unknown => {
                Condition::unknown("AgentConnected", "NeverConnected", "no agent session yet")
            }
        };
        conditions::set(&mut list, agent, now);
        match (network.state, network.current_instance) {
            (NetworkState::Applied, Some(instance)) => {
                let counts = counts_sum(tx, instance, &ResourceFilter::default()).await?;
                conditions::set(
                    &mut list,
                    applied_condition("NetworkIntentsApplied", &counts, &[], &[]),
                    now,
                );
            }
            _ => conditions::set(&mut list, Condition::true_("NetworkIntentsApplied"), now),
        }
        let ready = conditions::summary(&list, SummaryOptions::default());
        conditions::set(&mut list, ready, now);
        object_set_conditions(tx, &cluster, &list).await.map(drop)
    } else {
        Ok(())
    }
}

/// The clusters holding the resources that make ResourcesApplied false (Failed, else
/// Retrying), read only when there are such resources.
async fn worst_clusters(
    tx: &mut Tx,
    instance: InstanceId,
    counts: &Counts,
) -> Result<Vec<ClusterName>> {
    for status in [RsyncStatus::Failed, RsyncStatus::Retrying] {
        if count_of(counts, CountKey::Rsync(status)) > 0 {
            return clusters_with_rsync_status(tx, instance, status, 4).await;
        }
    }
    Ok(Vec::new())
}

/// " on a, b" naming where (empty when unknown).
fn on_clusters(at: &[ClusterName]) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!(" on {}", at.join(", "))
    }
}

/// How many refusals the ResourcesApplied condition quotes.
const REFUSALS_NAMED: i64 = 3;

/// The Applied condition from the rsync counts; `at`: the clusters worst off;
/// `errors`: what clusters said of the first resources they refused.
pub(super) fn applied_condition(
    type_: &str,
    counts: &Counts,
    at: &[ClusterName],
    errors: &[String],
) -> Condition {
    let c = |status| count_of(counts, CountKey::Rsync(status));
    let total: i64 = RsyncStatus::ALL.into_iter().map(c).sum();
    let (failed, retrying, pending, applied) = (
        c(RsyncStatus::Failed),
        c(RsyncStatus::Retrying),
        c(RsyncStatus::Pending),
        c(RsyncStatus::Applied),
    );
    if failed > 0 {
        Condition::false_(
            type_,
            Severity::Error,
            "ApplyFailed",
            format!(
                "{failed} of {total} resources were rejected by their cluster{}{}",
                on_clusters(at),
                if errors.is_empty() {
                    String::new()
                } else {
                    format!("; {}", errors.join("; "))
                }
            ),
        )
    } else if retrying > 0 {
        Condition::false_(
            type_,
            Severity::Warning,
            RsyncStatus::Retrying.as_str(),
            format!(
                "{retrying} of {total} resources wait for an unreachable cluster{}",
                on_clusters(at)
            ),
        )
    } else if pending > 0 {
        Condition::false_(
            type_,
            Severity::Info,
            "Applying",
            format!("{applied} of {total} resources applied"),
        )
    } else {
        Condition::true_(type_)
    }
}

fn ready_condition(counts: &Counts) -> Condition {
    let c = |status| count_of(counts, CountKey::Cluster(status));
    let (present, not_present, unknown) = (
        c(ClusterStatus::Present),
        c(ClusterStatus::NotPresent),
        c(ClusterStatus::Unknown),
    );
    let ready = count_of(counts, CountKey::Readiness(Readiness::Ready));
    let not_ready = count_of(counts, CountKey::Readiness(Readiness::NotReady));
    let total = present + not_present + unknown;
    if not_present > 0 {
        Condition::false_(
            "ResourcesReady",
            Severity::Warning,
            ClusterStatus::NotPresent.as_str(),
            format!("{not_present} of {total} resources are missing from their cluster"),
        )
    } else if unknown > 0 {
        Condition::false_(
            "ResourcesReady",
            Severity::Info,
            "WaitingForClusterStatus",
            format!("{} of {total} resources reported", total - unknown),
        )
    } else if not_ready > 0 {
        Condition::false_(
            "ResourcesReady",
            Severity::Info,
            Readiness::NotReady.as_str(),
            format!("{ready} of {} resources ready", ready + not_ready),
        )
    } else {
        Condition::true_("ResourcesReady")
    }
}

fn reachable_condition(placed: &[(ClusterName, Connectivity)]) -> Condition {
    let down: Vec<&str> = placed
        .iter()
        .filter(|(_, c)| *c == Connectivity::Retrying)
        .map(|(n, _)| n.as_str())
        .collect();
    let unknown = placed
        .iter()
        .filter(|(_, c)| *c == Connectivity::Unknown)
        .count();
    if !down.is_empty() {
        Condition::false_(
            "ClustersReachable",
            Severity::Warning,
            "ClusterUnreachable",
            format!("unreachable: {}", down.join(", ")),
        )
    } else if unknown > 0 {
        Condition::false_(
            "ClustersReachable",
            Severity::Info,
            "WaitingForAgents",
            format!("{unknown} of {} clusters not yet connected", placed.len()),
        )
    } else {
        Condition::true_("ClustersReachable")
    }
}
