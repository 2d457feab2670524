import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/simulator.proto.
 */
export declare const file_flotilla_v1_simulator: GenFile;
/**
 * Request of FailInfrastructureOperations.
 *
 * @generated from message flotilla.v1.FailInfrastructureOperationsRequest
 */
export type FailInfrastructureOperationsRequest = Message<"flotilla.v1.FailInfrastructureOperationsRequest"> & {
    /**
     * The operation: create_network, delete_network, create_vm, start_vm, stop_vm or
     * delete_vm.
     *
     * @generated from field: string operation = 1;
     */
    operation: string;
    /**
     * How many of its next calls fail (0 clears the fault).
     *
     * @generated from field: int32 count = 2;
     */
    count: number;
};
/**
 * Describes the message flotilla.v1.FailInfrastructureOperationsRequest.
 * Use `create(FailInfrastructureOperationsRequestSchema)` to create a new message.
 */
export declare const FailInfrastructureOperationsRequestSchema: GenMessage<FailInfrastructureOperationsRequest>;
/**
 * Request of DisconnectCluster.
 *
 * @generated from message flotilla.v1.DisconnectClusterRequest
 */
export type DisconnectClusterRequest = Message<"flotilla.v1.DisconnectClusterRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
};
/**
 * Describes the message flotilla.v1.DisconnectClusterRequest.
 * Use `create(DisconnectClusterRequestSchema)` to create a new message.
 */
export declare const DisconnectClusterRequestSchema: GenMessage<DisconnectClusterRequest>;
/**
 * Request of ReconnectCluster.
 *
 * @generated from message flotilla.v1.ReconnectClusterRequest
 */
export type ReconnectClusterRequest = Message<"flotilla.v1.ReconnectClusterRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
};
/**
 * Describes the message flotilla.v1.ReconnectClusterRequest.
 * Use `create(ReconnectClusterRequestSchema)` to create a new message.
 */
export declare const ReconnectClusterRequestSchema: GenMessage<ReconnectClusterRequest>;
/**
 * Request of FailApplies.
 *
 * @generated from message flotilla.v1.FailAppliesRequest
 */
export type FailAppliesRequest = Message<"flotilla.v1.FailAppliesRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * Kind pattern (glob, "*" for any); empty clears every rule.
     *
     * @generated from field: string kind_pattern = 2;
     */
    kindPattern: string;
    /**
     * Name pattern (glob).
     *
     * @generated from field: string name_pattern = 3;
     */
    namePattern: string;
};
/**
 * Describes the message flotilla.v1.FailAppliesRequest.
 * Use `create(FailAppliesRequestSchema)` to create a new message.
 */
export declare const FailAppliesRequestSchema: GenMessage<FailAppliesRequest>;
/**
 * Request of DeletePod.
 *
 * @generated from message flotilla.v1.DeletePodRequest
 */
export type DeletePodRequest = Message<"flotilla.v1.DeletePodRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * The pod's namespace.
     *
     * @generated from field: string namespace = 2;
     */
    namespace: string;
    /**
     * The pod's name.
     *
     * @generated from field: string pod = 3;
     */
    pod: string;
};
/**
 * Describes the message flotilla.v1.DeletePodRequest.
 * Use `create(DeletePodRequestSchema)` to create a new message.
 */
export declare const DeletePodRequestSchema: GenMessage<DeletePodRequest>;
/**
 * Request of SetPodReadinessDelay.
 *
 * @generated from message flotilla.v1.SetPodReadinessDelayRequest
 */
export type SetPodReadinessDelayRequest = Message<"flotilla.v1.SetPodReadinessDelayRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * The delay in milliseconds.
     *
     * @generated from field: int64 delay_millis = 2;
     */
    delayMillis: bigint;
};
/**
 * Describes the message flotilla.v1.SetPodReadinessDelayRequest.
 * Use `create(SetPodReadinessDelayRequestSchema)` to create a new message.
 */
export declare const SetPodReadinessDelayRequestSchema: GenMessage<SetPodReadinessDelayRequest>;
/**
 * Request of FailActions.
 *
 * @generated from message flotilla.v1.FailActionsRequest
 */
export type FailActionsRequest = Message<"flotilla.v1.FailActionsRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * Pod or node name pattern (glob, "*" for any); empty clears every rule.
     *
     * @generated from field: string target_pattern = 2;
     */
    targetPattern: string;
    /**
     * "Reboot", "Snapshot", or empty for both.
     *
     * @generated from field: string action_name = 3;
     */
    actionName: string;
};
/**
 * Describes the message flotilla.v1.FailActionsRequest.
 * Use `create(FailActionsRequestSchema)` to create a new message.
 */
export declare const FailActionsRequestSchema: GenMessage<FailActionsRequest>;
/**
 * Request of StopVm.
 *
 * @generated from message flotilla.v1.StopVmRequest
 */
export type StopVmRequest = Message<"flotilla.v1.StopVmRequest"> & {
    /**
     * The VM id.
     *
     * @generated from field: string vm_id = 1;
     */
    vmId: string;
};
/**
 * Describes the message flotilla.v1.StopVmRequest.
 * Use `create(StopVmRequestSchema)` to create a new message.
 */
export declare const StopVmRequestSchema: GenMessage<StopVmRequest>;
/**
 * Request of DeleteVm.
 *
 * @generated from message flotilla.v1.DeleteVmRequest
 */
export type DeleteVmRequest = Message<"flotilla.v1.DeleteVmRequest"> & {
    /**
     * The VM id.
     *
     * @generated from field: string vm_id = 1;
     */
    vmId: string;
};
/**
 * Describes the message flotilla.v1.DeleteVmRequest.
 * Use `create(DeleteVmRequestSchema)` to create a new message.
 */
export declare const DeleteVmRequestSchema: GenMessage<DeleteVmRequest>;
/**
 * Request of SetZoneCapacity.
 *
 * @generated from message flotilla.v1.SetZoneCapacityRequest
 */
export type SetZoneCapacityRequest = Message<"flotilla.v1.SetZoneCapacityRequest"> & {
    /**
     * The zone.
     *
     * @generated from field: string zone_id = 1;
     */
    zoneId: string;
    /**
     * How many more VMs the zone accepts.
     *
     * @generated from field: int32 capacity = 2;
     */
    capacity: number;
};
/**
 * Describes the message flotilla.v1.SetZoneCapacityRequest.
 * Use `create(SetZoneCapacityRequestSchema)` to create a new message.
 */
export declare const SetZoneCapacityRequestSchema: GenMessage<SetZoneCapacityRequest>;
/**
 * Request of SetHostReachable.
 *
 * @generated from message flotilla.v1.SetHostReachableRequest
 */
export type SetHostReachableRequest = Message<"flotilla.v1.SetHostReachableRequest"> & {
    /**
     * The host.
     *
     * @generated from field: string host = 1;
     */
    host: string;
    /**
     * Whether the host is reachable.
     *
     * @generated from field: bool reachable = 2;
     */
    reachable: boolean;
};
/**
 * Describes the message flotilla.v1.SetHostReachableRequest.
 * Use `create(SetHostReachableRequestSchema)` to create a new message.
 */
export declare const SetHostReachableRequestSchema: GenMessage<SetHostReachableRequest>;
/**
 * Injects faults into sim clusters and the sim IaaS.
 *
 * @generated from service flotilla.v1.SimulatorService
 */
export declare const SimulatorService: GenService<{
    /**
     * Cuts a sim cluster's agent session and keeps it down until reconnected.
     *
     * @generated from rpc flotilla.v1.SimulatorService.DisconnectCluster
     */
    disconnectCluster: {
        methodKind: "unary";
        input: typeof DisconnectClusterRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Lets a disconnected sim cluster's agent reconnect.
     *
     * @generated from rpc flotilla.v1.SimulatorService.ReconnectCluster
     */
    reconnectCluster: {
        methodKind: "unary";
        input: typeof ReconnectClusterRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Makes applies of matching resources fail in a sim cluster.
     *
     * @generated from rpc flotilla.v1.SimulatorService.FailApplies
     */
    failApplies: {
        methodKind: "unary";
        input: typeof FailAppliesRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Deletes a pod out of band.
     *
     * @generated from rpc flotilla.v1.SimulatorService.DeletePod
     */
    deletePod: {
        methodKind: "unary";
        input: typeof DeletePodRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Sets how long new pods take to become Ready.
     *
     * @generated from rpc flotilla.v1.SimulatorService.SetPodReadinessDelay
     */
    setPodReadinessDelay: {
        methodKind: "unary";
        input: typeof SetPodReadinessDelayRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Makes actions on matching pods or nodes of a sim cluster fail.
     *
     * @generated from rpc flotilla.v1.SimulatorService.FailActions
     */
    failActions: {
        methodKind: "unary";
        input: typeof FailActionsRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Stops a VM of the sim IaaS out of band.
     *
     * @generated from rpc flotilla.v1.SimulatorService.StopVm
     */
    stopVm: {
        methodKind: "unary";
        input: typeof StopVmRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Deletes a VM of the sim IaaS out of band.
     *
     * @generated from rpc flotilla.v1.SimulatorService.DeleteVm
     */
    deleteVm: {
        methodKind: "unary";
        input: typeof DeleteVmRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Sets the remaining VM capacity of a sim zone.
     *
     * @generated from rpc flotilla.v1.SimulatorService.SetZoneCapacity
     */
    setZoneCapacity: {
        methodKind: "unary";
        input: typeof SetZoneCapacityRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Makes a sim IaaS host unreachable (or reachable again).
     *
     * @generated from rpc flotilla.v1.SimulatorService.SetHostReachable
     */
    setHostReachable: {
        methodKind: "unary";
        input: typeof SetHostReachableRequestSchema;
        output: typeof EmptySchema;
    };
    /**
     * Makes the next calls of a sim IaaS operation fail.
     *
     * @generated from rpc flotilla.v1.SimulatorService.FailInfrastructureOperations
     */
    failInfrastructureOperations: {
        methodKind: "unary";
        input: typeof FailInfrastructureOperationsRequestSchema;
        output: typeof EmptySchema;
    };
}>;
