//! Embedded sim agents: for every EMBEDDED_SIM cluster the server runs an in-process sim
//! cluster and an agent that speaks gRPC to the server through an in-process pipe with
//! a token minted at start, so it goes through exactly the auth layer and session code
//! a remote agent uses (without a port, TLS or a plaintext side door).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::SimCluster;
use crate::agent::hub::AgentHub;
use crate::agent::runner::{AgentOptions, Dial, run_agent};
use crate::app::access::{Access, issue_agent_token};
use crate::domain::names::ClusterName;
use crate::domain::resources::{ClusterSpec, ConnectionMode};
use crate::error::Result;
use crate::ids::ContainerClusterId;
use crate::net::LocalConnector;
use crate::store::Store;
use crate::store::cluster::cluster_list_all;
use crate::store::container_cluster::cluster_vms;
use crate::watch::WatchHub;
use crate::watch::container_clusters::ClusterWatch;
use crate::watch::records;
use flotilla_api::v1 as pb;

/// The embedded sim agents of this server.
pub struct EmbeddedAgents {
    store: Store,
    access: Arc<Access>,
    connector: LocalConnector,
    pod_ready_delay: Duration,
    /// Nodes per sim cluster.
    nodes: usize,
    running: Mutex<HashMap<String, CancellationToken>>,
    shutdown: CancellationToken,
}

impl EmbeddedAgents {
    pub fn new(
        store: Store,
        access: Arc<Access>,
        connector: LocalConnector,
        pod_ready_delay: Duration,
        nodes: usize,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            access,
            connector,
            pod_ready_delay,
            nodes,
            running: Mutex::new(HashMap::new()),
            shutdown,
        })
    }

    /// Starts an agent for every EMBEDDED_SIM cluster in the database.
    pub async fn start_all(&self) -> Result<()> {
        let clusters = {
            let mut conn = self.store.read().await?;
            cluster_list_all(&mut conn).await?
        };
        for (cluster, body) in clusters {
            let embedded = serde_json::from_str::<ClusterSpec>(&body)
                .map(|spec| spec.connection_mode == ConnectionMode::EmbeddedSim)
                .unwrap_or(false);
            if embedded {
                self.start(&cluster).await?;
            }
        }
        Ok(())
    }

    /// Starts the agent of `cluster` if it is an EMBEDDED_SIM cluster (with replicas,
    /// the sim runs on the replica that runs the cluster, and moves with it).
    pub async fn start_if_embedded(&self, cluster: &str) -> Result<()> {
        let spec = {
            let mut conn = self.store.read().await?;
            crate::store::cluster::cluster_spec(&mut conn, &ClusterName::from(cluster)).await?
        };
        if spec.is_some_and(|spec| spec.connection_mode == ConnectionMode::EmbeddedSim) {
            self.start(cluster).await?;
        }
        Ok(())
    }

    /// Starts the agent of `cluster` with a fresh token (the sim cluster starts empty;
    /// rsync re-sends what it should hold).
    pub async fn start(&self, cluster: &str) -> Result<()> {
        let running = self
            .running
            .lock()
            .expect("running lock")
            .get(cluster)
            .is_some_and(|stop| !stop.is_cancelled());
        if running {
            return Ok(());
        }
        let token = {
            let mut tx = self.store.begin().await?;
            let (token, revoked) = issue_agent_token(&mut tx, &cluster.into()).await?;
            tx.commit().await?;
            self.access.forget(&revoked);
            token
        };
        let stop = self.shutdown.child_token();
        if let Some(previous) = self
            .running
            .lock()
            .expect("running lock")
            .insert(cluster.to_string(), stop.clone())
        {
            previous.cancel();
        }
        let (sim, changes) =
            SimCluster::with_nodes(self.pod_ready_delay, self.node_names(cluster).await?);
        let options = AgentOptions::new(
            Dial::Local(self.connector.clone()),
            cluster,
            flotilla_client::Token::new(token.expose()),
        );
        let name = cluster.to_string();
        info!(cluster = %name, "starting embedded sim agent");
        tokio::spawn(async move {
            if let Err(error) = run_agent(options, sim, changes, stop).await {
                warn!(cluster = %name, %error, "embedded sim agent stopped");
            }
        });
        Ok(())
    }

    /// The nodes of `cluster`'s sim: `<cluster>-node-<i>`, or the VMs of the container
    /// cluster it was registered from.
    async fn node_names(&self, cluster: &str) -> Result<Vec<String>> {
        let mut conn = self.store.read().await?;
        let spec =
            crate::store::cluster::cluster_spec(&mut conn, &ClusterName::from(cluster)).await?;
        let from = spec.map(|spec| spec.container_cluster).unwrap_or_default();
        if let Ok(id) = from.parse::<ContainerClusterId>() {
            let vms = cluster_vms(&mut conn, &[id]).await?;
            let names: Vec<String> = vms
                .get(&id)
                .map(|vms| vms.iter().map(|vm| vm.name.clone()).collect())
                .unwrap_or_default();
            if !names.is_empty() {
                return Ok(names);
            }
        }
        Ok(crate::sim::cluster::node_names(cluster, self.nodes))
    }

    /// Keeps the clusters registered from container clusters connected exactly while
    /// their container cluster runs (RUNNING, or ALERT, SCALING, RECOVERING: its VMs are
    /// up): it follows WatchContainerClusters' events (a snapshot first, so a restart
    /// applies the current states) and blocks or lets through the registered cluster's
    /// agent, whose session ends as a remote agent's would when its machines stop.
    pub fn follow_container_clusters(
        watch: Arc<WatchHub>,
        hub: Arc<AgentHub>,
        shutdown: CancellationToken,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                let stream = records::follow(watch.clone(), ClusterWatch::default()).await;
                match stream {
                    Ok(mut events) => loop {
                        let message = tokio::select! {
                            () = shutdown.cancelled() => return,
                            message = events.recv() => message,
                        };
                        let Some(Ok(message)) = message else { break };
                        for event in message.events {
                            let Some(cluster) = event.container_cluster else {
                                continue;
                            };
                            if cluster.registered_cluster.is_empty() {
                                continue;
                            }
                            let up = matches!(
                                pb::ContainerClusterState::try_from(cluster.state),
                                Ok(pb::ContainerClusterState::Running
                                    | pb::ContainerClusterState::Alert
                                    | pb::ContainerClusterState::Scaling
                                    | pb::ContainerClusterState::Recovering)
                            );
                            if up {
                                hub.reconnect(&cluster.registered_cluster);
                            } else {
                                hub.disconnect(&cluster.registered_cluster).await;
                            }
                        }
                    },
                    Err(error) => warn!(%error, "cannot follow container clusters; retrying"),
                }
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        })
    }

    /// Stops the agent of `cluster`.
    pub fn stop(&self, cluster: &str) {
        if let Some(stop) = self.running.lock().expect("running lock").remove(cluster) {
            stop.cancel();
        }
    }
}
