//! One fleet: a RUNNING container cluster registered as a Flotilla cluster, served by
//! an embedded sim agent whose nodes are the cluster's VMs, so deployment intent
//! groups can be placed on it and actions run on its VMs. The registered cluster is
//! connected only while the container cluster runs (see `sim::embedded`).

use super::save::save;
use super::{ContainerClusters, View};
use crate::app::lifecycle::{ClusterView, Lifecycle};
use crate::domain::container_cluster::ClusterState;
use crate::domain::names::ResourceName;
use crate::domain::resources::{ClusterSpec, ConnectionMode, Labels};
use crate::error::{Conflict, Error, Precondition, Result, precondition};
use crate::ids::ContainerClusterId;

impl ContainerClusters {
    /// RegisterContainerCluster: creates the EMBEDDED_SIM cluster `cluster` for the
    /// RUNNING container cluster `id` and records the link on the container cluster.
    pub async fn register(
        &self,
        id: ContainerClusterId,
        cluster: ResourceName,
        labels: Labels,
        lifecycle: &Lifecycle,
    ) -> Result<ClusterView> {
        let view = self.get(id).await?;
        let name = view.cluster.name();
        if !view.cluster.status.registered.is_empty() {
            return Err(precondition!(
                Precondition::AlreadyRegistered,
                name.clone(),
                "{name} is registered as {} already",
                view.cluster.status.registered
            ));
        }
        if view.cluster.lifecycle.state != ClusterState::Running {
            return Err(Error::invalid_transition(
                &format!("container cluster {name}"),
                view.cluster.lifecycle.state,
                "register",
                "only a RUNNING cluster is registered",
            ));
        }
        let spec = ClusterSpec {
            description: format!("container cluster {} ({name})", view.cluster.display_name),
            labels,
            connection_mode: ConnectionMode::EmbeddedSim,
            container_cluster: id.to_string(),
        };
        let created = lifecycle.create_cluster(cluster, spec, None).await?;
        let registered = created.object.name.to_string();
        // Record the link; a verb racing with it only moves the cluster, so retry on a
        // lost compare-and-swap with what is stored.
        let mut current: View = view;
        for _ in 0..10 {
            let mut record = current.cluster.clone();
            record.status.registered = registered.clone();
            let mut tx = self.store.begin().await?;
            if save(
                &mut tx,
                &mut record,
                current.cluster.generation,
                &current.vms,
            )
            .await?
            {
                tx.commit().await?;
                return Ok(created);
            }
            drop(tx);
            current = self.get(id).await?;
        }
        Err(Error::Aborted {
            reason: Conflict::ConcurrentChange,
            message: format!("{name} kept changing while it was registered: retry"),
        })
    }
}
