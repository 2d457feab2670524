import { type Client, type Transport } from "@connectrpc/connect";
import { AccessService } from "./gen/flotilla/v1/access_pb.js";
import { type ActionEvent, ActionService, type WatchActionsRequest } from "./gen/flotilla/v1/action_pb.js";
import { type ContainerClusterEvent, ContainerClusterService, type WatchContainerClustersRequest } from "./gen/flotilla/v1/container_cluster_pb.js";
import { LifecycleService } from "./gen/flotilla/v1/lifecycle_pb.js";
import { SimulatorService } from "./gen/flotilla/v1/simulator_pb.js";
import { StatusService, type WatchEvent, type WatchStatusRequest } from "./gen/flotilla/v1/status_pb.js";
import { Watch, type WatchOptions } from "./watch.js";
/** Where the server listens by default. */
export declare const DEFAULT_ADDRESS = "localhost:50051";
/** The environment variable the client reads its bearer token from by default. */
export declare const TOKEN_ENV = "FLOTILLA_TOKEN";
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
    watchContainerClusters(request: Request<WatchContainerClustersRequest>, options?: WatchOptions): Watch<ContainerClusterEvent>;
}
/** Connects to a Flotilla server (lazily: the first call opens the connection). */
export declare function createFlotillaClient(options?: ClientOptions): FlotillaClient;
export {};
