import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Condition } from "./common_pb.js";
import type { ClusterSchema } from "./lifecycle_pb.js";
import type { EmptySchema, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/container_cluster.proto.
 */
export declare const file_flotilla_v1_container_cluster: GenFile;
/**
 * The provider-specific spec of the built-in `sim` IaaS (what its infrastructure
 * object validates and provisions).
 *
 * @generated from message flotilla.v1.SimInfrastructureSpec
 */
export type SimInfrastructureSpec = Message<"flotilla.v1.SimInfrastructureSpec"> & {
    /**
     * The zone the VMs are provisioned in (ListZones).
     *
     * @generated from field: string zone_id = 1;
     */
    zoneId: string;
    /**
     * The service offering of the VMs (ListServiceOfferings).
     *
     * @generated from field: string service_offering_id = 2;
     */
    serviceOfferingId: string;
    /**
     * The number of VMs.
     *
     * @generated from field: int32 size = 3;
     */
    size: number;
    /**
     * An existing network of the zone; empty: an isolated network with source NAT is
     * provisioned and released with the cluster.
     *
     * @generated from field: string network_id = 4;
     */
    networkId: string;
};
/**
 * Describes the message flotilla.v1.SimInfrastructureSpec.
 * Use `create(SimInfrastructureSpecSchema)` to create a new message.
 */
export declare const SimInfrastructureSpecSchema: GenMessage<SimInfrastructureSpec>;
/**
 * An infrastructure object of the sim provider (seed 004's provider-specific
 * resource). Name: `simInfrastructures/{id}`.
 *
 * @generated from message flotilla.v1.SimInfrastructure
 */
export type SimInfrastructure = Message<"flotilla.v1.SimInfrastructure"> & {
    /**
     * The resource name, `simInfrastructures/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The spec; validated at create.
     *
     * @generated from field: flotilla.v1.SimInfrastructureSpec spec = 2;
     */
    spec?: SimInfrastructureSpec | undefined;
    /**
     * Output only: the container cluster that owns it (empty: nothing is provisioned).
     *
     * @generated from field: string owner = 3;
     */
    owner: string;
    /**
     * Output only: what the provider reports.
     *
     * @generated from field: flotilla.v1.InfrastructureStatus status = 4;
     */
    status?: InfrastructureStatus | undefined;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 5;
     */
    etag: string;
    /**
     * When it was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 6;
     */
    createTime?: Timestamp | undefined;
    /**
     * When it last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 7;
     */
    updateTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.SimInfrastructure.
 * Use `create(SimInfrastructureSchema)` to create a new message.
 */
export declare const SimInfrastructureSchema: GenMessage<SimInfrastructure>;
/**
 * Request of CreateSimInfrastructure.
 *
 * @generated from message flotilla.v1.CreateSimInfrastructureRequest
 */
export type CreateSimInfrastructureRequest = Message<"flotilla.v1.CreateSimInfrastructureRequest"> & {
    /**
     * The object's id: lowercase letters, digits and dashes; empty: a UUID.
     *
     * @generated from field: string sim_infrastructure_id = 1;
     */
    simInfrastructureId: string;
    /**
     * The object; name and output-only fields are ignored.
     *
     * @generated from field: flotilla.v1.SimInfrastructure sim_infrastructure = 2;
     */
    simInfrastructure?: SimInfrastructure | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateSimInfrastructureRequest.
 * Use `create(CreateSimInfrastructureRequestSchema)` to create a new message.
 */
export declare const CreateSimInfrastructureRequestSchema: GenMessage<CreateSimInfrastructureRequest>;
/**
 * Request of GetSimInfrastructure.
 *
 * @generated from message flotilla.v1.GetSimInfrastructureRequest
 */
export type GetSimInfrastructureRequest = Message<"flotilla.v1.GetSimInfrastructureRequest"> & {
    /**
     * The resource name, `simInfrastructures/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetSimInfrastructureRequest.
 * Use `create(GetSimInfrastructureRequestSchema)` to create a new message.
 */
export declare const GetSimInfrastructureRequestSchema: GenMessage<GetSimInfrastructureRequest>;
/**
 * Request of ListSimInfrastructures.
 *
 * @generated from message flotilla.v1.ListSimInfrastructuresRequest
 */
export type ListSimInfrastructuresRequest = Message<"flotilla.v1.ListSimInfrastructuresRequest"> & {
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
 * Describes the message flotilla.v1.ListSimInfrastructuresRequest.
 * Use `create(ListSimInfrastructuresRequestSchema)` to create a new message.
 */
export declare const ListSimInfrastructuresRequestSchema: GenMessage<ListSimInfrastructuresRequest>;
/**
 * Response of ListSimInfrastructures.
 *
 * @generated from message flotilla.v1.ListSimInfrastructuresResponse
 */
export type ListSimInfrastructuresResponse = Message<"flotilla.v1.ListSimInfrastructuresResponse"> & {
    /**
     * The objects of this page.
     *
     * @generated from field: repeated flotilla.v1.SimInfrastructure sim_infrastructures = 1;
     */
    simInfrastructures: SimInfrastructure[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListSimInfrastructuresResponse.
 * Use `create(ListSimInfrastructuresResponseSchema)` to create a new message.
 */
export declare const ListSimInfrastructuresResponseSchema: GenMessage<ListSimInfrastructuresResponse>;
/**
 * Request of DeleteSimInfrastructure.
 *
 * @generated from message flotilla.v1.DeleteSimInfrastructureRequest
 */
export type DeleteSimInfrastructureRequest = Message<"flotilla.v1.DeleteSimInfrastructureRequest"> & {
    /**
     * The resource name, `simInfrastructures/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The etag the caller last read; empty: any.
     *
     * @generated from field: string etag = 2;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.DeleteSimInfrastructureRequest.
 * Use `create(DeleteSimInfrastructureRequestSchema)` to create a new message.
 */
export declare const DeleteSimInfrastructureRequestSchema: GenMessage<DeleteSimInfrastructureRequest>;
/**
 * A zone of the IaaS.
 *
 * @generated from message flotilla.v1.Zone
 */
export type Zone = Message<"flotilla.v1.Zone"> & {
    /**
     * The zone's id (a create's zone_id).
     *
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * Its display name.
     *
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * How many more VMs it accepts.
     *
     * @generated from field: int64 vm_capacity = 3;
     */
    vmCapacity: bigint;
};
/**
 * Describes the message flotilla.v1.Zone.
 * Use `create(ZoneSchema)` to create a new message.
 */
export declare const ZoneSchema: GenMessage<Zone>;
/**
 * Request of ListZones.
 *
 * @generated from message flotilla.v1.ListZonesRequest
 */
export type ListZonesRequest = Message<"flotilla.v1.ListZonesRequest"> & {};
/**
 * Describes the message flotilla.v1.ListZonesRequest.
 * Use `create(ListZonesRequestSchema)` to create a new message.
 */
export declare const ListZonesRequestSchema: GenMessage<ListZonesRequest>;
/**
 * Response of ListZones.
 *
 * @generated from message flotilla.v1.ListZonesResponse
 */
export type ListZonesResponse = Message<"flotilla.v1.ListZonesResponse"> & {
    /**
     * Every zone.
     *
     * @generated from field: repeated flotilla.v1.Zone zones = 1;
     */
    zones: Zone[];
};
/**
 * Describes the message flotilla.v1.ListZonesResponse.
 * Use `create(ListZonesResponseSchema)` to create a new message.
 */
export declare const ListZonesResponseSchema: GenMessage<ListZonesResponse>;
/**
 * A service offering: the size of a VM.
 *
 * @generated from message flotilla.v1.ServiceOffering
 */
export type ServiceOffering = Message<"flotilla.v1.ServiceOffering"> & {
    /**
     * The offering's id (a create's service_offering_id).
     *
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * Its display name.
     *
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * Virtual CPUs.
     *
     * @generated from field: int64 cpus = 3;
     */
    cpus: bigint;
    /**
     * Memory in MiB.
     *
     * @generated from field: int64 memory_mib = 4;
     */
    memoryMib: bigint;
};
/**
 * Describes the message flotilla.v1.ServiceOffering.
 * Use `create(ServiceOfferingSchema)` to create a new message.
 */
export declare const ServiceOfferingSchema: GenMessage<ServiceOffering>;
/**
 * Request of ListServiceOfferings.
 *
 * @generated from message flotilla.v1.ListServiceOfferingsRequest
 */
export type ListServiceOfferingsRequest = Message<"flotilla.v1.ListServiceOfferingsRequest"> & {};
/**
 * Describes the message flotilla.v1.ListServiceOfferingsRequest.
 * Use `create(ListServiceOfferingsRequestSchema)` to create a new message.
 */
export declare const ListServiceOfferingsRequestSchema: GenMessage<ListServiceOfferingsRequest>;
/**
 * Response of ListServiceOfferings.
 *
 * @generated from message flotilla.v1.ListServiceOfferingsResponse
 */
export type ListServiceOfferingsResponse = Message<"flotilla.v1.ListServiceOfferingsResponse"> & {
    /**
     * Every offering.
     *
     * @generated from field: repeated flotilla.v1.ServiceOffering service_offerings = 1;
     */
    serviceOfferings: ServiceOffering[];
};
/**
 * Describes the message flotilla.v1.ListServiceOfferingsResponse.
 * Use `create(ListServiceOfferingsResponseSchema)` to create a new message.
 */
export declare const ListServiceOfferingsResponseSchema: GenMessage<ListServiceOfferingsResponse>;
/**
 * The status of the infrastructure object.
 *
 * @generated from message flotilla.v1.InfrastructureStatus
 */
export type InfrastructureStatus = Message<"flotilla.v1.InfrastructureStatus"> & {
    /**
     * Whether the infrastructure is provisioned (InfrastructureReady).
     *
     * @generated from field: bool ready = 1;
     */
    ready: boolean;
    /**
     * The API endpoint the infrastructure exposes.
     *
     * @generated from field: string endpoint = 2;
     */
    endpoint: string;
    /**
     * The phase.
     *
     * @generated from field: flotilla.v1.InfrastructurePhase phase = 3;
     */
    phase: InfrastructurePhase;
    /**
     * A machine-readable failure reason.
     *
     * @generated from field: string failure_reason = 4;
     */
    failureReason: string;
    /**
     * A human-readable failure message.
     *
     * @generated from field: string failure_message = 5;
     */
    failureMessage: string;
    /**
     * Conditions of the infrastructure object (Ready, ...).
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 6;
     */
    conditions: Condition[];
};
/**
 * Describes the message flotilla.v1.InfrastructureStatus.
 * Use `create(InfrastructureStatusSchema)` to create a new message.
 */
export declare const InfrastructureStatusSchema: GenMessage<InfrastructureStatus>;
/**
 * A VM of a container cluster (the cluster<->VM book-keeping map).
 *
 * @generated from message flotilla.v1.ContainerClusterVm
 */
export type ContainerClusterVm = Message<"flotilla.v1.ContainerClusterVm"> & {
    /**
     * The VM's id in the IaaS.
     *
     * @generated from field: string vm_id = 1;
     */
    vmId: string;
    /**
     * The VM's name.
     *
     * @generated from field: string name = 2;
     */
    name: string;
    /**
     * The VM's state as last observed ("Running", "Stopped", "Missing", ...).
     *
     * @generated from field: string state = 3;
     */
    state: string;
    /**
     * The VM's address.
     *
     * @generated from field: string ip_address = 4;
     */
    ipAddress: string;
};
/**
 * Describes the message flotilla.v1.ContainerClusterVm.
 * Use `create(ContainerClusterVmSchema)` to create a new message.
 */
export declare const ContainerClusterVmSchema: GenMessage<ContainerClusterVm>;
/**
 * A container cluster. Name: `containerClusters/{uuid}`.
 *
 * @generated from message flotilla.v1.ContainerCluster
 */
export type ContainerCluster = Message<"flotilla.v1.ContainerCluster"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The cluster's UUID (v7).
     *
     * @generated from field: string id = 2;
     */
    id: string;
    /**
     * The user-facing name (the seed's `name`).
     *
     * @generated from field: string display_name = 3;
     */
    displayName: string;
    /**
     * Free-form description.
     *
     * @generated from field: string description = 4;
     */
    description: string;
    /**
     * The zone the VMs are provisioned in.
     *
     * @generated from field: string zone_id = 5;
     */
    zoneId: string;
    /**
     * The service offering of the VMs.
     *
     * @generated from field: string service_offering_id = 6;
     */
    serviceOfferingId: string;
    /**
     * The number of VMs.
     *
     * @generated from field: int32 size = 7;
     */
    size: number;
    /**
     * The account the cluster belongs to.
     *
     * @generated from field: string account_name = 8;
     */
    accountName: string;
    /**
     * The domain of the account.
     *
     * @generated from field: string domain_id = 9;
     */
    domainId: string;
    /**
     * The network of the VMs; provisioned (and cleaned up with the cluster) if not given.
     *
     * @generated from field: string network_id = 10;
     */
    networkId: string;
    /**
     * The infrastructure object (seed 004's infrastructureRef), e.g.
     * `simInfrastructures/{id}`. At create: an existing unowned object, or empty to create
     * one from zone_id, service_offering_id, size and network_id.
     *
     * @generated from field: string infrastructure_ref = 11;
     */
    infrastructureRef: string;
    /**
     * Output only: the API server endpoint.
     *
     * @generated from field: string endpoint = 12;
     */
    endpoint: string;
    /**
     * Output only: the console endpoint.
     *
     * @generated from field: string console_endpoint = 13;
     */
    consoleEndpoint: string;
    /**
     * Output only: the state.
     *
     * @generated from field: flotilla.v1.ContainerClusterState state = 14;
     */
    state: ContainerClusterState;
    /**
     * Output only: the infrastructure phase.
     *
     * @generated from field: flotilla.v1.InfrastructurePhase phase = 15;
     */
    phase: InfrastructurePhase;
    /**
     * Output only: conditions (Ready, InfrastructureReady, NodesReady).
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 16;
     */
    conditions: Condition[];
    /**
     * Output only: the VMs.
     *
     * @generated from field: repeated flotilla.v1.ContainerClusterVm vms = 17;
     */
    vms: ContainerClusterVm[];
    /**
     * Output only: the infrastructure object's status.
     *
     * @generated from field: flotilla.v1.InfrastructureStatus infrastructure_status = 18;
     */
    infrastructureStatus?: InfrastructureStatus | undefined;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 19;
     */
    etag: string;
    /**
     * When it was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 20;
     */
    createTime?: Timestamp | undefined;
    /**
     * When it last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 21;
     */
    updateTime?: Timestamp | undefined;
    /**
     * What recovery does when the cluster is in ALERT.
     *
     * @generated from field: flotilla.v1.RecoveryPolicy recovery_policy = 22;
     */
    recoveryPolicy: RecoveryPolicy;
    /**
     * Whether recovery runs by itself when state sync raises ALERT (else only
     * RecoverContainerCluster starts it).
     *
     * @generated from field: bool auto_recover = 23;
     */
    autoRecover: boolean;
    /**
     * Output only: the Flotilla cluster it is registered as
     * (`clusterProviders/{cp}/clusters/{c}`), empty if it is not.
     *
     * @generated from field: string registered_cluster = 24;
     */
    registeredCluster: string;
};
/**
 * Describes the message flotilla.v1.ContainerCluster.
 * Use `create(ContainerClusterSchema)` to create a new message.
 */
export declare const ContainerClusterSchema: GenMessage<ContainerCluster>;
/**
 * Credentials of a container image registry the cluster pulls from.
 *
 * @generated from message flotilla.v1.RegistryCredentials
 */
export type RegistryCredentials = Message<"flotilla.v1.RegistryCredentials"> & {
    /**
     * The registry, e.g. `registry.example.com`.
     *
     * @generated from field: string url = 1;
     */
    url: string;
    /**
     * The user.
     *
     * @generated from field: string username = 2;
     */
    username: string;
    /**
     * The password (stored encrypted; returned only by GetContainerClusterCredentials).
     *
     * @generated from field: string password = 3;
     */
    password: string;
};
/**
 * Describes the message flotilla.v1.RegistryCredentials.
 * Use `create(RegistryCredentialsSchema)` to create a new message.
 */
export declare const RegistryCredentialsSchema: GenMessage<RegistryCredentials>;
/**
 * Request of CreateContainerCluster.
 *
 * @generated from message flotilla.v1.CreateContainerClusterRequest
 */
export type CreateContainerClusterRequest = Message<"flotilla.v1.CreateContainerClusterRequest"> & {
    /**
     * The container cluster; name, id and output-only fields are ignored.
     *
     * @generated from field: flotilla.v1.ContainerCluster container_cluster = 1;
     */
    containerCluster?: ContainerCluster | undefined;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 2;
     */
    requestId: string;
    /**
     * Registry credentials to store with the cluster (input only).
     *
     * @generated from field: flotilla.v1.RegistryCredentials registry = 3;
     */
    registry?: RegistryCredentials | undefined;
};
/**
 * Describes the message flotilla.v1.CreateContainerClusterRequest.
 * Use `create(CreateContainerClusterRequestSchema)` to create a new message.
 */
export declare const CreateContainerClusterRequestSchema: GenMessage<CreateContainerClusterRequest>;
/**
 * Request of GetContainerCluster.
 *
 * @generated from message flotilla.v1.GetContainerClusterRequest
 */
export type GetContainerClusterRequest = Message<"flotilla.v1.GetContainerClusterRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetContainerClusterRequest.
 * Use `create(GetContainerClusterRequestSchema)` to create a new message.
 */
export declare const GetContainerClusterRequestSchema: GenMessage<GetContainerClusterRequest>;
/**
 * Request of ListContainerClusters.
 *
 * @generated from message flotilla.v1.ListContainerClustersRequest
 */
export type ListContainerClustersRequest = Message<"flotilla.v1.ListContainerClustersRequest"> & {
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
    /**
     * Only clusters in this state.
     *
     * @generated from field: flotilla.v1.ContainerClusterState state = 3;
     */
    state: ContainerClusterState;
    /**
     * Only clusters in this zone.
     *
     * @generated from field: string zone_id = 4;
     */
    zoneId: string;
    /**
     * Only clusters of this account.
     *
     * @generated from field: string account_name = 5;
     */
    accountName: string;
};
/**
 * Describes the message flotilla.v1.ListContainerClustersRequest.
 * Use `create(ListContainerClustersRequestSchema)` to create a new message.
 */
export declare const ListContainerClustersRequestSchema: GenMessage<ListContainerClustersRequest>;
/**
 * Response of ListContainerClusters.
 *
 * @generated from message flotilla.v1.ListContainerClustersResponse
 */
export type ListContainerClustersResponse = Message<"flotilla.v1.ListContainerClustersResponse"> & {
    /**
     * The container clusters of this page.
     *
     * @generated from field: repeated flotilla.v1.ContainerCluster container_clusters = 1;
     */
    containerClusters: ContainerCluster[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListContainerClustersResponse.
 * Use `create(ListContainerClustersResponseSchema)` to create a new message.
 */
export declare const ListContainerClustersResponseSchema: GenMessage<ListContainerClustersResponse>;
/**
 * Request of StartContainerCluster.
 *
 * @generated from message flotilla.v1.StartContainerClusterRequest
 */
export type StartContainerClusterRequest = Message<"flotilla.v1.StartContainerClusterRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 2;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.StartContainerClusterRequest.
 * Use `create(StartContainerClusterRequestSchema)` to create a new message.
 */
export declare const StartContainerClusterRequestSchema: GenMessage<StartContainerClusterRequest>;
/**
 * Request of StopContainerCluster.
 *
 * @generated from message flotilla.v1.StopContainerClusterRequest
 */
export type StopContainerClusterRequest = Message<"flotilla.v1.StopContainerClusterRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 2;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.StopContainerClusterRequest.
 * Use `create(StopContainerClusterRequestSchema)` to create a new message.
 */
export declare const StopContainerClusterRequestSchema: GenMessage<StopContainerClusterRequest>;
/**
 * Request of ScaleContainerCluster.
 *
 * @generated from message flotilla.v1.ScaleContainerClusterRequest
 */
export type ScaleContainerClusterRequest = Message<"flotilla.v1.ScaleContainerClusterRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The new number of VMs.
     *
     * @generated from field: int32 size = 2;
     */
    size: number;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 3;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.ScaleContainerClusterRequest.
 * Use `create(ScaleContainerClusterRequestSchema)` to create a new message.
 */
export declare const ScaleContainerClusterRequestSchema: GenMessage<ScaleContainerClusterRequest>;
/**
 * Request of RecoverContainerCluster.
 *
 * @generated from message flotilla.v1.RecoverContainerClusterRequest
 */
export type RecoverContainerClusterRequest = Message<"flotilla.v1.RecoverContainerClusterRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 2;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.RecoverContainerClusterRequest.
 * Use `create(RecoverContainerClusterRequestSchema)` to create a new message.
 */
export declare const RecoverContainerClusterRequestSchema: GenMessage<RecoverContainerClusterRequest>;
/**
 * Request of DeleteContainerCluster.
 *
 * @generated from message flotilla.v1.DeleteContainerClusterRequest
 */
export type DeleteContainerClusterRequest = Message<"flotilla.v1.DeleteContainerClusterRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 2;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.DeleteContainerClusterRequest.
 * Use `create(DeleteContainerClusterRequestSchema)` to create a new message.
 */
export declare const DeleteContainerClusterRequestSchema: GenMessage<DeleteContainerClusterRequest>;
/**
 * Request of WatchContainerClusters.
 *
 * @generated from message flotilla.v1.WatchContainerClustersRequest
 */
export type WatchContainerClustersRequest = Message<"flotilla.v1.WatchContainerClustersRequest"> & {
    /**
     * Resume after this token; empty starts with a snapshot.
     *
     * @generated from field: string resume_token = 1;
     */
    resumeToken: string;
    /**
     * Only clusters in these states (an event of a cluster leaving them is sent too).
     *
     * @generated from field: repeated flotilla.v1.ContainerClusterState states = 2;
     */
    states: ContainerClusterState[];
};
/**
 * Describes the message flotilla.v1.WatchContainerClustersRequest.
 * Use `create(WatchContainerClustersRequestSchema)` to create a new message.
 */
export declare const WatchContainerClustersRequestSchema: GenMessage<WatchContainerClustersRequest>;
/**
 * One event of WatchContainerClusters.
 *
 * @generated from message flotilla.v1.ContainerClusterEvent
 */
export type ContainerClusterEvent = Message<"flotilla.v1.ContainerClusterEvent"> & {
    /**
     * What happened.
     *
     * @generated from field: flotilla.v1.ContainerClusterEventType type = 1;
     */
    type: ContainerClusterEventType;
    /**
     * The container cluster as of this event (ADDED, MODIFIED, DELETED).
     *
     * @generated from field: flotilla.v1.ContainerCluster container_cluster = 2;
     */
    containerCluster?: ContainerCluster | undefined;
    /**
     * Opaque, monotonically increasing resume token.
     *
     * @generated from field: string resume_token = 3;
     */
    resumeToken: string;
};
/**
 * Describes the message flotilla.v1.ContainerClusterEvent.
 * Use `create(ContainerClusterEventSchema)` to create a new message.
 */
export declare const ContainerClusterEventSchema: GenMessage<ContainerClusterEvent>;
/**
 * A message of WatchContainerClusters: the events at hand, in order.
 *
 * @generated from message flotilla.v1.WatchContainerClustersResponse
 */
export type WatchContainerClustersResponse = Message<"flotilla.v1.WatchContainerClustersResponse"> & {
    /**
     * The events.
     *
     * @generated from field: repeated flotilla.v1.ContainerClusterEvent events = 1;
     */
    events: ContainerClusterEvent[];
};
/**
 * Describes the message flotilla.v1.WatchContainerClustersResponse.
 * Use `create(WatchContainerClustersResponseSchema)` to create a new message.
 */
export declare const WatchContainerClustersResponseSchema: GenMessage<WatchContainerClustersResponse>;
/**
 * Request of GetContainerClusterCredentials.
 *
 * @generated from message flotilla.v1.GetContainerClusterCredentialsRequest
 */
export type GetContainerClusterCredentialsRequest = Message<"flotilla.v1.GetContainerClusterCredentialsRequest"> & {
    /**
     * The resource name, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetContainerClusterCredentialsRequest.
 * Use `create(GetContainerClusterCredentialsRequestSchema)` to create a new message.
 */
export declare const GetContainerClusterCredentialsRequestSchema: GenMessage<GetContainerClusterCredentialsRequest>;
/**
 * The credentials of a container cluster (stored encrypted).
 *
 * @generated from message flotilla.v1.ContainerClusterCredentials
 */
export type ContainerClusterCredentials = Message<"flotilla.v1.ContainerClusterCredentials"> & {
    /**
     * The resource name of the cluster.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * A kubeconfig document for the cluster.
     *
     * @generated from field: string kubeconfig = 2;
     */
    kubeconfig: string;
    /**
     * The admin user.
     *
     * @generated from field: string username = 3;
     */
    username: string;
    /**
     * The admin password.
     *
     * @generated from field: string password = 4;
     */
    password: string;
    /**
     * A bearer token of the admin user.
     *
     * @generated from field: string token = 5;
     */
    token: string;
    /**
     * The registry credentials given at create, if any.
     *
     * @generated from field: flotilla.v1.RegistryCredentials registry = 6;
     */
    registry?: RegistryCredentials | undefined;
};
/**
 * Describes the message flotilla.v1.ContainerClusterCredentials.
 * Use `create(ContainerClusterCredentialsSchema)` to create a new message.
 */
export declare const ContainerClusterCredentialsSchema: GenMessage<ContainerClusterCredentials>;
/**
 * Request of RegisterContainerCluster.
 *
 * @generated from message flotilla.v1.RegisterContainerClusterRequest
 */
export type RegisterContainerClusterRequest = Message<"flotilla.v1.RegisterContainerClusterRequest"> & {
    /**
     * The container cluster, `containerClusters/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The cluster provider to register it under, `clusterProviders/{cp}`.
     *
     * @generated from field: string parent = 2;
     */
    parent: string;
    /**
     * The Flotilla cluster id.
     *
     * @generated from field: string cluster_id = 3;
     */
    clusterId: string;
    /**
     * Labels of the Flotilla cluster (placement selects on them).
     *
     * @generated from field: map<string, string> labels = 4;
     */
    labels: {
        [key: string]: string;
    };
};
/**
 * Describes the message flotilla.v1.RegisterContainerClusterRequest.
 * Use `create(RegisterContainerClusterRequestSchema)` to create a new message.
 */
export declare const RegisterContainerClusterRequestSchema: GenMessage<RegisterContainerClusterRequest>;
/**
 * What recovery does for a cluster in ALERT.
 *
 * @generated from enum flotilla.v1.RecoveryPolicy
 */
export declare enum RecoveryPolicy {
    /**
     * Not set: RECOVERY_POLICY_RESTART_AND_REPROVISION.
     *
     * @generated from enum value: RECOVERY_POLICY_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * No recovery: the cluster stays in ALERT until a user acts (stop, delete).
     *
     * @generated from enum value: RECOVERY_POLICY_NONE = 1;
     */
    NONE = 1,
    /**
     * Restart the VMs that stopped.
     *
     * @generated from enum value: RECOVERY_POLICY_RESTART_STOPPED = 2;
     */
    RESTART_STOPPED = 2,
    /**
     * Restart the VMs that stopped and provision new ones for those the IaaS lost.
     *
     * @generated from enum value: RECOVERY_POLICY_RESTART_AND_REPROVISION = 3;
     */
    RESTART_AND_REPROVISION = 3
}
/**
 * Describes the enum flotilla.v1.RecoveryPolicy.
 */
export declare const RecoveryPolicySchema: GenEnum<RecoveryPolicy>;
/**
 * The state of a container cluster (seed 001).
 *
 * @generated from enum flotilla.v1.ContainerClusterState
 */
export declare enum ContainerClusterState {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Recorded, not yet started.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_CREATED = 1;
     */
    CREATED = 1,
    /**
     * Provisioning or starting VMs.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_STARTING = 2;
     */
    STARTING = 2,
    /**
     * Running with every VM up.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_RUNNING = 3;
     */
    RUNNING = 3,
    /**
     * Stopping VMs.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_STOPPING = 4;
     */
    STOPPING = 4,
    /**
     * Every VM stopped.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_STOPPED = 5;
     */
    STOPPED = 5,
    /**
     * Adding or removing VMs.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_SCALING = 6;
     */
    SCALING = 6,
    /**
     * Not in its desired state; see conditions.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_ALERT = 7;
     */
    ALERT = 7,
    /**
     * Being recovered.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_RECOVERING = 8;
     */
    RECOVERING = 8,
    /**
     * Releasing resources.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_EXPUNGING = 9;
     */
    EXPUNGING = 9,
    /**
     * Cleanup failed; the garbage collector retries.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_EXPUNGE = 10;
     */
    EXPUNGE = 10,
    /**
     * Gone.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_DESTROYED = 11;
     */
    DESTROYED = 11
}
/**
 * Describes the enum flotilla.v1.ContainerClusterState.
 */
export declare const ContainerClusterStateSchema: GenEnum<ContainerClusterState>;
/**
 * The provisioning phase of an infrastructure object (seed 004).
 *
 * @generated from enum flotilla.v1.InfrastructurePhase
 */
export declare enum InfrastructurePhase {
    /**
     * Never set by the server.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Waiting to be provisioned.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_PENDING = 1;
     */
    PENDING = 1,
    /**
     * Being provisioned.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_PROVISIONING = 2;
     */
    PROVISIONING = 2,
    /**
     * Provisioned.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_PROVISIONED = 3;
     */
    PROVISIONED = 3,
    /**
     * Being deleted.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_DELETING = 4;
     */
    DELETING = 4,
    /**
     * Failed; see failure_reason.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_FAILED = 5;
     */
    FAILED = 5
}
/**
 * Describes the enum flotilla.v1.InfrastructurePhase.
 */
export declare const InfrastructurePhaseSchema: GenEnum<InfrastructurePhase>;
/**
 * What a WatchContainerClusters event says.
 *
 * @generated from enum flotilla.v1.ContainerClusterEventType
 */
export declare enum ContainerClusterEventType {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * A cluster was created; in a snapshot, a cluster that exists.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_ADDED = 1;
     */
    ADDED = 1,
    /**
     * A cluster changed (its state, VMs, conditions, ...).
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_MODIFIED = 2;
     */
    MODIFIED = 2,
    /**
     * A cluster was destroyed (container_cluster holds its last state, DESTROYED).
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_DELETED = 3;
     */
    DELETED = 3,
    /**
     * The snapshot is complete; live events follow.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_SYNCED = 4;
     */
    SYNCED = 4,
    /**
     * The resume token is too old (or of a snapshot): a fresh snapshot follows.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_RESYNC_REQUIRED = 5;
     */
    RESYNC_REQUIRED = 5,
    /**
     * Nothing happened for a while; carries the latest resume token.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_HEARTBEAT = 6;
     */
    HEARTBEAT = 6
}
/**
 * Describes the enum flotilla.v1.ContainerClusterEventType.
 */
export declare const ContainerClusterEventTypeSchema: GenEnum<ContainerClusterEventType>;
/**
 * Provisions, heals and deletes container clusters.
 *
 * @generated from service flotilla.v1.ContainerClusterService
 */
export declare const ContainerClusterService: GenService<{
    /**
     * Creates a container cluster and starts provisioning it (CREATED -> STARTING).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.CreateContainerCluster
     */
    createContainerCluster: {
        methodKind: "unary";
        input: typeof CreateContainerClusterRequestSchema;
        output: typeof ContainerClusterSchema;
    };
    /**
     * Gets a container cluster.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.GetContainerCluster
     */
    getContainerCluster: {
        methodKind: "unary";
        input: typeof GetContainerClusterRequestSchema;
        output: typeof ContainerClusterSchema;
    };
    /**
     * Lists container clusters.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.ListContainerClusters
     */
    listContainerClusters: {
        methodKind: "unary";
        input: typeof ListContainerClustersRequestSchema;
        output: typeof ListContainerClustersResponseSchema;
    };
    /**
     * Starts a stopped container cluster (STOPPED -> STARTING).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.StartContainerCluster
     */
    startContainerCluster: {
        methodKind: "unary";
        input: typeof StartContainerClusterRequestSchema;
        output: typeof ContainerClusterSchema;
    };
    /**
     * Stops a running container cluster (RUNNING or ALERT -> STOPPING).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.StopContainerCluster
     */
    stopContainerCluster: {
        methodKind: "unary";
        input: typeof StopContainerClusterRequestSchema;
        output: typeof ContainerClusterSchema;
    };
    /**
     * Changes the number of VMs (RUNNING -> SCALING).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.ScaleContainerCluster
     */
    scaleContainerCluster: {
        methodKind: "unary";
        input: typeof ScaleContainerClusterRequestSchema;
        output: typeof ContainerClusterSchema;
    };
    /**
     * Recovers a cluster in ALERT (ALERT -> RECOVERING).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.RecoverContainerCluster
     */
    recoverContainerCluster: {
        methodKind: "unary";
        input: typeof RecoverContainerClusterRequestSchema;
        output: typeof ContainerClusterSchema;
    };
    /**
     * Deletes a container cluster (STOPPED or ALERT -> EXPUNGING).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.DeleteContainerCluster
     */
    deleteContainerCluster: {
        methodKind: "unary";
        input: typeof DeleteContainerClusterRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Streams container cluster changes.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.WatchContainerClusters
     */
    watchContainerClusters: {
        methodKind: "server_streaming";
        input: typeof WatchContainerClustersRequestSchema;
        output: typeof WatchContainerClustersResponseSchema;
    };
    /**
     * Returns the credentials of a container cluster (never returned by Get or List).
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.GetContainerClusterCredentials
     */
    getContainerClusterCredentials: {
        methodKind: "unary";
        input: typeof GetContainerClusterCredentialsRequestSchema;
        output: typeof ContainerClusterCredentialsSchema;
    };
    /**
     * Registers a RUNNING container cluster as a Flotilla cluster (served by an embedded
     * sim agent whose nodes are its VMs), so deployment intent groups can be placed on it.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.RegisterContainerCluster
     */
    registerContainerCluster: {
        methodKind: "unary";
        input: typeof RegisterContainerClusterRequestSchema;
        output: typeof ClusterSchema;
    };
    /**
     * Lists the zones of the IaaS, with the VM capacity each has left.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.ListZones
     */
    listZones: {
        methodKind: "unary";
        input: typeof ListZonesRequestSchema;
        output: typeof ListZonesResponseSchema;
    };
    /**
     * Lists the service offerings (VM sizes) of the IaaS.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.ListServiceOfferings
     */
    listServiceOfferings: {
        methodKind: "unary";
        input: typeof ListServiceOfferingsRequestSchema;
        output: typeof ListServiceOfferingsResponseSchema;
    };
    /**
     * Creates an infrastructure object of the sim provider (seed 004): validated on its
     * own (zone, offering, size and network exist and fit); provisioned only once a
     * container cluster owns it.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.CreateSimInfrastructure
     */
    createSimInfrastructure: {
        methodKind: "unary";
        input: typeof CreateSimInfrastructureRequestSchema;
        output: typeof SimInfrastructureSchema;
    };
    /**
     * Gets an infrastructure object of the sim provider.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.GetSimInfrastructure
     */
    getSimInfrastructure: {
        methodKind: "unary";
        input: typeof GetSimInfrastructureRequestSchema;
        output: typeof SimInfrastructureSchema;
    };
    /**
     * Lists the infrastructure objects of the sim provider.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.ListSimInfrastructures
     */
    listSimInfrastructures: {
        methodKind: "unary";
        input: typeof ListSimInfrastructuresRequestSchema;
        output: typeof ListSimInfrastructuresResponseSchema;
    };
    /**
     * Deletes an infrastructure object no container cluster owns.
     *
     * @generated from rpc flotilla.v1.ContainerClusterService.DeleteSimInfrastructure
     */
    deleteSimInfrastructure: {
        methodKind: "unary";
        input: typeof DeleteSimInfrastructureRequestSchema;
        output: typeof EmptySchema;
    };
}>;
