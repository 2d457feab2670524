import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Condition, Connectivity, GroupVersionKind } from "./common_pb.js";
import type { EmptySchema, FieldMask, Timestamp } from "@bufbuild/protobuf/wkt";
import type { JsonObject, Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/lifecycle.proto.
 */
export declare const file_flotilla_v1_lifecycle: GenFile;
/**
 * A project: the top-level container of composite apps. Name: `projects/{project}`.
 *
 * @generated from message flotilla.v1.Project
 */
export type Project = Message<"flotilla.v1.Project"> & {
    /**
     * The resource name, `projects/{project}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7), stable for the life of the resource.
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * User labels.
     *
     * @generated from field: map<string, string> labels = 4;
     */
    labels: {
        [key: string]: string;
    };
    /**
     * An opaque version tag; send it back in updates for optimistic concurrency.
     *
     * @generated from field: string etag = 5;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 6;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 7;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.Project.
 * Use `create(ProjectSchema)` to create a new message.
 */
export declare const ProjectSchema: GenMessage<Project>;
/**
 * A version of a composite app. Name: `projects/{p}/compositeApps/{ca}/versions/{v}`.
 *
 * @generated from message flotilla.v1.CompositeApp
 */
export type CompositeApp = Message<"flotilla.v1.CompositeApp"> & {
    /**
     * The resource name, `projects/{p}/compositeApps/{ca}/versions/{v}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 4;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 5;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 6;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.CompositeApp.
 * Use `create(CompositeAppSchema)` to create a new message.
 */
export declare const CompositeAppSchema: GenMessage<CompositeApp>;
/**
 * An app: a bundle of Kubernetes manifests. Name: `…/versions/{v}/apps/{app}`.
 *
 * @generated from message flotilla.v1.App
 */
export type App = Message<"flotilla.v1.App"> & {
    /**
     * The resource name, `projects/{p}/compositeApps/{ca}/versions/{v}/apps/{app}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * The manifests: multi-document YAML, or a JSON list of objects. Every document needs
     * `apiVersion`, `kind` and `metadata.name`. At most 1 MiB and 1,000 documents.
     *
     * @generated from field: string manifests = 4;
     */
    manifests: string;
    /**
     * Output only: how many documents `manifests` holds.
     *
     * @generated from field: int32 document_count = 5;
     */
    documentCount: number;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 6;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 7;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 8;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.App.
 * Use `create(AppSchema)` to create a new message.
 */
export declare const AppSchema: GenMessage<App>;
/**
 * A composite profile. Name: `…/versions/{v}/compositeProfiles/{cp}`.
 *
 * @generated from message flotilla.v1.CompositeProfile
 */
export type CompositeProfile = Message<"flotilla.v1.CompositeProfile"> & {
    /**
     * The resource name, `projects/{p}/compositeApps/{ca}/versions/{v}/compositeProfiles/{cp}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 4;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 5;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 6;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.CompositeProfile.
 * Use `create(CompositeProfileSchema)` to create a new message.
 */
export declare const CompositeProfileSchema: GenMessage<CompositeProfile>;
/**
 * A JSON merge patch (RFC 7386) applied to the matching manifests of an app.
 *
 * @generated from message flotilla.v1.ManifestPatch
 */
export type ManifestPatch = Message<"flotilla.v1.ManifestPatch"> & {
    /**
     * Only documents of this kind are patched; empty matches every kind.
     *
     * @generated from field: string target_kind = 1;
     */
    targetKind: string;
    /**
     * Only documents with this metadata.name are patched; empty matches every name.
     *
     * @generated from field: string target_name = 2;
     */
    targetName: string;
    /**
     * The merge patch: a JSON object. `null` values delete keys.
     *
     * @generated from field: google.protobuf.Struct merge_patch = 3;
     */
    mergePatch?: JsonObject | undefined;
};
/**
 * Describes the message flotilla.v1.ManifestPatch.
 * Use `create(ManifestPatchSchema)` to create a new message.
 */
export declare const ManifestPatchSchema: GenMessage<ManifestPatch>;
/**
 * An app profile. Name: `…/compositeProfiles/{cp}/appProfiles/{ap}`.
 *
 * @generated from message flotilla.v1.AppProfile
 */
export type AppProfile = Message<"flotilla.v1.AppProfile"> & {
    /**
     * The resource name, `…/versions/{v}/compositeProfiles/{cp}/appProfiles/{ap}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * The id of the app (in the same composite app version) this profile applies to.
     * At most one app profile per app in a composite profile.
     *
     * @generated from field: string app = 4;
     */
    app: string;
    /**
     * The patches, applied in order at render time.
     *
     * @generated from field: repeated flotilla.v1.ManifestPatch patches = 5;
     */
    patches: ManifestPatch[];
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 6;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 7;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 8;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.AppProfile.
 * Use `create(AppProfileSchema)` to create a new message.
 */
export declare const AppProfileSchema: GenMessage<AppProfile>;
/**
 * Per-app override values of a deployment intent group: patches applied after the
 * app profile's patches.
 *
 * @generated from message flotilla.v1.AppOverride
 */
export type AppOverride = Message<"flotilla.v1.AppOverride"> & {
    /**
     * The id of the app the patches apply to.
     *
     * @generated from field: string app = 1;
     */
    app: string;
    /**
     * The patches, applied in order.
     *
     * @generated from field: repeated flotilla.v1.ManifestPatch patches = 2;
     */
    patches: ManifestPatch[];
};
/**
 * Describes the message flotilla.v1.AppOverride.
 * Use `create(AppOverrideSchema)` to create a new message.
 */
export declare const AppOverrideSchema: GenMessage<AppOverride>;
/**
 * One entry of a deployment intent group's history: a verb that changed its state.
 *
 * @generated from message flotilla.v1.DeploymentIntentGroupEvent
 */
export type DeploymentIntentGroupEvent = Message<"flotilla.v1.DeploymentIntentGroupEvent"> & {
    /**
     * The state the verb led to (the same enum as the group's `state`).
     *
     * @generated from field: flotilla.v1.DeploymentIntentGroupState state = 1;
     */
    state: DeploymentIntentGroupState;
    /**
     * The instance the verb created or acted on; empty when none.
     *
     * @generated from field: string instance = 2;
     */
    instance: string;
    /**
     * When the verb was applied.
     *
     * @generated from field: google.protobuf.Timestamp time = 3;
     */
    time?: Timestamp | undefined;
    /**
     * The content revision of the group when the verb was applied (for UPDATED and
     * ROLLED_BACK: the revision the new instance was rendered from).
     *
     * @generated from field: int64 revision = 4;
     */
    revision: bigint;
    /**
     * What happened.
     *
     * @generated from field: flotilla.v1.DeploymentIntentGroupEventKind kind = 5;
     */
    kind: DeploymentIntentGroupEventKind;
};
/**
 * Describes the message flotilla.v1.DeploymentIntentGroupEvent.
 * Use `create(DeploymentIntentGroupEventSchema)` to create a new message.
 */
export declare const DeploymentIntentGroupEventSchema: GenMessage<DeploymentIntentGroupEvent>;
/**
 * A change of an instantiated group not yet rolled out: one resource the running
 * instance was rendered from (or would be now).
 *
 * @generated from message flotilla.v1.PendingChange
 */
export type PendingChange = Message<"flotilla.v1.PendingChange"> & {
    /**
     * The resource name (the group itself, a placement intent, an app, a composite or
     * app profile).
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * How it differs from what the running instance was rendered from.
     *
     * @generated from field: flotilla.v1.PendingChangeKind kind = 2;
     */
    kind: PendingChangeKind;
};
/**
 * Describes the message flotilla.v1.PendingChange.
 * Use `create(PendingChangeSchema)` to create a new message.
 */
export declare const PendingChangeSchema: GenMessage<PendingChange>;
/**
 * A deployment intent group: an instantiation of a composite app version with a
 * composite profile, override values and placement intents.
 * Name: `…/versions/{v}/deploymentIntentGroups/{dig}`.
 *
 * @generated from message flotilla.v1.DeploymentIntentGroup
 */
export type DeploymentIntentGroup = Message<"flotilla.v1.DeploymentIntentGroup"> & {
    /**
     * The resource name, `projects/{p}/compositeApps/{ca}/versions/{v}/deploymentIntentGroups/{dig}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * The id of the composite profile (in the same composite app version) used at render time.
     *
     * @generated from field: string composite_profile = 4;
     */
    compositeProfile: string;
    /**
     * Per-app override values, applied after the profile's patches.
     *
     * @generated from field: repeated flotilla.v1.AppOverride override_values = 5;
     */
    overrideValues: AppOverride[];
    /**
     * Output only: the lifecycle state.
     *
     * @generated from field: flotilla.v1.DeploymentIntentGroupState state = 6;
     */
    state: DeploymentIntentGroupState;
    /**
     * Output only: the current (last) instance id; empty before the first instantiate.
     *
     * @generated from field: string current_instance = 7;
     */
    currentInstance: string;
    /**
     * Output only: every lifecycle verb applied so far, oldest first.
     *
     * @generated from field: repeated flotilla.v1.DeploymentIntentGroupEvent history = 8;
     */
    history: DeploymentIntentGroupEvent[];
    /**
     * Output only: the content revision; bumped by every change of the group, its
     * intents, or the apps and profiles it uses.
     *
     * @generated from field: int64 revision = 9;
     */
    revision: bigint;
    /**
     * Output only: the hash of the content pinned by the last approval.
     *
     * @generated from field: string approved_content_hash = 10;
     */
    approvedContentHash: string;
    /**
     * Output only: conditions (Ready, ResourcesApplied, ResourcesReady, ClustersReachable).
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 11;
     */
    conditions: Condition[];
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 12;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 13;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 14;
     */
    updateTime?: Timestamp | undefined;
    /**
     * Output only: the content revision the running (current) instance was rendered
     * from; 0 before the first instantiate.
     *
     * @generated from field: int64 running_revision = 15;
     */
    runningRevision: bigint;
    /**
     * Output only: while INSTANTIATED, what changed since the running instance was
     * rendered (the pending revision); empty when nothing is pending.
     *
     * @generated from field: repeated flotilla.v1.PendingChange pending_changes = 16;
     */
    pendingChanges: PendingChange[];
    /**
     * Output only: whether the pending revision is approved (RolloutDeploymentIntentGroup
     * renders only approved content).
     *
     * @generated from field: bool pending_approved = 17;
     */
    pendingApproved: boolean;
};
/**
 * Describes the message flotilla.v1.DeploymentIntentGroup.
 * Use `create(DeploymentIntentGroupSchema)` to create a new message.
 */
export declare const DeploymentIntentGroupSchema: GenMessage<DeploymentIntentGroup>;
/**
 * Where one app of a deployment intent group runs: a cluster provider plus either
 * explicit cluster names or a label selector over cluster labels.
 * Name: `…/deploymentIntentGroups/{dig}/placementIntents/{pi}`.
 *
 * @generated from message flotilla.v1.PlacementIntent
 */
export type PlacementIntent = Message<"flotilla.v1.PlacementIntent"> & {
    /**
     * The resource name, `…/deploymentIntentGroups/{dig}/placementIntents/{pi}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * The id of the app this intent places.
     *
     * @generated from field: string app = 4;
     */
    app: string;
    /**
     * The id of the cluster provider whose clusters are candidates.
     *
     * @generated from field: string cluster_provider = 5;
     */
    clusterProvider: string;
    /**
     * Explicit cluster ids under the provider. Exactly one of cluster_names and
     * cluster_selector must be set.
     *
     * @generated from field: repeated string cluster_names = 6;
     */
    clusterNames: string[];
    /**
     * Select every cluster of the provider whose labels contain all these pairs.
     *
     * @generated from field: map<string, string> cluster_selector = 7;
     */
    clusterSelector: {
        [key: string]: string;
    };
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 8;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 9;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 10;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.PlacementIntent.
 * Use `create(PlacementIntentSchema)` to create a new message.
 */
export declare const PlacementIntentSchema: GenMessage<PlacementIntent>;
/**
 * A cluster provider: a named group of member clusters. Name: `clusterProviders/{cp}`.
 *
 * @generated from message flotilla.v1.ClusterProvider
 */
export type ClusterProvider = Message<"flotilla.v1.ClusterProvider"> & {
    /**
     * The resource name, `clusterProviders/{cp}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * User labels.
     *
     * @generated from field: map<string, string> labels = 4;
     */
    labels: {
        [key: string]: string;
    };
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 5;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 6;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 7;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.ClusterProvider.
 * Use `create(ClusterProviderSchema)` to create a new message.
 */
export declare const ClusterProviderSchema: GenMessage<ClusterProvider>;
/**
 * One entry of a cluster's network intents history: a verb that changed their state.
 *
 * @generated from message flotilla.v1.NetworkIntentsEvent
 */
export type NetworkIntentsEvent = Message<"flotilla.v1.NetworkIntentsEvent"> & {
    /**
     * The state the verb led to (the same enum as the cluster's `network_intents_state`).
     *
     * @generated from field: flotilla.v1.NetworkIntentsState state = 1;
     */
    state: NetworkIntentsState;
    /**
     * The instance the verb created or acted on; empty when none.
     *
     * @generated from field: string instance = 2;
     */
    instance: string;
    /**
     * When the verb was applied.
     *
     * @generated from field: google.protobuf.Timestamp time = 3;
     */
    time?: Timestamp | undefined;
    /**
     * The content revision of the cluster's network intents when the verb was applied.
     *
     * @generated from field: int64 revision = 4;
     */
    revision: bigint;
};
/**
 * Describes the message flotilla.v1.NetworkIntentsEvent.
 * Use `create(NetworkIntentsEventSchema)` to create a new message.
 */
export declare const NetworkIntentsEventSchema: GenMessage<NetworkIntentsEvent>;
/**
 * A member cluster. Name: `clusterProviders/{cp}/clusters/{c}`.
 *
 * @generated from message flotilla.v1.Cluster
 */
export type Cluster = Message<"flotilla.v1.Cluster"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * Labels, matched by placement intent selectors.
     *
     * @generated from field: map<string, string> labels = 4;
     */
    labels: {
        [key: string]: string;
    };
    /**
     * How the server reaches the cluster; immutable after create.
     *
     * @generated from field: flotilla.v1.ConnectionMode connection_mode = 5;
     */
    connectionMode: ConnectionMode;
    /**
     * Output only: the state of the cluster's network intents.
     *
     * @generated from field: flotilla.v1.NetworkIntentsState network_intents_state = 6;
     */
    networkIntentsState: NetworkIntentsState;
    /**
     * Output only: the current (last) network intents instance id.
     *
     * @generated from field: string current_network_instance = 7;
     */
    currentNetworkInstance: string;
    /**
     * Output only: every network intents verb applied so far, oldest first.
     *
     * @generated from field: repeated flotilla.v1.NetworkIntentsEvent network_history = 8;
     */
    networkHistory: NetworkIntentsEvent[];
    /**
     * Output only: conditions (Ready, AgentConnected, NetworkIntentsApplied).
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 9;
     */
    conditions: Condition[];
    /**
     * Output only: the content revision of the cluster's network intents.
     *
     * @generated from field: int64 revision = 10;
     */
    revision: bigint;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 11;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 12;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 13;
     */
    updateTime?: Timestamp | undefined;
    /**
     * Output only, and only in the responses of CreateCluster and RotateClusterAgentToken
     * of AGENT clusters: the token the cluster's agent presents as
     * `authorization: Bearer <token>`. It is stored hashed and never shown again.
     *
     * @generated from field: string agent_token = 14;
     */
    agentToken: string;
    /**
     * Output only: whether the cluster's agent session is up, as tracked by rsync.
     *
     * @generated from field: flotilla.v1.Connectivity connectivity = 15;
     */
    connectivity: Connectivity;
    /**
     * Output only: the backend the cluster's last agent drives: `sim` or `kube`.
     *
     * @generated from field: string agent_backend = 16;
     */
    agentBackend: string;
    /**
     * Output only: the cluster's version as its last agent reported it (a Kubernetes
     * API server's gitVersion, e.g. "v1.33.2"); empty for sim clusters.
     *
     * @generated from field: string cluster_version = 17;
     */
    clusterVersion: string;
    /**
     * Output only: the cluster's nodes as its last agent reported them.
     *
     * @generated from field: repeated string nodes = 18;
     */
    nodes: string[];
};
/**
 * Describes the message flotilla.v1.Cluster.
 * Use `create(ClusterSchema)` to create a new message.
 */
export declare const ClusterSchema: GenMessage<Cluster>;
/**
 * An IPv4 subnet of a network.
 *
 * @generated from message flotilla.v1.Ipv4Subnet
 */
export type Ipv4Subnet = Message<"flotilla.v1.Ipv4Subnet"> & {
    /**
     * The subnet's name, an RFC 1123 label.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The subnet in CIDR notation, e.g. "172.16.33.0/24".
     *
     * @generated from field: string subnet = 2;
     */
    subnet: string;
    /**
     * The gateway in CIDR notation inside the subnet, e.g. "172.16.33.1/24".
     *
     * @generated from field: string gateway = 3;
     */
    gateway: string;
    /**
     * Addresses or ranges ("a.b.c.d" or "a.b.c.d..a.b.c.e") never allocated.
     *
     * @generated from field: repeated string exclude_ips = 4;
     */
    excludeIps: string[];
};
/**
 * Describes the message flotilla.v1.Ipv4Subnet.
 * Use `create(Ipv4SubnetSchema)` to create a new message.
 */
export declare const Ipv4SubnetSchema: GenMessage<Ipv4Subnet>;
/**
 * A virtual network (rendered as an ovn4nfv `Network` CR).
 *
 * @generated from message flotilla.v1.NetworkSpec
 */
export type NetworkSpec = Message<"flotilla.v1.NetworkSpec"> & {
    /**
     * The CNI that implements the network, e.g. "ovn4nfv".
     *
     * @generated from field: string cni_type = 1;
     */
    cniType: string;
    /**
     * The subnets; at least one.
     *
     * @generated from field: repeated flotilla.v1.Ipv4Subnet ipv4_subnets = 2;
     */
    ipv4Subnets: Ipv4Subnet[];
};
/**
 * Describes the message flotilla.v1.NetworkSpec.
 * Use `create(NetworkSpecSchema)` to create a new message.
 */
export declare const NetworkSpecSchema: GenMessage<NetworkSpec>;
/**
 * VLAN settings of a provider network.
 *
 * @generated from message flotilla.v1.Vlan
 */
export type Vlan = Message<"flotilla.v1.Vlan"> & {
    /**
     * The VLAN id, 1..4094.
     *
     * @generated from field: int32 vlan_id = 1;
     */
    vlanId: number;
    /**
     * The node interface carrying the VLAN, e.g. "eth1".
     *
     * @generated from field: string provider_interface_name = 2;
     */
    providerInterfaceName: string;
    /**
     * The name of the VLAN interface created on the nodes, e.g. "eth1.100".
     *
     * @generated from field: string logical_interface_name = 3;
     */
    logicalInterfaceName: string;
    /**
     * "all" to create it on every node, "specific" to use node_label_list.
     *
     * @generated from field: string vlan_node_selector = 4;
     */
    vlanNodeSelector: string;
    /**
     * Node labels ("key=value") selecting the nodes when vlan_node_selector is "specific".
     *
     * @generated from field: repeated string node_label_list = 5;
     */
    nodeLabelList: string[];
};
/**
 * Describes the message flotilla.v1.Vlan.
 * Use `create(VlanSchema)` to create a new message.
 */
export declare const VlanSchema: GenMessage<Vlan>;
/**
 * A provider network (rendered as an ovn4nfv `ProviderNetwork` CR).
 *
 * @generated from message flotilla.v1.ProviderNetworkSpec
 */
export type ProviderNetworkSpec = Message<"flotilla.v1.ProviderNetworkSpec"> & {
    /**
     * The CNI that implements the network, e.g. "ovn4nfv".
     *
     * @generated from field: string cni_type = 1;
     */
    cniType: string;
    /**
     * The subnets; at least one.
     *
     * @generated from field: repeated flotilla.v1.Ipv4Subnet ipv4_subnets = 2;
     */
    ipv4Subnets: Ipv4Subnet[];
    /**
     * VLAN or DIRECT.
     *
     * @generated from field: flotilla.v1.ProviderNetworkType provider_net_type = 3;
     */
    providerNetType: ProviderNetworkType;
    /**
     * VLAN settings; required when provider_net_type is VLAN.
     *
     * @generated from field: flotilla.v1.Vlan vlan = 4;
     */
    vlan?: Vlan | undefined;
};
/**
 * Describes the message flotilla.v1.ProviderNetworkSpec.
 * Use `create(ProviderNetworkSpecSchema)` to create a new message.
 */
export declare const ProviderNetworkSpecSchema: GenMessage<ProviderNetworkSpec>;
/**
 * A network intent of a cluster. Name: `clusterProviders/{cp}/clusters/{c}/networkIntents/{ni}`.
 *
 * @generated from message flotilla.v1.NetworkIntent
 */
export type NetworkIntent = Message<"flotilla.v1.NetworkIntent"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}/networkIntents/{ni}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * What the intent describes; exactly one must be set.
     *
     * @generated from oneof flotilla.v1.NetworkIntent.spec
     */
    spec: {
        /**
         * A virtual network.
         *
         * @generated from field: flotilla.v1.NetworkSpec network = 4;
         */
        value: NetworkSpec;
        case: "network";
    } | {
        /**
         * A provider network.
         *
         * @generated from field: flotilla.v1.ProviderNetworkSpec provider_network = 5;
         */
        value: ProviderNetworkSpec;
        case: "providerNetwork";
    } | {
        case: undefined;
        value?: undefined;
    };
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 6;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 7;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 8;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.NetworkIntent.
 * Use `create(NetworkIntentSchema)` to create a new message.
 */
export declare const NetworkIntentSchema: GenMessage<NetworkIntent>;
/**
 * A set of key-value pairs attached to a cluster (EMCO's cluster kv pairs). Name:
 * `clusterProviders/{cp}/clusters/{c}/kvPairs/{kv}`.
 *
 * @generated from message flotilla.v1.ClusterKvPair
 */
export type ClusterKvPair = Message<"flotilla.v1.ClusterKvPair"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}/kvPairs/{kv}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A server-assigned UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 3;
     */
    description: string;
    /**
     * The pairs: keys are non-empty.
     *
     * @generated from field: map<string, string> pairs = 4;
     */
    pairs: {
        [key: string]: string;
    };
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 5;
     */
    etag: string;
    /**
     * When the resource was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 6;
     */
    createTime?: Timestamp | undefined;
    /**
     * When the resource was last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 7;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.ClusterKvPair.
 * Use `create(ClusterKvPairSchema)` to create a new message.
 */
export declare const ClusterKvPairSchema: GenMessage<ClusterKvPair>;
/**
 * One rendered (rsync) resource of an instance.
 *
 * @generated from message flotilla.v1.RenderedResource
 */
export type RenderedResource = Message<"flotilla.v1.RenderedResource"> & {
    /**
     * The app the resource belongs to ("network-intents" for network intents).
     *
     * @generated from field: string app = 1;
     */
    app: string;
    /**
     * The id of the destination cluster.
     *
     * @generated from field: string cluster = 2;
     */
    cluster: string;
    /**
     * The id of the destination cluster's provider.
     *
     * @generated from field: string cluster_provider = 3;
     */
    clusterProvider: string;
    /**
     * The resource's group/version/kind.
     *
     * @generated from field: flotilla.v1.GroupVersionKind gvk = 4;
     */
    gvk?: GroupVersionKind | undefined;
    /**
     * The namespace; empty for cluster-scoped resources and the default namespace.
     *
     * @generated from field: string namespace = 5;
     */
    namespace: string;
    /**
     * metadata.name of the resource.
     *
     * @generated from field: string resource_name = 6;
     */
    resourceName: string;
    /**
     * The rendered manifest, with profile patches and the deployment-id label applied.
     *
     * @generated from field: google.protobuf.Struct manifest = 7;
     */
    manifest?: JsonObject | undefined;
    /**
     * The rsync status.
     *
     * @generated from field: flotilla.v1.RsyncStatus rsync_status = 8;
     */
    rsyncStatus: RsyncStatus;
};
/**
 * Describes the message flotilla.v1.RenderedResource.
 * Use `create(RenderedResourceSchema)` to create a new message.
 */
export declare const RenderedResourceSchema: GenMessage<RenderedResource>;
/**
 * Request of CreateProject.
 *
 * @generated from message flotilla.v1.CreateProjectRequest
 */
export type CreateProjectRequest = Message<"flotilla.v1.CreateProjectRequest"> & {
    /**
     * The id of the new project, an RFC 1123 label (1-63 chars).
     *
     * @generated from field: string project_id = 1;
     */
    projectId: string;
    /**
     * The project; its name is ignored.
     *
     * @generated from field: flotilla.v1.Project project = 2;
     */
    project?: Project | undefined;
    /**
     * Idempotency key: a retry with the same id returns the first result.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateProjectRequest.
 * Use `create(CreateProjectRequestSchema)` to create a new message.
 */
export declare const CreateProjectRequestSchema: GenMessage<CreateProjectRequest>;
/**
 * Request of GetProject.
 *
 * @generated from message flotilla.v1.GetProjectRequest
 */
export type GetProjectRequest = Message<"flotilla.v1.GetProjectRequest"> & {
    /**
     * The resource name, `projects/{project}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetProjectRequest.
 * Use `create(GetProjectRequestSchema)` to create a new message.
 */
export declare const GetProjectRequestSchema: GenMessage<GetProjectRequest>;
/**
 * Request of ListProjects.
 *
 * @generated from message flotilla.v1.ListProjectsRequest
 */
export type ListProjectsRequest = Message<"flotilla.v1.ListProjectsRequest"> & {
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 1;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call; empty for the first page.
     *
     * @generated from field: string page_token = 2;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListProjectsRequest.
 * Use `create(ListProjectsRequestSchema)` to create a new message.
 */
export declare const ListProjectsRequestSchema: GenMessage<ListProjectsRequest>;
/**
 * Response of ListProjects.
 *
 * @generated from message flotilla.v1.ListProjectsResponse
 */
export type ListProjectsResponse = Message<"flotilla.v1.ListProjectsResponse"> & {
    /**
     * The projects of this page.
     *
     * @generated from field: repeated flotilla.v1.Project projects = 1;
     */
    projects: Project[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListProjectsResponse.
 * Use `create(ListProjectsResponseSchema)` to create a new message.
 */
export declare const ListProjectsResponseSchema: GenMessage<ListProjectsResponse>;
/**
 * Request of UpdateProject.
 *
 * @generated from message flotilla.v1.UpdateProjectRequest
 */
export type UpdateProjectRequest = Message<"flotilla.v1.UpdateProjectRequest"> & {
    /**
     * The project, identified by its name.
     *
     * @generated from field: flotilla.v1.Project project = 1;
     */
    project?: Project | undefined;
    /**
     * The fields to update: "description", "labels"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateProjectRequest.
 * Use `create(UpdateProjectRequestSchema)` to create a new message.
 */
export declare const UpdateProjectRequestSchema: GenMessage<UpdateProjectRequest>;
/**
 * Request of DeleteProject.
 *
 * @generated from message flotilla.v1.DeleteProjectRequest
 */
export type DeleteProjectRequest = Message<"flotilla.v1.DeleteProjectRequest"> & {
    /**
     * The resource name, `projects/{project}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, the delete happens only if it matches the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteProjectRequest.
 * Use `create(DeleteProjectRequestSchema)` to create a new message.
 */
export declare const DeleteProjectRequestSchema: GenMessage<DeleteProjectRequest>;
/**
 * Request of CreateCompositeApp.
 *
 * @generated from message flotilla.v1.CreateCompositeAppRequest
 */
export type CreateCompositeAppRequest = Message<"flotilla.v1.CreateCompositeAppRequest"> & {
    /**
     * The parent project, `projects/{project}`.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the composite app, an RFC 1123 label.
     *
     * @generated from field: string composite_app_id = 2;
     */
    compositeAppId: string;
    /**
     * The id of the version, an RFC 1123 label, e.g. "v1".
     *
     * @generated from field: string version_id = 3;
     */
    versionId: string;
    /**
     * The composite app; its name is ignored.
     *
     * @generated from field: flotilla.v1.CompositeApp composite_app = 4;
     */
    compositeApp?: CompositeApp | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 5;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateCompositeAppRequest.
 * Use `create(CreateCompositeAppRequestSchema)` to create a new message.
 */
export declare const CreateCompositeAppRequestSchema: GenMessage<CreateCompositeAppRequest>;
/**
 * Request of GetCompositeApp.
 *
 * @generated from message flotilla.v1.GetCompositeAppRequest
 */
export type GetCompositeAppRequest = Message<"flotilla.v1.GetCompositeAppRequest"> & {
    /**
     * The resource name, `projects/{p}/compositeApps/{ca}/versions/{v}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetCompositeAppRequest.
 * Use `create(GetCompositeAppRequestSchema)` to create a new message.
 */
export declare const GetCompositeAppRequestSchema: GenMessage<GetCompositeAppRequest>;
/**
 * Request of ListCompositeApps.
 *
 * @generated from message flotilla.v1.ListCompositeAppsRequest
 */
export type ListCompositeAppsRequest = Message<"flotilla.v1.ListCompositeAppsRequest"> & {
    /**
     * The parent project, `projects/{project}`.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListCompositeAppsRequest.
 * Use `create(ListCompositeAppsRequestSchema)` to create a new message.
 */
export declare const ListCompositeAppsRequestSchema: GenMessage<ListCompositeAppsRequest>;
/**
 * Response of ListCompositeApps.
 *
 * @generated from message flotilla.v1.ListCompositeAppsResponse
 */
export type ListCompositeAppsResponse = Message<"flotilla.v1.ListCompositeAppsResponse"> & {
    /**
     * The composite app versions of this page.
     *
     * @generated from field: repeated flotilla.v1.CompositeApp composite_apps = 1;
     */
    compositeApps: CompositeApp[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListCompositeAppsResponse.
 * Use `create(ListCompositeAppsResponseSchema)` to create a new message.
 */
export declare const ListCompositeAppsResponseSchema: GenMessage<ListCompositeAppsResponse>;
/**
 * Request of UpdateCompositeApp.
 *
 * @generated from message flotilla.v1.UpdateCompositeAppRequest
 */
export type UpdateCompositeAppRequest = Message<"flotilla.v1.UpdateCompositeAppRequest"> & {
    /**
     * The composite app version, identified by its name.
     *
     * @generated from field: flotilla.v1.CompositeApp composite_app = 1;
     */
    compositeApp?: CompositeApp | undefined;
    /**
     * The fields to update: "description"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateCompositeAppRequest.
 * Use `create(UpdateCompositeAppRequestSchema)` to create a new message.
 */
export declare const UpdateCompositeAppRequestSchema: GenMessage<UpdateCompositeAppRequest>;
/**
 * Request of DeleteCompositeApp.
 *
 * @generated from message flotilla.v1.DeleteCompositeAppRequest
 */
export type DeleteCompositeAppRequest = Message<"flotilla.v1.DeleteCompositeAppRequest"> & {
    /**
     * The resource name, `projects/{p}/compositeApps/{ca}/versions/{v}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteCompositeAppRequest.
 * Use `create(DeleteCompositeAppRequestSchema)` to create a new message.
 */
export declare const DeleteCompositeAppRequestSchema: GenMessage<DeleteCompositeAppRequest>;
/**
 * Request of CreateApp.
 *
 * @generated from message flotilla.v1.CreateAppRequest
 */
export type CreateAppRequest = Message<"flotilla.v1.CreateAppRequest"> & {
    /**
     * The parent composite app version, `projects/{p}/compositeApps/{ca}/versions/{v}`.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the app, an RFC 1123 label.
     *
     * @generated from field: string app_id = 2;
     */
    appId: string;
    /**
     * The app; its name is ignored.
     *
     * @generated from field: flotilla.v1.App app = 3;
     */
    app?: App | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateAppRequest.
 * Use `create(CreateAppRequestSchema)` to create a new message.
 */
export declare const CreateAppRequestSchema: GenMessage<CreateAppRequest>;
/**
 * Request of GetApp.
 *
 * @generated from message flotilla.v1.GetAppRequest
 */
export type GetAppRequest = Message<"flotilla.v1.GetAppRequest"> & {
    /**
     * The resource name, `…/versions/{v}/apps/{app}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetAppRequest.
 * Use `create(GetAppRequestSchema)` to create a new message.
 */
export declare const GetAppRequestSchema: GenMessage<GetAppRequest>;
/**
 * Request of ListApps.
 *
 * @generated from message flotilla.v1.ListAppsRequest
 */
export type ListAppsRequest = Message<"flotilla.v1.ListAppsRequest"> & {
    /**
     * The parent composite app version.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListAppsRequest.
 * Use `create(ListAppsRequestSchema)` to create a new message.
 */
export declare const ListAppsRequestSchema: GenMessage<ListAppsRequest>;
/**
 * Response of ListApps.
 *
 * @generated from message flotilla.v1.ListAppsResponse
 */
export type ListAppsResponse = Message<"flotilla.v1.ListAppsResponse"> & {
    /**
     * The apps of this page.
     *
     * @generated from field: repeated flotilla.v1.App apps = 1;
     */
    apps: App[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListAppsResponse.
 * Use `create(ListAppsResponseSchema)` to create a new message.
 */
export declare const ListAppsResponseSchema: GenMessage<ListAppsResponse>;
/**
 * Request of UpdateApp.
 *
 * @generated from message flotilla.v1.UpdateAppRequest
 */
export type UpdateAppRequest = Message<"flotilla.v1.UpdateAppRequest"> & {
    /**
     * The app, identified by its name.
     *
     * @generated from field: flotilla.v1.App app = 1;
     */
    app?: App | undefined;
    /**
     * The fields to update: "description", "manifests"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateAppRequest.
 * Use `create(UpdateAppRequestSchema)` to create a new message.
 */
export declare const UpdateAppRequestSchema: GenMessage<UpdateAppRequest>;
/**
 * Request of DeleteApp.
 *
 * @generated from message flotilla.v1.DeleteAppRequest
 */
export type DeleteAppRequest = Message<"flotilla.v1.DeleteAppRequest"> & {
    /**
     * The resource name, `…/versions/{v}/apps/{app}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteAppRequest.
 * Use `create(DeleteAppRequestSchema)` to create a new message.
 */
export declare const DeleteAppRequestSchema: GenMessage<DeleteAppRequest>;
/**
 * Request of CreateCompositeProfile.
 *
 * @generated from message flotilla.v1.CreateCompositeProfileRequest
 */
export type CreateCompositeProfileRequest = Message<"flotilla.v1.CreateCompositeProfileRequest"> & {
    /**
     * The parent composite app version.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the composite profile, an RFC 1123 label.
     *
     * @generated from field: string composite_profile_id = 2;
     */
    compositeProfileId: string;
    /**
     * The composite profile; its name is ignored.
     *
     * @generated from field: flotilla.v1.CompositeProfile composite_profile = 3;
     */
    compositeProfile?: CompositeProfile | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateCompositeProfileRequest.
 * Use `create(CreateCompositeProfileRequestSchema)` to create a new message.
 */
export declare const CreateCompositeProfileRequestSchema: GenMessage<CreateCompositeProfileRequest>;
/**
 * Request of GetCompositeProfile.
 *
 * @generated from message flotilla.v1.GetCompositeProfileRequest
 */
export type GetCompositeProfileRequest = Message<"flotilla.v1.GetCompositeProfileRequest"> & {
    /**
     * The resource name, `…/versions/{v}/compositeProfiles/{cp}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetCompositeProfileRequest.
 * Use `create(GetCompositeProfileRequestSchema)` to create a new message.
 */
export declare const GetCompositeProfileRequestSchema: GenMessage<GetCompositeProfileRequest>;
/**
 * Request of ListCompositeProfiles.
 *
 * @generated from message flotilla.v1.ListCompositeProfilesRequest
 */
export type ListCompositeProfilesRequest = Message<"flotilla.v1.ListCompositeProfilesRequest"> & {
    /**
     * The parent composite app version.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListCompositeProfilesRequest.
 * Use `create(ListCompositeProfilesRequestSchema)` to create a new message.
 */
export declare const ListCompositeProfilesRequestSchema: GenMessage<ListCompositeProfilesRequest>;
/**
 * Response of ListCompositeProfiles.
 *
 * @generated from message flotilla.v1.ListCompositeProfilesResponse
 */
export type ListCompositeProfilesResponse = Message<"flotilla.v1.ListCompositeProfilesResponse"> & {
    /**
     * The composite profiles of this page.
     *
     * @generated from field: repeated flotilla.v1.CompositeProfile composite_profiles = 1;
     */
    compositeProfiles: CompositeProfile[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListCompositeProfilesResponse.
 * Use `create(ListCompositeProfilesResponseSchema)` to create a new message.
 */
export declare const ListCompositeProfilesResponseSchema: GenMessage<ListCompositeProfilesResponse>;
/**
 * Request of UpdateCompositeProfile.
 *
 * @generated from message flotilla.v1.UpdateCompositeProfileRequest
 */
export type UpdateCompositeProfileRequest = Message<"flotilla.v1.UpdateCompositeProfileRequest"> & {
    /**
     * The composite profile, identified by its name.
     *
     * @generated from field: flotilla.v1.CompositeProfile composite_profile = 1;
     */
    compositeProfile?: CompositeProfile | undefined;
    /**
     * The fields to update: "description"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateCompositeProfileRequest.
 * Use `create(UpdateCompositeProfileRequestSchema)` to create a new message.
 */
export declare const UpdateCompositeProfileRequestSchema: GenMessage<UpdateCompositeProfileRequest>;
/**
 * Request of DeleteCompositeProfile.
 *
 * @generated from message flotilla.v1.DeleteCompositeProfileRequest
 */
export type DeleteCompositeProfileRequest = Message<"flotilla.v1.DeleteCompositeProfileRequest"> & {
    /**
     * The resource name, `…/versions/{v}/compositeProfiles/{cp}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteCompositeProfileRequest.
 * Use `create(DeleteCompositeProfileRequestSchema)` to create a new message.
 */
export declare const DeleteCompositeProfileRequestSchema: GenMessage<DeleteCompositeProfileRequest>;
/**
 * Request of CreateAppProfile.
 *
 * @generated from message flotilla.v1.CreateAppProfileRequest
 */
export type CreateAppProfileRequest = Message<"flotilla.v1.CreateAppProfileRequest"> & {
    /**
     * The parent composite profile.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the app profile, an RFC 1123 label.
     *
     * @generated from field: string app_profile_id = 2;
     */
    appProfileId: string;
    /**
     * The app profile; its name is ignored.
     *
     * @generated from field: flotilla.v1.AppProfile app_profile = 3;
     */
    appProfile?: AppProfile | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateAppProfileRequest.
 * Use `create(CreateAppProfileRequestSchema)` to create a new message.
 */
export declare const CreateAppProfileRequestSchema: GenMessage<CreateAppProfileRequest>;
/**
 * Request of GetAppProfile.
 *
 * @generated from message flotilla.v1.GetAppProfileRequest
 */
export type GetAppProfileRequest = Message<"flotilla.v1.GetAppProfileRequest"> & {
    /**
     * The resource name, `…/compositeProfiles/{cp}/appProfiles/{ap}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetAppProfileRequest.
 * Use `create(GetAppProfileRequestSchema)` to create a new message.
 */
export declare const GetAppProfileRequestSchema: GenMessage<GetAppProfileRequest>;
/**
 * Request of ListAppProfiles.
 *
 * @generated from message flotilla.v1.ListAppProfilesRequest
 */
export type ListAppProfilesRequest = Message<"flotilla.v1.ListAppProfilesRequest"> & {
    /**
     * The parent composite profile.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListAppProfilesRequest.
 * Use `create(ListAppProfilesRequestSchema)` to create a new message.
 */
export declare const ListAppProfilesRequestSchema: GenMessage<ListAppProfilesRequest>;
/**
 * Response of ListAppProfiles.
 *
 * @generated from message flotilla.v1.ListAppProfilesResponse
 */
export type ListAppProfilesResponse = Message<"flotilla.v1.ListAppProfilesResponse"> & {
    /**
     * The app profiles of this page.
     *
     * @generated from field: repeated flotilla.v1.AppProfile app_profiles = 1;
     */
    appProfiles: AppProfile[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListAppProfilesResponse.
 * Use `create(ListAppProfilesResponseSchema)` to create a new message.
 */
export declare const ListAppProfilesResponseSchema: GenMessage<ListAppProfilesResponse>;
/**
 * Request of UpdateAppProfile.
 *
 * @generated from message flotilla.v1.UpdateAppProfileRequest
 */
export type UpdateAppProfileRequest = Message<"flotilla.v1.UpdateAppProfileRequest"> & {
    /**
     * The app profile, identified by its name.
     *
     * @generated from field: flotilla.v1.AppProfile app_profile = 1;
     */
    appProfile?: AppProfile | undefined;
    /**
     * The fields to update: "description", "app", "patches"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateAppProfileRequest.
 * Use `create(UpdateAppProfileRequestSchema)` to create a new message.
 */
export declare const UpdateAppProfileRequestSchema: GenMessage<UpdateAppProfileRequest>;
/**
 * Request of DeleteAppProfile.
 *
 * @generated from message flotilla.v1.DeleteAppProfileRequest
 */
export type DeleteAppProfileRequest = Message<"flotilla.v1.DeleteAppProfileRequest"> & {
    /**
     * The resource name, `…/compositeProfiles/{cp}/appProfiles/{ap}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteAppProfileRequest.
 * Use `create(DeleteAppProfileRequestSchema)` to create a new message.
 */
export declare const DeleteAppProfileRequestSchema: GenMessage<DeleteAppProfileRequest>;
/**
 * Request of CreateDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.CreateDeploymentIntentGroupRequest
 */
export type CreateDeploymentIntentGroupRequest = Message<"flotilla.v1.CreateDeploymentIntentGroupRequest"> & {
    /**
     * The parent composite app version.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the deployment intent group, an RFC 1123 label.
     *
     * @generated from field: string deployment_intent_group_id = 2;
     */
    deploymentIntentGroupId: string;
    /**
     * The deployment intent group; name and output-only fields are ignored.
     *
     * @generated from field: flotilla.v1.DeploymentIntentGroup deployment_intent_group = 3;
     */
    deploymentIntentGroup?: DeploymentIntentGroup | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateDeploymentIntentGroupRequest.
 * Use `create(CreateDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const CreateDeploymentIntentGroupRequestSchema: GenMessage<CreateDeploymentIntentGroupRequest>;
/**
 * Request of GetDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.GetDeploymentIntentGroupRequest
 */
export type GetDeploymentIntentGroupRequest = Message<"flotilla.v1.GetDeploymentIntentGroupRequest"> & {
    /**
     * The resource name, `…/versions/{v}/deploymentIntentGroups/{dig}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetDeploymentIntentGroupRequest.
 * Use `create(GetDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const GetDeploymentIntentGroupRequestSchema: GenMessage<GetDeploymentIntentGroupRequest>;
/**
 * Request of ListDeploymentIntentGroups.
 *
 * @generated from message flotilla.v1.ListDeploymentIntentGroupsRequest
 */
export type ListDeploymentIntentGroupsRequest = Message<"flotilla.v1.ListDeploymentIntentGroupsRequest"> & {
    /**
     * The parent composite app version.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListDeploymentIntentGroupsRequest.
 * Use `create(ListDeploymentIntentGroupsRequestSchema)` to create a new message.
 */
export declare const ListDeploymentIntentGroupsRequestSchema: GenMessage<ListDeploymentIntentGroupsRequest>;
/**
 * Response of ListDeploymentIntentGroups.
 *
 * @generated from message flotilla.v1.ListDeploymentIntentGroupsResponse
 */
export type ListDeploymentIntentGroupsResponse = Message<"flotilla.v1.ListDeploymentIntentGroupsResponse"> & {
    /**
     * The deployment intent groups of this page.
     *
     * @generated from field: repeated flotilla.v1.DeploymentIntentGroup deployment_intent_groups = 1;
     */
    deploymentIntentGroups: DeploymentIntentGroup[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListDeploymentIntentGroupsResponse.
 * Use `create(ListDeploymentIntentGroupsResponseSchema)` to create a new message.
 */
export declare const ListDeploymentIntentGroupsResponseSchema: GenMessage<ListDeploymentIntentGroupsResponse>;
/**
 * Request of UpdateDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.UpdateDeploymentIntentGroupRequest
 */
export type UpdateDeploymentIntentGroupRequest = Message<"flotilla.v1.UpdateDeploymentIntentGroupRequest"> & {
    /**
     * The deployment intent group, identified by its name.
     *
     * @generated from field: flotilla.v1.DeploymentIntentGroup deployment_intent_group = 1;
     */
    deploymentIntentGroup?: DeploymentIntentGroup | undefined;
    /**
     * The fields to update: "description", "composite_profile", "override_values";
     * empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateDeploymentIntentGroupRequest.
 * Use `create(UpdateDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const UpdateDeploymentIntentGroupRequestSchema: GenMessage<UpdateDeploymentIntentGroupRequest>;
/**
 * Request of DeleteDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.DeleteDeploymentIntentGroupRequest
 */
export type DeleteDeploymentIntentGroupRequest = Message<"flotilla.v1.DeleteDeploymentIntentGroupRequest"> & {
    /**
     * The resource name, `…/versions/{v}/deploymentIntentGroups/{dig}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteDeploymentIntentGroupRequest.
 * Use `create(DeleteDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const DeleteDeploymentIntentGroupRequestSchema: GenMessage<DeleteDeploymentIntentGroupRequest>;
/**
 * Request of ApproveDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.ApproveDeploymentIntentGroupRequest
 */
export type ApproveDeploymentIntentGroupRequest = Message<"flotilla.v1.ApproveDeploymentIntentGroupRequest"> & {
    /**
     * The resource name of the deployment intent group.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.ApproveDeploymentIntentGroupRequest.
 * Use `create(ApproveDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const ApproveDeploymentIntentGroupRequestSchema: GenMessage<ApproveDeploymentIntentGroupRequest>;
/**
 * Request of InstantiateDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.InstantiateDeploymentIntentGroupRequest
 */
export type InstantiateDeploymentIntentGroupRequest = Message<"flotilla.v1.InstantiateDeploymentIntentGroupRequest"> & {
    /**
     * The resource name of the deployment intent group.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.InstantiateDeploymentIntentGroupRequest.
 * Use `create(InstantiateDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const InstantiateDeploymentIntentGroupRequestSchema: GenMessage<InstantiateDeploymentIntentGroupRequest>;
/**
 * Request of TerminateDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.TerminateDeploymentIntentGroupRequest
 */
export type TerminateDeploymentIntentGroupRequest = Message<"flotilla.v1.TerminateDeploymentIntentGroupRequest"> & {
    /**
     * The resource name of the deployment intent group.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.TerminateDeploymentIntentGroupRequest.
 * Use `create(TerminateDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const TerminateDeploymentIntentGroupRequestSchema: GenMessage<TerminateDeploymentIntentGroupRequest>;
/**
 * Request of RolloutDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.RolloutDeploymentIntentGroupRequest
 */
export type RolloutDeploymentIntentGroupRequest = Message<"flotilla.v1.RolloutDeploymentIntentGroupRequest"> & {
    /**
     * The resource name of the deployment intent group.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.RolloutDeploymentIntentGroupRequest.
 * Use `create(RolloutDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const RolloutDeploymentIntentGroupRequestSchema: GenMessage<RolloutDeploymentIntentGroupRequest>;
/**
 * Request of RollbackDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.RollbackDeploymentIntentGroupRequest
 */
export type RollbackDeploymentIntentGroupRequest = Message<"flotilla.v1.RollbackDeploymentIntentGroupRequest"> & {
    /**
     * The resource name of the deployment intent group.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The content revision to go back to: one an instance of the group was rendered
     * from (see the group's history).
     *
     * @generated from field: int64 revision = 2;
     */
    revision: bigint;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 3;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.RollbackDeploymentIntentGroupRequest.
 * Use `create(RollbackDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const RollbackDeploymentIntentGroupRequestSchema: GenMessage<RollbackDeploymentIntentGroupRequest>;
/**
 * Request of MigrateDeploymentIntentGroup.
 *
 * @generated from message flotilla.v1.MigrateDeploymentIntentGroupRequest
 */
export type MigrateDeploymentIntentGroupRequest = Message<"flotilla.v1.MigrateDeploymentIntentGroupRequest"> & {
    /**
     * The resource name of the INSTANTIATED deployment intent group to move from.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The resource name of the group to move to: in another version of the same
     * composite app, APPROVED or TERMINATED.
     *
     * @generated from field: string target = 2;
     */
    target: string;
    /**
     * If set, must match the current etag of `name` (else ABORTED).
     *
     * @generated from field: string etag = 3;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.MigrateDeploymentIntentGroupRequest.
 * Use `create(MigrateDeploymentIntentGroupRequestSchema)` to create a new message.
 */
export declare const MigrateDeploymentIntentGroupRequestSchema: GenMessage<MigrateDeploymentIntentGroupRequest>;
/**
 * Request of CreatePlacementIntent.
 *
 * @generated from message flotilla.v1.CreatePlacementIntentRequest
 */
export type CreatePlacementIntentRequest = Message<"flotilla.v1.CreatePlacementIntentRequest"> & {
    /**
     * The parent deployment intent group.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the placement intent, an RFC 1123 label.
     *
     * @generated from field: string placement_intent_id = 2;
     */
    placementIntentId: string;
    /**
     * The placement intent; its name is ignored.
     *
     * @generated from field: flotilla.v1.PlacementIntent placement_intent = 3;
     */
    placementIntent?: PlacementIntent | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreatePlacementIntentRequest.
 * Use `create(CreatePlacementIntentRequestSchema)` to create a new message.
 */
export declare const CreatePlacementIntentRequestSchema: GenMessage<CreatePlacementIntentRequest>;
/**
 * Request of GetPlacementIntent.
 *
 * @generated from message flotilla.v1.GetPlacementIntentRequest
 */
export type GetPlacementIntentRequest = Message<"flotilla.v1.GetPlacementIntentRequest"> & {
    /**
     * The resource name, `…/deploymentIntentGroups/{dig}/placementIntents/{pi}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetPlacementIntentRequest.
 * Use `create(GetPlacementIntentRequestSchema)` to create a new message.
 */
export declare const GetPlacementIntentRequestSchema: GenMessage<GetPlacementIntentRequest>;
/**
 * Request of ListPlacementIntents.
 *
 * @generated from message flotilla.v1.ListPlacementIntentsRequest
 */
export type ListPlacementIntentsRequest = Message<"flotilla.v1.ListPlacementIntentsRequest"> & {
    /**
     * The parent deployment intent group.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListPlacementIntentsRequest.
 * Use `create(ListPlacementIntentsRequestSchema)` to create a new message.
 */
export declare const ListPlacementIntentsRequestSchema: GenMessage<ListPlacementIntentsRequest>;
/**
 * Response of ListPlacementIntents.
 *
 * @generated from message flotilla.v1.ListPlacementIntentsResponse
 */
export type ListPlacementIntentsResponse = Message<"flotilla.v1.ListPlacementIntentsResponse"> & {
    /**
     * The placement intents of this page.
     *
     * @generated from field: repeated flotilla.v1.PlacementIntent placement_intents = 1;
     */
    placementIntents: PlacementIntent[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListPlacementIntentsResponse.
 * Use `create(ListPlacementIntentsResponseSchema)` to create a new message.
 */
export declare const ListPlacementIntentsResponseSchema: GenMessage<ListPlacementIntentsResponse>;
/**
 * Request of UpdatePlacementIntent.
 *
 * @generated from message flotilla.v1.UpdatePlacementIntentRequest
 */
export type UpdatePlacementIntentRequest = Message<"flotilla.v1.UpdatePlacementIntentRequest"> & {
    /**
     * The placement intent, identified by its name.
     *
     * @generated from field: flotilla.v1.PlacementIntent placement_intent = 1;
     */
    placementIntent?: PlacementIntent | undefined;
    /**
     * The fields to update: "description", "app", "cluster_provider", "cluster_names",
     * "cluster_selector"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdatePlacementIntentRequest.
 * Use `create(UpdatePlacementIntentRequestSchema)` to create a new message.
 */
export declare const UpdatePlacementIntentRequestSchema: GenMessage<UpdatePlacementIntentRequest>;
/**
 * Request of DeletePlacementIntent.
 *
 * @generated from message flotilla.v1.DeletePlacementIntentRequest
 */
export type DeletePlacementIntentRequest = Message<"flotilla.v1.DeletePlacementIntentRequest"> & {
    /**
     * The resource name, `…/deploymentIntentGroups/{dig}/placementIntents/{pi}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeletePlacementIntentRequest.
 * Use `create(DeletePlacementIntentRequestSchema)` to create a new message.
 */
export declare const DeletePlacementIntentRequestSchema: GenMessage<DeletePlacementIntentRequest>;
/**
 * Request of CreateClusterProvider.
 *
 * @generated from message flotilla.v1.CreateClusterProviderRequest
 */
export type CreateClusterProviderRequest = Message<"flotilla.v1.CreateClusterProviderRequest"> & {
    /**
     * The id of the cluster provider, an RFC 1123 label.
     *
     * @generated from field: string cluster_provider_id = 1;
     */
    clusterProviderId: string;
    /**
     * The cluster provider; its name is ignored.
     *
     * @generated from field: flotilla.v1.ClusterProvider cluster_provider = 2;
     */
    clusterProvider?: ClusterProvider | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateClusterProviderRequest.
 * Use `create(CreateClusterProviderRequestSchema)` to create a new message.
 */
export declare const CreateClusterProviderRequestSchema: GenMessage<CreateClusterProviderRequest>;
/**
 * Request of GetClusterProvider.
 *
 * @generated from message flotilla.v1.GetClusterProviderRequest
 */
export type GetClusterProviderRequest = Message<"flotilla.v1.GetClusterProviderRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetClusterProviderRequest.
 * Use `create(GetClusterProviderRequestSchema)` to create a new message.
 */
export declare const GetClusterProviderRequestSchema: GenMessage<GetClusterProviderRequest>;
/**
 * Request of ListClusterProviders.
 *
 * @generated from message flotilla.v1.ListClusterProvidersRequest
 */
export type ListClusterProvidersRequest = Message<"flotilla.v1.ListClusterProvidersRequest"> & {
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 1;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 2;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListClusterProvidersRequest.
 * Use `create(ListClusterProvidersRequestSchema)` to create a new message.
 */
export declare const ListClusterProvidersRequestSchema: GenMessage<ListClusterProvidersRequest>;
/**
 * Response of ListClusterProviders.
 *
 * @generated from message flotilla.v1.ListClusterProvidersResponse
 */
export type ListClusterProvidersResponse = Message<"flotilla.v1.ListClusterProvidersResponse"> & {
    /**
     * The cluster providers of this page.
     *
     * @generated from field: repeated flotilla.v1.ClusterProvider cluster_providers = 1;
     */
    clusterProviders: ClusterProvider[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListClusterProvidersResponse.
 * Use `create(ListClusterProvidersResponseSchema)` to create a new message.
 */
export declare const ListClusterProvidersResponseSchema: GenMessage<ListClusterProvidersResponse>;
/**
 * Request of UpdateClusterProvider.
 *
 * @generated from message flotilla.v1.UpdateClusterProviderRequest
 */
export type UpdateClusterProviderRequest = Message<"flotilla.v1.UpdateClusterProviderRequest"> & {
    /**
     * The cluster provider, identified by its name.
     *
     * @generated from field: flotilla.v1.ClusterProvider cluster_provider = 1;
     */
    clusterProvider?: ClusterProvider | undefined;
    /**
     * The fields to update: "description", "labels"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateClusterProviderRequest.
 * Use `create(UpdateClusterProviderRequestSchema)` to create a new message.
 */
export declare const UpdateClusterProviderRequestSchema: GenMessage<UpdateClusterProviderRequest>;
/**
 * Request of DeleteClusterProvider.
 *
 * @generated from message flotilla.v1.DeleteClusterProviderRequest
 */
export type DeleteClusterProviderRequest = Message<"flotilla.v1.DeleteClusterProviderRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteClusterProviderRequest.
 * Use `create(DeleteClusterProviderRequestSchema)` to create a new message.
 */
export declare const DeleteClusterProviderRequestSchema: GenMessage<DeleteClusterProviderRequest>;
/**
 * Request of CreateCluster.
 *
 * @generated from message flotilla.v1.CreateClusterRequest
 */
export type CreateClusterRequest = Message<"flotilla.v1.CreateClusterRequest"> & {
    /**
     * The parent cluster provider, `clusterProviders/{cp}`.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the cluster, an RFC 1123 label.
     *
     * @generated from field: string cluster_id = 2;
     */
    clusterId: string;
    /**
     * The cluster; name and output-only fields are ignored.
     *
     * @generated from field: flotilla.v1.Cluster cluster = 3;
     */
    cluster?: Cluster | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateClusterRequest.
 * Use `create(CreateClusterRequestSchema)` to create a new message.
 */
export declare const CreateClusterRequestSchema: GenMessage<CreateClusterRequest>;
/**
 * Request of GetCluster.
 *
 * @generated from message flotilla.v1.GetClusterRequest
 */
export type GetClusterRequest = Message<"flotilla.v1.GetClusterRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetClusterRequest.
 * Use `create(GetClusterRequestSchema)` to create a new message.
 */
export declare const GetClusterRequestSchema: GenMessage<GetClusterRequest>;
/**
 * Request of ListClusters.
 *
 * @generated from message flotilla.v1.ListClustersRequest
 */
export type ListClustersRequest = Message<"flotilla.v1.ListClustersRequest"> & {
    /**
     * The parent cluster provider.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
    /**
     * Only clusters whose labels contain all these pairs.
     *
     * @generated from field: map<string, string> label_selector = 4;
     */
    labelSelector: {
        [key: string]: string;
    };
};
/**
 * Describes the message flotilla.v1.ListClustersRequest.
 * Use `create(ListClustersRequestSchema)` to create a new message.
 */
export declare const ListClustersRequestSchema: GenMessage<ListClustersRequest>;
/**
 * Response of ListClusters.
 *
 * @generated from message flotilla.v1.ListClustersResponse
 */
export type ListClustersResponse = Message<"flotilla.v1.ListClustersResponse"> & {
    /**
     * The clusters of this page.
     *
     * @generated from field: repeated flotilla.v1.Cluster clusters = 1;
     */
    clusters: Cluster[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListClustersResponse.
 * Use `create(ListClustersResponseSchema)` to create a new message.
 */
export declare const ListClustersResponseSchema: GenMessage<ListClustersResponse>;
/**
 * Request of UpdateCluster.
 *
 * @generated from message flotilla.v1.UpdateClusterRequest
 */
export type UpdateClusterRequest = Message<"flotilla.v1.UpdateClusterRequest"> & {
    /**
     * The cluster, identified by its name.
     *
     * @generated from field: flotilla.v1.Cluster cluster = 1;
     */
    cluster?: Cluster | undefined;
    /**
     * The fields to update: "description", "labels"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateClusterRequest.
 * Use `create(UpdateClusterRequestSchema)` to create a new message.
 */
export declare const UpdateClusterRequestSchema: GenMessage<UpdateClusterRequest>;
/**
 * Request of RotateClusterAgentToken.
 *
 * @generated from message flotilla.v1.RotateClusterAgentTokenRequest
 */
export type RotateClusterAgentTokenRequest = Message<"flotilla.v1.RotateClusterAgentTokenRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.RotateClusterAgentTokenRequest.
 * Use `create(RotateClusterAgentTokenRequestSchema)` to create a new message.
 */
export declare const RotateClusterAgentTokenRequestSchema: GenMessage<RotateClusterAgentTokenRequest>;
/**
 * Request of DeleteCluster.
 *
 * @generated from message flotilla.v1.DeleteClusterRequest
 */
export type DeleteClusterRequest = Message<"flotilla.v1.DeleteClusterRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteClusterRequest.
 * Use `create(DeleteClusterRequestSchema)` to create a new message.
 */
export declare const DeleteClusterRequestSchema: GenMessage<DeleteClusterRequest>;
/**
 * Request of CreateNetworkIntent.
 *
 * @generated from message flotilla.v1.CreateNetworkIntentRequest
 */
export type CreateNetworkIntentRequest = Message<"flotilla.v1.CreateNetworkIntentRequest"> & {
    /**
     * The parent cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the network intent, an RFC 1123 label; also the name of the rendered CR.
     *
     * @generated from field: string network_intent_id = 2;
     */
    networkIntentId: string;
    /**
     * The network intent; its name is ignored.
     *
     * @generated from field: flotilla.v1.NetworkIntent network_intent = 3;
     */
    networkIntent?: NetworkIntent | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateNetworkIntentRequest.
 * Use `create(CreateNetworkIntentRequestSchema)` to create a new message.
 */
export declare const CreateNetworkIntentRequestSchema: GenMessage<CreateNetworkIntentRequest>;
/**
 * Request of GetNetworkIntent.
 *
 * @generated from message flotilla.v1.GetNetworkIntentRequest
 */
export type GetNetworkIntentRequest = Message<"flotilla.v1.GetNetworkIntentRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}/networkIntents/{ni}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetNetworkIntentRequest.
 * Use `create(GetNetworkIntentRequestSchema)` to create a new message.
 */
export declare const GetNetworkIntentRequestSchema: GenMessage<GetNetworkIntentRequest>;
/**
 * Request of ListNetworkIntents.
 *
 * @generated from message flotilla.v1.ListNetworkIntentsRequest
 */
export type ListNetworkIntentsRequest = Message<"flotilla.v1.ListNetworkIntentsRequest"> & {
    /**
     * The parent cluster.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListNetworkIntentsRequest.
 * Use `create(ListNetworkIntentsRequestSchema)` to create a new message.
 */
export declare const ListNetworkIntentsRequestSchema: GenMessage<ListNetworkIntentsRequest>;
/**
 * Response of ListNetworkIntents.
 *
 * @generated from message flotilla.v1.ListNetworkIntentsResponse
 */
export type ListNetworkIntentsResponse = Message<"flotilla.v1.ListNetworkIntentsResponse"> & {
    /**
     * The network intents of this page.
     *
     * @generated from field: repeated flotilla.v1.NetworkIntent network_intents = 1;
     */
    networkIntents: NetworkIntent[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListNetworkIntentsResponse.
 * Use `create(ListNetworkIntentsResponseSchema)` to create a new message.
 */
export declare const ListNetworkIntentsResponseSchema: GenMessage<ListNetworkIntentsResponse>;
/**
 * Request of UpdateNetworkIntent.
 *
 * @generated from message flotilla.v1.UpdateNetworkIntentRequest
 */
export type UpdateNetworkIntentRequest = Message<"flotilla.v1.UpdateNetworkIntentRequest"> & {
    /**
     * The network intent, identified by its name.
     *
     * @generated from field: flotilla.v1.NetworkIntent network_intent = 1;
     */
    networkIntent?: NetworkIntent | undefined;
    /**
     * The fields to update: "description", "spec" (whichever of network and
     * provider_network is set); empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateNetworkIntentRequest.
 * Use `create(UpdateNetworkIntentRequestSchema)` to create a new message.
 */
export declare const UpdateNetworkIntentRequestSchema: GenMessage<UpdateNetworkIntentRequest>;
/**
 * Request of DeleteNetworkIntent.
 *
 * @generated from message flotilla.v1.DeleteNetworkIntentRequest
 */
export type DeleteNetworkIntentRequest = Message<"flotilla.v1.DeleteNetworkIntentRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}/networkIntents/{ni}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteNetworkIntentRequest.
 * Use `create(DeleteNetworkIntentRequestSchema)` to create a new message.
 */
export declare const DeleteNetworkIntentRequestSchema: GenMessage<DeleteNetworkIntentRequest>;
/**
 * Request of CreateClusterKvPair.
 *
 * @generated from message flotilla.v1.CreateClusterKvPairRequest
 */
export type CreateClusterKvPairRequest = Message<"flotilla.v1.CreateClusterKvPairRequest"> & {
    /**
     * The parent cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * The id of the pair set, an RFC 1123 label.
     *
     * @generated from field: string kv_pair_id = 2;
     */
    kvPairId: string;
    /**
     * The pair set; its name is ignored.
     *
     * @generated from field: flotilla.v1.ClusterKvPair cluster_kv_pair = 3;
     */
    clusterKvPair?: ClusterKvPair | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 4;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateClusterKvPairRequest.
 * Use `create(CreateClusterKvPairRequestSchema)` to create a new message.
 */
export declare const CreateClusterKvPairRequestSchema: GenMessage<CreateClusterKvPairRequest>;
/**
 * Request of GetClusterKvPair.
 *
 * @generated from message flotilla.v1.GetClusterKvPairRequest
 */
export type GetClusterKvPairRequest = Message<"flotilla.v1.GetClusterKvPairRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}/kvPairs/{kv}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetClusterKvPairRequest.
 * Use `create(GetClusterKvPairRequestSchema)` to create a new message.
 */
export declare const GetClusterKvPairRequestSchema: GenMessage<GetClusterKvPairRequest>;
/**
 * Request of ListClusterKvPairs.
 *
 * @generated from message flotilla.v1.ListClusterKvPairsRequest
 */
export type ListClusterKvPairsRequest = Message<"flotilla.v1.ListClusterKvPairsRequest"> & {
    /**
     * The parent cluster.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListClusterKvPairsRequest.
 * Use `create(ListClusterKvPairsRequestSchema)` to create a new message.
 */
export declare const ListClusterKvPairsRequestSchema: GenMessage<ListClusterKvPairsRequest>;
/**
 * Response of ListClusterKvPairs.
 *
 * @generated from message flotilla.v1.ListClusterKvPairsResponse
 */
export type ListClusterKvPairsResponse = Message<"flotilla.v1.ListClusterKvPairsResponse"> & {
    /**
     * The pair sets of this page.
     *
     * @generated from field: repeated flotilla.v1.ClusterKvPair cluster_kv_pairs = 1;
     */
    clusterKvPairs: ClusterKvPair[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListClusterKvPairsResponse.
 * Use `create(ListClusterKvPairsResponseSchema)` to create a new message.
 */
export declare const ListClusterKvPairsResponseSchema: GenMessage<ListClusterKvPairsResponse>;
/**
 * Request of UpdateClusterKvPair.
 *
 * @generated from message flotilla.v1.UpdateClusterKvPairRequest
 */
export type UpdateClusterKvPairRequest = Message<"flotilla.v1.UpdateClusterKvPairRequest"> & {
    /**
     * The pair set, identified by its name.
     *
     * @generated from field: flotilla.v1.ClusterKvPair cluster_kv_pair = 1;
     */
    clusterKvPair?: ClusterKvPair | undefined;
    /**
     * The fields to update: "description", "pairs"; empty or "*" updates all.
     *
     * @generated from field: google.protobuf.FieldMask update_mask = 2;
     */
    updateMask?: FieldMask | undefined;
};
/**
 * Describes the message flotilla.v1.UpdateClusterKvPairRequest.
 * Use `create(UpdateClusterKvPairRequestSchema)` to create a new message.
 */
export declare const UpdateClusterKvPairRequestSchema: GenMessage<UpdateClusterKvPairRequest>;
/**
 * Request of DeleteClusterKvPair.
 *
 * @generated from message flotilla.v1.DeleteClusterKvPairRequest
 */
export type DeleteClusterKvPairRequest = Message<"flotilla.v1.DeleteClusterKvPairRequest"> & {
    /**
     * The resource name, `clusterProviders/{cp}/clusters/{c}/kvPairs/{kv}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteClusterKvPairRequest.
 * Use `create(DeleteClusterKvPairRequestSchema)` to create a new message.
 */
export declare const DeleteClusterKvPairRequestSchema: GenMessage<DeleteClusterKvPairRequest>;
/**
 * Request of ApplyClusterNetworkIntents.
 *
 * @generated from message flotilla.v1.ApplyClusterNetworkIntentsRequest
 */
export type ApplyClusterNetworkIntentsRequest = Message<"flotilla.v1.ApplyClusterNetworkIntentsRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the cluster's current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.ApplyClusterNetworkIntentsRequest.
 * Use `create(ApplyClusterNetworkIntentsRequestSchema)` to create a new message.
 */
export declare const ApplyClusterNetworkIntentsRequestSchema: GenMessage<ApplyClusterNetworkIntentsRequest>;
/**
 * Request of TerminateClusterNetworkIntents.
 *
 * @generated from message flotilla.v1.TerminateClusterNetworkIntentsRequest
 */
export type TerminateClusterNetworkIntentsRequest = Message<"flotilla.v1.TerminateClusterNetworkIntentsRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * If set, must match the cluster's current etag (else ABORTED).
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.TerminateClusterNetworkIntentsRequest.
 * Use `create(TerminateClusterNetworkIntentsRequestSchema)` to create a new message.
 */
export declare const TerminateClusterNetworkIntentsRequestSchema: GenMessage<TerminateClusterNetworkIntentsRequest>;
/**
 * Request of ListRenderedResources.
 *
 * @generated from message flotilla.v1.ListRenderedResourcesRequest
 */
export type ListRenderedResourcesRequest = Message<"flotilla.v1.ListRenderedResourcesRequest"> & {
    /**
     * An instance, `{owner}/instances/{id}`, or the owner itself (a deployment intent
     * group or a cluster) to mean its current instance.
     *
     * @generated from field: string parent = 1;
     */
    parent: string;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 2;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 3;
     */
    pageToken: string;
    /**
     * Only resources of these app ids.
     *
     * @generated from field: repeated string apps = 4;
     */
    apps: string[];
    /**
     * Only resources placed on these cluster ids.
     *
     * @generated from field: repeated string clusters = 5;
     */
    clusters: string[];
};
/**
 * Describes the message flotilla.v1.ListRenderedResourcesRequest.
 * Use `create(ListRenderedResourcesRequestSchema)` to create a new message.
 */
export declare const ListRenderedResourcesRequestSchema: GenMessage<ListRenderedResourcesRequest>;
/**
 * Response of ListRenderedResources.
 *
 * @generated from message flotilla.v1.ListRenderedResourcesResponse
 */
export type ListRenderedResourcesResponse = Message<"flotilla.v1.ListRenderedResourcesResponse"> & {
    /**
     * The instance the resources belong to, `{owner}/instances/{id}`.
     *
     * @generated from field: string instance = 1;
     */
    instance: string;
    /**
     * The rendered resources of this page.
     *
     * @generated from field: repeated flotilla.v1.RenderedResource rendered_resources = 2;
     */
    renderedResources: RenderedResource[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 3;
     */
    nextPageToken: string;
    /**
     * How many resources the instance holds in all (ignoring filters).
     *
     * @generated from field: int32 total_size = 4;
     */
    totalSize: number;
};
/**
 * Describes the message flotilla.v1.ListRenderedResourcesResponse.
 * Use `create(ListRenderedResourcesResponseSchema)` to create a new message.
 */
export declare const ListRenderedResourcesResponseSchema: GenMessage<ListRenderedResourcesResponse>;
/**
 * The lifecycle state of a deployment intent group.
 *
 * @generated from enum flotilla.v1.DeploymentIntentGroupState
 */
export declare enum DeploymentIntentGroupState {
    /**
     * Never set by the server.
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Created or changed since approval: intents may be added, changed or deleted.
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_STATE_CREATED = 1;
     */
    CREATED = 1,
    /**
     * Approved: the content hash is pinned; any change moves it back to CREATED.
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_STATE_APPROVED = 2;
     */
    APPROVED = 2,
    /**
     * Instantiated: an instance has been rendered and handed to rsync.
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_STATE_INSTANTIATED = 3;
     */
    INSTANTIATED = 3,
    /**
     * Terminated: rsync deletes the resources of the last instance.
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_STATE_TERMINATED = 4;
     */
    TERMINATED = 4
}
/**
 * Describes the enum flotilla.v1.DeploymentIntentGroupState.
 */
export declare const DeploymentIntentGroupStateSchema: GenEnum<DeploymentIntentGroupState>;
/**
 * What a history entry of a deployment intent group records.
 *
 * @generated from enum flotilla.v1.DeploymentIntentGroupEventKind
 */
export declare enum DeploymentIntentGroupEventKind {
    /**
     * Never set by the server.
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Created, or its content changed since approval (state CREATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_CREATED = 1;
     */
    CREATED = 1,
    /**
     * Approved (state APPROVED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_APPROVED = 2;
     */
    APPROVED = 2,
    /**
     * Instantiated: a new instance (state INSTANTIATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_INSTANTIATED = 3;
     */
    INSTANTIATED = 3,
    /**
     * Terminated (state TERMINATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_TERMINATED = 4;
     */
    TERMINATED = 4,
    /**
     * The pending revision of an instantiated group was approved (state INSTANTIATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_REVISION_APPROVED = 5;
     */
    REVISION_APPROVED = 5,
    /**
     * Rolled out: a new instance of the pending revision (state INSTANTIATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_UPDATED = 6;
     */
    UPDATED = 6,
    /**
     * Rolled back: a new instance of an earlier revision's content (state INSTANTIATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_ROLLED_BACK = 7;
     */
    ROLLED_BACK = 7,
    /**
     * The running deployment of another group moved here (state INSTANTIATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_MIGRATED_IN = 8;
     */
    MIGRATED_IN = 8,
    /**
     * The running deployment moved to another group (state TERMINATED).
     *
     * @generated from enum value: DEPLOYMENT_INTENT_GROUP_EVENT_KIND_MIGRATED_OUT = 9;
     */
    MIGRATED_OUT = 9
}
/**
 * Describes the enum flotilla.v1.DeploymentIntentGroupEventKind.
 */
export declare const DeploymentIntentGroupEventKindSchema: GenEnum<DeploymentIntentGroupEventKind>;
/**
 * How a resource differs from what the running instance was rendered from.
 *
 * @generated from enum flotilla.v1.PendingChangeKind
 */
export declare enum PendingChangeKind {
    /**
     * Never set by the server.
     *
     * @generated from enum value: PENDING_CHANGE_KIND_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * New since.
     *
     * @generated from enum value: PENDING_CHANGE_KIND_ADDED = 1;
     */
    ADDED = 1,
    /**
     * Changed since.
     *
     * @generated from enum value: PENDING_CHANGE_KIND_CHANGED = 2;
     */
    CHANGED = 2,
    /**
     * Deleted since.
     *
     * @generated from enum value: PENDING_CHANGE_KIND_REMOVED = 3;
     */
    REMOVED = 3
}
/**
 * Describes the enum flotilla.v1.PendingChangeKind.
 */
export declare const PendingChangeKindSchema: GenEnum<PendingChangeKind>;
/**
 * How Flotilla reaches a member cluster.
 *
 * @generated from enum flotilla.v1.ConnectionMode
 */
export declare enum ConnectionMode {
    /**
     * Not set: refused on create.
     *
     * @generated from enum value: CONNECTION_MODE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A flotilla-agent in the cluster dials AgentService.Connect with a token.
     *
     * @generated from enum value: CONNECTION_MODE_AGENT = 1;
     */
    AGENT = 1,
    /**
     * The server hosts an in-process simulated cluster and its agent.
     *
     * @generated from enum value: CONNECTION_MODE_EMBEDDED_SIM = 2;
     */
    EMBEDDED_SIM = 2
}
/**
 * Describes the enum flotilla.v1.ConnectionMode.
 */
export declare const ConnectionModeSchema: GenEnum<ConnectionMode>;
/**
 * The lifecycle state of a cluster's network intents.
 *
 * @generated from enum flotilla.v1.NetworkIntentsState
 */
export declare enum NetworkIntentsState {
    /**
     * Never set by the server.
     *
     * @generated from enum value: NETWORK_INTENTS_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Network intents may be added, changed or deleted.
     *
     * @generated from enum value: NETWORK_INTENTS_STATE_CREATED = 1;
     */
    CREATED = 1,
    /**
     * Applied: rendered and handed to rsync; intents are frozen until terminated.
     *
     * @generated from enum value: NETWORK_INTENTS_STATE_APPLIED = 2;
     */
    APPLIED = 2,
    /**
     * Terminated: rsync deletes them; intents may change again.
     *
     * @generated from enum value: NETWORK_INTENTS_STATE_TERMINATED = 3;
     */
    TERMINATED = 3
}
/**
 * Describes the enum flotilla.v1.NetworkIntentsState.
 */
export declare const NetworkIntentsStateSchema: GenEnum<NetworkIntentsState>;
/**
 * The kind of a provider network.
 *
 * @generated from enum flotilla.v1.ProviderNetworkType
 */
export declare enum ProviderNetworkType {
    /**
     * Not set: refused.
     *
     * @generated from enum value: PROVIDER_NETWORK_TYPE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A VLAN on a provider interface.
     *
     * @generated from enum value: PROVIDER_NETWORK_TYPE_VLAN = 1;
     */
    VLAN = 1,
    /**
     * Direct attachment to a provider interface.
     *
     * @generated from enum value: PROVIDER_NETWORK_TYPE_DIRECT = 2;
     */
    DIRECT = 2
}
/**
 * Describes the enum flotilla.v1.ProviderNetworkType.
 */
export declare const ProviderNetworkTypeSchema: GenEnum<ProviderNetworkType>;
/**
 * The rsync status of a rendered resource.
 *
 * @generated from enum flotilla.v1.RsyncStatus
 */
export declare enum RsyncStatus {
    /**
     * Never set by the server.
     *
     * @generated from enum value: RSYNC_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Rendered, not yet handled by rsync.
     *
     * @generated from enum value: RSYNC_STATUS_PENDING = 1;
     */
    PENDING = 1,
    /**
     * The cluster accepted the resource.
     *
     * @generated from enum value: RSYNC_STATUS_APPLIED = 2;
     */
    APPLIED = 2,
    /**
     * The cluster explicitly rejected an apply or delete; rsync takes no further action.
     *
     * @generated from enum value: RSYNC_STATUS_FAILED = 3;
     */
    FAILED = 3,
    /**
     * The cluster is unreachable; rsync retries with backoff.
     *
     * @generated from enum value: RSYNC_STATUS_RETRYING = 4;
     */
    RETRYING = 4,
    /**
     * rsync deleted the resource from the cluster, or the instance was terminated before
     * rsync applied it.
     *
     * @generated from enum value: RSYNC_STATUS_TERMINATED = 5;
     */
    TERMINATED = 5,
    /**
     * A newer instance of the same owner renders the same object on the same cluster and
     * took it over: this (older) instance no longer applies or deletes it. Final.
     *
     * @generated from enum value: RSYNC_STATUS_SUPERSEDED = 6;
     */
    SUPERSEDED = 6
}
/**
 * Describes the enum flotilla.v1.RsyncStatus.
 */
export declare const RsyncStatusSchema: GenEnum<RsyncStatus>;
/**
 * Manages the EMCO resource model and its lifecycle verbs.
 *
 * Names are resource paths (AIP-122). Creates take the parent, the new resource's id
 * and the resource; the server fills in `name`, `uid`, `etag` and the timestamps.
 * Updates take an `update_mask` (empty or "*" replaces every mutable field) and an
 * optional `etag` (a mismatch is ABORTED). Creates and verbs accept a `request_id`:
 * a retry with the same id returns the first result.
 *
 * @generated from service flotilla.v1.LifecycleService
 */
export declare const LifecycleService: GenService<{
    /**
     * Creates a project, the top-level container of composite apps.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateProject
     */
    createProject: {
        methodKind: "unary";
        input: typeof CreateProjectRequestSchema;
        output: typeof ProjectSchema;
    };
    /**
     * Gets a project.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetProject
     */
    getProject: {
        methodKind: "unary";
        input: typeof GetProjectRequestSchema;
        output: typeof ProjectSchema;
    };
    /**
     * Lists projects in name order.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListProjects
     */
    listProjects: {
        methodKind: "unary";
        input: typeof ListProjectsRequestSchema;
        output: typeof ListProjectsResponseSchema;
    };
    /**
     * Updates a project's description and labels.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateProject
     */
    updateProject: {
        methodKind: "unary";
        input: typeof UpdateProjectRequestSchema;
        output: typeof ProjectSchema;
    };
    /**
     * Deletes a project; refused with FAILED_PRECONDITION while it has composite apps.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteProject
     */
    deleteProject: {
        methodKind: "unary";
        input: typeof DeleteProjectRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates a version of a composite app (EMCO: composite app name + version).
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateCompositeApp
     */
    createCompositeApp: {
        methodKind: "unary";
        input: typeof CreateCompositeAppRequestSchema;
        output: typeof CompositeAppSchema;
    };
    /**
     * Gets a composite app version.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetCompositeApp
     */
    getCompositeApp: {
        methodKind: "unary";
        input: typeof GetCompositeAppRequestSchema;
        output: typeof CompositeAppSchema;
    };
    /**
     * Lists the composite app versions of a project.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListCompositeApps
     */
    listCompositeApps: {
        methodKind: "unary";
        input: typeof ListCompositeAppsRequestSchema;
        output: typeof ListCompositeAppsResponseSchema;
    };
    /**
     * Updates a composite app version's description.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateCompositeApp
     */
    updateCompositeApp: {
        methodKind: "unary";
        input: typeof UpdateCompositeAppRequestSchema;
        output: typeof CompositeAppSchema;
    };
    /**
     * Deletes a composite app version; refused while it has apps, profiles or intent groups.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteCompositeApp
     */
    deleteCompositeApp: {
        methodKind: "unary";
        input: typeof DeleteCompositeAppRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates an app: a bundle of Kubernetes manifests inside a composite app version.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateApp
     */
    createApp: {
        methodKind: "unary";
        input: typeof CreateAppRequestSchema;
        output: typeof AppSchema;
    };
    /**
     * Gets an app with its manifests.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetApp
     */
    getApp: {
        methodKind: "unary";
        input: typeof GetAppRequestSchema;
        output: typeof AppSchema;
    };
    /**
     * Lists the apps of a composite app version.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListApps
     */
    listApps: {
        methodKind: "unary";
        input: typeof ListAppsRequestSchema;
        output: typeof ListAppsResponseSchema;
    };
    /**
     * Updates an app; moves approved or terminated intent groups of the version back to CREATED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateApp
     */
    updateApp: {
        methodKind: "unary";
        input: typeof UpdateAppRequestSchema;
        output: typeof AppSchema;
    };
    /**
     * Deletes an app; refused while an instantiated intent group of the version uses it.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteApp
     */
    deleteApp: {
        methodKind: "unary";
        input: typeof DeleteAppRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates a composite profile: a named set of per-app profiles.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateCompositeProfile
     */
    createCompositeProfile: {
        methodKind: "unary";
        input: typeof CreateCompositeProfileRequestSchema;
        output: typeof CompositeProfileSchema;
    };
    /**
     * Gets a composite profile.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetCompositeProfile
     */
    getCompositeProfile: {
        methodKind: "unary";
        input: typeof GetCompositeProfileRequestSchema;
        output: typeof CompositeProfileSchema;
    };
    /**
     * Lists the composite profiles of a composite app version.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListCompositeProfiles
     */
    listCompositeProfiles: {
        methodKind: "unary";
        input: typeof ListCompositeProfilesRequestSchema;
        output: typeof ListCompositeProfilesResponseSchema;
    };
    /**
     * Updates a composite profile's description.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateCompositeProfile
     */
    updateCompositeProfile: {
        methodKind: "unary";
        input: typeof UpdateCompositeProfileRequestSchema;
        output: typeof CompositeProfileSchema;
    };
    /**
     * Deletes a composite profile; refused while it has app profiles or an intent group uses it.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteCompositeProfile
     */
    deleteCompositeProfile: {
        methodKind: "unary";
        input: typeof DeleteCompositeProfileRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates an app profile: JSON merge patches applied to one app's manifests at render time.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateAppProfile
     */
    createAppProfile: {
        methodKind: "unary";
        input: typeof CreateAppProfileRequestSchema;
        output: typeof AppProfileSchema;
    };
    /**
     * Gets an app profile.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetAppProfile
     */
    getAppProfile: {
        methodKind: "unary";
        input: typeof GetAppProfileRequestSchema;
        output: typeof AppProfileSchema;
    };
    /**
     * Lists the app profiles of a composite profile.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListAppProfiles
     */
    listAppProfiles: {
        methodKind: "unary";
        input: typeof ListAppProfilesRequestSchema;
        output: typeof ListAppProfilesResponseSchema;
    };
    /**
     * Updates an app profile; moves approved or terminated intent groups using it back to CREATED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateAppProfile
     */
    updateAppProfile: {
        methodKind: "unary";
        input: typeof UpdateAppProfileRequestSchema;
        output: typeof AppProfileSchema;
    };
    /**
     * Deletes an app profile.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteAppProfile
     */
    deleteAppProfile: {
        methodKind: "unary";
        input: typeof DeleteAppProfileRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates a deployment intent group (state CREATED).
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateDeploymentIntentGroup
     */
    createDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof CreateDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Gets a deployment intent group with its state and full lifecycle history.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetDeploymentIntentGroup
     */
    getDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof GetDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Lists the deployment intent groups of a composite app version.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListDeploymentIntentGroups
     */
    listDeploymentIntentGroups: {
        methodKind: "unary";
        input: typeof ListDeploymentIntentGroupsRequestSchema;
        output: typeof ListDeploymentIntentGroupsResponseSchema;
    };
    /**
     * Updates a deployment intent group; refused while INSTANTIATED, else the state becomes CREATED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateDeploymentIntentGroup
     */
    updateDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof UpdateDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Deletes a deployment intent group with its instances; refused while INSTANTIATED,
     * while it has placement intents, or while its last instance is still terminating.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteDeploymentIntentGroup
     */
    deleteDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof DeleteDeploymentIntentGroupRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Approves a deployment intent group: pins a hash of its content (CREATED or TERMINATED
     * -> APPROVED). On an INSTANTIATED group it approves the pending revision (the state
     * stays INSTANTIATED; history REVISION_APPROVED) so RolloutDeploymentIntentGroup can
     * render it.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ApproveDeploymentIntentGroup
     */
    approveDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof ApproveDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Renders a new instance and hands it to rsync (APPROVED or TERMINATED -> INSTANTIATED).
     *
     * @generated from rpc flotilla.v1.LifecycleService.InstantiateDeploymentIntentGroup
     */
    instantiateDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof InstantiateDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Terminates the current instance: rsync deletes its resources (INSTANTIATED -> TERMINATED).
     *
     * @generated from rpc flotilla.v1.LifecycleService.TerminateDeploymentIntentGroup
     */
    terminateDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof TerminateDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * EMCO's update: renders the approved pending revision of an INSTANTIATED group into a
     * new instance and hands rsync only the difference from the running one, per cluster:
     * changed and new resources are applied, vanished ones deleted, unchanged ones left
     * alone. The group stays INSTANTIATED; history UPDATED with the revision.
     *
     * @generated from rpc flotilla.v1.LifecycleService.RolloutDeploymentIntentGroup
     */
    rolloutDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof RolloutDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Moves an INSTANTIATED group back to the rendered content of an earlier revision (an
     * instance the retention limit still keeps), by the same difference; history
     * ROLLED_BACK. The group's resources (apps, profiles, intents) are not changed.
     *
     * @generated from rpc flotilla.v1.LifecycleService.RollbackDeploymentIntentGroup
     */
    rollbackDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof RollbackDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * EMCO's migrate: moves the running deployment of an INSTANTIATED group to an APPROVED
     * (or TERMINATED) group of another version of the same composite app, by the same
     * difference. The target becomes INSTANTIATED (history MIGRATED_IN) and is returned;
     * this group becomes TERMINATED (history MIGRATED_OUT) without deleting what the
     * target now runs.
     *
     * @generated from rpc flotilla.v1.LifecycleService.MigrateDeploymentIntentGroup
     */
    migrateDeploymentIntentGroup: {
        methodKind: "unary";
        input: typeof MigrateDeploymentIntentGroupRequestSchema;
        output: typeof DeploymentIntentGroupSchema;
    };
    /**
     * Creates a placement intent: where one app of the intent group runs.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreatePlacementIntent
     */
    createPlacementIntent: {
        methodKind: "unary";
        input: typeof CreatePlacementIntentRequestSchema;
        output: typeof PlacementIntentSchema;
    };
    /**
     * Gets a placement intent.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetPlacementIntent
     */
    getPlacementIntent: {
        methodKind: "unary";
        input: typeof GetPlacementIntentRequestSchema;
        output: typeof PlacementIntentSchema;
    };
    /**
     * Lists the placement intents of a deployment intent group.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListPlacementIntents
     */
    listPlacementIntents: {
        methodKind: "unary";
        input: typeof ListPlacementIntentsRequestSchema;
        output: typeof ListPlacementIntentsResponseSchema;
    };
    /**
     * Updates a placement intent; refused while the intent group is INSTANTIATED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdatePlacementIntent
     */
    updatePlacementIntent: {
        methodKind: "unary";
        input: typeof UpdatePlacementIntentRequestSchema;
        output: typeof PlacementIntentSchema;
    };
    /**
     * Deletes a placement intent; refused while the intent group is INSTANTIATED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeletePlacementIntent
     */
    deletePlacementIntent: {
        methodKind: "unary";
        input: typeof DeletePlacementIntentRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates a cluster provider, a named group of clusters.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateClusterProvider
     */
    createClusterProvider: {
        methodKind: "unary";
        input: typeof CreateClusterProviderRequestSchema;
        output: typeof ClusterProviderSchema;
    };
    /**
     * Gets a cluster provider.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetClusterProvider
     */
    getClusterProvider: {
        methodKind: "unary";
        input: typeof GetClusterProviderRequestSchema;
        output: typeof ClusterProviderSchema;
    };
    /**
     * Lists cluster providers.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListClusterProviders
     */
    listClusterProviders: {
        methodKind: "unary";
        input: typeof ListClusterProvidersRequestSchema;
        output: typeof ListClusterProvidersResponseSchema;
    };
    /**
     * Updates a cluster provider's description and labels.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateClusterProvider
     */
    updateClusterProvider: {
        methodKind: "unary";
        input: typeof UpdateClusterProviderRequestSchema;
        output: typeof ClusterProviderSchema;
    };
    /**
     * Deletes a cluster provider; refused while it has clusters.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteClusterProvider
     */
    deleteClusterProvider: {
        methodKind: "unary";
        input: typeof DeleteClusterProviderRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Registers a member cluster under a cluster provider.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateCluster
     */
    createCluster: {
        methodKind: "unary";
        input: typeof CreateClusterRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Gets a cluster with its network intent state and history.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetCluster
     */
    getCluster: {
        methodKind: "unary";
        input: typeof GetClusterRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Lists the clusters of a cluster provider, optionally filtered by labels.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListClusters
     */
    listClusters: {
        methodKind: "unary";
        input: typeof ListClustersRequestSchema;
        output: typeof ListClustersResponseSchema;
    };
    /**
     * Updates a cluster's description and labels.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateCluster
     */
    updateCluster: {
        methodKind: "unary";
        input: typeof UpdateClusterRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Issues a new agent token for an AGENT cluster; the old one stops working. The
     * token is in the response's `agent_token`, and is shown only this once.
     *
     * @generated from rpc flotilla.v1.LifecycleService.RotateClusterAgentToken
     */
    rotateClusterAgentToken: {
        methodKind: "unary";
        input: typeof RotateClusterAgentTokenRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Deletes a cluster; refused while it has network intents, while they are APPLIED,
     * or while an INSTANTIATED intent group is placed on it.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteCluster
     */
    deleteCluster: {
        methodKind: "unary";
        input: typeof DeleteClusterRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Creates a network intent of a cluster; refused while its network intents are APPLIED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateNetworkIntent
     */
    createNetworkIntent: {
        methodKind: "unary";
        input: typeof CreateNetworkIntentRequestSchema;
        output: typeof NetworkIntentSchema;
    };
    /**
     * Gets a network intent.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetNetworkIntent
     */
    getNetworkIntent: {
        methodKind: "unary";
        input: typeof GetNetworkIntentRequestSchema;
        output: typeof NetworkIntentSchema;
    };
    /**
     * Lists the network intents of a cluster.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListNetworkIntents
     */
    listNetworkIntents: {
        methodKind: "unary";
        input: typeof ListNetworkIntentsRequestSchema;
        output: typeof ListNetworkIntentsResponseSchema;
    };
    /**
     * Updates a network intent; refused while the cluster's network intents are APPLIED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateNetworkIntent
     */
    updateNetworkIntent: {
        methodKind: "unary";
        input: typeof UpdateNetworkIntentRequestSchema;
        output: typeof NetworkIntentSchema;
    };
    /**
     * Deletes a network intent; refused while the cluster's network intents are APPLIED.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteNetworkIntent
     */
    deleteNetworkIntent: {
        methodKind: "unary";
        input: typeof DeleteNetworkIntentRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Renders the cluster's network intents into a new instance (CREATED or TERMINATED -> APPLIED).
     *
     * @generated from rpc flotilla.v1.LifecycleService.ApplyClusterNetworkIntents
     */
    applyClusterNetworkIntents: {
        methodKind: "unary";
        input: typeof ApplyClusterNetworkIntentsRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Terminates the applied network intents: rsync deletes them (APPLIED -> TERMINATED).
     *
     * @generated from rpc flotilla.v1.LifecycleService.TerminateClusterNetworkIntents
     */
    terminateClusterNetworkIntents: {
        methodKind: "unary";
        input: typeof TerminateClusterNetworkIntentsRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Creates a key-value pair set of a cluster (EMCO's cluster kv pairs: settings that
     * controllers and operators attach to a cluster).
     *
     * @generated from rpc flotilla.v1.LifecycleService.CreateClusterKvPair
     */
    createClusterKvPair: {
        methodKind: "unary";
        input: typeof CreateClusterKvPairRequestSchema;
        output: typeof ClusterKvPairSchema;
    };
    /**
     * Gets a cluster's key-value pair set.
     *
     * @generated from rpc flotilla.v1.LifecycleService.GetClusterKvPair
     */
    getClusterKvPair: {
        methodKind: "unary";
        input: typeof GetClusterKvPairRequestSchema;
        output: typeof ClusterKvPairSchema;
    };
    /**
     * Lists a cluster's key-value pair sets, ordered by name.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListClusterKvPairs
     */
    listClusterKvPairs: {
        methodKind: "unary";
        input: typeof ListClusterKvPairsRequestSchema;
        output: typeof ListClusterKvPairsResponseSchema;
    };
    /**
     * Updates a key-value pair set (description, pairs).
     *
     * @generated from rpc flotilla.v1.LifecycleService.UpdateClusterKvPair
     */
    updateClusterKvPair: {
        methodKind: "unary";
        input: typeof UpdateClusterKvPairRequestSchema;
        output: typeof ClusterKvPairSchema;
    };
    /**
     * Deletes a key-value pair set.
     *
     * @generated from rpc flotilla.v1.LifecycleService.DeleteClusterKvPair
     */
    deleteClusterKvPair: {
        methodKind: "unary";
        input: typeof DeleteClusterKvPairRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Lists the rendered (rsync) resources of an instance of an intent group or of a
     * cluster's network intents, in (app, cluster, kind, namespace, name) order.
     *
     * @generated from rpc flotilla.v1.LifecycleService.ListRenderedResources
     */
    listRenderedResources: {
        methodKind: "unary";
        input: typeof ListRenderedResourcesRequestSchema;
        output: typeof ListRenderedResourcesResponseSchema;
    };
}>;
