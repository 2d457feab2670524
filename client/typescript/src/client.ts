// The client: one Connect client per service over one gRPC (HTTP/2) transport.

import { readFileSync } from "node:fs";
import { type Client, type Interceptor, type Transport, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FlotillaError } from "./errors.js";
import { AccessService } from "./gen/flotilla/v1/access_pb.js";
import {
  type ActionEvent,
  ActionEventType,
  ActionService,
  type WatchActionsRequest,
} from "./gen/flotilla/v1/action_pb.js";
import {
  type ContainerClusterEvent,
  ContainerClusterEventType,
  ContainerClusterService,
  type WatchContainerClustersRequest,
} from "./gen/flotilla/v1/container_cluster_pb.js";
import { LifecycleService } from "./gen/flotilla/v1/lifecycle_pb.js";
import { SimulatorService } from "./gen/flotilla/v1/simulator_pb.js";
import {
  StatusService,
  type WatchEvent,
  WatchEventType,
  type WatchStatusRequest,
} from "./gen/flotilla/v1/status_pb.js";
import { Watch, type WatchOptions } from "./watch.js";

/** Where the server listens by default. */
export const DEFAULT_ADDRESS = "localhost:50051";
/** The environment variable the client reads its bearer token from by default. */
export const TOKEN_ENV = "FLOTILLA_TOKEN";

/** How to connect. */
export interface ClientOptions {
  /** `host:port`, `http://host:port` (plaintext) or `https://host:port` (TLS). */
  address?: string;
  /** The bearer token; default `$FLOTILLA_TOKEN`. */
  token?: string;
  /** A file holding the bearer token (used when `token` is not given). */
  tokenFile?: string;
  /** PEM CA certificate to trust (TLS); without a scheme, giving it means TLS. */
  caCertificateFile?: string;
  /** PEM client certificate and key (mTLS). */
  clientCertificateFile?: string;
  clientKeyFile?: string;
  /** Default deadline of unary calls in ms (default 30000; 0: none). Streams have none. */
  timeoutMs?: number;
}

type Request<R> = Partial<Omit<R, "$typeName" | "$unknown">>;

/** A connection to a Flotilla server with a client per service. */
export interface FlotillaClient {
  readonly transport: Transport;
  readonly lifecycle: Client<typeof LifecycleService>;
  readonly status: Client<typeof StatusService>;
  readonly actions: Client<typeof ActionService>;
  readonly containerClusters: Client<typeof ContainerClusterService>;
  readonly access: Client<typeof AccessService>;
  readonly simulator: Client<typeof SimulatorService>;
  /** WatchStatus of a deployment intent group or cluster, resuming by itself. */
  watchStatus(request: Request<WatchStatusRequest>, options?: WatchOptions): Watch<WatchEvent>;
  /** WatchActions of a cluster (or one node of it), resuming by itself. */
  watchActions(request: Request<WatchActionsRequest>, options?: WatchOptions): Watch<ActionEvent>;
  /** WatchContainerClusters, resuming by itself. */
  watchContainerClusters(
    request: Request<WatchContainerClustersRequest>,
    options?: WatchOptions,
  ): Watch<ContainerClusterEvent>;
}

/** Sends the bearer token, and throws failed calls as FlotillaError. */
function interceptor(token: string | undefined): Interceptor {
  return (next) => async (req) => {
    if (token) req.header.set("authorization", `Bearer ${token}`);
    try {
      const res = await next(req);
      if (!res.stream) return res;
      const messages = res.message;
      return {
        ...res,
        message: (async function* () {
          try {
            yield* messages;
          } catch (error) {
            throw FlotillaError.fromError(error);
          }
        })(),
      };
    } catch (error) {
      throw FlotillaError.fromError(error);
    }
  };
}

/** Applies a default deadline to unary calls only: watches must not time out. */
function unaryDeadline(inner: Transport, timeoutMs: number): Transport {
  return {
    unary: (method, signal, callTimeout, header, input, contextValues) =>
      inner.unary(method, signal, callTimeout ?? (timeoutMs > 0 ? timeoutMs : undefined), header, input, contextValues),
    stream: (method, signal, callTimeout, header, input, contextValues) =>
      inner.stream(method, signal, callTimeout, header, input, contextValues),
  };
}

/** Connects to a Flotilla server (lazily: the first call opens the connection). */
export function createFlotillaClient(options: ClientOptions = {}): FlotillaClient {
  const address = options.address ?? DEFAULT_ADDRESS;
  let baseUrl: string;
  if (/^https?:\/\//.test(address)) baseUrl = address;
  else if (address.includes("://")) throw new RangeError(`address ${address}: the scheme must be http or https`);
  else baseUrl = `${options.caCertificateFile ? "https" : "http"}://${address}`;
  if (baseUrl.startsWith("http:") && (options.caCertificateFile || options.clientCertificateFile)) {
    throw new RangeError(`address ${address} is plaintext but TLS files were given`);
  }
  if (!options.clientCertificateFile !== !options.clientKeyFile) {
    throw new RangeError("clientCertificateFile and clientKeyFile go together");
  }
  let token = options.token;
  if (token === undefined && options.tokenFile) token = readFileSync(options.tokenFile, "utf8").trim();
  if (token === undefined) token = process.env[TOKEN_ENV]?.trim() || undefined;
  const transport = unaryDeadline(
    createGrpcTransport({
      baseUrl,
      interceptors: [interceptor(token)],
      nodeOptions: {
        ca: options.caCertificateFile ? readFileSync(options.caCertificateFile) : undefined,
        cert: options.clientCertificateFile ? readFileSync(options.clientCertificateFile) : undefined,
        key: options.clientKeyFile ? readFileSync(options.clientKeyFile) : undefined,
      },
    }),
    options.timeoutMs ?? 30_000,
  );
  const status = createClient(StatusService, transport);
  const actions = createClient(ActionService, transport);
  const containerClusters = createClient(ContainerClusterService, transport);
  return {
    transport,
    lifecycle: createClient(LifecycleService, transport),
    status,
    actions,
    containerClusters,
    access: createClient(AccessService, transport),
    simulator: createClient(SimulatorService, transport),
    watchStatus: (request, watchOptions) =>
      new Watch<WatchEvent>(
        (resumeToken, signal) => status.watchStatus({ ...request, resumeToken }, { signal }),
        (e) => e.type === WatchEventType.HEARTBEAT,
        watchOptions,
      ),
    watchActions: (request, watchOptions) =>
      new Watch<ActionEvent>(
        (resumeToken, signal) => actions.watchActions({ ...request, resumeToken }, { signal }),
        (e) => e.type === ActionEventType.HEARTBEAT,
        watchOptions,
      ),
    watchContainerClusters: (request, watchOptions) =>
      new Watch<ContainerClusterEvent>(
        (resumeToken, signal) => containerClusters.watchContainerClusters({ ...request, resumeToken }, { signal }),
        (e) => e.type === ContainerClusterEventType.HEARTBEAT,
        watchOptions,
      ),
  };
}
