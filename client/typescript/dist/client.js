// The client in Node: one Connect client per service over one gRPC (HTTP/2) transport,
// with TLS files and the token from the environment (./services.ts builds the rest).
import { readFileSync } from "node:fs";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { clientOver, interceptor, unaryDeadline } from "./services.js";
/** Where the server listens by default. */
export const DEFAULT_ADDRESS = "localhost:50051";
/** The environment variable the client reads its bearer token from by default. */
export const TOKEN_ENV = "FLOTILLA_TOKEN";
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
    return clientOver(transport);
}
