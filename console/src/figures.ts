// What the console measures of itself, for its browser tests and anyone with the
// devtools open (`flotillaConsole` on the window): when a watch's snapshot began and
// ended, when the tree that followed was on screen, and each change's time from its
// commit on the server (the event's time) to the DOM showing it.

import { v1 } from "@flotilla/client/web";

export interface Figures {
  /** performance.now() of the first event of the last watch opened. */
  snapshotStart?: number;
  /** performance.now() of its SYNCED. */
  synced?: number;
  /** performance.now() after the first render that followed SYNCED. */
  rendered?: number;
  /** Resources in that render. */
  renderedResources?: number;
  /** Change → DOM latencies in ms (event time to the render that showed it), newest last. */
  changes: number[];
}

const KEEP = 100_000;

export const figures: Figures = { changes: [] };
(globalThis as unknown as { flotillaConsole: Figures }).flotillaConsole = figures;

/** Event times (epoch ms) of live changes applied but not yet rendered. */
let pending: number[] = [];

export function watchOpened(): void {
  figures.snapshotStart = undefined;
  figures.synced = undefined;
  figures.rendered = undefined;
  pending = [];
}

export function eventApplied(event: v1.WatchEvent, synced: boolean): void {
  figures.snapshotStart ??= performance.now();
  if (event.type === v1.WatchEventType.SYNCED) figures.synced = performance.now();
  else if (synced && event.type === v1.WatchEventType.RESOURCE_CHANGED && event.time) {
    pending.push(Number(event.time.seconds) * 1000 + event.time.nanos / 1e6);
  }
}

/** Called after a render reached the DOM. */
export function rendered(resources: number): void {
  const now = Date.now();
  if (figures.synced !== undefined && figures.rendered === undefined) {
    figures.rendered = performance.now();
    figures.renderedResources = resources;
  }
  for (const at of pending) figures.changes.push(now - at);
  pending = [];
  if (figures.changes.length > KEEP) figures.changes.splice(0, figures.changes.length - KEEP);
}
