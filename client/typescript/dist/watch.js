// Watches that survive lost connections and server restarts.
import { Code, ConnectError } from "@connectrpc/connect";
import { FlotillaError } from "./errors.js";
/** The codes a watch reconnects after; anything else is thrown. */
export const RETRYABLE = new Set([Code.Unavailable]);
/**
 * Whether a watch reconnects after `error`: UNAVAILABLE, or the connection breaking
 * under the stream. A server killed mid-stream surfaces in Node as an HTTP/2 stream
 * closed with CANCEL (Canceled) or a local protocol error, and in a browser as fetch's
 * network error (Chrome's "Failed to fetch" or "network error", Firefox's
 * "NetworkError", Safari's "Load failed"); the watch's own abort never gets here, it
 * ends the watch.
 */
export function retryable(error) {
    if (RETRYABLE.has(error.code))
        return true;
    if (error.code === Code.Canceled)
        return true;
    return (error.code === Code.Internal || error.code === Code.Unknown) && /http\/2|ECONNRESET|socket|failed to fetch|network ?error|load failed/i.test(error.rawMessage);
}
/**
 * The events of a Flotilla watch (WatchStatus, WatchActions, WatchContainerClusters,
 * WatchFleet), one at a time: a snapshot, SYNCED, then live events. When the stream
 * breaks with UNAVAILABLE (server restart, network cut) or ends, it is opened again
 * after the last event handed out, so the caller sees every event exactly once (a
 * watch without resume tokens, WatchFleet, starts again with a fresh snapshot: start
 * over when `onDisconnect` says so). RESYNC_REQUIRED is
 * handed out (a fresh snapshot follows: drop what you built); heartbeats are not,
 * unless asked for. Other errors throw a FlotillaError.
 */
export class Watch {
    open;
    isHeartbeat;
    options;
    /** The token of the last event handed out: save it to resume later. */
    resumeToken;
    /** How many times the stream was opened again. */
    reconnects = 0;
    constructor(open, isHeartbeat, options = {}) {
        this.open = open;
        this.isHeartbeat = isHeartbeat;
        this.options = options;
        this.resumeToken = options.resumeToken ?? "";
    }
    async *[Symbol.asyncIterator]() {
        const { initialBackoffMs = 100, maxBackoffMs = 2000, giveUpAfterMs = 120_000 } = this.options.reconnect ?? {};
        let attempt = 0;
        let downSince;
        for (;;) {
            const abort = new AbortController();
            const stop = () => abort.abort();
            this.options.signal?.addEventListener("abort", stop);
            let failure;
            try {
                for await (const message of this.open(this.resumeToken, abort.signal)) {
                    for (const event of message.events) {
                        attempt = 0;
                        downSince = undefined;
                        const token = event.resumeToken;
                        if (token)
                            this.resumeToken = token;
                        if (this.options.heartbeats || !this.isHeartbeat(event))
                            yield event;
                    }
                }
            }
            catch (error) {
                if (this.options.signal?.aborted)
                    return;
                failure = FlotillaError.fromError(error);
                if (!retryable(failure))
                    throw failure;
            }
            finally {
                this.options.signal?.removeEventListener("abort", stop);
                abort.abort();
            }
            if (this.options.signal?.aborted)
                return;
            const now = Date.now();
            downSince ??= now;
            if (giveUpAfterMs > 0 && now - downSince > giveUpAfterMs) {
                throw failure ?? new FlotillaError(new ConnectError("the watch stream keeps ending", Code.Unavailable));
            }
            this.options.onDisconnect?.(failure);
            const delay = Math.min(maxBackoffMs, initialBackoffMs * 2 ** attempt);
            attempt += 1;
            this.reconnects += 1;
            await new Promise((resolve) => setTimeout(resolve, delay));
        }
    }
}
