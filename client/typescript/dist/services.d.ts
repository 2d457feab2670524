import { type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { AccessService } from "./gen/flotilla/v1/access_pb.js";
import { type ActionEvent, ActionService, type WatchActionsRequest } from "./gen/flotilla/v1/action_pb.js";
import { type ContainerClusterEvent, ContainerClusterService, type WatchContainerClustersRequest } from "./gen/flotilla/v1/container_cluster_pb.js";
import { LifecycleService } from "./gen/flotilla/v1/lifecycle_pb.js";
import { SimulatorService } from "./gen/flotilla/v1/simulator_pb.js";
import { StatusService, type WatchEvent, type WatchStatusRequest, type FleetEvent } from "./gen/flotilla/v1/status_pb.js";
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
    watchContainerClusters(request: Request<WatchContainerClustersRequest>, options?: WatchOptions): Watch<ContainerClusterEvent>;
    /**
     * WatchFleet, opened again by itself after a break. It has no resume token: after
     * `onDisconnect`, a fresh snapshot (ADDED rows, then SYNCED) replaces the rows held.
     */
    watchFleet(options?: WatchOptions): Watch<FleetEvent>;
}
/** Sends the bearer token, and throws failed calls as FlotillaError. */
export declare function interceptor(token: string | undefined): Interceptor;
/** Applies a default deadline to unary calls only: watches must not time out. */
export declare function unaryDeadline(inner: Transport, timeoutMs: number): Transport;
/**
 * A client of every service over `transport`, which sends the token (see
 * `interceptor`) and applies deadlines (see `unaryDeadline`).
 */
export declare function clientOver(transport: Transport): FlotillaClient;
