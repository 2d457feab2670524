// The client: one Connect client per service over one gRPC (HTTP/2) transport.
import { readFileSync } from "node:fs";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FlotillaError } from "./errors.js";
import { AccessService } from "./gen/flotilla/v1/access_pb.js";
import { ActionEventType, ActionService, } from "./gen/flotilla/v1/action_pb.js";
import { ContainerClusterEventType, ContainerClusterService, } from "./gen/flotilla/v1/container_cluster_pb.js";
import { LifecycleService } from "./gen/flotilla/v1/lifecycle_pb.js";
import { SimulatorService } from "./gen/flotilla/v1/simulator_pb.js";
import { StatusService, WatchEventType, } from "./gen/flotilla/v1/status_pb.js";
import { Watch } from "./watch.js";
/** Where the server listens by default. */
export const DEFAULT_ADDRESS = "localhost:50051";
/** The environment variable the client reads its bearer token from by default. */
export const TOKEN_ENV = "FLOTILLA_TOKEN";
/** Sends the bearer token, and throws failed calls as FlotillaError. */
function interceptor(token) {
    return (next) => async (req) => {
        if (token)
            req.header.set("authorization", `Bearer ${token}`);
        try {
            const res = await next(req);
            if (!res.stream)
                return res;
            const messages = res.message;
            return {
                ...res,
                message: (async function* () {
                    try {
                        yield* messages;
                    }
                    catch (error) {
                        throw FlotillaError.fromError(error);
                    }
                })(),
            };
        }
        catch (error) {
            throw FlotillaError.fromError(error);
        }
    };
}
/** Applies a default deadline to unary calls only: watches must not time out. */
function unaryDeadline(inner, timeoutMs) {
    return {
        unary: (method, signal, callTimeout, header, input, contextValues) => inner.unary(method, signal, callTimeout ?? (timeoutMs > 0 ? timeoutMs : undefined), header, input, contextValues),
        stream: (method, signal, callTimeout, header, input, contextValues) => inner.stream(method, signal, callTimeout, header, input, contextValues),
    };
}
/** Connects to a Flotilla server (lazily: the first call opens the connection). */
export function createFlotillaClient(options = {}) {
    const address = options.address ?? DEFAULT_ADDRESS;
    let baseUrl;
    if (/^https?:\/\//.test(address))
        baseUrl = address;
    else if (address.includes("://"))
        throw new RangeError(`address ${address}: the scheme must be http or https`);
    else
        baseUrl = `${options.caCertificateFile ? "https" : "http"}://${address}`;
    if (baseUrl.startsWith("http:") && (options.caCertificateFile || options.clientCertificateFile)) {
        throw new RangeError(`address ${address} is plaintext but TLS files were given`);
    }
    if (!options.clientCertificateFile !== !options.clientKeyFile) {
        throw new RangeError("clientCertificateFile and clientKeyFile go together");
    }
    let token = options.token;
    if (token === undefined && options.tokenFile)
        token = readFileSync(options.tokenFile, "utf8").trim();
    if (token === undefined)
        token = process.env[TOKEN_ENV]?.trim() || undefined;
    const transport = unaryDeadline(createGrpcTransport({
        baseUrl,
        interceptors: [interceptor(token)],
        nodeOptions: {
            ca: options.caCertificateFile ? readFileSync(options.caCertificateFile) : undefined,
            cert: options.clientCertificateFile ? readFileSync(options.clientCertificateFile) : undefined,
            key: options.clientKeyFile ? readFileSync(options.clientKeyFile) : undefined,
        },
    }), options.timeoutMs ?? 30_000);
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
        watchStatus: (request, watchOptions) => new Watch((resumeToken, signal) => status.watchStatus({ ...request, resumeToken }, { signal }), (e) => e.type === WatchEventType.HEARTBEAT, watchOptions),
        watchActions: (request, watchOptions) => new Watch((resumeToken, signal) => actions.watchActions({ ...request, resumeToken }, { signal }), (e) => e.type === ActionEventType.HEARTBEAT, watchOptions),
        watchContainerClusters: (request, watchOptions) => new Watch((resumeToken, signal) => containerClusters.watchContainerClusters({ ...request, resumeToken }, { signal }), (e) => e.type === ContainerClusterEventType.HEARTBEAT, watchOptions),
    };
}
