import type { GenFile, GenMessage } from "@bufbuild/protobuf/codegenv2";
import type { Duration } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file google/rpc/error_details.proto.
 */
export declare const file_google_rpc_error_details: GenFile;
/**
 * The reason of an error, with structured details.
 *
 * @generated from message google.rpc.ErrorInfo
 */
export type ErrorInfo = Message<"google.rpc.ErrorInfo"> & {
    /**
     * A constant, UPPER_SNAKE_CASE reason, unique within the domain.
     *
     * @generated from field: string reason = 1;
     */
    reason: string;
    /**
     * The logical grouping the reason belongs to, e.g. "flotilla.v1".
     *
     * @generated from field: string domain = 2;
     */
    domain: string;
    /**
     * Additional structured details.
     *
     * @generated from field: map<string, string> metadata = 3;
     */
    metadata: {
        [key: string]: string;
    };
};
/**
 * Describes the message google.rpc.ErrorInfo.
 * Use `create(ErrorInfoSchema)` to create a new message.
 */
export declare const ErrorInfoSchema: GenMessage<ErrorInfo>;
/**
 * When the client may retry a failed request.
 *
 * @generated from message google.rpc.RetryInfo
 */
export type RetryInfo = Message<"google.rpc.RetryInfo"> & {
    /**
     * Clients should wait at least this long before retrying.
     *
     * @generated from field: google.protobuf.Duration retry_delay = 1;
     */
    retryDelay?: Duration | undefined;
};
/**
 * Describes the message google.rpc.RetryInfo.
 * Use `create(RetryInfoSchema)` to create a new message.
 */
export declare const RetryInfoSchema: GenMessage<RetryInfo>;
/**
 * Debugging information about the server side.
 *
 * @generated from message google.rpc.DebugInfo
 */
export type DebugInfo = Message<"google.rpc.DebugInfo"> & {
    /**
     * The stack trace entries.
     *
     * @generated from field: repeated string stack_entries = 1;
     */
    stackEntries: string[];
    /**
     * Additional debugging information.
     *
     * @generated from field: string detail = 2;
     */
    detail: string;
};
/**
 * Describes the message google.rpc.DebugInfo.
 * Use `create(DebugInfoSchema)` to create a new message.
 */
export declare const DebugInfoSchema: GenMessage<DebugInfo>;
/**
 * How a quota check failed.
 *
 * @generated from message google.rpc.QuotaFailure
 */
export type QuotaFailure = Message<"google.rpc.QuotaFailure"> & {
    /**
     * Describes all quota violations.
     *
     * @generated from field: repeated google.rpc.QuotaFailure.Violation violations = 1;
     */
    violations: QuotaFailure_Violation[];
};
/**
 * Describes the message google.rpc.QuotaFailure.
 * Use `create(QuotaFailureSchema)` to create a new message.
 */
export declare const QuotaFailureSchema: GenMessage<QuotaFailure>;
/**
 * A single quota violation.
 *
 * @generated from message google.rpc.QuotaFailure.Violation
 */
export type QuotaFailure_Violation = Message<"google.rpc.QuotaFailure.Violation"> & {
    /**
     * The subject on which the quota check failed.
     *
     * @generated from field: string subject = 1;
     */
    subject: string;
    /**
     * A description of how the quota check failed.
     *
     * @generated from field: string description = 2;
     */
    description: string;
};
/**
 * Describes the message google.rpc.QuotaFailure.Violation.
 * Use `create(QuotaFailure_ViolationSchema)` to create a new message.
 */
export declare const QuotaFailure_ViolationSchema: GenMessage<QuotaFailure_Violation>;
/**
 * Which preconditions failed.
 *
 * @generated from message google.rpc.PreconditionFailure
 */
export type PreconditionFailure = Message<"google.rpc.PreconditionFailure"> & {
    /**
     * Describes all precondition violations.
     *
     * @generated from field: repeated google.rpc.PreconditionFailure.Violation violations = 1;
     */
    violations: PreconditionFailure_Violation[];
};
/**
 * Describes the message google.rpc.PreconditionFailure.
 * Use `create(PreconditionFailureSchema)` to create a new message.
 */
export declare const PreconditionFailureSchema: GenMessage<PreconditionFailure>;
/**
 * A single precondition failure.
 *
 * @generated from message google.rpc.PreconditionFailure.Violation
 */
export type PreconditionFailure_Violation = Message<"google.rpc.PreconditionFailure.Violation"> & {
    /**
     * The type of precondition failure, e.g. "STATE".
     *
     * @generated from field: string type = 1;
     */
    type: string;
    /**
     * The subject, relative to the type, that failed.
     *
     * @generated from field: string subject = 2;
     */
    subject: string;
    /**
     * A description of how the precondition failed.
     *
     * @generated from field: string description = 3;
     */
    description: string;
};
/**
 * Describes the message google.rpc.PreconditionFailure.Violation.
 * Use `create(PreconditionFailure_ViolationSchema)` to create a new message.
 */
export declare const PreconditionFailure_ViolationSchema: GenMessage<PreconditionFailure_Violation>;
/**
 * Violations in a client request.
 *
 * @generated from message google.rpc.BadRequest
 */
export type BadRequest = Message<"google.rpc.BadRequest"> & {
    /**
     * Describes all violations in a client request.
     *
     * @generated from field: repeated google.rpc.BadRequest.FieldViolation field_violations = 1;
     */
    fieldViolations: BadRequest_FieldViolation[];
};
/**
 * Describes the message google.rpc.BadRequest.
 * Use `create(BadRequestSchema)` to create a new message.
 */
export declare const BadRequestSchema: GenMessage<BadRequest>;
/**
 * A single bad request field.
 *
 * @generated from message google.rpc.BadRequest.FieldViolation
 */
export type BadRequest_FieldViolation = Message<"google.rpc.BadRequest.FieldViolation"> & {
    /**
     * A path to a field in the request body, e.g. "app.manifests[1].metadata.name".
     *
     * @generated from field: string field = 1;
     */
    field: string;
    /**
     * A description of why the request element is bad.
     *
     * @generated from field: string description = 2;
     */
    description: string;
};
/**
 * Describes the message google.rpc.BadRequest.FieldViolation.
 * Use `create(BadRequest_FieldViolationSchema)` to create a new message.
 */
export declare const BadRequest_FieldViolationSchema: GenMessage<BadRequest_FieldViolation>;
/**
 * Metadata about the request that clients can attach when filing a bug.
 *
 * @generated from message google.rpc.RequestInfo
 */
export type RequestInfo = Message<"google.rpc.RequestInfo"> & {
    /**
     * An opaque string identifying the request in the server's logs.
     *
     * @generated from field: string request_id = 1;
     */
    requestId: string;
    /**
     * Any data used to serve this request.
     *
     * @generated from field: string serving_data = 2;
     */
    servingData: string;
};
/**
 * Describes the message google.rpc.RequestInfo.
 * Use `create(RequestInfoSchema)` to create a new message.
 */
export declare const RequestInfoSchema: GenMessage<RequestInfo>;
/**
 * The resource that is being accessed.
 *
 * @generated from message google.rpc.ResourceInfo
 */
export type ResourceInfo = Message<"google.rpc.ResourceInfo"> & {
    /**
     * The type of resource being accessed, e.g. "flotilla.v1.Project".
     *
     * @generated from field: string resource_type = 1;
     */
    resourceType: string;
    /**
     * The name of the resource being accessed.
     *
     * @generated from field: string resource_name = 2;
     */
    resourceName: string;
    /**
     * The owner of the resource (optional).
     *
     * @generated from field: string owner = 3;
     */
    owner: string;
    /**
     * Describes what error is encountered when accessing this resource.
     *
     * @generated from field: string description = 4;
     */
    description: string;
};
/**
 * Describes the message google.rpc.ResourceInfo.
 * Use `create(ResourceInfoSchema)` to create a new message.
 */
export declare const ResourceInfoSchema: GenMessage<ResourceInfo>;
/**
 * Links to documentation.
 *
 * @generated from message google.rpc.Help
 */
export type Help = Message<"google.rpc.Help"> & {
    /**
     * URLs pointing to additional information on handling the current error.
     *
     * @generated from field: repeated google.rpc.Help.Link links = 1;
     */
    links: Help_Link[];
};
/**
 * Describes the message google.rpc.Help.
 * Use `create(HelpSchema)` to create a new message.
 */
export declare const HelpSchema: GenMessage<Help>;
/**
 * A URL pointing to additional information.
 *
 * @generated from message google.rpc.Help.Link
 */
export type Help_Link = Message<"google.rpc.Help.Link"> & {
    /**
     * Describes what the link offers.
     *
     * @generated from field: string description = 1;
     */
    description: string;
    /**
     * The URL of the link.
     *
     * @generated from field: string url = 2;
     */
    url: string;
};
/**
 * Describes the message google.rpc.Help.Link.
 * Use `create(Help_LinkSchema)` to create a new message.
 */
export declare const Help_LinkSchema: GenMessage<Help_Link>;
/**
 * A localized error message that is safe to return to the user.
 *
 * @generated from message google.rpc.LocalizedMessage
 */
export type LocalizedMessage = Message<"google.rpc.LocalizedMessage"> & {
    /**
     * The locale, following the specification defined at BCP 47.
     *
     * @generated from field: string locale = 1;
     */
    locale: string;
    /**
     * The localized error message in the above locale.
     *
     * @generated from field: string message = 2;
     */
    message: string;
};
/**
 * Describes the message google.rpc.LocalizedMessage.
 * Use `create(LocalizedMessageSchema)` to create a new message.
 */
export declare const LocalizedMessageSchema: GenMessage<LocalizedMessage>;
