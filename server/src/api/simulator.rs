//! SimulatorService: fault injection, served only when sim backends are enabled.
//! Disconnects act on the session hub; the other faults travel to the cluster's sim
//! agent through its session, so they work for embedded and remote sim agents alike.

use std::sync::Arc;

use flotilla_api::v1 as pb;
use pb::simulator_command::Command;
use pb::simulator_service_server::SimulatorService;
use tonic::{Request, Response, Status};

use super::check_size;
use super::convert::name;
use crate::agent::AgentHub;
use crate::domain::names::CLUSTER;
use crate::error::{Error, Result};

type Rpc<T> = std::result::Result<Response<T>, Status>;

pub struct SimulatorApi {
    hub: Arc<AgentHub>,
}

impl SimulatorApi {
    pub fn new(hub: Arc<AgentHub>) -> Self {
        Self { hub }
    }

    async fn command(&self, cluster: &str, command: Command) -> Result<()> {
        let cluster = name(&CLUSTER, "cluster", cluster)?;
        self.hub
            .sim_command(
                &cluster.to_string(),
                pb::SimulatorCommand {
                    command: Some(command),
                },
            )
            .await
    }
}

fn done(result: Result<()>) -> Rpc<()> {
    result.map(Response::new).map_err(Status::from)
}

fn iaas_not_available() -> Rpc<()> {
    Err(Status::unimplemented(
        "the sim IaaS arrives with the ContainerClusterService",
    ))
}

#[tonic::async_trait]
impl SimulatorService for SimulatorApi {
    async fn disconnect_cluster(&self, request: Request<pb::DisconnectClusterRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        let cluster = name(&CLUSTER, "cluster", &req.cluster)?;
        self.hub.disconnect(&cluster.to_string()).await;
        Ok(Response::new(()))
    }

    async fn reconnect_cluster(&self, request: Request<pb::ReconnectClusterRequest>) -> Rpc<()> {
        let req = check_size(request)?;
        let cluster = name(&CLUSTER, "cluster", &req.cluster)?;
        self.hub.reconnect(&cluster.to_string());
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
        let cluster = req.cluster.clone();
        done(self.command(&cluster, Command::DeletePod(req)).await)
    }

    async fn set_pod_readiness_delay(
        &self,
        request: Request<pb::SetPodReadinessDelayRequest>,
    ) -> Rpc<()> {
        let req = check_size(request)?;
        if req.delay_millis < 0 {
            return done(Err(Error::invalid("delay_millis", "must not be negative")));
        }
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

    async fn stop_vm(&self, _request: Request<pb::StopVmRequest>) -> Rpc<()> {
        iaas_not_available()
    }

    async fn delete_vm(&self, _request: Request<pb::DeleteVmRequest>) -> Rpc<()> {
        iaas_not_available()
    }

    async fn set_zone_capacity(&self, _request: Request<pb::SetZoneCapacityRequest>) -> Rpc<()> {
        iaas_not_available()
    }

    async fn set_host_reachable(&self, _request: Request<pb::SetHostReachableRequest>) -> Rpc<()> {
        iaas_not_available()
    }
}
