// Following a watch on a page: its events applied as they come, one render per
// animation frame, and its liveness shown (live, reconnecting after a break, resumed,
// or started over from a fresh snapshot for a watch without resume tokens).

import type { Watch, WatchOptions } from "@flotilla/client/web";
import { refusal } from "./api";
import type { Liveness } from "./parts";

/**
 * Opens the watch `open` makes with the options given, hands each event to `apply`,
 * calls `render` once per animation frame with changes, and reports liveness. Returns
 * what stops it all.
 */
export function follow<E extends object>(
  open: (options: WatchOptions) => Watch<E>,
  isSynced: (event: E) => boolean,
  apply: (event: E) => void,
  render: () => void,
  setLive: (live: Liveness) => void,
  /** Told when the stream broke, for a watch without resume tokens that starts over. */
  restart?: () => void,
): () => void {
  const stop = new AbortController();
  let frame = 0;
  // A broken stream (a server restart) is shown, and resumed after the last event
  // applied, so what was built stays and nothing is missed.
  let down = false;
  const watch = open({
    signal: stop.signal,
    onDisconnect: () => {
      down = true;
      restart?.();
      setLive({ state: "reconnecting", reconnects: watch.reconnects + 1 });
    },
    reconnect: { giveUpAfterMs: 0 },
    // Heartbeats show a resumed stream as live at once, changes or not.
    heartbeats: true,
  });
  setLive({ state: "connecting" });
  (async () => {
    for await (const event of watch) {
      apply(event);
      if (isSynced(event) || down) {
        down = false;
        setLive({ state: "live", reconnects: watch.reconnects });
      }
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        render();
      });
    }
  })().catch((error) => {
    if (!stop.signal.aborted) setLive({ state: "failed", error: refusal(error) });
  });
  return () => {
    stop.abort();
    cancelAnimationFrame(frame);
  };
}
