// Small pieces the pages share: conditions, a stream's liveness, status badges.

import { type Timestamp, timestampDate } from "@bufbuild/protobuf/wkt";
import { v1 } from "@flotilla/client/web";
import { label } from "./api";

export function Conditions({ conditions }: { conditions: v1.Condition[] }) {
  if (conditions.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="conditions">
      {conditions.map((c) => {
        const status = label(v1.ConditionStatus, c.status).toLowerCase();
        return (
          <li key={c.type} class={`condition condition-${status}`} title={[c.reason, c.message].filter(Boolean).join(": ")}>
            {c.type}: {status}
          </li>
        );
      })}
    </ul>
  );
}

/** A watch's state as the page shows it. */
export type Liveness =
  | { state: "connecting" }
  | { state: "live"; reconnects: number }
  | { state: "reconnecting"; reconnects: number }
  | { state: "failed"; error: string };

export function Live({ live }: { live: Liveness }) {
  const text =
    live.state === "live"
      ? live.reconnects > 0
        ? `live (resumed ${live.reconnects}×)`
        : "live"
      : live.state === "failed"
        ? `stopped: ${live.error}`
        : live.state;
  return (
    <span class={`live live-${live.state}`} role="status" data-live={live.state}>
      {text}
    </span>
  );
}

/** A resource's rsync status, cluster status or readiness, coloured by meaning. */
export function Badge({ kind, value }: { kind: "rsync" | "cluster" | "ready"; value: number }) {
  const names =
    kind === "rsync" ? v1.RsyncStatus : kind === "cluster" ? v1.ClusterResourceStatus : v1.Readiness;
  const text = value === 0 ? "—" : label(names, value);
  const tone = TONES[`${kind}:${text}`] ?? "neutral";
  return <span class={`badge tone-${tone}`}>{text}</span>;
}

const TONES: Record<string, string> = {
  "rsync:APPLIED": "good",
  "rsync:PENDING": "wait",
  "rsync:RETRYING": "warn",
  "rsync:FAILED": "bad",
  "rsync:TERMINATED": "neutral",
  "rsync:SUPERSEDED": "neutral",
  "cluster:PRESENT": "good",
  "cluster:NOT_PRESENT": "bad",
  "cluster:UNKNOWN": "wait",
  "ready:READY": "good",
  "ready:NOT_READY": "warn",
};

/** A timestamp as the reader's local date and time; "—" when unset. */
export function When({ time }: { time?: Timestamp }) {
  if (!time) return <span class="muted">—</span>;
  const date = timestampDate(time);
  return <time dateTime={date.toISOString()}>{date.toLocaleString()}</time>;
}

/** A table's header row. */
export function Head({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}
