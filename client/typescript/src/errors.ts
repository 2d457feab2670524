// Flotilla's errors: a ConnectError with the google.rpc.Status details decoded.

import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";

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
export class FlotillaError extends ConnectError {
  // `name` stays "ConnectError": Connect recognises its errors by it, and passes a
  // FlotillaError thrown by the client's interceptor through unchanged.

  /** A real FlotillaError, not any ConnectError (ConnectError's check is duck-typed). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }

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

  constructor(error: ConnectError) {
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
  get fields(): string[] {
    return this.fieldViolations.map((v) => v.field);
  }

  /** The error in plain words: code, message, reason and violations. */
  describe(): string {
    let text = `${Code[this.code]}: ${this.rawMessage}`;
    if (this.reason) text += ` [${this.reason}]`;
    for (const v of this.fieldViolations) text += `\n  ${v.field}: ${v.description}`;
    for (const v of this.preconditionViolations) text += `\n  ${v.type} ${v.subject}: ${v.description}`;
    return text;
  }

  /** Any thrown value as a FlotillaError (a non-Connect error becomes UNKNOWN). */
  static fromError(error: unknown): FlotillaError {
    if (error instanceof FlotillaError) return error;
    return new FlotillaError(ConnectError.from(error));
  }
}
