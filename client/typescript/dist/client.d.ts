import { type FlotillaClient } from "./services.js";
export type { FlotillaClient } from "./services.js";
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
/** Connects to a Flotilla server (lazily: the first call opens the connection). */
export declare function createFlotillaClient(options?: ClientOptions): FlotillaClient;
