//! The permission table: what every RPC needs of its caller, in one place. The auth
//! layer enforces it; a unit test checks that every RPC in the API has exactly one
//! entry and that every field named here exists (a new RPC without an entry fails it),
//! and an end-to-end test walks every entry with every role.
//!
//! Fields are request field paths holding a resource name; the layer reads them from
//! the encoded request only when the caller's role makes them matter.

use crate::domain::access::Need::{self, *};

/// Services open to everyone, without a token: health and reflection.
pub const OPEN_SERVICES: [&str; 3] = [
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
];

/// `(service, method, need)` for every RPC of every Flotilla service.
#[rustfmt::skip]
pub const RULES: &[(&str, &str, Need)] = &[
    // --- LifecycleService --------------------------------------------------
    ("LifecycleService", "CreateProject", Admin("projects.manage")),
    ("LifecycleService", "GetProject", Read("name")),
    ("LifecycleService", "ListProjects", ListProjects),
    ("LifecycleService", "UpdateProject", Write("project.name")),
    ("LifecycleService", "DeleteProject", Admin("projects.manage")),
    ("LifecycleService", "CreateCompositeApp", Write("parent")),
    ("LifecycleService", "GetCompositeApp", Read("name")),
    ("LifecycleService", "ListCompositeApps", Read("parent")),
    ("LifecycleService", "UpdateCompositeApp", Write("composite_app.name")),
    ("LifecycleService", "DeleteCompositeApp", Write("name")),
    ("LifecycleService", "CreateApp", Write("parent")),
    ("LifecycleService", "GetApp", Read("name")),
    ("LifecycleService", "ListApps", Read("parent")),
    ("LifecycleService", "UpdateApp", Write("app.name")),
    ("LifecycleService", "DeleteApp", Write("name")),
    ("LifecycleService", "CreateCompositeProfile", Write("parent")),
    ("LifecycleService", "GetCompositeProfile", Read("name")),
    ("LifecycleService", "ListCompositeProfiles", Read("parent")),
    ("LifecycleService", "UpdateCompositeProfile", Write("composite_profile.name")),
    ("LifecycleService", "DeleteCompositeProfile", Write("name")),
    ("LifecycleService", "CreateAppProfile", Write("parent")),
    ("LifecycleService", "GetAppProfile", Read("name")),
    ("LifecycleService", "ListAppProfiles", Read("parent")),
    ("LifecycleService", "UpdateAppProfile", Write("app_profile.name")),
    ("LifecycleService", "DeleteAppProfile", Write("name")),
    ("LifecycleService", "CreateDeploymentIntentGroup", Write("parent")),
    ("LifecycleService", "GetDeploymentIntentGroup", Read("name")),
    ("LifecycleService", "ListDeploymentIntentGroups", Read("parent")),
    ("LifecycleService", "UpdateDeploymentIntentGroup", Write("deployment_intent_group.name")),
    ("LifecycleService", "DeleteDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "ApproveDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "InstantiateDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "TerminateDeploymentIntentGroup", Write("name")),
    ("LifecycleService", "CreatePlacementIntent", Write("parent")),
    ("LifecycleService", "GetPlacementIntent", Read("name")),
    ("LifecycleService", "ListPlacementIntents", Read("parent")),
    ("LifecycleService", "UpdatePlacementIntent", Write("placement_intent.name")),
    ("LifecycleService", "DeletePlacementIntent", Write("name")),
    ("LifecycleService", "CreateClusterProvider", Admin("infrastructure.write")),
    ("LifecycleService", "GetClusterProvider", Read("name")),
    ("LifecycleService", "ListClusterProviders", ReadInfrastructure),
    ("LifecycleService", "UpdateClusterProvider", Write("cluster_provider.name")),
    ("LifecycleService", "DeleteClusterProvider", Write("name")),
    ("LifecycleService", "CreateCluster", Write("parent")),
    ("LifecycleService", "GetCluster", Read("name")),
    ("LifecycleService", "ListClusters", Read("parent")),
    ("LifecycleService", "UpdateCluster", Write("cluster.name")),
    ("LifecycleService", "RotateClusterAgentToken", Write("name")),
    ("LifecycleService", "DeleteCluster", Write("name")),
    ("LifecycleService", "CreateNetworkIntent", Write("parent")),
    ("LifecycleService", "GetNetworkIntent", Read("name")),
    ("LifecycleService", "ListNetworkIntents", Read("parent")),
    ("LifecycleService", "UpdateNetworkIntent", Write("network_intent.name")),
    ("LifecycleService", "DeleteNetworkIntent", Write("name")),
    ("LifecycleService", "ApplyClusterNetworkIntents", Write("name")),
    ("LifecycleService", "TerminateClusterNetworkIntents", Write("name")),
    ("LifecycleService", "ListRenderedResources", Read("parent")),
    // --- StatusService -----------------------------------------------------
    ("StatusService", "GetDeploymentIntentGroupStatus", Read("name")),
    ("StatusService", "GetClusterNetworkStatus", Read("name")),
    ("StatusService", "ListInstances", Read("name")),
    ("StatusService", "WatchStatus", Read("name")),
    // --- ActionService -----------------------------------------------------
    ("ActionService", "CreatePodAction", WriteActions("cluster")),
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
];
