import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Condition } from "./common_pb.js";
import type { EmptySchema, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/action.proto.
 */
export declare const file_flotilla_v1_action: GenFile;
/**
 * Parameters of a Reboot action.
 *
 * @generated from message flotilla.v1.RebootParams
 */
export type RebootParams = Message<"flotilla.v1.RebootParams"> & {
    /**
     * Seconds to wait before rebooting.
     *
     * @generated from field: int32 delay_in_seconds = 1;
     */
    delayInSeconds: number;
};
/**
 * Describes the message flotilla.v1.RebootParams.
 * Use `create(RebootParamsSchema)` to create a new message.
 */
export declare const RebootParamsSchema: GenMessage<RebootParams>;
/**
 * Parameters of a Snapshot action.
 *
 * @generated from message flotilla.v1.SnapshotParams
 */
export type SnapshotParams = Message<"flotilla.v1.SnapshotParams"> & {
    /**
     * Where the snapshot is written, e.g. "/var/tmp/".
     *
     * @generated from field: string snapshot_location = 1;
     */
    snapshotLocation: string;
};
/**
 * Describes the message flotilla.v1.SnapshotParams.
 * Use `create(SnapshotParamsSchema)` to create a new message.
 */
export declare const SnapshotParamsSchema: GenMessage<SnapshotParams>;
/**
 * The action on a pod.
 *
 * @generated from message flotilla.v1.PodAction
 */
export type PodAction = Message<"flotilla.v1.PodAction"> & {
    /**
     * The pod's namespace.
     *
     * @generated from field: string namespace = 1;
     */
    namespace: string;
    /**
     * The pod's name.
     *
     * @generated from field: string pod_name = 2;
     */
    podName: string;
    /**
     * The action.
     *
     * @generated from oneof flotilla.v1.PodAction.action
     */
    action: {
        /**
         * Reboot the VM pod.
         *
         * @generated from field: flotilla.v1.RebootParams reboot_action = 3;
         */
        value: RebootParams;
        case: "rebootAction";
    } | {
        /**
         * Snapshot the VM pod.
         *
         * @generated from field: flotilla.v1.SnapshotParams snapshot_action = 4;
         */
        value: SnapshotParams;
        case: "snapshotAction";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.PodAction.
 * Use `create(PodActionSchema)` to create a new message.
 */
export declare const PodActionSchema: GenMessage<PodAction>;
/**
 * The action on a node.
 *
 * @generated from message flotilla.v1.NodeAction
 */
export type NodeAction = Message<"flotilla.v1.NodeAction"> & {
    /**
     * The action.
     *
     * @generated from oneof flotilla.v1.NodeAction.action
     */
    action: {
        /**
         * Reboot the node.
         *
         * @generated from field: flotilla.v1.RebootParams reboot_action = 1;
         */
        value: RebootParams;
        case: "rebootAction";
    } | {
        /**
         * Snapshot the node.
         *
         * @generated from field: flotilla.v1.SnapshotParams snapshot_action = 2;
         */
        value: SnapshotParams;
        case: "snapshotAction";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.NodeAction.
 * Use `create(NodeActionSchema)` to create a new message.
 */
export declare const NodeActionSchema: GenMessage<NodeAction>;
/**
 * What an action asks for.
 *
 * @generated from message flotilla.v1.ActionSpec
 */
export type ActionSpec = Message<"flotilla.v1.ActionSpec"> & {
    /**
     * The node that executes the action.
     *
     * @generated from field: string node_name = 1;
     */
    nodeName: string;
    /**
     * The target.
     *
     * @generated from oneof flotilla.v1.ActionSpec.target
     */
    target: {
        /**
         * An action on a pod.
         *
         * @generated from field: flotilla.v1.PodAction pod_action = 2;
         */
        value: PodAction;
        case: "podAction";
    } | {
        /**
         * An action on a node.
         *
         * @generated from field: flotilla.v1.NodeAction node_action = 3;
         */
        value: NodeAction;
        case: "nodeAction";
    } | {
        case: undefined;
        value?: undefined;
    };
};
/**
 * Describes the message flotilla.v1.ActionSpec.
 * Use `create(ActionSpecSchema)` to create a new message.
 */
export declare const ActionSpecSchema: GenMessage<ActionSpec>;
/**
 * The result of a Reboot.
 *
 * @generated from message flotilla.v1.RebootStatus
 */
export type RebootStatus = Message<"flotilla.v1.RebootStatus"> & {
    /**
     * Whether the reboot succeeded.
     *
     * @generated from field: bool reboot_successful = 1;
     */
    rebootSuccessful: boolean;
};
/**
 * Describes the message flotilla.v1.RebootStatus.
 * Use `create(RebootStatusSchema)` to create a new message.
 */
export declare const RebootStatusSchema: GenMessage<RebootStatus>;
/**
 * The result of a Snapshot.
 *
 * @generated from message flotilla.v1.SnapshotStatus
 */
export type SnapshotStatus = Message<"flotilla.v1.SnapshotStatus"> & {
    /**
     * The size of the snapshot.
     *
     * @generated from field: int64 snapshot_size_in_bytes = 1;
     */
    snapshotSizeInBytes: bigint;
    /**
     * The file the snapshot was written to, under the requested snapshot_location.
     *
     * @generated from field: string snapshot_path = 2;
     */
    snapshotPath: string;
};
/**
 * Describes the message flotilla.v1.SnapshotStatus.
 * Use `create(SnapshotStatusSchema)` to create a new message.
 */
export declare const SnapshotStatusSchema: GenMessage<SnapshotStatus>;
/**
 * What happened to an action.
 *
 * @generated from message flotilla.v1.ActionStatus
 */
export type ActionStatus = Message<"flotilla.v1.ActionStatus"> & {
    /**
     * The state.
     *
     * @generated from field: flotilla.v1.ActionState state = 1;
     */
    state: ActionState;
    /**
     * Whether the action finished (SUCCEEDED, FAILED or CANCELLED).
     *
     * @generated from field: bool complete = 2;
     */
    complete: boolean;
    /**
     * The reboot result.
     *
     * @generated from field: flotilla.v1.RebootStatus reboot_status = 3;
     */
    rebootStatus?: RebootStatus | undefined;
    /**
     * The snapshot result.
     *
     * @generated from field: flotilla.v1.SnapshotStatus snapshot_status = 4;
     */
    snapshotStatus?: SnapshotStatus | undefined;
    /**
     * The error of a FAILED action, or why a CANCELLED one was cancelled.
     *
     * @generated from field: string error = 5;
     */
    error: string;
    /**
     * Output only: conditions (Ready, Delivered, Completed).
     *
     * @generated from field: repeated flotilla.v1.Condition conditions = 6;
     */
    conditions: Condition[];
    /**
     * A CamelCase reason of a FAILED or CANCELLED action, e.g. DeadlineExceeded,
     * PodNotFound, RebootFailed, OutOfSpace, Cancelled.
     *
     * @generated from field: string reason = 7;
     */
    reason: string;
    /**
     * When an executor took the action (RUNNING), by the executor's clock.
     *
     * @generated from field: google.protobuf.Timestamp start_time = 8;
     */
    startTime?: Timestamp | undefined;
    /**
     * Output only: when it finished.
     *
     * @generated from field: google.protobuf.Timestamp finish_time = 9;
     */
    finishTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.ActionStatus.
 * Use `create(ActionStatusSchema)` to create a new message.
 */
export declare const ActionStatusSchema: GenMessage<ActionStatus>;
/**
 * A persisted action. Name: `actions/{uid}`.
 *
 * @generated from message flotilla.v1.Action
 */
export type Action = Message<"flotilla.v1.Action"> & {
    /**
     * The resource name, `actions/{uid}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The action's UUID (v7).
     *
     * @generated from field: string uid = 2;
     */
    uid: string;
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 3;
     */
    cluster: string;
    /**
     * "Reboot" or "Snapshot".
     *
     * @generated from field: string action_name = 4;
     */
    actionName: string;
    /**
     * What the action asks for.
     *
     * @generated from field: flotilla.v1.ActionSpec spec = 5;
     */
    spec?: ActionSpec | undefined;
    /**
     * What happened.
     *
     * @generated from field: flotilla.v1.ActionStatus status = 6;
     */
    status?: ActionStatus | undefined;
    /**
     * An opaque version tag for optimistic concurrency.
     *
     * @generated from field: string etag = 7;
     */
    etag: string;
    /**
     * When it was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 8;
     */
    createTime?: Timestamp | undefined;
    /**
     * When it last changed.
     *
     * @generated from field: google.protobuf.Timestamp update_time = 9;
     */
    updateTime?: Timestamp | undefined;
    /**
     * Output only: when a finished action is deleted (--action-ttl-after-finished-secs
     * after it finished).
     *
     * @generated from field: google.protobuf.Timestamp expire_time = 10;
     */
    expireTime?: Timestamp | undefined;
};
/**
 * Describes the message flotilla.v1.Action.
 * Use `create(ActionSchema)` to create a new message.
 */
export declare const ActionSchema: GenMessage<Action>;
/**
 * Request of CreatePodAction.
 *
 * @generated from message flotilla.v1.CreatePodActionRequest
 */
export type CreatePodActionRequest = Message<"flotilla.v1.CreatePodActionRequest"> & {
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
    /**
     * "Reboot" or "Snapshot".
     *
     * @generated from field: string action_name = 4;
     */
    actionName: string;
    /**
     * The parameters matching action_name.
     *
     * @generated from oneof flotilla.v1.CreatePodActionRequest.params
     */
    params: {
        /**
         * Parameters of Reboot.
         *
         * @generated from field: flotilla.v1.RebootParams reboot_params = 5;
         */
        value: RebootParams;
        case: "rebootParams";
    } | {
        /**
         * Parameters of Snapshot.
         *
         * @generated from field: flotilla.v1.SnapshotParams snapshot_params = 6;
         */
        value: SnapshotParams;
        case: "snapshotParams";
    } | {
        case: undefined;
        value?: undefined;
    };
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 7;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreatePodActionRequest.
 * Use `create(CreatePodActionRequestSchema)` to create a new message.
 */
export declare const CreatePodActionRequestSchema: GenMessage<CreatePodActionRequest>;
/**
 * Request of CreateNodeAction.
 *
 * @generated from message flotilla.v1.CreateNodeActionRequest
 */
export type CreateNodeActionRequest = Message<"flotilla.v1.CreateNodeActionRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * The node's name.
     *
     * @generated from field: string node = 2;
     */
    node: string;
    /**
     * "Reboot" or "Snapshot".
     *
     * @generated from field: string action_name = 3;
     */
    actionName: string;
    /**
     * The parameters matching action_name.
     *
     * @generated from oneof flotilla.v1.CreateNodeActionRequest.params
     */
    params: {
        /**
         * Parameters of Reboot.
         *
         * @generated from field: flotilla.v1.RebootParams reboot_params = 4;
         */
        value: RebootParams;
        case: "rebootParams";
    } | {
        /**
         * Parameters of Snapshot.
         *
         * @generated from field: flotilla.v1.SnapshotParams snapshot_params = 5;
         */
        value: SnapshotParams;
        case: "snapshotParams";
    } | {
        case: undefined;
        value?: undefined;
    };
    /**
     * Idempotency key.
     *
     * @generated from field: string request_id = 6;
     */
    requestId: string;
};
/**
 * Describes the message flotilla.v1.CreateNodeActionRequest.
 * Use `create(CreateNodeActionRequestSchema)` to create a new message.
 */
export declare const CreateNodeActionRequestSchema: GenMessage<CreateNodeActionRequest>;
/**
 * Request of GetAction.
 *
 * @generated from message flotilla.v1.GetActionRequest
 */
export type GetActionRequest = Message<"flotilla.v1.GetActionRequest"> & {
    /**
     * The resource name, `actions/{uid}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetActionRequest.
 * Use `create(GetActionRequestSchema)` to create a new message.
 */
export declare const GetActionRequestSchema: GenMessage<GetActionRequest>;
/**
 * Request of ListActions.
 *
 * @generated from message flotilla.v1.ListActionsRequest
 */
export type ListActionsRequest = Message<"flotilla.v1.ListActionsRequest"> & {
    /**
     * Only actions of this cluster.
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * Only actions executed by this node.
     *
     * @generated from field: string node_name = 2;
     */
    nodeName: string;
    /**
     * Only actions on pods of this namespace.
     *
     * @generated from field: string namespace = 3;
     */
    namespace: string;
    /**
     * Only actions on this pod.
     *
     * @generated from field: string pod = 4;
     */
    pod: string;
    /**
     * Only actions in this state.
     *
     * @generated from field: flotilla.v1.ActionState state = 5;
     */
    state: ActionState;
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 6;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 7;
     */
    pageToken: string;
};
/**
 * Describes the message flotilla.v1.ListActionsRequest.
 * Use `create(ListActionsRequestSchema)` to create a new message.
 */
export declare const ListActionsRequestSchema: GenMessage<ListActionsRequest>;
/**
 * Response of ListActions.
 *
 * @generated from message flotilla.v1.ListActionsResponse
 */
export type ListActionsResponse = Message<"flotilla.v1.ListActionsResponse"> & {
    /**
     * The actions of this page.
     *
     * @generated from field: repeated flotilla.v1.Action actions = 1;
     */
    actions: Action[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListActionsResponse.
 * Use `create(ListActionsResponseSchema)` to create a new message.
 */
export declare const ListActionsResponseSchema: GenMessage<ListActionsResponse>;
/**
 * Request of WatchActions.
 *
 * @generated from message flotilla.v1.WatchActionsRequest
 */
export type WatchActionsRequest = Message<"flotilla.v1.WatchActionsRequest"> & {
    /**
     * The cluster, `clusterProviders/{cp}/clusters/{c}`; empty for every cluster (a
     * token that may read every cluster's actions: admin, or a viewer of every project).
     *
     * @generated from field: string cluster = 1;
     */
    cluster: string;
    /**
     * Only actions executed by this node; empty for every node of the cluster.
     *
     * @generated from field: string node_name = 2;
     */
    nodeName: string;
    /**
     * Resume after this token (from a previous event); empty starts with a snapshot of
     * the open (PENDING and RUNNING) actions.
     *
     * @generated from field: string resume_token = 3;
     */
    resumeToken: string;
};
/**
 * Describes the message flotilla.v1.WatchActionsRequest.
 * Use `create(WatchActionsRequestSchema)` to create a new message.
 */
export declare const WatchActionsRequestSchema: GenMessage<WatchActionsRequest>;
/**
 * One event of WatchActions.
 *
 * @generated from message flotilla.v1.ActionEvent
 */
export type ActionEvent = Message<"flotilla.v1.ActionEvent"> & {
    /**
     * What happened.
     *
     * @generated from field: flotilla.v1.ActionEventType type = 1;
     */
    type: ActionEventType;
    /**
     * The action (ADDED, MODIFIED, DELETED).
     *
     * @generated from field: flotilla.v1.Action action = 2;
     */
    action?: Action | undefined;
    /**
     * Opaque, monotonically increasing resume token.
     *
     * @generated from field: string resume_token = 3;
     */
    resumeToken: string;
};
/**
 * Describes the message flotilla.v1.ActionEvent.
 * Use `create(ActionEventSchema)` to create a new message.
 */
export declare const ActionEventSchema: GenMessage<ActionEvent>;
/**
 * A message of WatchActions: the events at hand, in order.
 *
 * @generated from message flotilla.v1.WatchActionsResponse
 */
export type WatchActionsResponse = Message<"flotilla.v1.WatchActionsResponse"> & {
    /**
     * The events.
     *
     * @generated from field: repeated flotilla.v1.ActionEvent events = 1;
     */
    events: ActionEvent[];
};
/**
 * Describes the message flotilla.v1.WatchActionsResponse.
 * Use `create(WatchActionsResponseSchema)` to create a new message.
 */
export declare const WatchActionsResponseSchema: GenMessage<WatchActionsResponse>;
/**
 * Request of UpdateActionStatus.
 *
 * @generated from message flotilla.v1.UpdateActionStatusRequest
 */
export type UpdateActionStatusRequest = Message<"flotilla.v1.UpdateActionStatusRequest"> & {
    /**
     * The resource name, `actions/{uid}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The new status.
     *
     * @generated from field: flotilla.v1.ActionStatus status = 2;
     */
    status?: ActionStatus | undefined;
    /**
     * If set, must match the current etag (else ABORTED).
     *
     * @generated from field: string etag = 3;
     */
    etag: string;
};
/**
 * Describes the message flotilla.v1.UpdateActionStatusRequest.
 * Use `create(UpdateActionStatusRequestSchema)` to create a new message.
 */
export declare const UpdateActionStatusRequestSchema: GenMessage<UpdateActionStatusRequest>;
/**
 * Request of CancelAction.
 *
 * @generated from message flotilla.v1.CancelActionRequest
 */
export type CancelActionRequest = Message<"flotilla.v1.CancelActionRequest"> & {
    /**
     * The resource name, `actions/{uid}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.CancelActionRequest.
 * Use `create(CancelActionRequestSchema)` to create a new message.
 */
export declare const CancelActionRequestSchema: GenMessage<CancelActionRequest>;
/**
 * Request of DeleteAction.
 *
 * @generated from message flotilla.v1.DeleteActionRequest
 */
export type DeleteActionRequest = Message<"flotilla.v1.DeleteActionRequest"> & {
    /**
     * The resource name, `actions/{uid}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.DeleteActionRequest.
 * Use `create(DeleteActionRequestSchema)` to create a new message.
 */
export declare const DeleteActionRequestSchema: GenMessage<DeleteActionRequest>;
/**
 * The state of an action.
 *
 * @generated from enum flotilla.v1.ActionState
 */
export declare enum ActionState {
    /**
     * Never set by the server.
     *
     * @generated from enum value: ACTION_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Persisted, not yet picked up by an agent.
     *
     * @generated from enum value: ACTION_STATE_PENDING = 1;
     */
    PENDING = 1,
    /**
     * An agent is executing it.
     *
     * @generated from enum value: ACTION_STATE_RUNNING = 2;
     */
    RUNNING = 2,
    /**
     * Completed successfully.
     *
     * @generated from enum value: ACTION_STATE_SUCCEEDED = 3;
     */
    SUCCEEDED = 3,
    /**
     * Completed with an error.
     *
     * @generated from enum value: ACTION_STATE_FAILED = 4;
     */
    FAILED = 4,
    /**
     * Cancelled before completion.
     *
     * @generated from enum value: ACTION_STATE_CANCELLED = 5;
     */
    CANCELLED = 5
}
/**
 * Describes the enum flotilla.v1.ActionState.
 */
export declare const ActionStateSchema: GenEnum<ActionState>;
/**
 * What an action event says.
 *
 * @generated from enum flotilla.v1.ActionEventType
 */
export declare enum ActionEventType {
    /**
     * Never set by the server.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * An action was created; in a snapshot, an open action.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_ADDED = 1;
     */
    ADDED = 1,
    /**
     * An action changed (its state, status or conditions).
     *
     * @generated from enum value: ACTION_EVENT_TYPE_MODIFIED = 2;
     */
    MODIFIED = 2,
    /**
     * An action was deleted (action holds its last state).
     *
     * @generated from enum value: ACTION_EVENT_TYPE_DELETED = 3;
     */
    DELETED = 3,
    /**
     * The snapshot is complete; live events follow.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_SYNCED = 4;
     */
    SYNCED = 4,
    /**
     * The resume token is too old (or of a snapshot): a fresh snapshot follows.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_RESYNC_REQUIRED = 5;
     */
    RESYNC_REQUIRED = 5,
    /**
     * Nothing happened for a while; carries the latest resume token.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_HEARTBEAT = 6;
     */
    HEARTBEAT = 6
}
/**
 * Describes the enum flotilla.v1.ActionEventType.
 */
export declare const ActionEventTypeSchema: GenEnum<ActionEventType>;
/**
 * Creates, queries and streams actions.
 *
 * @generated from service flotilla.v1.ActionService
 */
export declare const ActionService: GenService<{
    /**
     * The `pods/action` subresource: validates and persists an action on a pod.
     *
     * @generated from rpc flotilla.v1.ActionService.CreatePodAction
     */
    createPodAction: {
        methodKind: "unary";
        input: typeof CreatePodActionRequestSchema;
        output: typeof ActionSchema;
    };
    /**
     * Creates an action on a node.
     *
     * @generated from rpc flotilla.v1.ActionService.CreateNodeAction
     */
    createNodeAction: {
        methodKind: "unary";
        input: typeof CreateNodeActionRequestSchema;
        output: typeof ActionSchema;
    };
    /**
     * Gets an action by name (`actions/{uid}`).
     *
     * @generated from rpc flotilla.v1.ActionService.GetAction
     */
    getAction: {
        methodKind: "unary";
        input: typeof GetActionRequestSchema;
        output: typeof ActionSchema;
    };
    /**
     * Lists actions, filtered by cluster, node, pod or state.
     *
     * @generated from rpc flotilla.v1.ActionService.ListActions
     */
    listActions: {
        methodKind: "unary";
        input: typeof ListActionsRequestSchema;
        output: typeof ListActionsResponseSchema;
    };
    /**
     * Streams actions for a cluster or node (agents), or for the whole fleet, as they
     * are created and change.
     *
     * @generated from rpc flotilla.v1.ActionService.WatchActions
     */
    watchActions: {
        methodKind: "server_streaming";
        input: typeof WatchActionsRequestSchema;
        output: typeof WatchActionsResponseSchema;
    };
    /**
     * Posts progress of an action (agents).
     *
     * @generated from rpc flotilla.v1.ActionService.UpdateActionStatus
     */
    updateActionStatus: {
        methodKind: "unary";
        input: typeof UpdateActionStatusRequestSchema;
        output: typeof ActionSchema;
    };
    /**
     * Cancels a pending or running action.
     *
     * @generated from rpc flotilla.v1.ActionService.CancelAction
     */
    cancelAction: {
        methodKind: "unary";
        input: typeof CancelActionRequestSchema;
        output: typeof ActionSchema;
    };
    /**
     * Deletes a completed action.
     *
     * @generated from rpc flotilla.v1.ActionService.DeleteAction
     */
    deleteAction: {
        methodKind: "unary";
        input: typeof DeleteActionRequestSchema;
        output: typeof EmptySchema;
    };
}>;
