// Vendored from the googleapis repository (Apache License 2.0).
import { enumDesc, fileDesc } from "@bufbuild/protobuf/codegenv2";
/**
 * Describes the file google/rpc/code.proto.
 */
export const file_google_rpc_code = /*@__PURE__*/ fileDesc("ChVnb29nbGUvcnBjL2NvZGUucHJvdG8SCmdvb2dsZS5ycGMqtwIKBENvZGUSBgoCT0sQABINCglDQU5DRUxMRUQQARILCgdVTktOT1dOEAISFAoQSU5WQUxJRF9BUkdVTUVOVBADEhUKEURFQURMSU5FX0VYQ0VFREVEEAQSDQoJTk9UX0ZPVU5EEAUSEgoOQUxSRUFEWV9FWElTVFMQBhIVChFQRVJNSVNTSU9OX0RFTklFRBAHEhMKD1VOQVVUSEVOVElDQVRFRBAQEhYKElJFU09VUkNFX0VYSEFVU1RFRBAIEhcKE0ZBSUxFRF9QUkVDT05ESVRJT04QCRILCgdBQk9SVEVEEAoSEAoMT1VUX09GX1JBTkdFEAsSEQoNVU5JTVBMRU1FTlRFRBAMEgwKCElOVEVSTkFMEA0SDwoLVU5BVkFJTEFCTEUQDhINCglEQVRBX0xPU1MQD0JSCg5jb20uZ29vZ2xlLnJwY0IJQ29kZVByb3RvUAFaM2dvb2dsZS5nb2xhbmcub3JnL2dlbnByb3RvL2dvb2dsZWFwaXMvcnBjL2NvZGU7Y29kZWIGcHJvdG8z");
/**
 * The canonical error codes of gRPC APIs.
 *
 * @generated from enum google.rpc.Code
 */
export var Code;
(function (Code) {
    /**
     * Not an error.
     *
     * @generated from enum value: OK = 0;
     */
    Code[Code["OK"] = 0] = "OK";
    /**
     * The operation was cancelled, typically by the caller.
     *
     * @generated from enum value: CANCELLED = 1;
     */
    Code[Code["CANCELLED"] = 1] = "CANCELLED";
    /**
     * Unknown error.
     *
     * @generated from enum value: UNKNOWN = 2;
     */
    Code[Code["UNKNOWN"] = 2] = "UNKNOWN";
    /**
     * The client specified an invalid argument.
     *
     * @generated from enum value: INVALID_ARGUMENT = 3;
     */
    Code[Code["INVALID_ARGUMENT"] = 3] = "INVALID_ARGUMENT";
    /**
     * The deadline expired before the operation could complete.
     *
     * @generated from enum value: DEADLINE_EXCEEDED = 4;
     */
    Code[Code["DEADLINE_EXCEEDED"] = 4] = "DEADLINE_EXCEEDED";
    /**
     * Some requested entity was not found.
     *
     * @generated from enum value: NOT_FOUND = 5;
     */
    Code[Code["NOT_FOUND"] = 5] = "NOT_FOUND";
    /**
     * The entity that a client attempted to create already exists.
     *
     * @generated from enum value: ALREADY_EXISTS = 6;
     */
    Code[Code["ALREADY_EXISTS"] = 6] = "ALREADY_EXISTS";
    /**
     * The caller does not have permission to execute the operation.
     *
     * @generated from enum value: PERMISSION_DENIED = 7;
     */
    Code[Code["PERMISSION_DENIED"] = 7] = "PERMISSION_DENIED";
    /**
     * The request does not have valid authentication credentials.
     *
     * @generated from enum value: UNAUTHENTICATED = 16;
     */
    Code[Code["UNAUTHENTICATED"] = 16] = "UNAUTHENTICATED";
    /**
     * Some resource has been exhausted.
     *
     * @generated from enum value: RESOURCE_EXHAUSTED = 8;
     */
    Code[Code["RESOURCE_EXHAUSTED"] = 8] = "RESOURCE_EXHAUSTED";
    /**
     * The system is not in a state required for the operation's execution.
     *
     * @generated from enum value: FAILED_PRECONDITION = 9;
     */
    Code[Code["FAILED_PRECONDITION"] = 9] = "FAILED_PRECONDITION";
    /**
     * The operation was aborted, typically due to a concurrency issue.
     *
     * @generated from enum value: ABORTED = 10;
     */
    Code[Code["ABORTED"] = 10] = "ABORTED";
    /**
     * The operation was attempted past the valid range.
     *
     * @generated from enum value: OUT_OF_RANGE = 11;
     */
    Code[Code["OUT_OF_RANGE"] = 11] = "OUT_OF_RANGE";
    /**
     * The operation is not implemented or not supported.
     *
     * @generated from enum value: UNIMPLEMENTED = 12;
     */
    Code[Code["UNIMPLEMENTED"] = 12] = "UNIMPLEMENTED";
    /**
     * Internal error.
     *
     * @generated from enum value: INTERNAL = 13;
     */
    Code[Code["INTERNAL"] = 13] = "INTERNAL";
    /**
     * The service is currently unavailable; retrying may succeed.
     *
     * @generated from enum value: UNAVAILABLE = 14;
     */
    Code[Code["UNAVAILABLE"] = 14] = "UNAVAILABLE";
    /**
     * Unrecoverable data loss or corruption.
     *
     * @generated from enum value: DATA_LOSS = 15;
     */
    Code[Code["DATA_LOSS"] = 15] = "DATA_LOSS";
})(Code || (Code = {}));
/**
 * Describes the enum google.rpc.Code.
 */
export const CodeSchema = /*@__PURE__*/ enumDesc(file_google_rpc_code, 0);
