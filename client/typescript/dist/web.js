// What runs in a browser (the web console): the client over a transport the caller
// makes (gRPC-Web's, from @connectrpc/connect-web), rich errors, auto-resuming watches,
// paging and names, without anything of Node.
export { clientOver, interceptor, unaryDeadline } from "./services.js";
export { FlotillaError } from "./errors.js";
export { pages } from "./pages.js";
export { Watch, RETRYABLE, retryable } from "./watch.js";
export * as names from "./names.js";
export * as v1 from "./v1.js";
