import type { GenEnum, GenFile, GenMessage } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/common.proto.
 */
export declare const file_flotilla_v1_common: GenFile;
/**
 * A Cluster API style condition (v1beta1 semantics): one observation about one
 * aspect of a stateful resource. `Ready` summarises the others.
 *
 * @generated from message flotilla.v1.Condition
 */
export type Condition = Message<"flotilla.v1.Condition"> & {
    /**
     * The condition type, e.g. "Ready", "ResourcesApplied", "AgentConnected".
     *
     * @generated from field: string type = 1;
     */
    type: string;
    /**
     * Whether the condition holds.
     *
     * @generated from field: flotilla.v1.ConditionStatus status = 2;
     */
    status: ConditionStatus;
    /**
     * How bad a False condition is; NONE for True and Unknown conditions.
     *
     * @generated from field: flotilla.v1.ConditionSeverity severity = 3;
     */
    severity: ConditionSeverity;
    /**
     * When status, severity, reason or message last changed.
     *
     * @generated from field: google.protobuf.Timestamp last_transition_time = 4;
     */
    lastTransitionTime?: Timestamp | undefined;
    /**
     * A CamelCase, machine-readable reason for the last transition.
     *
     * @generated from field: string reason = 5;
     */
    reason: string;
    /**
     * A human-readable message with details about the last transition.
     *
     * @generated from field: string message = 6;
     */
    message: string;
};
/**
 * Describes the message flotilla.v1.Condition.
 * Use `create(ConditionSchema)` to create a new message.
 */
export declare const ConditionSchema: GenMessage<Condition>;
/**
 * A Kubernetes group/version/kind.
 *
 * @generated from message flotilla.v1.GroupVersionKind
 */
export type GroupVersionKind = Message<"flotilla.v1.GroupVersionKind"> & {
    /**
     * The API group; empty for the core group.
     *
     * @generated from field: string group = 1;
     */
    group: string;
    /**
     * The API version, e.g. "v1".
     *
     * @generated from field: string version = 2;
     */
    version: string;
    /**
     * The kind, e.g. "Deployment".
     *
     * @generated from field: string kind = 3;
     */
    kind: string;
};
/**
 * Describes the message flotilla.v1.GroupVersionKind.
 * Use `create(GroupVersionKindSchema)` to create a new message.
 */
export declare const GroupVersionKindSchema: GenMessage<GroupVersionKind>;
/**
 * The status of a Condition.
 *
 * @generated from enum flotilla.v1.ConditionStatus
 */
export declare enum ConditionStatus {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONDITION_STATUS_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * The condition holds.
     *
     * @generated from enum value: CONDITION_STATUS_TRUE = 1;
     */
    TRUE = 1,
    /**
     * The condition does not hold.
     *
     * @generated from enum value: CONDITION_STATUS_FALSE = 2;
     */
    FALSE = 2,
    /**
     * It is not known whether the condition holds.
     *
     * @generated from enum value: CONDITION_STATUS_UNKNOWN = 3;
     */
    UNKNOWN = 3
}
/**
 * Describes the enum flotilla.v1.ConditionStatus.
 */
export declare const ConditionStatusSchema: GenEnum<ConditionStatus>;
/**
 * The severity of a False condition.
 *
 * @generated from enum flotilla.v1.ConditionSeverity
 */
export declare enum ConditionSeverity {
    /**
     * No severity (True or Unknown conditions).
     *
     * @generated from enum value: CONDITION_SEVERITY_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * An error: the resource cannot reach its desired state without intervention.
     *
     * @generated from enum value: CONDITION_SEVERITY_ERROR = 1;
     */
    ERROR = 1,
    /**
     * A warning: something is off but the resource may still converge.
     *
     * @generated from enum value: CONDITION_SEVERITY_WARNING = 2;
     */
    WARNING = 2,
    /**
     * Informational: the resource is progressing.
     *
     * @generated from enum value: CONDITION_SEVERITY_INFO = 3;
     */
    INFO = 3
}
/**
 * Describes the enum flotilla.v1.ConditionSeverity.
 */
export declare const ConditionSeveritySchema: GenEnum<ConditionSeverity>;
/**
 * Cluster connectivity as tracked by rsync.
 *
 * @generated from enum flotilla.v1.Connectivity
 */
export declare enum Connectivity {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONNECTIVITY_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Not yet known.
     *
     * @generated from enum value: CONNECTIVITY_UNKNOWN = 1;
     */
    UNKNOWN = 1,
    /**
     * The cluster's agent session is up.
     *
     * @generated from enum value: CONNECTIVITY_AVAILABLE = 2;
     */
    AVAILABLE = 2,
    /**
     * The cluster is unreachable; rsync retries.
     *
     * @generated from enum value: CONNECTIVITY_RETRYING = 3;
     */
    RETRYING = 3
}
/**
 * Describes the enum flotilla.v1.Connectivity.
 */
export declare const ConnectivitySchema: GenEnum<Connectivity>;
