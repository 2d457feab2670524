//! SimulatorService: fault injection, served only when sim backends are enabled.
//! Disconnects act on the session hub; the other faults travel to the cluster's sim
//! agent through its session, so they work for embedded and remote sim agents alike.
//! With replicas, a call about a cluster another replica runs is passed to that one
//! through a nudge (`Nudge::Simulate`) and answered once the nudge is queued.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::simulator_command::Command;
use pb::simulator_service_server::SimulatorService;
use tonic::{Request, Response, Status};
use tracing::warn;

use super::check_size;
use crate::agent::AgentHub;
use crate::app::actions::Actions;
use crate::app::lifecycle::Lifecycle;
use crate::coord::{Nudge, SimulatorCall};
use crate::domain::names::CLUSTER;
use crate::domain::readiness::Connectivity;
use crate::domain::resources::ConnectionMode;
use crate::error::{Error, Precondition, Result, precondition};
use crate::infra::sim::SimIaas;
use crate::wire::convert::name;

type Rpc<T> = std::result::Result<Response<T>, Status>;

pub struct SimulatorApi {
    hub: Arc<AgentHub>,
    iaas: SimIaas,
    lifecycle: Lifecycle,
    actions: Actions,
}

impl SimulatorApi {
    pub fn new(hub: Arc<AgentHub>, iaas: SimIaas, lifecycle: Lifecycle, actions: Actions) -> Self {
        Self {
            hub,
            iaas,
            lifecycle,
            actions,
        }
    }

    /// The sim cluster `cluster` names: NOT_FOUND if there is no such cluster,
    /// FAILED_PRECONDITION unless it is simulated (an EMBEDDED_SIM cluster, or an AGENT
    /// cluster whose agent runs the sim backend): the simulator never touches a real
    /// cluster.
    async fn sim_cluster(&self, cluster: &str) -> Result<String> {
        Ok(self.sim_cluster_view(cluster).await?.0)
    }

    /// [`SimulatorApi::sim_cluster`] and whether its agent is connected.
    async fn sim_cluster_view(&self, cluster: &str) -> Result<(String, bool)> {
        let name = name(&CLUSTER, "cluster", cluster)?;
        let view = self
            .lifecycle
            .get_cluster(&name)
            .await
            .map_err(|error| error.found_through("cluster"))?;
        let cluster = name.to_string();
        let connected = view.network.connectivity == Connectivity::Available;
        if view.object.spec.connection_mode == ConnectionMode::EmbeddedSim {
            return Ok((cluster, connected));
        }
        // This replica's session knows the backend; otherwise the one the agent last
        // said (the replica that runs the cluster recorded it).
        let backend = self.hub.agent_backend(&cluster).or_else(|| {
            let known = &view.network.agent.backend;
            (!known.is_empty()).then(|| known.clone())
        });
        match backend.as_deref() {
            Some("sim") => Ok((cluster, connected)),
            Some(backend) => Err(precondition!(
                Precondition::NotASimCluster,
                cluster.clone(),
                "{cluster} is served by a {backend:?} agent; the simulator only touches sim clusters"
            )),
            None => Err(precondition!(
                Precondition::NotASimCluster,
                cluster.clone(),
                "{cluster} is an AGENT cluster whose agent has not connected since the \
                     server started, so it is not known to be a sim cluster"
            )),
        }
    }

    async fn command(&self, cluster: &str, command: Command) -> Result<()> {
        let (cluster, connected) = self.sim_cluster_view(cluster).await?;
        let command = pb::SimulatorCommand {
            command: Some(command),
        };
        if self.runs(&cluster) {
            return self.hub.sim_command(&cluster, command).await;
        }
        if !connected {
            return Err(precondition!(
                Precondition::ClusterNotConnected,
                cluster.clone(),
                "cluster {cluster} has no agent session"
            ));
        }
        let encoded = prost::Message::encode_to_vec(&command);
        self.pass_on(&cluster, SimulatorCall::Command { encoded })
            .await;
        Ok(())
    }

    /// Whether this replica runs `cluster`'s agent session (always, alone).
    fn runs(&self, cluster: &str) -> bool {
        self.hub.ownership().owns(cluster).is_some()
    }

    /// Passes `call` to the replica that runs `cluster`.
    async fn pass_on(&self, cluster: &str, call: SimulatorCall) {
        self.hub
            .ownership()
            .coordinator()
            .nudge(cluster, Nudge::Simulate { call })
            .await;
    }
}

/// Does a SimulatorService call that another replica passed on (see the module
/// documentation); its failures can only be logged.
pub async fn simulate(hub: &AgentHub, cluster: &str, call: SimulatorCall) {
    match call {
        SimulatorCall::Disconnect => hub.disconnect(cluster).await,
        SimulatorCall::Reconnect => hub.reconnect(cluster),
        SimulatorCall::Command { encoded } => {
            let outcome = match <pb::SimulatorCommand as prost::Message>::decode(&encoded[..]) {
                Ok(command) => hub.sim_command(cluster, command).await,
                Err(error) => Err(Error::internal(error)),
            };
            if let Err(error) = outcome {
                warn!(%cluster, %error, "a simulator call passed on by another replica failed");
            }
        }
    }
}

fn done(result: Result<()>) -> Rpc<()> {
    result.map(Response::new).map_err(Status::from)
}

/// `value`, refused when empty.
fn required(field: &str, value: &str) -> Result<()> {
    if value.is_empty() {
        return Err(Error::invalid(field, "is required"));
    }
    Ok(())
}

/// `value`, refused when negative.
fn not_negative(field: &str, value: i64) -> Result<()> {
    if value < 0 {
        return Err(Error::invalid(field, "must not be negative"));
    }
    Ok(())
}

#[tonic::async_trait]
impl SimulatorService for SimulatorApi {
    async fn disconnect_cluster(&self, request: Request<pb::DisconnectClusterRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        let cluster = self.sim_cluster(&req.cluster).await?;
        match self.runs(&cluster) {
            true => self.hub.disconnect(&cluster).await,
            false => self.pass_on(&cluster, SimulatorCall::Disconnect).await,
        }
        Ok(Response::new(()))
    }

    async fn reconnect_cluster(&self, request: Request<pb::ReconnectClusterRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        let cluster = self.sim_cluster(&req.cluster).await?;
        match self.runs(&cluster) {
            true => self.hub.reconnect(&cluster),
            false => self.pass_on(&cluster, SimulatorCall::Reconnect).await,
        }
        Ok(Response::new(()))
    }

    async fn fail_applies(&self, request: Request<pb::FailAppliesRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        let cluster = req.cluster.clone();
        done(self.command(&cluster, Command::FailApplies(req)).await)
    }

    async fn delete_pod(&self, request: Request<pb::DeletePodRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        if req.pod.is_empty() {
            return done(Err(Error::invalid("pod", "is required")));
        }
        let cluster = self.sim_cluster(&req.cluster).await?;
        // The server knows the cluster's pods from what its agent reports.
        if !self
            .actions
            .pod_reported(&cluster, &req.namespace, &req.pod)
            .await?
        {
            let namespace = if req.namespace.is_empty() {
                "default"
            } else {
                &req.namespace
            };
            return done(Err(Error::NotFound {
                kind: "Pod",
                name: format!("{cluster}/namespaces/{namespace}/pods/{}", req.pod),
                field: Some("pod".into()),
            }));
        }
        done(self.command(&cluster, Command::DeletePod(req)).await)
    }

    async fn set_pod_readiness_delay(
        &self,
        request: Request<pb::SetPodReadinessDelayRequest>,
    ) -> Rpc<()> {
        let req = check_size(request)?;
        not_negative("delay_millis", req.delay_millis)?;
        let cluster = req.cluster.clone();
        done(
            self.command(&cluster, Command::SetPodReadinessDelay(req))
                .await,
        )
    }

    async fn fail_actions(&self, request: Request<pb::FailActionsRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        if !matches!(req.action_name.as_str(), "" | "Reboot" | "Snapshot") {
            return done(Err(Error::invalid(
                "action_name",
                "must be \"Reboot\", \"Snapshot\" or empty for both",
            )));
        }
        let cluster = req.cluster.clone();
        done(self.command(&cluster, Command::FailActions(req)).await)
    }

    async fn stop_vm(&self, request: Request<pb::StopVmRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        required("vm_id", &req.vm_id)?;
        done(self.iaas.stop_out_of_band(&req.vm_id).await)
    }

    async fn delete_vm(&self, request: Request<pb::DeleteVmRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        required("vm_id", &req.vm_id)?;
        done(self.iaas.delete_out_of_band(&req.vm_id).await)
    }

    async fn set_zone_capacity(&self, request: Request<pb::SetZoneCapacityRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        required("zone_id", &req.zone_id)?;
        not_negative("capacity", req.capacity.into())?;
        done(
            self.iaas
                .set_zone_capacity(&req.zone_id, i64::from(req.capacity))
                .await,
        )
    }

    async fn set_host_reachable(&self, request: Request<pb::SetHostReachableRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        required("host", &req.host)?;
        done(self.iaas.set_host_reachable(&req.host, req.reachable).await)
    }

    async fn fail_infrastructure_operations(
        &self,
        request: Request<pb::FailInfrastructureOperationsRequest>,
    ) -> Rpc<()> {
        let req = check_size(request)?;
        not_negative("count", req.count.into())?;
        done(
            self.iaas
                .fail_next(&req.operation, i64::from(req.count))
                .await,
        )
    }
}
