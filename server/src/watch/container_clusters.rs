//! WatchContainerClusters: the container clusters (all but DESTROYED ones) as a
//! snapshot, SYNCED, then every create, change and destruction (`records`' contract),
//! optionally only of clusters in some states: an event of a cluster leaving those
//! states is sent too, so a client's view never keeps a cluster that left them.

use crate::store::Conn;
use flotilla_api::v1 as pb;

use super::records::{Kind, Records};
use crate::app::container_clusters::{CLUSTERS_TARGET, View};
use crate::domain::container_cluster::ClusterState;
use crate::error::{Error, Result};
use crate::store::container_cluster::{ClusterFilter, cluster_list, cluster_vms};
use crate::store::sim_infrastructure::cluster_infra;
use crate::store::watch::{Event, Payload};
use crate::wire::convert::container_cluster_to_proto;

/// What a WatchContainerClusters call asks for.
#[derive(Debug, Clone, Default)]
pub struct ClusterWatch {
    /// Empty: every state.
    pub states: Vec<ClusterState>,
}

impl ClusterWatch {
    fn wanted(&self, state: ClusterState) -> bool {
        self.states.is_empty() || self.states.contains(&state)
    }
}

#[tonic::async_trait]
impl Records for ClusterWatch {
    type Event = pb::ContainerClusterEvent;
    const KIND: &'static str = "container_clusters";
    const TARGET: &'static str = CLUSTERS_TARGET;

    async fn snapshot(&self, conn: &mut Conn) -> Result<Vec<pb::ContainerCluster>> {
        let clusters = cluster_list(conn, &ClusterFilter::default(), None, usize::MAX >> 1).await?;
        let clusters: Vec<_> = clusters
            .into_iter()
            .filter(|c| self.wanted(c.lifecycle.state))
            .collect();
        let ids: Vec<_> = clusters.iter().map(|c| c.id).collect();
        let mut vms = cluster_vms(conn, &ids).await?;
        let mut records = Vec::with_capacity(clusters.len());
        for cluster in clusters {
            let infra = cluster_infra(conn, &cluster).await?;
            let view = View {
                vms: vms.remove(&cluster.id).unwrap_or_default(),
                cluster,
                infra,
            };
            records.push(container_cluster_to_proto(&view));
        }
        Ok(records)
    }

    fn select(&self, event: &Event) -> Result<Option<(Kind, pb::ContainerCluster)>> {
        let Payload::ContainerCluster {
            change,
            previous,
            record,
        } = &event.payload
        else {
            return Ok(None);
        };
        let view: View = serde_json::from_str(record.text())
            .map_err(|e| Error::internal(format!("container cluster event: {e}")))?;
        let left = previous.is_some_and(|previous| self.wanted(previous));
        if !self.wanted(view.cluster.lifecycle.state) && !left {
            return Ok(None);
        }
        Ok(Some(((*change).into(), container_cluster_to_proto(&view))))
    }
}
