// Types shared by every Flotilla service.
import { enumDesc, fileDesc, messageDesc } from "@bufbuild/protobuf/codegenv2";
import { file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/common.proto.
 */
export const file_flotilla_v1_common = /*@__PURE__*/ fileDesc("ChhmbG90aWxsYS92MS9jb21tb24ucHJvdG8SC2Zsb3RpbGxhLnYxItQBCglDb25kaXRpb24SDAoEdHlwZRgBIAEoCRIsCgZzdGF0dXMYAiABKA4yHC5mbG90aWxsYS52MS5Db25kaXRpb25TdGF0dXMSMAoIc2V2ZXJpdHkYAyABKA4yHi5mbG90aWxsYS52MS5Db25kaXRpb25TZXZlcml0eRI4ChRsYXN0X3RyYW5zaXRpb25fdGltZRgEIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASDgoGcmVhc29uGAUgASgJEg8KB21lc3NhZ2UYBiABKAkiQAoQR3JvdXBWZXJzaW9uS2luZBINCgVncm91cBgBIAEoCRIPCgd2ZXJzaW9uGAIgASgJEgwKBGtpbmQYAyABKAkqiAEKD0NvbmRpdGlvblN0YXR1cxIgChxDT05ESVRJT05fU1RBVFVTX1VOU1BFQ0lGSUVEEAASGQoVQ09ORElUSU9OX1NUQVRVU19UUlVFEAESGgoWQ09ORElUSU9OX1NUQVRVU19GQUxTRRACEhwKGENPTkRJVElPTl9TVEFUVVNfVU5LTk9XThADKpIBChFDb25kaXRpb25TZXZlcml0eRIiCh5DT05ESVRJT05fU0VWRVJJVFlfVU5TUEVDSUZJRUQQABIcChhDT05ESVRJT05fU0VWRVJJVFlfRVJST1IQARIeChpDT05ESVRJT05fU0VWRVJJVFlfV0FSTklORxACEhsKF0NPTkRJVElPTl9TRVZFUklUWV9JTkZPEAMqfQoMQ29ubmVjdGl2aXR5EhwKGENPTk5FQ1RJVklUWV9VTlNQRUNJRklFRBAAEhgKFENPTk5FQ1RJVklUWV9VTktOT1dOEAESGgoWQ09OTkVDVElWSVRZX0FWQUlMQUJMRRACEhkKFUNPTk5FQ1RJVklUWV9SRVRSWUlORxADYgZwcm90bzM", [file_google_protobuf_timestamp]);
/**
 * Describes the message flotilla.v1.Condition.
 * Use `create(ConditionSchema)` to create a new message.
 */
export const ConditionSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_common, 0);
/**
 * Describes the message flotilla.v1.GroupVersionKind.
 * Use `create(GroupVersionKindSchema)` to create a new message.
 */
export const GroupVersionKindSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_common, 1);
/**
 * The status of a Condition.
 *
 * @generated from enum flotilla.v1.ConditionStatus
 */
export var ConditionStatus;
(function (ConditionStatus) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONDITION_STATUS_UNSPECIFIED = 0;
     */
    ConditionStatus[ConditionStatus["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * The condition holds.
     *
     * @generated from enum value: CONDITION_STATUS_TRUE = 1;
     */
    ConditionStatus[ConditionStatus["TRUE"] = 1] = "TRUE";
    /**
     * The condition does not hold.
     *
     * @generated from enum value: CONDITION_STATUS_FALSE = 2;
     */
    ConditionStatus[ConditionStatus["FALSE"] = 2] = "FALSE";
    /**
     * It is not known whether the condition holds.
     *
     * @generated from enum value: CONDITION_STATUS_UNKNOWN = 3;
     */
    ConditionStatus[ConditionStatus["UNKNOWN"] = 3] = "UNKNOWN";
})(ConditionStatus || (ConditionStatus = {}));
/**
 * Describes the enum flotilla.v1.ConditionStatus.
 */
export const ConditionStatusSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_common, 0);
/**
 * The severity of a False condition.
 *
 * @generated from enum flotilla.v1.ConditionSeverity
 */
export var ConditionSeverity;
(function (ConditionSeverity) {
    /**
     * No severity (True or Unknown conditions).
     *
     * @generated from enum value: CONDITION_SEVERITY_UNSPECIFIED = 0;
     */
    ConditionSeverity[ConditionSeverity["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * An error: the resource cannot reach its desired state without intervention.
     *
     * @generated from enum value: CONDITION_SEVERITY_ERROR = 1;
     */
    ConditionSeverity[ConditionSeverity["ERROR"] = 1] = "ERROR";
    /**
     * A warning: something is off but the resource may still converge.
     *
     * @generated from enum value: CONDITION_SEVERITY_WARNING = 2;
     */
    ConditionSeverity[ConditionSeverity["WARNING"] = 2] = "WARNING";
    /**
     * Informational: the resource is progressing.
     *
     * @generated from enum value: CONDITION_SEVERITY_INFO = 3;
     */
    ConditionSeverity[ConditionSeverity["INFO"] = 3] = "INFO";
})(ConditionSeverity || (ConditionSeverity = {}));
/**
 * Describes the enum flotilla.v1.ConditionSeverity.
 */
export const ConditionSeveritySchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_common, 1);
/**
 * Cluster connectivity as tracked by rsync.
 *
 * @generated from enum flotilla.v1.Connectivity
 */
export var Connectivity;
(function (Connectivity) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONNECTIVITY_UNSPECIFIED = 0;
     */
    Connectivity[Connectivity["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Not yet known.
     *
     * @generated from enum value: CONNECTIVITY_UNKNOWN = 1;
     */
    Connectivity[Connectivity["UNKNOWN"] = 1] = "UNKNOWN";
    /**
     * The cluster's agent session is up.
     *
     * @generated from enum value: CONNECTIVITY_AVAILABLE = 2;
     */
    Connectivity[Connectivity["AVAILABLE"] = 2] = "AVAILABLE";
    /**
     * The cluster is unreachable; rsync retries.
     *
     * @generated from enum value: CONNECTIVITY_RETRYING = 3;
     */
    Connectivity[Connectivity["RETRYING"] = 3] = "RETRYING";
})(Connectivity || (Connectivity = {}));
/**
 * Describes the enum flotilla.v1.Connectivity.
 */
export const ConnectivitySchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_common, 2);
