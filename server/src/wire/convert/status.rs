//! Status answers: a status query's result, its counts and entries, and instances.

use flotilla_api::v1 as pb;

use super::{
    cluster_id_and_provider, cluster_status_to_proto, conditions_to_proto, count,
    json_into_view_struct, readiness_to_proto, rsync_status_to_proto, timestamp,
};
use crate::app::status::{Output, StatusEntry, StatusResult};
use crate::domain::names::{ClusterName, DEPLOYMENT_INTENT_GROUP};
use crate::domain::readiness::{ClusterStatus, Readiness};
use crate::domain::status::{CountKey, Counts, RsyncStatus, count_of};
use crate::store::instance::InstanceRow;

/// The three count messages of `counts`; cluster and readiness counts only
/// `with_cluster` (not for RSYNC output).
pub fn counts_to_proto(
    counts: &Counts,
    with_cluster: bool,
) -> (
    Option<pb::RsyncStatusCounts>,
    Option<pb::ClusterStatusCounts>,
    Option<pb::ReadinessCounts>,
) {
    let rsync = |status| count(count_of(counts, CountKey::Rsync(status)));
    let cluster = |status| count(count_of(counts, CountKey::Cluster(status)));
    let readiness = |value| count(count_of(counts, CountKey::Readiness(value)));
    (
        Some(pb::RsyncStatusCounts {
            pending: rsync(RsyncStatus::Pending),
            applied: rsync(RsyncStatus::Applied),
            failed: rsync(RsyncStatus::Failed),
            retrying: rsync(RsyncStatus::Retrying),
            terminated: rsync(RsyncStatus::Terminated),
            superseded: rsync(RsyncStatus::Superseded),
        }),
        with_cluster.then(|| pb::ClusterStatusCounts {
            present: cluster(ClusterStatus::Present),
            not_present: cluster(ClusterStatus::NotPresent),
            unknown: cluster(ClusterStatus::Unknown),
        }),
        with_cluster.then(|| pb::ReadinessCounts {
            ready: readiness(Readiness::Ready),
            not_ready: readiness(Readiness::NotReady),
        }),
    )
}

pub fn entry_to_proto(entry: &StatusEntry) -> pb::ResourceStatusEntry {
    entry_into_proto(entry.clone())
}

/// [`entry_to_proto`], moving the entry's strings instead of copying them (a page
/// converts up to 10,000 entries).
pub fn entry_into_proto(entry: StatusEntry) -> pb::ResourceStatusEntry {
    let object = |value: Option<serde_json::Value>| {
        value
            .filter(|v| v.is_object())
            .map(|v| json_into_view_struct(v, 2))
    };
    pb::ResourceStatusEntry {
        gvk: Some(pb::GroupVersionKind {
            group: entry.key.group,
            version: entry.version,
            kind: entry.key.kind,
        }),
        name: entry.key.name,
        namespace: entry.key.namespace,
        metadata: entry.metadata.map(|v| json_into_view_struct(v, 2)),
        spec: object(entry.spec),
        status: object(entry.status),
        rsync_status: rsync_status_to_proto(entry.rsync_status),
        cluster_status: cluster_status_to_proto(entry.cluster_status),
        readiness: readiness_to_proto(entry.readiness),
    }
}

pub fn status_to_proto(
    result: StatusResult,
    output: Output,
    next_page_token: String,
) -> pb::ResourceStatus {
    let owner = &result.owner;
    let is_dig = owner.kind() == &DEPLOYMENT_INTENT_GROUP;
    let mut resources: Vec<pb::AppResources> = Vec::new();
    // The cluster (full name) of the last entry: entries come grouped by app, then
    // cluster, so the name is split only when it changes.
    let mut last_cluster = ClusterName::default();
    for mut entry in result.entries {
        let app_name = std::mem::take(&mut entry.key.app);
        let new_app = resources.last().is_none_or(|a| a.app_name != app_name);
        if new_app {
            resources.push(pb::AppResources {
                app_name,
                clusters: Vec::new(),
            });
        }
        let app = resources.last_mut().expect("just pushed");
        if new_app || last_cluster != entry.key.cluster {
            let cluster = std::mem::take(&mut entry.key.cluster);
            let (id, provider) = cluster_id_and_provider(&cluster);
            app.clusters.push(pb::ClusterResources {
                name: id.to_string(),
                cluster_provider: provider.to_string(),
                resources: Vec::new(),
            });
            last_cluster = cluster;
        }
        app.clusters
            .last_mut()
            .expect("just pushed")
            .resources
            .push(entry_into_proto(entry));
    }
    let (rsync_status, cluster_status, readiness) =
        counts_to_proto(&result.counts, output != Output::Rsync);
    pb::ResourceStatus {
        name: owner.to_string(),
        project: if is_dig {
            owner.id_at(0).to_string()
        } else {
            String::new()
        },
        composite_app_name: if is_dig {
            owner.id_at(1).to_string()
        } else {
            String::new()
        },
        composite_app_version: if is_dig {
            owner.id_at(2).to_string()
        } else {
            String::new()
        },
        composite_profile_name: result.composite_profile.clone(),
        state: result.state.to_string(),
        instance: result
            .instance
            .as_ref()
            .map(|i| format!("{}/instances/{}", i.owner, i.id))
            .unwrap_or_default(),
        rsync_status,
        cluster_status,
        readiness,
        resources,
        conditions: conditions_to_proto(&result.conditions),
        next_page_token,
    }
}

pub fn instance_to_proto(row: &InstanceRow, current: bool) -> pb::Instance {
    pb::Instance {
        name: format!("{}/instances/{}", row.owner, row.id),
        id: row.id.to_string(),
        owner: row.owner.clone(),
        revision: row.revision,
        current,
        terminated: row.terminate_time.is_some(),
        resource_count: count(row.resource_count),
        create_time: timestamp(row.create_time),
        terminate_time: row.terminate_time.and_then(timestamp),
    }
}
