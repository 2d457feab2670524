// The console's connection: the TypeScript client's services over gRPC-Web to the
// origin that served the page, with the token the user pasted (kept for the tab in
// sessionStorage, never put in a URL or logged).

import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { type FlotillaClient, FlotillaError, clientOver, interceptor, unaryDeadline, v1 } from "@flotilla/client/web";

const TOKEN_KEY = "flotilla.token";

export function savedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function saveToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** A client of every service, calling the page's own origin. */
export function connect(token: string): FlotillaClient {
  const transport = createGrpcWebTransport({
    baseUrl: location.origin,
    interceptors: [interceptor(token)],
  });
  return clientOver(unaryDeadline(transport, 30_000));
}

/** What the token may do, from its role and projects. */
export interface Grants {
  token: v1.Token;
  /** Verbs on the lifecycle of a project's groups. */
  canWrite(project: string): boolean;
  /** Admin only: clusters, container clusters, the simulator. */
  admin: boolean;
}

export function grants(token: v1.Token): Grants {
  const admin = token.role === v1.Role.ADMIN;
  return {
    token,
    admin,
    canWrite: (project) => admin || (token.role === v1.Role.EDITOR && token.projects.includes(project)),
  };
}

/** A refusal in plain words: the server's message, its field and precondition violations. */
export function refusal(error: unknown): string {
  const e = FlotillaError.fromError(error);
  const parts = [e.rawMessage];
  for (const v of e.fieldViolations) parts.push(`${v.field}: ${v.description}`);
  for (const v of e.preconditionViolations) parts.push(v.description || `${v.type} ${v.subject}`);
  return parts.filter(Boolean).join(" — ");
}

/** An enum value's name without its prefix, e.g. `INSTANTIATED`. */
export function label(values: Record<number, string>, value: number): string {
  return values[value] ?? String(value);
}
