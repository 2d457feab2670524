import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Action, ActionState, UpdateActionStatusRequest } from "./action_pb.js";
import type { GroupVersionKind } from "./common_pb.js";
import type { DeletePodRequest, FailActionsRequest, FailAppliesRequest, SetPodReadinessDelayRequest } from "./simulator_pb.js";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { JsonObject, Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/agent.proto.
 */
export declare const file_flotilla_v1_agent: GenFile;
/**
 * A resource an agent holds.
 *
 * @generated from message flotilla.v1.ObservedResource
 */
export type ObservedResource = Message<"flotilla.v1.ObservedResource"> & {
    /**
     * The GVK of the resource.
     *
     * @generated from field: flotilla.v1.GroupVersionKind gvk = 1;
     */
    gvk?: GroupVersionKind | undefined;
    /**
     * The namespace.
     *
     * @generated from field: string namespace = 2;
     */
    namespace: string;
    /**
     * The name.
     *
     * @generated from field: string name = 3;
     */
    name: string;
    /**
     * metadata of the cluster object.
     *
     * @generated from field: google.protobuf.Struct metadata = 4;
     */
    metadata?: JsonObject | undefined;
    /**
     * spec of the cluster object.
     *
     * @generated from field: google.protobuf.Struct spec = 5;
     */
    spec?: JsonObject | undefined;
    /**
     * status of the cluster object.
     *
     * @generated from field: google.protobuf.Struct status = 6;
     */
    status?: JsonObject | undefined;
};
/**
 * Describes the message flotilla.v1.ObservedResource.
 * Use `create(ObservedResourceSchema)` to create a new message.
 */
export declare const ObservedResourceSchema: GenMessage<ObservedResource>;
/**
 * The labelled resources of one app in a cluster (the seed's ResourceBundleState CR).
 *
 * @generated from message flotilla.v1.ResourceBundleState
 */
export type ResourceBundleState = Message<"flotilla.v1.ResourceBundleState"> & {
    /**
     * The value of the `flotilla/deployment-id` label: `<instance>-<app>`.
     *
     * @generated from field: string deployment_id = 1;
     */
    deploymentId: string;
    /**
     * The resources carrying that label, of the monitored kinds.
     *
     * @generated from field: repeated flotilla.v1.ObservedResource resources = 2;
     */
    resources: ObservedResource[];
    /**
     * When the bundle was observed.
     *
     * @generated from field: google.protobuf.Timestamp observe_time = 3;
     */
    observeTime?: Timestamp | undefined;
    /**
     * Whether `resources` holds only what changed since the agent's previous state of
     * this deployment id in this session; the others are as they were. A full state
     * (false) lists every resource: one it omits is gone. An agent sends a partial state
     * only to a server that accepts them (`SessionAccepted.partial_bundles`), and only
     * after a full one; it reports a removal, and answers a `ReportRequest`, in full.
     *
     * @generated from field: bool partial = 4;
     */
    partial: boolean;
};
/**
 * Describes the message flotilla.v1.ResourceBundleState.
 * Use `create(ResourceBundleStateSchema)` to create a new message.
 */
export declare const ResourceBundleStateSchema: GenMessage<ResourceBundleState>;
/**
 * The first message of a session.
 *
 * @generated from message flotilla.v1.AgentHello
 */
export type AgentHello = Message<"flotilla.v1.AgentHello"> & {
    /**
     * The cluster the agent serves, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * The agent's version.
     *
     * @generated from field: string agent_version = 2;
     */
    agentVersion: string;
    /**
     * The deployment ids the agent currently holds resources for.
     *
     * @generated from field: repeated string deployment_ids = 3;
     */
    deploymentIds: string[];
    /**
     * The kinds the agent's monitor supports.
     *
     * @generated from field: repeated string monitored_kinds = 4;
     */
    monitoredKinds: string[];
    /**
     * The cluster's nodes.
     *
     * @generated from field: repeated string nodes = 5;
     */
    nodes: string[];
    /**
     * Whether the agent executes actions (they are then delivered through the session).
     *
     * @generated from field: bool executes_actions = 6;
     */
    executesActions: boolean;
    /**
     * The agent's cluster backend: `sim` (an in-memory simulated cluster) or `kube` (a
     * Kubernetes API server). Only sim clusters take SimulatorService faults.
     *
     * @generated from field: string backend = 7;
     */
    backend: string;
    /**
     * The cluster's version as its API server reports it (`kube`: the server's
     * gitVersion, e.g. "v1.33.2"); empty for sim clusters.
     *
     * @generated from field: string cluster_version = 8;
     */
    clusterVersion: string;
};
/**
 * Describes the message flotilla.v1.AgentHello.
 * Use `create(AgentHelloSchema)` to create a new message.
 */
export declare const AgentHelloSchema: GenMessage<AgentHello>;
/**
 * The server's answer to an agent's claim of an action (its RUNNING status): execute it
 * only if granted.
 *
 * @generated from message flotilla.v1.ActionClaim
 */
export type ActionClaim = Message<"flotilla.v1.ActionClaim"> & {
    /**
     * The action, `actions/{uid}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Whether the claim moved the action to RUNNING for this agent.
     *
     * @generated from field: bool granted = 2;
     */
    granted: boolean;
    /**
     * The action's state after the claim.
     *
     * @generated from field: flotilla.v1.ActionState state = 3;
     */
    state: ActionState;
};
/**
 * Describes the message flotilla.v1.ActionClaim.
 * Use `create(ActionClaimSchema)` to create a new message.
 */
export declare const ActionClaimSchema: GenMessage<ActionClaim>;
/**
 * The outcome of one apply or delete.
 *
 * @generated from message flotilla.v1.ResourceResult
 */
export type ResourceResult = Message<"flotilla.v1.ResourceResult"> & {
    /**
     * The operation id the server sent.
     *
     * @generated from field: int64 operation_id = 1;
     */
    operationId: bigint;
    /**
     * Whether the cluster accepted the operation.
     *
     * @generated from field: bool success = 2;
     */
    success: boolean;
    /**
     * The error of a rejected operation.
     *
     * @generated from field: string error = 3;
     */
    error: string;
};
/**
 * Describes the message flotilla.v1.ResourceResult.
 * Use `create(ResourceResultSchema)` to create a new message.
 */
export declare const ResourceResultSchema: GenMessage<ResourceResult>;
/**
 * A keep-alive.
 *
 * @generated from message flotilla.v1.Heartbeat
 */
export type Heartbeat = Message<"flotilla.v1.Heartbeat"> & {
    /**
     * When it was sent.
     *
     * @generated from field: google.protobuf.Timestamp time = 1;
     */
    time?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.Heartbeat.
 * Use `create(HeartbeatSchema)` to create a new message.
 */
export declare const HeartbeatSchema: GenMessage<Heartbeat>;
/**
 * A message from an agent.
 *
 * @generated from message flotilla.v1.ConnectRequest
 */
export type ConnectRequest = Message<"flotilla.v1.ConnectRequest"> & {
    /**
     * The message.
     *
     * @generated from oneof flotilla.v1.ConnectRequest.message
     */
    message: {
        /**
         * First message of a session.
         *
         * @generated from field: flotilla.v1.AgentHello hello = 1;
         */
        value: AgentHello;
        case: "hello";
    } | {
        /**
         * Results of applies and deletes.
         *
         * @generated from field: flotilla.v1.ResourceResult result = 2;
         */
        value: ResourceResult;
        case: "result";
    } | {
        /**
         * A changed bundle state.
         *
         * @generated from field: flotilla.v1.ResourceBundleState bundle_state = 3;
         */
        value: ResourceBundleState;
        case: "bundleState";
    } | {
        /**
         * Keep-alive.
         *
         * @generated from field: flotilla.v1.Heartbeat heartbeat = 4;
         */
        value: Heartbeat;
        case: "heartbeat";
    } | {
        /**
         * Progress of an action.
         *
         * @generated from field: flotilla.v1.UpdateActionStatusRequest action_status = 5;
         */
        value: UpdateActionStatusRequest;
        case: "actionStatus";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.ConnectRequest.
 * Use `create(ConnectRequestSchema)` to create a new message.
 */
export declare const ConnectRequestSchema: GenMessage<ConnectRequest>;
/**
 * Apply one rendered resource.
 *
 * @generated from message flotilla.v1.ApplyResource
 */
export type ApplyResource = Message<"flotilla.v1.ApplyResource"> & {
    /**
     * The operation id to answer with.
     *
     * @generated from field: int64 operation_id = 1;
     */
    operationId: bigint;
    /**
     * The deployment id label value of the resource.
     *
     * @generated from field: string deployment_id = 2;
     */
    deploymentId: string;
    /**
     * The manifest.
     *
     * @generated from field: google.protobuf.Struct manifest = 3;
     */
    manifest?: JsonObject | undefined;
    /**
     * The desired-state generation of the resource.
     *
     * @generated from field: int64 generation = 4;
     */
    generation: bigint;
};
/**
 * Describes the message flotilla.v1.ApplyResource.
 * Use `create(ApplyResourceSchema)` to create a new message.
 */
export declare const ApplyResourceSchema: GenMessage<ApplyResource>;
/**
 * Delete one resource.
 *
 * @generated from message flotilla.v1.DeleteResource
 */
export type DeleteResource = Message<"flotilla.v1.DeleteResource"> & {
    /**
     * The operation id to answer with.
     *
     * @generated from field: int64 operation_id = 1;
     */
    operationId: bigint;
    /**
     * The GVK.
     *
     * @generated from field: flotilla.v1.GroupVersionKind gvk = 2;
     */
    gvk?: GroupVersionKind | undefined;
    /**
     * The namespace.
     *
     * @generated from field: string namespace = 3;
     */
    namespace: string;
    /**
     * The name.
     *
     * @generated from field: string name = 4;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.DeleteResource.
 * Use `create(DeleteResourceSchema)` to create a new message.
 */
export declare const DeleteResourceSchema: GenMessage<DeleteResource>;
/**
 * The server's answer to a hello.
 *
 * @generated from message flotilla.v1.SessionAccepted
 */
export type SessionAccepted = Message<"flotilla.v1.SessionAccepted"> & {
    /**
     * The heartbeat interval the agent must keep, in milliseconds.
     *
     * @generated from field: int64 heartbeat_interval_millis = 1;
     */
    heartbeatIntervalMillis: bigint;
    /**
     * Whether the server accepts partial bundle states (`ResourceBundleState.partial`).
     *
     * @generated from field: bool partial_bundles = 2;
     */
    partialBundles: boolean;
    /**
     * The replica that runs the session (its replica id; the server's own id when it
     * runs alone), for the agent's log.
     *
     * @generated from field: string replica = 3;
     */
    replica: string;
};
/**
 * Describes the message flotilla.v1.SessionAccepted.
 * Use `create(SessionAcceptedSchema)` to create a new message.
 */
export declare const SessionAcceptedSchema: GenMessage<SessionAccepted>;
/**
 * Tells the agent to reconnect to another replica.
 *
 * @generated from message flotilla.v1.Redirect
 */
export type Redirect = Message<"flotilla.v1.Redirect"> & {
    /**
     * The address of the replica that holds the cluster's lease.
     *
     * @generated from field: string address = 1;
     */
    address: string;
};
/**
 * Describes the message flotilla.v1.Redirect.
 * Use `create(RedirectSchema)` to create a new message.
 */
export declare const RedirectSchema: GenMessage<Redirect>;
/**
 * A message from the server.
 *
 * @generated from message flotilla.v1.ConnectResponse
 */
export type ConnectResponse = Message<"flotilla.v1.ConnectResponse"> & {
    /**
     * The message.
     *
     * @generated from oneof flotilla.v1.ConnectResponse.message
     */
    message: {
        /**
         * The session is accepted.
         *
         * @generated from field: flotilla.v1.SessionAccepted accepted = 1;
         */
        value: SessionAccepted;
        case: "accepted";
    } | {
        /**
         * Apply a resource.
         *
         * @generated from field: flotilla.v1.ApplyResource apply = 2;
         */
        value: ApplyResource;
        case: "apply";
    } | {
        /**
         * Delete a resource.
         *
         * @generated from field: flotilla.v1.DeleteResource delete = 3;
         */
        value: DeleteResource;
        case: "delete";
    } | {
        /**
         * Keep-alive.
         *
         * @generated from field: flotilla.v1.Heartbeat heartbeat = 4;
         */
        value: Heartbeat;
        case: "heartbeat";
    } | {
        /**
         * Reconnect elsewhere.
         *
         * @generated from field: flotilla.v1.Redirect redirect = 5;
         */
        value: Redirect;
        case: "redirect";
    } | {
        /**
         * Execute an action.
         *
         * @generated from field: flotilla.v1.Action action = 6;
         */
        value: Action;
        case: "action";
    } | {
        /**
         * A fault to inject (sim backends only).
         *
         * @generated from field: flotilla.v1.SimulatorCommand sim_command = 7;
         */
        value: SimulatorCommand;
        case: "simCommand";
    } | {
        /**
         * The answer to a claim of an action.
         *
         * @generated from field: flotilla.v1.ActionClaim action_claim = 8;
         */
        value: ActionClaim;
        case: "actionClaim";
    } | {
        /**
         * Report the current state of these deployments (a ResourceBundleState each), even
         * if nothing changed: after an update the server asks for the deployments whose
         * resources it re-rendered.
         *
         * @generated from field: flotilla.v1.ReportRequest report = 9;
         */
        value: ReportRequest;
        case: "report";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.ConnectResponse.
 * Use `create(ConnectResponseSchema)` to create a new message.
 */
export declare const ConnectResponseSchema: GenMessage<ConnectResponse>;
/**
 * The server asks for fresh bundle states.
 *
 * @generated from message flotilla.v1.ReportRequest
 */
export type ReportRequest = Message<"flotilla.v1.ReportRequest"> & {
    /**
     * Deployment ids (`<base>-<app>`).
     *
     * @generated from field: repeated string deployment_ids = 1;
     */
    deploymentIds: string[];
};
/**
 * Describes the message flotilla.v1.ReportRequest.
 * Use `create(ReportRequestSchema)` to create a new message.
 */
export declare const ReportRequestSchema: GenMessage<ReportRequest>;
/**
 * A fault injected into a sim agent's cluster through its session.
 *
 * @generated from message flotilla.v1.SimulatorCommand
 */
export type SimulatorCommand = Message<"flotilla.v1.SimulatorCommand"> & {
    /**
     * The fault.
     *
     * @generated from oneof flotilla.v1.SimulatorCommand.command
     */
    command: {
        /**
         * Fail applies of matching resources (empty kind pattern clears the rules).
         *
         * @generated from field: flotilla.v1.FailAppliesRequest fail_applies = 1;
         */
        value: FailAppliesRequest;
        case: "failApplies";
    } | {
        /**
         * Delete a pod out of band.
         *
         * @generated from field: flotilla.v1.DeletePodRequest delete_pod = 2;
         */
        value: DeletePodRequest;
        case: "deletePod";
    } | {
        /**
         * Set the delay before new pods become Ready.
         *
         * @generated from field: flotilla.v1.SetPodReadinessDelayRequest set_pod_readiness_delay = 3;
         */
        value: SetPodReadinessDelayRequest;
        case: "setPodReadinessDelay";
    } | {
        /**
         * Make actions on matching pods or nodes fail.
         *
         * @generated from field: flotilla.v1.FailActionsRequest fail_actions = 4;
         */
        value: FailActionsRequest;
        case: "failActions";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.SimulatorCommand.
 * Use `create(SimulatorCommandSchema)` to create a new message.
 */
export declare const SimulatorCommandSchema: GenMessage<SimulatorCommand>;
/**
 * Serves cluster agents.
 *
 * @generated from service flotilla.v1.AgentService
 */
export declare const AgentService: GenService<{
    /**
     * A bidirectional agent session; the token is sent as `authorization: Bearer <token>`.
     *
     * @generated from rpc flotilla.v1.AgentService.Connect
     */
    connect: {
        methodKind: "bidi_streaming";
        input: typeof ConnectRequestSchema;
        output: typeof ConnectResponseSchema;
    };
}>;
