import { ConnectError } from "@connectrpc/connect";
/** A bad field of the request: its path (e.g. `project_id`) and why. */
export interface FieldViolation {
    field: string;
    description: string;
}
/** A precondition the request failed: its type (e.g. `STATE`), subject and why. */
export interface PreconditionViolation {
    type: string;
    subject: string;
    description: string;
}
/**
 * A failed call: the gRPC code and message with the decoded error details (ErrorInfo
 * reason and metadata, field violations, precondition violations, resource name). It
 * is a ConnectError, so code that already handles those keeps working.
 */
export declare class FlotillaError extends ConnectError {
    /** A real FlotillaError, not any ConnectError (ConnectError's check is duck-typed). */
    static [Symbol.hasInstance](value: unknown): boolean;
    /** `ErrorInfo.reason`, e.g. `INVALID_STATE_TRANSITION`; empty without one. */
    readonly reason: string;
    /** `ErrorInfo.domain`, `flotilla.v1` for the server's own errors. */
    readonly domain: string;
    /** `ErrorInfo.metadata`, e.g. `{ current_state: "INSTANTIATED" }`. */
    readonly errorMetadata: Record<string, string>;
    readonly fieldViolations: FieldViolation[];
    readonly preconditionViolations: PreconditionViolation[];
    /** `ResourceInfo.resource_name`, when the server named the resource. */
    readonly resourceName: string | undefined;
    constructor(error: ConnectError);
    /** The fields of the field violations, in order. */
    get fields(): string[];
    /** The error in plain words: code, message, reason and violations. */
    describe(): string;
    /** Any thrown value as a FlotillaError (a non-Connect error becomes UNKNOWN). */
    static fromError(error: unknown): FlotillaError;
}
