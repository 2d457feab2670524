// The client over any transport: the services, the bearer token, the default deadline
// and the auto-resuming watches. It uses nothing of Node, so the web console builds on
// it with a gRPC-Web transport (./web.ts); ./client.ts gives it Node's gRPC transport.
import { createClient } from "@connectrpc/connect";
import { FlotillaError } from "./errors.js";
import { AccessService } from "./gen/flotilla/v1/access_pb.js";
import { ActionEventType, ActionService, } from "./gen/flotilla/v1/action_pb.js";
import { ContainerClusterEventType, ContainerClusterService, } from "./gen/flotilla/v1/container_cluster_pb.js";
import { LifecycleService } from "./gen/flotilla/v1/lifecycle_pb.js";
import { SimulatorService } from "./gen/flotilla/v1/simulator_pb.js";
import { StatusService, WatchEventType, FleetEventType, } from "./gen/flotilla/v1/status_pb.js";
import { Watch } from "./watch.js";
/** Sends the bearer token, and throws failed calls as FlotillaError. */
export function interceptor(token) {
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
export function unaryDeadline(inner, timeoutMs) {
    return {
        unary: (method, signal, callTimeout, header, input, contextValues) => inner.unary(method, signal, callTimeout ?? (timeoutMs > 0 ? timeoutMs : undefined), header, input, contextValues),
        stream: (method, signal, callTimeout, header, input, contextValues) => inner.stream(method, signal, callTimeout, header, input, contextValues),
    };
}
/**
 * A client of every service over `transport`, which sends the token (see
 * `interceptor`) and applies deadlines (see `unaryDeadline`).
 */
export function clientOver(transport) {
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
        watchFleet: (watchOptions) => new Watch((_resumeToken, signal) => status.watchFleet({}, { signal }), (e) => e.type === FleetEventType.HEARTBEAT, watchOptions),
    };
}
