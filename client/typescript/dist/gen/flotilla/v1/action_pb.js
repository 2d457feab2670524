// ActionService: imperative actions (reboot, snapshot) on VM pods and nodes, persisted
// as Action objects that node agents watch, execute and report on (seed 003).
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_flotilla_v1_common } from "./common_pb.js";
import { file_google_protobuf_empty, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/action.proto.
 */
export const file_flotilla_v1_action = /*@__PURE__*/ fileDesc("ChhmbG90aWxsYS92MS9hY3Rpb24ucHJvdG8SC2Zsb3RpbGxhLnYxIigKDFJlYm9vdFBhcmFtcxIYChBkZWxheV9pbl9zZWNvbmRzGAEgASgFIisKDlNuYXBzaG90UGFyYW1zEhkKEXNuYXBzaG90X2xvY2F0aW9uGAEgASgJIqYBCglQb2RBY3Rpb24SEQoJbmFtZXNwYWNlGAEgASgJEhAKCHBvZF9uYW1lGAIgASgJEjIKDXJlYm9vdF9hY3Rpb24YAyABKAsyGS5mbG90aWxsYS52MS5SZWJvb3RQYXJhbXNIABI2Cg9zbmFwc2hvdF9hY3Rpb24YBCABKAsyGy5mbG90aWxsYS52MS5TbmFwc2hvdFBhcmFtc0gAQggKBmFjdGlvbiKCAQoKTm9kZUFjdGlvbhIyCg1yZWJvb3RfYWN0aW9uGAEgASgLMhkuZmxvdGlsbGEudjEuUmVib290UGFyYW1zSAASNgoPc25hcHNob3RfYWN0aW9uGAIgASgLMhsuZmxvdGlsbGEudjEuU25hcHNob3RQYXJhbXNIAEIICgZhY3Rpb24ihwEKCkFjdGlvblNwZWMSEQoJbm9kZV9uYW1lGAEgASgJEiwKCnBvZF9hY3Rpb24YAiABKAsyFi5mbG90aWxsYS52MS5Qb2RBY3Rpb25IABIuCgtub2RlX2FjdGlvbhgDIAEoCzIXLmZsb3RpbGxhLnYxLk5vZGVBY3Rpb25IAEIICgZ0YXJnZXQiKQoMUmVib290U3RhdHVzEhkKEXJlYm9vdF9zdWNjZXNzZnVsGAEgASgIIkcKDlNuYXBzaG90U3RhdHVzEh4KFnNuYXBzaG90X3NpemVfaW5fYnl0ZXMYASABKAMSFQoNc25hcHNob3RfcGF0aBgCIAEoCSLdAgoMQWN0aW9uU3RhdHVzEicKBXN0YXRlGAEgASgOMhguZmxvdGlsbGEudjEuQWN0aW9uU3RhdGUSEAoIY29tcGxldGUYAiABKAgSMAoNcmVib290X3N0YXR1cxgDIAEoCzIZLmZsb3RpbGxhLnYxLlJlYm9vdFN0YXR1cxI0Cg9zbmFwc2hvdF9zdGF0dXMYBCABKAsyGy5mbG90aWxsYS52MS5TbmFwc2hvdFN0YXR1cxINCgVlcnJvchgFIAEoCRIqCgpjb25kaXRpb25zGAYgAygLMhYuZmxvdGlsbGEudjEuQ29uZGl0aW9uEg4KBnJlYXNvbhgHIAEoCRIuCgpzdGFydF90aW1lGAggASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIvCgtmaW5pc2hfdGltZRgJIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAivAIKBkFjdGlvbhIMCgRuYW1lGAEgASgJEgsKA3VpZBgCIAEoCRIPCgdjbHVzdGVyGAMgASgJEhMKC2FjdGlvbl9uYW1lGAQgASgJEiUKBHNwZWMYBSABKAsyFy5mbG90aWxsYS52MS5BY3Rpb25TcGVjEikKBnN0YXR1cxgGIAEoCzIZLmZsb3RpbGxhLnYxLkFjdGlvblN0YXR1cxIMCgRldGFnGAcgASgJEi8KC2NyZWF0ZV90aW1lGAggASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIvCgt1cGRhdGVfdGltZRgJIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLwoLZXhwaXJlX3RpbWUYCiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wIugBChZDcmVhdGVQb2RBY3Rpb25SZXF1ZXN0Eg8KB2NsdXN0ZXIYASABKAkSEQoJbmFtZXNwYWNlGAIgASgJEgsKA3BvZBgDIAEoCRITCgthY3Rpb25fbmFtZRgEIAEoCRIyCg1yZWJvb3RfcGFyYW1zGAUgASgLMhkuZmxvdGlsbGEudjEuUmVib290UGFyYW1zSAASNgoPc25hcHNob3RfcGFyYW1zGAYgASgLMhsuZmxvdGlsbGEudjEuU25hcHNob3RQYXJhbXNIABISCgpyZXF1ZXN0X2lkGAcgASgJQggKBnBhcmFtcyLXAQoXQ3JlYXRlTm9kZUFjdGlvblJlcXVlc3QSDwoHY2x1c3RlchgBIAEoCRIMCgRub2RlGAIgASgJEhMKC2FjdGlvbl9uYW1lGAMgASgJEjIKDXJlYm9vdF9wYXJhbXMYBCABKAsyGS5mbG90aWxsYS52MS5SZWJvb3RQYXJhbXNIABI2Cg9zbmFwc2hvdF9wYXJhbXMYBSABKAsyGy5mbG90aWxsYS52MS5TbmFwc2hvdFBhcmFtc0gAEhIKCnJlcXVlc3RfaWQYBiABKAlCCAoGcGFyYW1zIiAKEEdldEFjdGlvblJlcXVlc3QSDAoEbmFtZRgBIAEoCSKoAQoSTGlzdEFjdGlvbnNSZXF1ZXN0Eg8KB2NsdXN0ZXIYASABKAkSEQoJbm9kZV9uYW1lGAIgASgJEhEKCW5hbWVzcGFjZRgDIAEoCRILCgNwb2QYBCABKAkSJwoFc3RhdGUYBSABKA4yGC5mbG90aWxsYS52MS5BY3Rpb25TdGF0ZRIRCglwYWdlX3NpemUYBiABKAUSEgoKcGFnZV90b2tlbhgHIAEoCSJUChNMaXN0QWN0aW9uc1Jlc3BvbnNlEiQKB2FjdGlvbnMYASADKAsyEy5mbG90aWxsYS52MS5BY3Rpb24SFwoPbmV4dF9wYWdlX3Rva2VuGAIgASgJIk8KE1dhdGNoQWN0aW9uc1JlcXVlc3QSDwoHY2x1c3RlchgBIAEoCRIRCglub2RlX25hbWUYAiABKAkSFAoMcmVzdW1lX3Rva2VuGAMgASgJInQKC0FjdGlvbkV2ZW50EioKBHR5cGUYASABKA4yHC5mbG90aWxsYS52MS5BY3Rpb25FdmVudFR5cGUSIwoGYWN0aW9uGAIgASgLMhMuZmxvdGlsbGEudjEuQWN0aW9uEhQKDHJlc3VtZV90b2tlbhgDIAEoCSJAChRXYXRjaEFjdGlvbnNSZXNwb25zZRIoCgZldmVudHMYASADKAsyGC5mbG90aWxsYS52MS5BY3Rpb25FdmVudCJiChlVcGRhdGVBY3Rpb25TdGF0dXNSZXF1ZXN0EgwKBG5hbWUYASABKAkSKQoGc3RhdHVzGAIgASgLMhkuZmxvdGlsbGEudjEuQWN0aW9uU3RhdHVzEgwKBGV0YWcYAyABKAkiIwoTQ2FuY2VsQWN0aW9uUmVxdWVzdBIMCgRuYW1lGAEgASgJIiMKE0RlbGV0ZUFjdGlvblJlcXVlc3QSDAoEbmFtZRgBIAEoCSqwAQoLQWN0aW9uU3RhdGUSHAoYQUNUSU9OX1NUQVRFX1VOU1BFQ0lGSUVEEAASGAoUQUNUSU9OX1NUQVRFX1BFTkRJTkcQARIYChRBQ1RJT05fU1RBVEVfUlVOTklORxACEhoKFkFDVElPTl9TVEFURV9TVUNDRUVERUQQAxIXChNBQ1RJT05fU1RBVEVfRkFJTEVEEAQSGgoWQUNUSU9OX1NUQVRFX0NBTkNFTExFRBAFKvYBCg9BY3Rpb25FdmVudFR5cGUSIQodQUNUSU9OX0VWRU5UX1RZUEVfVU5TUEVDSUZJRUQQABIbChdBQ1RJT05fRVZFTlRfVFlQRV9BRERFRBABEh4KGkFDVElPTl9FVkVOVF9UWVBFX01PRElGSUVEEAISHQoZQUNUSU9OX0VWRU5UX1RZUEVfREVMRVRFRBADEhwKGEFDVElPTl9FVkVOVF9UWVBFX1NZTkNFRBAEEiUKIUFDVElPTl9FVkVOVF9UWVBFX1JFU1lOQ19SRVFVSVJFRBAFEh8KG0FDVElPTl9FVkVOVF9UWVBFX0hFQVJUQkVBVBAGMvkECg1BY3Rpb25TZXJ2aWNlEksKD0NyZWF0ZVBvZEFjdGlvbhIjLmZsb3RpbGxhLnYxLkNyZWF0ZVBvZEFjdGlvblJlcXVlc3QaEy5mbG90aWxsYS52MS5BY3Rpb24STQoQQ3JlYXRlTm9kZUFjdGlvbhIkLmZsb3RpbGxhLnYxLkNyZWF0ZU5vZGVBY3Rpb25SZXF1ZXN0GhMuZmxvdGlsbGEudjEuQWN0aW9uEj8KCUdldEFjdGlvbhIdLmZsb3RpbGxhLnYxLkdldEFjdGlvblJlcXVlc3QaEy5mbG90aWxsYS52MS5BY3Rpb24SUAoLTGlzdEFjdGlvbnMSHy5mbG90aWxsYS52MS5MaXN0QWN0aW9uc1JlcXVlc3QaIC5mbG90aWxsYS52MS5MaXN0QWN0aW9uc1Jlc3BvbnNlElUKDFdhdGNoQWN0aW9ucxIgLmZsb3RpbGxhLnYxLldhdGNoQWN0aW9uc1JlcXVlc3QaIS5mbG90aWxsYS52MS5XYXRjaEFjdGlvbnNSZXNwb25zZTABElEKElVwZGF0ZUFjdGlvblN0YXR1cxImLmZsb3RpbGxhLnYxLlVwZGF0ZUFjdGlvblN0YXR1c1JlcXVlc3QaEy5mbG90aWxsYS52MS5BY3Rpb24SRQoMQ2FuY2VsQWN0aW9uEiAuZmxvdGlsbGEudjEuQ2FuY2VsQWN0aW9uUmVxdWVzdBoTLmZsb3RpbGxhLnYxLkFjdGlvbhJICgxEZWxldGVBY3Rpb24SIC5mbG90aWxsYS52MS5EZWxldGVBY3Rpb25SZXF1ZXN0GhYuZ29vZ2xlLnByb3RvYnVmLkVtcHR5YgZwcm90bzM", [file_flotilla_v1_common, file_google_protobuf_empty, file_google_protobuf_timestamp]);
/**
 * Describes the message flotilla.v1.RebootParams.
 * Use `create(RebootParamsSchema)` to create a new message.
 */
export const RebootParamsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 0);
/**
 * Describes the message flotilla.v1.SnapshotParams.
 * Use `create(SnapshotParamsSchema)` to create a new message.
 */
export const SnapshotParamsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 1);
/**
 * Describes the message flotilla.v1.PodAction.
 * Use `create(PodActionSchema)` to create a new message.
 */
export const PodActionSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 2);
/**
 * Describes the message flotilla.v1.NodeAction.
 * Use `create(NodeActionSchema)` to create a new message.
 */
export const NodeActionSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 3);
/**
 * Describes the message flotilla.v1.ActionSpec.
 * Use `create(ActionSpecSchema)` to create a new message.
 */
export const ActionSpecSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 4);
/**
 * Describes the message flotilla.v1.RebootStatus.
 * Use `create(RebootStatusSchema)` to create a new message.
 */
export const RebootStatusSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 5);
/**
 * Describes the message flotilla.v1.SnapshotStatus.
 * Use `create(SnapshotStatusSchema)` to create a new message.
 */
export const SnapshotStatusSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 6);
/**
 * Describes the message flotilla.v1.ActionStatus.
 * Use `create(ActionStatusSchema)` to create a new message.
 */
export const ActionStatusSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 7);
/**
 * Describes the message flotilla.v1.Action.
 * Use `create(ActionSchema)` to create a new message.
 */
export const ActionSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 8);
/**
 * Describes the message flotilla.v1.CreatePodActionRequest.
 * Use `create(CreatePodActionRequestSchema)` to create a new message.
 */
export const CreatePodActionRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 9);
/**
 * Describes the message flotilla.v1.CreateNodeActionRequest.
 * Use `create(CreateNodeActionRequestSchema)` to create a new message.
 */
export const CreateNodeActionRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 10);
/**
 * Describes the message flotilla.v1.GetActionRequest.
 * Use `create(GetActionRequestSchema)` to create a new message.
 */
export const GetActionRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 11);
/**
 * Describes the message flotilla.v1.ListActionsRequest.
 * Use `create(ListActionsRequestSchema)` to create a new message.
 */
export const ListActionsRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 12);
/**
 * Describes the message flotilla.v1.ListActionsResponse.
 * Use `create(ListActionsResponseSchema)` to create a new message.
 */
export const ListActionsResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 13);
/**
 * Describes the message flotilla.v1.WatchActionsRequest.
 * Use `create(WatchActionsRequestSchema)` to create a new message.
 */
export const WatchActionsRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 14);
/**
 * Describes the message flotilla.v1.ActionEvent.
 * Use `create(ActionEventSchema)` to create a new message.
 */
export const ActionEventSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 15);
/**
 * Describes the message flotilla.v1.WatchActionsResponse.
 * Use `create(WatchActionsResponseSchema)` to create a new message.
 */
export const WatchActionsResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 16);
/**
 * Describes the message flotilla.v1.UpdateActionStatusRequest.
 * Use `create(UpdateActionStatusRequestSchema)` to create a new message.
 */
export const UpdateActionStatusRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 17);
/**
 * Describes the message flotilla.v1.CancelActionRequest.
 * Use `create(CancelActionRequestSchema)` to create a new message.
 */
export const CancelActionRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 18);
/**
 * Describes the message flotilla.v1.DeleteActionRequest.
 * Use `create(DeleteActionRequestSchema)` to create a new message.
 */
export const DeleteActionRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_action, 19);
/**
 * The state of an action.
 *
 * @generated from enum flotilla.v1.ActionState
 */
export var ActionState;
(function (ActionState) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: ACTION_STATE_UNSPECIFIED = 0;
     */
    ActionState[ActionState["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Persisted, not yet picked up by an agent.
     *
     * @generated from enum value: ACTION_STATE_PENDING = 1;
     */
    ActionState[ActionState["PENDING"] = 1] = "PENDING";
    /**
     * An agent is executing it.
     *
     * @generated from enum value: ACTION_STATE_RUNNING = 2;
     */
    ActionState[ActionState["RUNNING"] = 2] = "RUNNING";
    /**
     * Completed successfully.
     *
     * @generated from enum value: ACTION_STATE_SUCCEEDED = 3;
     */
    ActionState[ActionState["SUCCEEDED"] = 3] = "SUCCEEDED";
    /**
     * Completed with an error.
     *
     * @generated from enum value: ACTION_STATE_FAILED = 4;
     */
    ActionState[ActionState["FAILED"] = 4] = "FAILED";
    /**
     * Cancelled before completion.
     *
     * @generated from enum value: ACTION_STATE_CANCELLED = 5;
     */
    ActionState[ActionState["CANCELLED"] = 5] = "CANCELLED";
})(ActionState || (ActionState = {}));
/**
 * Describes the enum flotilla.v1.ActionState.
 */
export const ActionStateSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_action, 0);
/**
 * What an action event says.
 *
 * @generated from enum flotilla.v1.ActionEventType
 */
export var ActionEventType;
(function (ActionEventType) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_UNSPECIFIED = 0;
     */
    ActionEventType[ActionEventType["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * An action was created; in a snapshot, an open action.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_ADDED = 1;
     */
    ActionEventType[ActionEventType["ADDED"] = 1] = "ADDED";
    /**
     * An action changed (its state, status or conditions).
     *
     * @generated from enum value: ACTION_EVENT_TYPE_MODIFIED = 2;
     */
    ActionEventType[ActionEventType["MODIFIED"] = 2] = "MODIFIED";
    /**
     * An action was deleted (action holds its last state).
     *
     * @generated from enum value: ACTION_EVENT_TYPE_DELETED = 3;
     */
    ActionEventType[ActionEventType["DELETED"] = 3] = "DELETED";
    /**
     * The snapshot is complete; live events follow.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_SYNCED = 4;
     */
    ActionEventType[ActionEventType["SYNCED"] = 4] = "SYNCED";
    /**
     * The resume token is too old (or of a snapshot): a fresh snapshot follows.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_RESYNC_REQUIRED = 5;
     */
    ActionEventType[ActionEventType["RESYNC_REQUIRED"] = 5] = "RESYNC_REQUIRED";
    /**
     * Nothing happened for a while; carries the latest resume token.
     *
     * @generated from enum value: ACTION_EVENT_TYPE_HEARTBEAT = 6;
     */
    ActionEventType[ActionEventType["HEARTBEAT"] = 6] = "HEARTBEAT";
})(ActionEventType || (ActionEventType = {}));
/**
 * Describes the enum flotilla.v1.ActionEventType.
 */
export const ActionEventTypeSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_action, 1);
/**
 * Creates, queries and streams actions.
 *
 * @generated from service flotilla.v1.ActionService
 */
export const ActionService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_action, 0);
