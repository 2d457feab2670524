//! The permission table: what every RPC needs of its caller, in one place. The auth
//! layer enforces it; a unit test checks that every RPC in the API has exactly one
//! entry and that every field named here exists (a new RPC without an entry fails it),
//! and an end-to-end test walks every entry with every role.
//!
//! Fields are request field paths holding a resource name; the layer reads them from
//! the encoded request only when the caller's role makes them matter.

use std::sync::LazyLock;

use crate::domain::access::Need::{self, *};
use crate::domain::names::KINDS;

/// Services open to everyone, without a token: health and reflection.
pub const OPEN_SERVICES: [&str; 3] = [
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
];

/// `(service, method, need)` for every RPC of every Flotilla service: the rows below,
/// and the five rows of every nested kind derived from its declaration (a child is
/// read and written as its parent is).
pub static RULES: LazyLock<Vec<(&'static str, &'static str, Need)>> = LazyLock::new(|| {
    let mut rules = HAND_WRITTEN.to_vec();
    for kind in KINDS.iter().filter(|k| k.parent.is_some()) {
        let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
        let update_field = leak(format!("{}.name", kind.field));
        rules.extend([
            (kind.service, leak(kind.method("Create")), Write("parent")),
            (kind.service, leak(kind.method("Get")), Read("name")),
            (kind.service, leak(kind.method("List")), Read("parent")),
            (
                kind.service,
                leak(kind.method("Update")),
                Write(update_field),
            ),
            (kind.service, leak(kind.method("Delete")), Write("name")),
        ]);
    }
    rules
});

/// The rows no declaration implies: top-level kinds, verbs and the other services.
#[rustfmt::skip]
const HAND_WRITTEN: &[(&str, &str, Need)] = &[
    // --- LifecycleService --------------------------------------------------
    ("LifecycleService", "CreateProject", Admin("projects.manage")),
    ("LifecycleService", "GetProject", Read("name")),
    ("LifecycleService", "ListProjects", ListProjects),
    ("LifecycleService", "UpdateProject", Write("project.name")),
    ("LifecycleService", "DeleteProject", Admin("projects.manage")),
    ("LifecycleService", "ApproveDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "InstantiateDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "TerminateDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "RolloutDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "RollbackDeploymentIntentGroup", Write("name")),
    // The target is checked to be in the same composite app (so the same project).
    ("LifecycleService", "MigrateDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "CreateClusterProvider", Admin("infrastructure.write")),
    ("LifecycleService", "GetClusterProvider", Read("name")),
    ("LifecycleService", "ListClusterProviders", ReadInfrastructure),
    ("LifecycleService", "UpdateClusterProvider", Write("cluster_provider.name")),
    ("LifecycleService", "DeleteClusterProvider", Write("name")),
    ("LifecycleService", "RotateClusterAgentToken", Write("name")),
    ("LifecycleService", "ApplyClusterNetworkIntents", Write("name")),
    ("LifecycleService", "TerminateClusterNetworkIntents", Write("name")),
    ("LifecycleService", "ListRenderedResources", Read("parent")),
    // --- StatusService -----------------------------------------------------
    ("StatusService", "GetDeploymentIntentGroupStatus", Read("name")),
    ("StatusService", "GetClusterNetworkStatus", Read("name")),
    ("StatusService", "ListInstances", Read("name")),
    ("StatusService", "WatchStatus", Read("name")),
    // The handler sends only the groups of the projects the caller may read.
    ("StatusService", "WatchFleet", ListProjects),
    // --- ActionService -----------------------------------------------------
    ("ActionService", "CreatePodAction", WritePodActions("cluster")),
    ("ActionService", "CreateNodeAction", WriteActions("cluster")),
    ("ActionService", "GetAction", ReadActions("name")),
    ("ActionService", "ListActions", ReadActions("cluster")),
    ("ActionService", "WatchActions", ReadActions("cluster")),
    ("ActionService", "UpdateActionStatus", ReportActions("name")),
    ("ActionService", "CancelAction", WriteActions("name")),
    ("ActionService", "DeleteAction", WriteActions("name")),
    // --- ContainerClusterService -------------------------------------------
    ("ContainerClusterService", "CreateContainerCluster", Admin("infrastructure.write")),
    ("ContainerClusterService", "GetContainerCluster", Read("name")),
    ("ContainerClusterService", "ListContainerClusters", ReadInfrastructure),
    ("ContainerClusterService", "StartContainerCluster", Write("name")),
    ("ContainerClusterService", "StopContainerCluster", Write("name")),
    ("ContainerClusterService", "ScaleContainerCluster", Write("name")),
    ("ContainerClusterService", "RecoverContainerCluster", Write("name")),
    ("ContainerClusterService", "DeleteContainerCluster", Write("name")),
    ("ContainerClusterService", "WatchContainerClusters", ReadInfrastructure),
    ("ContainerClusterService", "GetContainerClusterCredentials", Admin("credentials.read")),
    ("ContainerClusterService", "RegisterContainerCluster", Admin("infrastructure.write")),
    ("ContainerClusterService", "ListZones", ReadInfrastructure),
    ("ContainerClusterService", "ListServiceOfferings", ReadInfrastructure),
    ("ContainerClusterService", "CreateSimInfrastructure", Admin("infrastructure.write")),
    ("ContainerClusterService", "GetSimInfrastructure", ReadInfrastructure),
    ("ContainerClusterService", "ListSimInfrastructures", ReadInfrastructure),
    ("ContainerClusterService", "DeleteSimInfrastructure", Admin("infrastructure.write")),
    // --- AccessService -----------------------------------------------------
    ("AccessService", "CreateToken", Admin("tokens.manage")),
    ("AccessService", "GetToken", Admin("tokens.manage")),
    ("AccessService", "ListTokens", Admin("tokens.manage")),
    ("AccessService", "RevokeToken", Admin("tokens.manage")),
    ("AccessService", "GetCurrentToken", Authenticated),
    // --- AgentService ------------------------------------------------------
    ("AgentService", "Connect", AgentSession),
    // --- SimulatorService --------------------------------------------------
    ("SimulatorService", "DisconnectCluster", Admin("simulator.use")),
    ("SimulatorService", "ReconnectCluster", Admin("simulator.use")),
    ("SimulatorService", "FailApplies", Admin("simulator.use")),
    ("SimulatorService", "DeletePod", Admin("simulator.use")),
    ("SimulatorService", "SetPodReadinessDelay", Admin("simulator.use")),
    ("SimulatorService", "FailActions", Admin("simulator.use")),
    ("SimulatorService", "StopVm", Admin("simulator.use")),
    ("SimulatorService", "DeleteVm", Admin("simulator.use")),
    ("SimulatorService", "SetZoneCapacity", Admin("simulator.use")),
    ("SimulatorService", "SetHostReachable", Admin("simulator.use")),
    ("SimulatorService", "FailInfrastructureOperations", Admin("simulator.use")),
];
