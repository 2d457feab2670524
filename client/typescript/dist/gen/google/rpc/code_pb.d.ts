import type { GenEnum, GenFile } from "@bufbuild/protobuf/codegenv2";
/**
 * Describes the file google/rpc/code.proto.
 */
export declare const file_google_rpc_code: GenFile;
/**
 * The canonical error codes of gRPC APIs.
 *
 * @generated from enum google.rpc.Code
 */
export declare enum Code {
    /**
     * Not an error.
     *
     * @generated from enum value: OK = 0;
     */
    OK = 0,
    /**
     * The operation was cancelled, typically by the caller.
     *
     * @generated from enum value: CANCELLED = 1;
     */
    CANCELLED = 1,
    /**
     * Unknown error.
     *
     * @generated from enum value: UNKNOWN = 2;
     */
    UNKNOWN = 2,
    /**
     * The client specified an invalid argument.
     *
     * @generated from enum value: INVALID_ARGUMENT = 3;
     */
    INVALID_ARGUMENT = 3,
    /**
     * The deadline expired before the operation could complete.
     *
     * @generated from enum value: DEADLINE_EXCEEDED = 4;
     */
    DEADLINE_EXCEEDED = 4,
    /**
     * Some requested entity was not found.
     *
     * @generated from enum value: NOT_FOUND = 5;
     */
    NOT_FOUND = 5,
    /**
     * The entity that a client attempted to create already exists.
     *
     * @generated from enum value: ALREADY_EXISTS = 6;
     */
    ALREADY_EXISTS = 6,
    /**
     * The caller does not have permission to execute the operation.
     *
     * @generated from enum value: PERMISSION_DENIED = 7;
     */
    PERMISSION_DENIED = 7,
    /**
     * The request does not have valid authentication credentials.
     *
     * @generated from enum value: UNAUTHENTICATED = 16;
     */
    UNAUTHENTICATED = 16,
    /**
     * Some resource has been exhausted.
     *
     * @generated from enum value: RESOURCE_EXHAUSTED = 8;
     */
    RESOURCE_EXHAUSTED = 8,
    /**
     * The system is not in a state required for the operation's execution.
     *
     * @generated from enum value: FAILED_PRECONDITION = 9;
     */
    FAILED_PRECONDITION = 9,
    /**
     * The operation was aborted, typically due to a concurrency issue.
     *
     * @generated from enum value: ABORTED = 10;
     */
    ABORTED = 10,
    /**
     * The operation was attempted past the valid range.
     *
     * @generated from enum value: OUT_OF_RANGE = 11;
     */
    OUT_OF_RANGE = 11,
    /**
     * The operation is not implemented or not supported.
     *
     * @generated from enum value: UNIMPLEMENTED = 12;
     */
    UNIMPLEMENTED = 12,
    /**
     * Internal error.
     *
     * @generated from enum value: INTERNAL = 13;
     */
    INTERNAL = 13,
    /**
     * The service is currently unavailable; retrying may succeed.
     *
     * @generated from enum value: UNAVAILABLE = 14;
     */
    UNAVAILABLE = 14,
    /**
     * Unrecoverable data loss or corruption.
     *
     * @generated from enum value: DATA_LOSS = 15;
     */
    DATA_LOSS = 15
}
/**
 * Describes the enum google.rpc.Code.
 */
export declare const CodeSchema: GenEnum<Code>;
