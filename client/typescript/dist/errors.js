// Flotilla's errors: a ConnectError with the google.rpc.Status details decoded.
import { Code, ConnectError } from "@connectrpc/connect";
import { BadRequestSchema, ErrorInfoSchema, PreconditionFailureSchema, ResourceInfoSchema, } from "./gen/google/rpc/error_details_pb.js";
/**
 * A failed call: the gRPC code and message with the decoded error details (ErrorInfo
 * reason and metadata, field violations, precondition violations, resource name). It
 * is a ConnectError, so code that already handles those keeps working.
 */
export class FlotillaError extends ConnectError {
    // `name` stays "ConnectError": Connect recognises its errors by it, and passes a
    // FlotillaError thrown by the client's interceptor through unchanged.
    /** A real FlotillaError, not any ConnectError (ConnectError's check is duck-typed). */
    static [Symbol.hasInstance](value) {
        return Function.prototype[Symbol.hasInstance].call(this, value);
    }
    /** `ErrorInfo.reason`, e.g. `INVALID_STATE_TRANSITION`; empty without one. */
    reason;
    /** `ErrorInfo.domain`, `flotilla.v1` for the server's own errors. */
    domain;
    /** `ErrorInfo.metadata`, e.g. `{ current_state: "INSTANTIATED" }`. */
    errorMetadata;
    fieldViolations;
    preconditionViolations;
    /** `ResourceInfo.resource_name`, when the server named the resource. */
    resourceName;
    constructor(error) {
        super(error.rawMessage, error.code, error.metadata, undefined, error.cause ?? error);
        // Keep the details received, so findDetails works on this error too.
        this.details = error.details;
        const info = error.findDetails(ErrorInfoSchema)[0];
        this.reason = info?.reason ?? "";
        this.domain = info?.domain ?? "";
        this.errorMetadata = { ...(info?.metadata ?? {}) };
        this.fieldViolations = error
            .findDetails(BadRequestSchema)
            .flatMap((b) => b.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
        this.preconditionViolations = error
            .findDetails(PreconditionFailureSchema)
            .flatMap((p) => p.violations.map((v) => ({ type: v.type, subject: v.subject, description: v.description })));
        this.resourceName = error.findDetails(ResourceInfoSchema)[0]?.resourceName;
    }
    /** The fields of the field violations, in order. */
    get fields() {
        return this.fieldViolations.map((v) => v.field);
    }
    /** The error in plain words: code, message, reason and violations. */
    describe() {
        let text = `${Code[this.code]}: ${this.rawMessage}`;
        if (this.reason)
            text += ` [${this.reason}]`;
        for (const v of this.fieldViolations)
            text += `\n  ${v.field}: ${v.description}`;
        for (const v of this.preconditionViolations)
            text += `\n  ${v.type} ${v.subject}: ${v.description}`;
        return text;
    }
    /** Any thrown value as a FlotillaError (a non-Connect error becomes UNKNOWN). */
    static fromError(error) {
        if (error instanceof FlotillaError)
            return error;
        return new FlotillaError(ConnectError.from(error));
    }
}
