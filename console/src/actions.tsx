// Actions on a group's pods: reboot or snapshot from a pod's row, each followed to its
// end through WatchActions on its cluster (one watch per cluster acted on).

import { useEffect, useRef, useState } from "preact/hooks";
import { v1 } from "@flotilla/client/web";
import { label, refusal } from "./api";
import { follow } from "./live";
import type { Session } from "./main";
import { Head, Live, type Liveness } from "./parts";
import type { Resource } from "./tree";

/** Where the console's snapshots go (the demo's VM agents write under it). */
const SNAPSHOT_LOCATION = "/var/tmp/snapshots";

export type PodVerb = "reboot" | "snapshot";

/** The actions started from this page, kept live. */
export function useActions(session: Session) {
  const [actions, setActions] = useState(new Map<string, v1.Action>());
  const [error, setError] = useState("");
  const [lives, setLives] = useState(new Map<string, Liveness>());
  const mine = useRef(new Set<string>());
  const current = useRef(new Map<string, v1.Action>());
  const watching = useRef(new Map<string, () => void>());
  useEffect(() => () => watching.current.forEach((stop) => stop()), []);

  const watchCluster = (cluster: string) => {
    if (watching.current.has(cluster)) return;
    const stop = follow(
      (options) => session.client.watchActions({ cluster }, options),
      (event) => event.type === v1.ActionEventType.SYNCED,
      (event) => {
        const action = event.action;
        if (!action || !mine.current.has(action.name)) return;
        if (event.type === v1.ActionEventType.DELETED) current.current.delete(action.name);
        else current.current.set(action.name, action);
      },
      () => setActions(new Map(current.current)),
      (live) => setLives((all) => new Map(all).set(cluster, live)),
    );
    watching.current.set(cluster, stop);
  };

  const act = async (resource: Resource, verb: PodVerb) => {
    setError("");
    try {
      watchCluster(resource.cluster);
      const action = await session.client.actions.createPodAction({
        cluster: resource.cluster,
        namespace: resource.namespace,
        pod: resource.name,
        actionName: verb === "reboot" ? "Reboot" : "Snapshot",
        requestId: crypto.randomUUID(),
        params:
          verb === "reboot"
            ? { case: "rebootParams", value: { delayInSeconds: 0 } }
            : { case: "snapshotParams", value: { snapshotLocation: SNAPSHOT_LOCATION } },
      });
      mine.current.add(action.name);
      if (!current.current.has(action.name)) current.current.set(action.name, action);
      setActions(new Map(current.current));
    } catch (e) {
      setError(`${verb} of ${resource.name} refused: ${refusal(e)}`);
    }
  };
  return { actions, error, lives, act };
}

export function Actions(props: { actions: Map<string, v1.Action>; error: string; lives: Map<string, Liveness> }) {
  if (props.actions.size === 0 && !props.error) return null;
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">
        Actions {[...props.lives.values()].slice(0, 1).map((live, i) => <Live key={i} live={live} />)}
      </h2>
      {props.error && (
        <p role="alert" class="error">
          {props.error}
        </p>
      )}
      {props.actions.size > 0 && (
        <table>
          <Head columns={["Action", "Pod", "Kind", "State", "Result"]} />
          <tbody>
            {[...props.actions.values()].map((a) => {
              const pod = a.spec?.target.case === "podAction" ? a.spec.target.value : undefined;
              const kind = pod?.action.case === "snapshotAction" ? "snapshot" : "reboot";
              const status = a.status;
              const state = label(v1.ActionState, status?.state ?? 0);
              const result = status?.error
                ? `${status.reason}: ${status.error}`
                : status?.snapshotStatus?.snapshotPath
                  ? `${status.snapshotStatus.snapshotPath} (${status.snapshotStatus.snapshotSizeInBytes} bytes)`
                  : status?.complete
                    ? "done"
                    : "—";
              return (
                <tr key={a.name} data-action={a.name}>
                  <td class="mono">{a.name}</td>
                  <td class="mono">{pod ? `${pod.podName} on ${a.cluster}` : a.cluster}</td>
                  <td>{kind}</td>
                  <td data-testid="action-state">{state}</td>
                  <td>{result}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
