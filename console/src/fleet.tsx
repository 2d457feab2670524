// The fleet, live: intent groups with their state, revision, instance and summary
// counts and clusters with their connectivity (WatchFleet), container clusters
// (WatchContainerClusters), and every cluster's open actions (WatchActions without a
// cluster, for tokens that may read them all).

import { useEffect, useState } from "preact/hooks";
import type { JSX } from "preact";
import { v1 } from "@flotilla/client/web";
import { label } from "./api";
import { useContainerClusters } from "./container";
import { follow } from "./live";
import { Conditions, Head, Live, type Liveness, When } from "./parts";
import { type Session, navigate } from "./main";

/** A link that moves within the console without a reload. */
function Link({ to, children }: { to: string; children: preact.ComponentChildren }) {
  return (
    <a
      href={to}
      onClick={(e) => {
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

interface FleetRows {
  groups: Map<string, v1.FleetGroup>;
  clusters: Map<string, v1.FleetCluster>;
}

/**
 * The fleet's rows, kept live by WatchFleet. The stream has no resume token: after a
 * break the rows on screen stay until the fresh snapshot that replaces them is whole.
 */
function useFleet(session: Session): FleetRows & { live: Liveness } {
  const [rows, setRows] = useState<FleetRows>({ groups: new Map(), clusters: new Map() });
  const [live, setLive] = useState<Liveness>({ state: "connecting" });
  useEffect(() => {
    let shown: FleetRows = { groups: new Map(), clusters: new Map() };
    // The snapshot being read (the first, or the one after a break).
    let building: FleetRows | null = { groups: new Map(), clusters: new Map() };
    return follow(
      (options) => session.client.watchFleet(options),
      (event) => event.type === v1.FleetEventType.SYNCED,
      (event) => {
        if (event.type === v1.FleetEventType.SYNCED) {
          if (building) shown = building;
          building = null;
          return;
        }
        const into = building ?? shown;
        const row = event.row;
        const gone = event.type === v1.FleetEventType.DELETED;
        if (row.case === "group") {
          if (gone) into.groups.delete(row.value.name);
          else into.groups.set(row.value.name, row.value);
        } else if (row.case === "cluster") {
          if (gone) into.clusters.delete(row.value.name);
          else into.clusters.set(row.value.name, row.value);
        }
      },
      () => setRows({ groups: new Map(shown.groups), clusters: new Map(shown.clusters) }),
      setLive,
      () => {
        building = { groups: new Map(), clusters: new Map() };
      },
    );
  }, []);
  return { ...rows, live };
}

/** Every cluster's open actions, or why this token is not shown them. */
function useOpenActions(session: Session): { actions: Map<string, v1.Action>; live: Liveness } {
  const [actions, setActions] = useState(new Map<string, v1.Action>());
  const [live, setLive] = useState<Liveness>({ state: "connecting" });
  useEffect(() => {
    const open = new Map<string, v1.Action>();
    return follow(
      (options) => session.client.watchActions({}, options),
      (event) => event.type === v1.ActionEventType.SYNCED,
      (event) => {
        const action = event.action;
        if (event.type === v1.ActionEventType.RESYNC_REQUIRED) open.clear();
        if (!action) return;
        const state = action.status?.state ?? v1.ActionState.UNSPECIFIED;
        const finished = state !== v1.ActionState.PENDING && state !== v1.ActionState.RUNNING;
        if (event.type === v1.ActionEventType.DELETED || finished) open.delete(action.name);
        else open.set(action.name, action);
      },
      () => setActions(new Map(open)),
      setLive,
    );
  }, []);
  return { actions, live };
}

function State({ names, value }: { names: Record<number, string>; value: number }) {
  const text = label(names, value);
  return <span class={`state state-${text.toLowerCase()}`}>{text}</span>;
}

const CONNECTIVITY_TONES: Record<string, string> = {
  AVAILABLE: "good",
  RETRYING: "bad",
  UNKNOWN: "wait",
};

/** A group's summary counts: resources, how many are applied and ready, and trouble. */
function Counts({ group }: { group: v1.FleetGroup }) {
  const r = group.rsyncStatus;
  const total = r ? r.pending + r.applied + r.failed + r.retrying + r.terminated + r.superseded : 0;
  if (total === 0) return <span class="muted">—</span>;
  const parts: JSX.Element[] = [
    <span key="applied">{r?.applied ?? 0}/{total} applied</span>,
    <span key="ready" class="badge tone-good">
      {group.readiness?.ready ?? 0} ready
    </span>,
  ];
  const trouble: [string, number, string][] = [
    ["pending", r?.pending ?? 0, "wait"],
    ["retrying", r?.retrying ?? 0, "warn"],
    ["failed", r?.failed ?? 0, "bad"],
    ["not present", group.clusterStatus?.notPresent ?? 0, "bad"],
    ["terminated", r?.terminated ?? 0, "neutral"],
  ];
  for (const [what, n, tone] of trouble) {
    if (n > 0)
      parts.push(
        <span key={what} class={`badge tone-${tone}`}>
          {n} {what}
        </span>,
      );
  }
  return <span class="counts" data-counts={`${r?.applied ?? 0}/${total}/${group.readiness?.ready ?? 0}`}>{parts}</span>;
}

export function Fleet({ session }: { session: Session }) {
  const fleet = useFleet(session);
  const containers = useContainerClusters(session);
  const actions = useOpenActions(session);
  const synced = fleet.live.state === "live" || fleet.groups.size + fleet.clusters.size > 0;
  return (
    <main class="page">
      <h1>Fleet</h1>
      <section aria-labelledby="groups-heading">
        <h2 id="groups-heading">
          Deployment intent groups <Live live={fleet.live} />
        </h2>
        {!synced && <p class="loading">Loading…</p>}
        {synced && fleet.groups.size === 0 && <p>No groups this token may read.</p>}
        {fleet.groups.size > 0 && (
          <table aria-label="Deployment intent groups">
            <Head columns={["Group", "State", "Revision", "Instance", "Resources", "Conditions"]} />
            <tbody>
              {[...fleet.groups.values()].map((g) => (
                <tr key={g.name} data-group={g.name}>
                  <td>
                    <Link to={`/groups/${encodeURIComponent(g.name)}`}>{g.name}</Link>
                  </td>
                  <td>
                    <State names={v1.DeploymentIntentGroupState} value={g.state} />
                  </td>
                  <td>{String(g.revision)}</td>
                  <td class="mono">{g.currentInstance || "—"}</td>
                  <td>
                    <Counts group={g} />
                  </td>
                  <td>
                    <Conditions conditions={g.conditions} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="clusters-heading">
        <h2 id="clusters-heading">
          Clusters <Live live={fleet.live} />
        </h2>
        {synced && fleet.clusters.size === 0 && <p>None.</p>}
        {fleet.clusters.size > 0 && (
          <table aria-label="Clusters">
            <Head columns={["Cluster", "Connection", "Connectivity", "Network intents", "Conditions"]} />
            <tbody>
              {[...fleet.clusters.values()].map((c) => {
                const connectivity = label(v1.Connectivity, c.connectivity);
                return (
                  <tr key={c.name} data-cluster={c.name}>
                    <td class="mono">{c.name}</td>
                    <td>{label(v1.ConnectionMode, c.connectionMode)}</td>
                    <td>
                      <span class={`badge tone-${CONNECTIVITY_TONES[connectivity] ?? "neutral"}`} data-connectivity={connectivity}>
                        {connectivity}
                      </span>
                    </td>
                    <td>{label(v1.NetworkIntentsState, c.networkIntentsState)}</td>
                    <td>
                      <Conditions conditions={c.conditions} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="containers-heading">
        <h2 id="containers-heading">
          Container clusters <Live live={containers.live} />
        </h2>
        {containers.clusters.size === 0 ? (
          <p>None.</p>
        ) : (
          <table aria-label="Container clusters">
            <Head columns={["Container cluster", "State", "Phase", "VMs", "Conditions"]} />
            <tbody>
              {[...containers.clusters.values()].map((c) => (
                <tr key={c.name}>
                  <td class="mono">
                    <Link to={`/${c.name}`}>{c.displayName || c.name}</Link>
                  </td>
                  <td>{label(v1.ContainerClusterState, c.state)}</td>
                  <td>{label(v1.InfrastructurePhase, c.phase)}</td>
                  <td>{c.vms.length}</td>
                  <td>
                    <Conditions conditions={c.conditions} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="open-actions-heading">
        <h2 id="open-actions-heading">
          Open actions {actions.live.state !== "failed" && <Live live={actions.live} />}
        </h2>
        {actions.live.state === "failed" ? (
          <p class="muted">
            This token reads actions only on the clusters of its projects: each group's page shows the actions started there.
          </p>
        ) : actions.actions.size === 0 ? (
          <p>None.</p>
        ) : (
          <table aria-label="Open actions">
            <Head columns={["Action", "Cluster", "On", "State", "Created"]} />
            <tbody>
              {[...actions.actions.values()].map((a) => {
                const target = a.spec?.target;
                const on =
                  target?.case === "podAction"
                    ? `pod ${target.value.namespace || "default"}/${target.value.podName}`
                    : `node ${a.spec?.nodeName ?? "—"}`;
                return (
                  <tr key={a.name} data-open-action={a.name}>
                    <td>{a.actionName}</td>
                    <td class="mono">{a.cluster}</td>
                    <td class="mono">{on}</td>
                    <td>
                      <State names={v1.ActionState} value={a.status?.state ?? 0} />
                    </td>
                    <td>
                      <When time={a.createTime} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </main>
  );
}
