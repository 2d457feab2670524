// The client over any transport: the services, the bearer token, the default deadline
// and the auto-resuming watches. It uses nothing of Node, so the web console builds on
// it with a gRPC-Web transport (./web.ts); ./client.ts gives it Node's gRPC transport.

import { type Client, type Interceptor, type Transport, createClient } from "@connectrpc/connect";
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
  type FleetEvent,
  FleetEventType,
} from "./gen/flotilla/v1/status_pb.js";
import { Watch, type WatchOptions } from "./watch.js";

export type Request<R> = Partial<Omit<R, "$typeName" | "$unknown">>;

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
  /**
   * WatchFleet, opened again by itself after a break. It has no resume token: after
   * `onDisconnect`, a fresh snapshot (ADDED rows, then SYNCED) replaces the rows held.
   */
  watchFleet(options?: WatchOptions): Watch<FleetEvent>;
}

/** Sends the bearer token, and throws failed calls as FlotillaError. */
export function interceptor(token: string | undefined): Interceptor {
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
export function unaryDeadline(inner: Transport, timeoutMs: number): Transport {
  return {
    unary: (method, signal, callTimeout, header, input, contextValues) =>
      inner.unary(method, signal, callTimeout ?? (timeoutMs > 0 ? timeoutMs : undefined), header, input, contextValues),
    stream: (method, signal, callTimeout, header, input, contextValues) =>
      inner.stream(method, signal, callTimeout, header, input, contextValues),
  };
}

/**
 * A client of every service over `transport`, which sends the token (see
 * `interceptor`) and applies deadlines (see `unaryDeadline`).
 */
export function clientOver(transport: Transport): FlotillaClient {
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
    watchFleet: (watchOptions) =>
      new Watch<FleetEvent>(
        (_resumeToken, signal) => status.watchFleet({}, { signal }),
        (e) => e.type === FleetEventType.HEARTBEAT,
        watchOptions,
      ),
  };
}
