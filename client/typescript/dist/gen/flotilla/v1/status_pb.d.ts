import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Condition, Connectivity, GroupVersionKind } from "./common_pb.js";
import type { ConnectionMode, DeploymentIntentGroupState, NetworkIntentsState, RsyncStatus } from "./lifecycle_pb.js";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { JsonObject, Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/status.proto.
 */
export declare const file_flotilla_v1_status: GenFile;
/**
 * Counts of rsync statuses; zero counts are omitted in JSON.
 *
 * @generated from message flotilla.v1.RsyncStatusCounts
 */
export type RsyncStatusCounts = Message<"flotilla.v1.RsyncStatusCounts"> & {
    /**
     * Resources not yet handled by rsync.
     *
     * @generated from field: int32 pending = 1;
     */
    pending: number;
    /**
     * Resources the cluster accepted.
     *
     * @generated from field: int32 applied = 2;
     */
    applied: number;
    /**
     * Resources the cluster rejected.
     *
     * @generated from field: int32 failed = 3;
     */
    failed: number;
    /**
     * Resources rsync keeps retrying.
     *
     * @generated from field: int32 retrying = 4;
     */
    retrying: number;
    /**
     * Resources rsync deleted.
     *
     * @generated from field: int32 terminated = 5;
     */
    terminated: number;
    /**
     * Resources a newer instance of the same owner took over.
     *
     * @generated from field: int32 superseded = 6;
     */
    superseded: number;
};
/**
 * Describes the message flotilla.v1.RsyncStatusCounts.
 * Use `create(RsyncStatusCountsSchema)` to create a new message.
 */
export declare const RsyncStatusCountsSchema: GenMessage<RsyncStatusCounts>;
/**
 * Counts of cluster statuses; zero counts are omitted in JSON.
 *
 * @generated from message flotilla.v1.ClusterStatusCounts
 */
export type ClusterStatusCounts = Message<"flotilla.v1.ClusterStatusCounts"> & {
    /**
     * Resources present in their cluster.
     *
     * @generated from field: int32 present = 1;
     */
    present: number;
    /**
     * Monitored resources absent from their cluster.
     *
     * @generated from field: int32 not_present = 2;
     */
    notPresent: number;
    /**
     * Resources whose cluster status is unknown.
     *
     * @generated from field: int32 unknown = 3;
     */
    unknown: number;
};
/**
 * Describes the message flotilla.v1.ClusterStatusCounts.
 * Use `create(ClusterStatusCountsSchema)` to create a new message.
 */
export declare const ClusterStatusCountsSchema: GenMessage<ClusterStatusCounts>;
/**
 * Counts of readiness; zero counts are omitted in JSON.
 *
 * @generated from message flotilla.v1.ReadinessCounts
 */
export type ReadinessCounts = Message<"flotilla.v1.ReadinessCounts"> & {
    /**
     * Ready resources.
     *
     * @generated from field: int32 ready = 1;
     */
    ready: number;
    /**
     * Present but not ready resources.
     *
     * @generated from field: int32 not_ready = 2;
     */
    notReady: number;
};
/**
 * Describes the message flotilla.v1.ReadinessCounts.
 * Use `create(ReadinessCountsSchema)` to create a new message.
 */
export declare const ReadinessCountsSchema: GenMessage<ReadinessCounts>;
/**
 * One resource of the status tree.
 *
 * @generated from message flotilla.v1.ResourceStatusEntry
 */
export type ResourceStatusEntry = Message<"flotilla.v1.ResourceStatusEntry"> & {
    /**
     * The GVK, from the rendered manifest (or from the cluster for cluster-only resources).
     *
     * @generated from field: flotilla.v1.GroupVersionKind gvk = 1;
     */
    gvk?: GroupVersionKind | undefined;
    /**
     * The resource name.
     *
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * The namespace.
     *
     * @generated from field: string namespace = 3;
     */
    namespace: string;
    /**
     * DETAIL: metadata from the cluster; RSYNC: metadata from the rendered manifest.
     *
     * @generated from field: google.protobuf.Struct metadata = 4;
     */
    metadata?: JsonObject | undefined;
    /**
     * DETAIL: spec from the cluster; RSYNC: spec from the rendered manifest.
     *
     * @generated from field: google.protobuf.Struct spec = 5;
     */
    spec?: JsonObject | undefined;
    /**
     * DETAIL: status from the cluster.
     *
     * @generated from field: google.protobuf.Struct status = 6;
     */
    status?: JsonObject | undefined;
    /**
     * The rsync status (unset for cluster-only resources).
     *
     * @generated from field: flotilla.v1.RsyncStatus rsync_status = 7;
     */
    rsyncStatus: RsyncStatus;
    /**
     * The cluster status (not set for RSYNC output).
     *
     * @generated from field: flotilla.v1.ClusterResourceStatus cluster_status = 8;
     */
    clusterStatus: ClusterResourceStatus;
    /**
     * The readiness (not set for RSYNC output).
     *
     * @generated from field: flotilla.v1.Readiness readiness = 9;
     */
    readiness: Readiness;
};
/**
 * Describes the message flotilla.v1.ResourceStatusEntry.
 * Use `create(ResourceStatusEntrySchema)` to create a new message.
 */
export declare const ResourceStatusEntrySchema: GenMessage<ResourceStatusEntry>;
/**
 * The resources of one app on one cluster.
 *
 * @generated from message flotilla.v1.ClusterResources
 */
export type ClusterResources = Message<"flotilla.v1.ClusterResources"> & {
    /**
     * The cluster id.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The cluster provider id.
     *
     * @generated from field: string cluster_provider = 2;
     */
    clusterProvider: string;
    /**
     * The resources.
     *
     * @generated from field: repeated flotilla.v1.ResourceStatusEntry resources = 3;
     */
    resources: ResourceStatusEntry[];
};
/**
 * Describes the message flotilla.v1.ClusterResources.
 * Use `create(ClusterResourcesSchema)` to create a new message.
 */
export declare const ClusterResourcesSchema: GenMessage<ClusterResources>;
/**
 * The resources of one app.
 *
 * @generated from message flotilla.v1.AppResources
 */
export type AppResources = Message<"flotilla.v1.AppResources"> & {
    /**
     * The app id.
     *
     * @generated from field: string app_name = 1;
     */
    appName: string;
    /**
     * The clusters the app runs on.
     *
     * @generated from field: repeated flotilla.v1.ClusterResources clusters = 2;
     */
    clusters: ClusterResources[];
};
/**
 * Describes the message flotilla.v1.AppResources.
 * Use `create(AppResourcesSchema)` to create a new message.
 */
export declare const AppResourcesSchema: GenMessage<AppResources>;
/**
 * The answer of a status query (the seed's table).
 *
 * @generated from message flotilla.v1.ResourceStatus
 */
export type ResourceStatus = Message<"flotilla.v1.ResourceStatus"> & {
    /**
     * The name of the deployment intent group or cluster (resource path).
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The project id (deployment intent groups only).
     *
     * @generated from field: string project = 2;
     */
    project: string;
    /**
     * The composite app id (deployment intent groups only).
     *
     * @generated from field: string composite_app_name = 3;
     */
    compositeAppName: string;
    /**
     * The composite app version (deployment intent groups only).
     *
     * @generated from field: string composite_app_version = 4;
     */
    compositeAppVersion: string;
    /**
     * The composite profile id (deployment intent groups only).
     *
     * @generated from field: string composite_profile_name = 5;
     */
    compositeProfileName: string;
    /**
     * The lifecycle state, e.g. "INSTANTIATED" or "APPLIED".
     *
     * @generated from field: string state = 6;
     */
    state: string;
    /**
     * The instance the status describes, `{owner}/instances/{id}`.
     *
     * @generated from field: string instance = 7;
     */
    instance: string;
    /**
     * Aggregated rsync statuses (subject to the filters).
     *
     * @generated from field: flotilla.v1.RsyncStatusCounts rsync_status = 8;
     */
    rsyncStatus?: RsyncStatusCounts | undefined;
    /**
     * Aggregated cluster statuses (not for RSYNC output).
     *
     * @generated from field: flotilla.v1.ClusterStatusCounts cluster_status = 9;
     */
    clusterStatus?: ClusterStatusCounts | undefined;
    /**
     * Aggregated readiness (not for RSYNC output).
     *
     * @generated from field: flotilla.v1.ReadinessCounts readiness = 10;
     */
    readiness?: ReadinessCounts | undefined;
    /**
     * The resource tree, app -> cluster -> resource (ALL, DETAIL, RSYNC).
     *
     * @generated from field: repeated flotilla.v1.AppResources resources = 11;
     */
    resources: AppResources[];
    /**
     * Conditions of the owner.
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 12;
     */
    conditions: Condition[];
    /**
     * The token of the next page of the resource tree; empty on the last page.
     *
     * @generated from field: string next_page_token = 13;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ResourceStatus.
 * Use `create(ResourceStatusSchema)` to create a new message.
 */
export declare const ResourceStatusSchema: GenMessage<ResourceStatus>;
/**
 * Request of GetDeploymentIntentGroupStatus.
 *
 * @generated from message flotilla.v1.GetDeploymentIntentGroupStatusRequest
 */
export type GetDeploymentIntentGroupStatusRequest = Message<"flotilla.v1.GetDeploymentIntentGroupStatusRequest"> & {
    /**
     * The deployment intent group, `…/deploymentIntentGroups/{dig}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * How much to return; unset means ALL.
     *
     * @generated from field: flotilla.v1.StatusOutput output = 2;
     */
    output: StatusOutput;
    /**
     * Only these app ids.
     *
     * @generated from field: repeated string apps = 3;
     */
    apps: string[];
    /**
     * Only these cluster ids.
     *
     * @generated from field: repeated string clusters = 4;
     */
    clusters: string[];
    /**
     * Only resources with these names.
     *
     * @generated from field: repeated string resources = 5;
     */
    resources: string[];
    /**
     * A historical instance id; empty means the current instance.
     *
     * @generated from field: string instance = 6;
     */
    instance: string;
    /**
     * Resources per page of the tree (counts stay whole): default 1000, at most 10000.
     *
     * @generated from field: int32 page_size = 7;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 8;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.GetDeploymentIntentGroupStatusRequest.
 * Use `create(GetDeploymentIntentGroupStatusRequestSchema)` to create a new message.
 */
export declare const GetDeploymentIntentGroupStatusRequestSchema: GenMessage<GetDeploymentIntentGroupStatusRequest>;
/**
 * Request of GetClusterNetworkStatus.
 *
 * @generated from message flotilla.v1.GetClusterNetworkStatusRequest
 */
export type GetClusterNetworkStatusRequest = Message<"flotilla.v1.GetClusterNetworkStatusRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * How much to return; unset means ALL.
     *
     * @generated from field: flotilla.v1.StatusOutput output = 2;
     */
    output: StatusOutput;
    /**
     * Only these app ids.
     *
     * @generated from field: repeated string apps = 3;
     */
    apps: string[];
    /**
     * Only these cluster ids.
     *
     * @generated from field: repeated string clusters = 4;
     */
    clusters: string[];
    /**
     * Only resources with these names.
     *
     * @generated from field: repeated string resources = 5;
     */
    resources: string[];
    /**
     * A historical instance id; empty means the current instance.
     *
     * @generated from field: string instance = 6;
     */
    instance: string;
    /**
     * Resources per page of the tree: default 1000, at most 10000.
     *
     * @generated from field: int32 page_size = 7;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 8;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.GetClusterNetworkStatusRequest.
 * Use `create(GetClusterNetworkStatusRequestSchema)` to create a new message.
 */
export declare const GetClusterNetworkStatusRequestSchema: GenMessage<GetClusterNetworkStatusRequest>;
/**
 * One instance of a deployment intent group or of a cluster's network intents.
 *
 * @generated from message flotilla.v1.Instance
 */
export type Instance = Message<"flotilla.v1.Instance"> & {
    /**
     * `{owner}/instances/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The instance id (UUID v7).
     *
     * @generated from field: string id = 2;
     */
    id: string;
    /**
     * The owner's resource name.
     *
     * @generated from field: string owner = 3;
     */
    owner: string;
    /**
     * The owner's content revision the instance was rendered from.
     *
     * @generated from field: int64 revision = 4;
     */
    revision: bigint;
    /**
     * Whether it is the owner's current instance.
     *
     * @generated from field: bool current = 5;
     */
    current: boolean;
    /**
     * Whether the instance was terminated.
     *
     * @generated from field: bool terminated = 6;
     */
    terminated: boolean;
    /**
     * How many rendered resources it holds.
     *
     * @generated from field: int32 resource_count = 7;
     */
    resourceCount: number;
    /**
     * When it was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 8;
     */
    createTime?: Timestamp | undefined;
    /**
     * When it was terminated.
     *
     * @generated from field: google.protobuf.Timestamp terminate_time = 9;
     */
    terminateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.Instance.
 * Use `create(InstanceSchema)` to create a new message.
 */
export declare const InstanceSchema: GenMessage<Instance>;
/**
 * Request of ListInstances.
 *
 * @generated from message flotilla.v1.ListInstancesRequest
 */
export type ListInstancesRequest = Message<"flotilla.v1.ListInstancesRequest"> & {
    /**
     * The owner: a deployment intent group or a cluster.
     *
     * @generated from field: string name = 1;
     */
    name: string;
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
 * Describes the message flotilla.v1.ListInstancesRequest.
 * Use `create(ListInstancesRequestSchema)` to create a new message.
 */
export declare const ListInstancesRequestSchema: GenMessage<ListInstancesRequest>;
/**
 * Response of ListInstances.
 *
 * @generated from message flotilla.v1.ListInstancesResponse
 */
export type ListInstancesResponse = Message<"flotilla.v1.ListInstancesResponse"> & {
    /**
     * Instances, newest first.
     *
     * @generated from field: repeated flotilla.v1.Instance instances = 1;
     */
    instances: Instance[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListInstancesResponse.
 * Use `create(ListInstancesResponseSchema)` to create a new message.
 */
export declare const ListInstancesResponseSchema: GenMessage<ListInstancesResponse>;
/**
 * Request of WatchStatus.
 *
 * @generated from message flotilla.v1.WatchStatusRequest
 */
export type WatchStatusRequest = Message<"flotilla.v1.WatchStatusRequest"> & {
    /**
     * The deployment intent group or cluster to watch.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The detail of resource events; unset means ALL.
     *
     * @generated from field: flotilla.v1.StatusOutput output = 2;
     */
    output: StatusOutput;
    /**
     * Only these app ids.
     *
     * @generated from field: repeated string apps = 3;
     */
    apps: string[];
    /**
     * Only these cluster ids.
     *
     * @generated from field: repeated string clusters = 4;
     */
    clusters: string[];
    /**
     * Only resources with these names.
     *
     * @generated from field: repeated string resources = 5;
     */
    resources: string[];
    /**
     * Resume after this token (from a previous event); empty starts with a snapshot.
     *
     * @generated from field: string resume_token = 6;
     */
    resumeToken: string;
};
/**
 * Describes the message flotilla.v1.WatchStatusRequest.
 * Use `create(WatchStatusRequestSchema)` to create a new message.
 */
export declare const WatchStatusRequestSchema: GenMessage<WatchStatusRequest>;
/**
 * One message of WatchStatus: the next events of the stream, in order. A change
 * that touches many resources arrives as a few messages of many events (as etcd's
 * watch responses do) rather than one message per event; each message holds at
 * least one event and stays far below the default 4 MiB message limit.
 *
 * @generated from message flotilla.v1.WatchStatusResponse
 */
export type WatchStatusResponse = Message<"flotilla.v1.WatchStatusResponse"> & {
    /**
     * The events, oldest first. Each carries its own resume token: a client that
     * processed part of a message resumes after the last event it processed.
     *
     * @generated from field: repeated flotilla.v1.WatchEvent events = 1;
     */
    events: WatchEvent[];
};
/**
 * Describes the message flotilla.v1.WatchStatusResponse.
 * Use `create(WatchStatusResponseSchema)` to create a new message.
 */
export declare const WatchStatusResponseSchema: GenMessage<WatchStatusResponse>;
/**
 * One event of WatchStatus.
 *
 * @generated from message flotilla.v1.WatchEvent
 */
export type WatchEvent = Message<"flotilla.v1.WatchEvent"> & {
    /**
     * The event kind.
     *
     * @generated from field: flotilla.v1.WatchEventType type = 1;
     */
    type: WatchEventType;
    /**
     * Opaque, monotonically increasing token; resume after this event with it.
     *
     * @generated from field: string resume_token = 2;
     */
    resumeToken: string;
    /**
     * When the change happened.
     *
     * @generated from field: google.protobuf.Timestamp time = 3;
     */
    time?: Timestamp | undefined;
    /**
     * RESOURCE_CHANGED: the app id.
     *
     * @generated from field: string app_name = 4;
     */
    appName: string;
    /**
     * RESOURCE_CHANGED, CONNECTIVITY_CHANGED: the cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 5;
     */
    cluster: string;
    /**
     * RESOURCE_CHANGED: the resource.
     *
     * @generated from field: flotilla.v1.ResourceStatusEntry resource = 6;
     */
    resource?: ResourceStatusEntry | undefined;
    /**
     * COUNTS_CHANGED: the new rsync counts.
     *
     * @generated from field: flotilla.v1.RsyncStatusCounts rsync_status = 7;
     */
    rsyncStatus?: RsyncStatusCounts | undefined;
    /**
     * COUNTS_CHANGED: the new cluster counts.
     *
     * @generated from field: flotilla.v1.ClusterStatusCounts cluster_status = 8;
     */
    clusterStatus?: ClusterStatusCounts | undefined;
    /**
     * COUNTS_CHANGED: the new readiness counts.
     *
     * @generated from field: flotilla.v1.ReadinessCounts readiness = 9;
     */
    readiness?: ReadinessCounts | undefined;
    /**
     * LIFECYCLE_CHANGED: the new state.
     *
     * @generated from field: string state = 10;
     */
    state: string;
    /**
     * LIFECYCLE_CHANGED: the instance.
     *
     * @generated from field: string instance = 11;
     */
    instance: string;
    /**
     * CONNECTIVITY_CHANGED: the new connectivity.
     *
     * @generated from field: flotilla.v1.Connectivity connectivity = 12;
     */
    connectivity: Connectivity;
};
/**
 * Describes the message flotilla.v1.WatchEvent.
 * Use `create(WatchEventSchema)` to create a new message.
 */
export declare const WatchEventSchema: GenMessage<WatchEvent>;
/**
 * Request of WatchFleet.
 *
 * @generated from message flotilla.v1.WatchFleetRequest
 */
export type WatchFleetRequest = Message<"flotilla.v1.WatchFleetRequest"> & {};
/**
 * Describes the message flotilla.v1.WatchFleetRequest.
 * Use `create(WatchFleetRequestSchema)` to create a new message.
 */
export declare const WatchFleetRequestSchema: GenMessage<WatchFleetRequest>;
/**
 * A deployment intent group as the fleet shows it.
 *
 * @generated from message flotilla.v1.FleetGroup
 */
export type FleetGroup = Message<"flotilla.v1.FleetGroup"> & {
    /**
     * `projects/{p}/compositeApps/{ca}/{v}/deploymentIntentGroups/{dig}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The project id.
     *
     * @generated from field: string project = 2;
     */
    project: string;
    /**
     * The lifecycle state.
     *
     * @generated from field: flotilla.v1.DeploymentIntentGroupState state = 3;
     */
    state: DeploymentIntentGroupState;
    /**
     * The content revision.
     *
     * @generated from field: int64 revision = 4;
     */
    revision: bigint;
    /**
     * The current (last) instance id; empty before the first instantiate.
     *
     * @generated from field: string current_instance = 5;
     */
    currentInstance: string;
    /**
     * The group's conditions.
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 6;
     */
    conditions: Condition[];
    /**
     * The current instance's rsync counts (what a SUMMARY status query answers).
     *
     * @generated from field: flotilla.v1.RsyncStatusCounts rsync_status = 7;
     */
    rsyncStatus?: RsyncStatusCounts | undefined;
    /**
     * The current instance's cluster status counts.
     *
     * @generated from field: flotilla.v1.ClusterStatusCounts cluster_status = 8;
     */
    clusterStatus?: ClusterStatusCounts | undefined;
    /**
     * The current instance's readiness counts.
     *
     * @generated from field: flotilla.v1.ReadinessCounts readiness = 9;
     */
    readiness?: ReadinessCounts | undefined;
};
/**
 * Describes the message flotilla.v1.FleetGroup.
 * Use `create(FleetGroupSchema)` to create a new message.
 */
export declare const FleetGroupSchema: GenMessage<FleetGroup>;
/**
 * A cluster as the fleet shows it.
 *
 * @generated from message flotilla.v1.FleetCluster
 */
export type FleetCluster = Message<"flotilla.v1.FleetCluster"> & {
    /**
     * `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * How the server reaches it.
     *
     * @generated from field: flotilla.v1.ConnectionMode connection_mode = 2;
     */
    connectionMode: ConnectionMode;
    /**
     * Whether its agent session is up.
     *
     * @generated from field: flotilla.v1.Connectivity connectivity = 3;
     */
    connectivity: Connectivity;
    /**
     * The state of its network intents.
     *
     * @generated from field: flotilla.v1.NetworkIntentsState network_intents_state = 4;
     */
    networkIntentsState: NetworkIntentsState;
    /**
     * The cluster's conditions.
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 5;
     */
    conditions: Condition[];
    /**
     * The cluster's labels.
     *
     * @generated from field: map<string, string> labels = 6;
     */
    labels: {
        [key: string]: string;
    };
};
/**
 * Describes the message flotilla.v1.FleetCluster.
 * Use `create(FleetClusterSchema)` to create a new message.
 */
export declare const FleetClusterSchema: GenMessage<FleetCluster>;
/**
 * One event of WatchFleet.
 *
 * @generated from message flotilla.v1.FleetEvent
 */
export type FleetEvent = Message<"flotilla.v1.FleetEvent"> & {
    /**
     * What happened.
     *
     * @generated from field: flotilla.v1.FleetEventType type = 1;
     */
    type: FleetEventType;
    /**
     * The row (none for SYNCED and HEARTBEAT).
     *
     * @generated from oneof flotilla.v1.FleetEvent.row
     */
    row: {
        /**
         * A deployment intent group.
         *
         * @generated from field: flotilla.v1.FleetGroup group = 2;
         */
        value: FleetGroup;
        case: "group";
    } | {
        /**
         * A cluster.
         *
         * @generated from field: flotilla.v1.FleetCluster cluster = 3;
         */
        value: FleetCluster;
        case: "cluster";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.FleetEvent.
 * Use `create(FleetEventSchema)` to create a new message.
 */
export declare const FleetEventSchema: GenMessage<FleetEvent>;
/**
 * One message of WatchFleet: the next events, in order.
 *
 * @generated from message flotilla.v1.WatchFleetResponse
 */
export type WatchFleetResponse = Message<"flotilla.v1.WatchFleetResponse"> & {
    /**
     * The events.
     *
     * @generated from field: repeated flotilla.v1.FleetEvent events = 1;
     */
    events: FleetEvent[];
};
/**
 * Describes the message flotilla.v1.WatchFleetResponse.
 * Use `create(WatchFleetResponseSchema)` to create a new message.
 */
export declare const WatchFleetResponseSchema: GenMessage<WatchFleetResponse>;
/**
 * How much a status query returns (the seed's `output` parameter).
 *
 * @generated from enum flotilla.v1.StatusOutput
 */
export declare enum StatusOutput {
    /**
     * Unset means ALL.
     *
     * @generated from enum value: STATUS_OUTPUT_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * State and aggregated counts only.
     *
     * @generated from enum value: STATUS_OUTPUT_SUMMARY = 1;
     */
    SUMMARY = 1,
    /**
     * Counts and the resource tree with identification and statuses.
     *
     * @generated from enum value: STATUS_OUTPUT_ALL = 2;
     */
    ALL = 2,
    /**
     * ALL plus metadata, spec and status of each cluster resource.
     *
     * @generated from enum value: STATUS_OUTPUT_DETAIL = 3;
     */
    DETAIL = 3,
    /**
     * Only rsync resources, with metadata and spec from the rendered manifest; no cluster status.
     *
     * @generated from enum value: STATUS_OUTPUT_RSYNC = 4;
     */
    RSYNC = 4
}
/**
 * Describes the enum flotilla.v1.StatusOutput.
 */
export declare const StatusOutputSchema: GenEnum<StatusOutput>;
/**
 * The cluster status of a resource, derived from the cluster's ResourceBundleState.
 *
 * @generated from enum flotilla.v1.ClusterResourceStatus
 */
export declare enum ClusterResourceStatus {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * No bundle state received yet, or the kind is not monitored.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_UNKNOWN = 1;
     */
    UNKNOWN = 1,
    /**
     * The kind is monitored and the resource is absent from the cluster.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_NOT_PRESENT = 2;
     */
    NOT_PRESENT = 2,
    /**
     * The resource is present in the cluster.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_PRESENT = 3;
     */
    PRESENT = 3
}
/**
 * Describes the enum flotilla.v1.ClusterResourceStatus.
 */
export declare const ClusterResourceStatusSchema: GenEnum<ClusterResourceStatus>;
/**
 * The readiness of a cluster resource, derived from its status.
 *
 * @generated from enum flotilla.v1.Readiness
 */
export declare enum Readiness {
    /**
     * Not known (no bundle state, or not present).
     *
     * @generated from enum value: READINESS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Ready (Deployment available, Pod Ready, Job complete, ...).
     *
     * @generated from enum value: READINESS_READY = 1;
     */
    READY = 1,
    /**
     * Present but not ready.
     *
     * @generated from enum value: READINESS_NOT_READY = 2;
     */
    NOT_READY = 2
}
/**
 * Describes the enum flotilla.v1.Readiness.
 */
export declare const ReadinessSchema: GenEnum<Readiness>;
/**
 * The kind of a WatchStatus event.
 *
 * @generated from enum flotilla.v1.WatchEventType
 */
export declare enum WatchEventType {
    /**
     * Never sent.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A resource's rsync status, cluster status or readiness changed (or snapshot entry).
     *
     * @generated from enum value: WATCH_EVENT_TYPE_RESOURCE_CHANGED = 1;
     */
    RESOURCE_CHANGED = 1,
    /**
     * Aggregated counts changed.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_COUNTS_CHANGED = 2;
     */
    COUNTS_CHANGED = 2,
    /**
     * The owner's lifecycle state changed (possibly with a new instance), or its content
     * revision moved with the state unchanged (an edit kept as a pending revision).
     *
     * @generated from enum value: WATCH_EVENT_TYPE_LIFECYCLE_CHANGED = 3;
     */
    LIFECYCLE_CHANGED = 3,
    /**
     * A cluster's connectivity changed.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_CONNECTIVITY_CHANGED = 4;
     */
    CONNECTIVITY_CHANGED = 4,
    /**
     * The snapshot is complete; live events follow.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_SYNCED = 5;
     */
    SYNCED = 5,
    /**
     * The resume token is older than retention; a fresh snapshot follows.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_RESYNC_REQUIRED = 6;
     */
    RESYNC_REQUIRED = 6,
    /**
     * Keep-alive carrying the latest token.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_HEARTBEAT = 7;
     */
    HEARTBEAT = 7
}
/**
 * Describes the enum flotilla.v1.WatchEventType.
 */
export declare const WatchEventTypeSchema: GenEnum<WatchEventType>;
/**
 * What a WatchFleet event says.
 *
 * @generated from enum flotilla.v1.FleetEventType
 */
export declare enum FleetEventType {
    /**
     * Never sent.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A row appeared; in a snapshot, every row.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_ADDED = 1;
     */
    ADDED = 1,
    /**
     * A row changed: the event holds it whole.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_MODIFIED = 2;
     */
    MODIFIED = 2,
    /**
     * A row went (the event holds its last state).
     *
     * @generated from enum value: FLEET_EVENT_TYPE_DELETED = 3;
     */
    DELETED = 3,
    /**
     * The snapshot is complete; changes follow.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_SYNCED = 4;
     */
    SYNCED = 4,
    /**
     * Nothing changed for a while.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_HEARTBEAT = 5;
     */
    HEARTBEAT = 5
}
/**
 * Describes the enum flotilla.v1.FleetEventType.
 */
export declare const FleetEventTypeSchema: GenEnum<FleetEventType>;
/**
 * Answers status queries and streams status changes.
 *
 * @generated from service flotilla.v1.StatusService
 */
export declare const StatusService: GenService<{
    /**
     * The status of a deployment intent group's current (or a selected) instance.
     *
     * @generated from rpc flotilla.v1.StatusService.GetDeploymentIntentGroupStatus
     */
    getDeploymentIntentGroupStatus: {
        methodKind: "unary";
        input: typeof GetDeploymentIntentGroupStatusRequestSchema;
        output: typeof ResourceStatusSchema;
    };
    /**
     * The status of a cluster's network intents instance.
     *
     * @generated from rpc flotilla.v1.StatusService.GetClusterNetworkStatus
     */
    getClusterNetworkStatus: {
        methodKind: "unary";
        input: typeof GetClusterNetworkStatusRequestSchema;
        output: typeof ResourceStatusSchema;
    };
    /**
     * Lists the instances (current and historical) of a deployment intent group or a
     * cluster's network intents.
     *
     * @generated from rpc flotilla.v1.StatusService.ListInstances
     */
    listInstances: {
        methodKind: "unary";
        input: typeof ListInstancesRequestSchema;
        output: typeof ListInstancesResponseSchema;
    };
    /**
     * Streams status changes of a deployment intent group or cluster: a snapshot, a
     * SYNCED marker, then live events, each with a resume token.
     *
     * @generated from rpc flotilla.v1.StatusService.WatchStatus
     */
    watchStatus: {
        methodKind: "server_streaming";
        input: typeof WatchStatusRequestSchema;
        output: typeof WatchStatusResponseSchema;
    };
    /**
     * Streams the fleet the token may read: each deployment intent group of its projects
     * with its state, revision, instance and summary counts, and each cluster with its
     * connectivity and conditions. A snapshot (ADDED rows), SYNCED, then each row that
     * changed. Rows are state, not a log: changes that come close together arrive as one
     * MODIFIED row, and a client that watches again starts with a fresh snapshot, which
     * holds whatever it missed (there is no resume token).
     *
     * @generated from rpc flotilla.v1.StatusService.WatchFleet
     */
    watchFleet: {
        methodKind: "server_streaming";
        input: typeof WatchFleetRequestSchema;
        output: typeof WatchFleetResponseSchema;
    };
}>;
