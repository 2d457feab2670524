import { Code } from "@connectrpc/connect";
import { FlotillaError } from "./errors.js";
/** How a watch reconnects: exponential backoff, and how long it may stay disconnected. */
export interface Reconnect {
    /** First delay before opening the stream again, in ms (default 100). */
    initialBackoffMs?: number;
    /** Largest delay between attempts, in ms (default 2000). */
    maxBackoffMs?: number;
    /** Give up (throw) after this long without a working stream, in ms (default 120000; 0: never). */
    giveUpAfterMs?: number;
}
/** Options every watch helper takes. */
export interface WatchOptions {
    /** Resume after this token (from an earlier watch) instead of starting with a snapshot. */
    resumeToken?: string;
    /** Hand out heartbeat events too (they always move the resume token). */
    heartbeats?: boolean;
    reconnect?: Reconnect;
    /** Ends the watch. */
    signal?: AbortSignal;
    /**
     * Told when the stream broke (or ended) and is about to be opened again, with the
     * error it broke with: to show that the watch is catching up.
     */
    onDisconnect?: (error: FlotillaError | undefined) => void;
}
/** The codes a watch reconnects after; anything else is thrown. */
export declare const RETRYABLE: ReadonlySet<Code>;
/**
 * Whether a watch reconnects after `error`: UNAVAILABLE, or the connection breaking
 * under the stream. A server killed mid-stream surfaces in Node as an HTTP/2 stream
 * closed with CANCEL (Canceled) or a local protocol error, and in a browser as fetch's
 * network error (Chrome's "Failed to fetch" or "network error", Firefox's
 * "NetworkError", Safari's "Load failed"); the watch's own abort never gets here, it
 * ends the watch.
 */
export declare function retryable(error: FlotillaError): boolean;
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
export declare class Watch<E extends object> implements AsyncIterable<E> {
    private readonly open;
    private readonly isHeartbeat;
    private readonly options;
    /** The token of the last event handed out: save it to resume later. */
    resumeToken: string;
    /** How many times the stream was opened again. */
    reconnects: number;
    constructor(open: (resumeToken: string, signal: AbortSignal) => AsyncIterable<{
        events: E[];
    }>, isHeartbeat: (event: E) => boolean, options?: WatchOptions);
    [Symbol.asyncIterator](): AsyncGenerator<E, void, undefined>;
}
