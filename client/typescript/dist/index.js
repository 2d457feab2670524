// Flotilla's TypeScript client. Generated messages and service descriptors live under
// ./gen (proto package flotilla.v1); this module adds the client, rich errors,
// auto-resuming watches, paging and validated names.
export { createFlotillaClient, DEFAULT_ADDRESS, TOKEN_ENV } from "./client.js";
export { FlotillaError } from "./errors.js";
export { pages } from "./pages.js";
export { Watch, RETRYABLE, retryable } from "./watch.js";
export * as names from "./names.js";
export * as v1 from "./v1.js";
