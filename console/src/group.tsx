// A deployment intent group: its lifecycle and verbs, and its status as a live tree
// app → cluster → resource from WatchStatus (filters applied by the server), with a
// resource's detail on demand.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { JsonObject } from "@bufbuild/protobuf";
import { v1 } from "@flotilla/client/web";
import { Actions, type PodVerb, useActions } from "./actions";
import { label, refusal } from "./api";
import { Lifecycle, projectOf } from "./lifecycle";
import { follow } from "./live";
import { Badge, Live, type Liveness } from "./parts";
import type { Session } from "./main";
import { eventApplied, rendered, watchOpened } from "./figures";
import { GroupStatus, type Resource } from "./tree";

/** A cluster's id, the last segment of `clusterProviders/{cp}/clusters/{c}`. */
function clusterId(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

interface Filters {
  apps: string[];
  clusters: string[];
  resources: string[];
}

const split = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** The group's status, kept live by WatchStatus; rendered once per animation frame. */
function useStatus(session: Session, name: string, filters: Filters) {
  const [status, setStatus] = useState(() => new GroupStatus());
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState<Liveness>({ state: "connecting" });
  // Moves with every lifecycle event: the lifecycle section reads the group again.
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const current = new GroupStatus();
    setStatus(current);
    watchOpened();
    return follow(
      (options) => session.client.watchStatus({ name, output: v1.StatusOutput.ALL, ...filters }, options),
      (event) => event.type === v1.WatchEventType.SYNCED,
      (event) => {
        const wasSynced = current.synced;
        current.apply(event);
        eventApplied(event, wasSynced);
        if (event.type === v1.WatchEventType.LIFECYCLE_CHANGED && wasSynced) setTick((t) => t + 1);
      },
      () => setVersion((v) => v + 1),
      setLive,
    );
  }, [name, filters]);
  return { status, version, live, tick };
}

const ROW_HEIGHT = 28;

/** The rows of the tree, only those in view rendered (10,000 resources scroll smoothly). */
function Tree(props: {
  status: GroupStatus;
  version: number;
  onSelect: (r: Resource) => void;
  selected?: string;
  /** Offered on pods when the token may act on them. */
  onAct?: (r: Resource, verb: PodVerb) => void;
}) {
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(480);
  const box = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => props.status.rows(collapsed), [props.version, props.status, collapsed]);
  // After the DOM shows this version: what it took (see ./figures).
  useEffect(() => rendered(props.status.resources.size), [props.version]);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - 10);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + 10);
  const toggle = (key: string) => {
    const next = new Set(collapsed);
    if (!next.delete(key)) next.add(key);
    setCollapsed(next);
  };
  // Keyboard: the tree is one tab stop; arrows move the active row (announced through
  // aria-activedescendant, scrolled into view), right/left open and close a group
  // row, Enter shows a resource's detail.
  const [active, setActive] = useState(0);
  const current = Math.min(active, Math.max(0, rows.length - 1));
  const moveTo = (index: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, index));
    setActive(next);
    const el = box.current;
    if (!el) return;
    const top = next * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  };
  const onKey = (e: KeyboardEvent) => {
    const row = rows[current];
    if (!row) return;
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    const open = row.level < 2 && !collapsed.has(row.key);
    switch (e.key) {
      case "ArrowDown":
        moveTo(current + 1);
        break;
      case "ArrowUp":
        moveTo(current - 1);
        break;
      case "PageDown":
        moveTo(current + page);
        break;
      case "PageUp":
        moveTo(current - page);
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(rows.length - 1);
        break;
      case "ArrowRight":
        if (row.level < 2 && !open) toggle(row.key);
        else moveTo(current + 1);
        break;
      case "ArrowLeft":
        if (open) toggle(row.key);
        else {
          // To the row's parent.
          let parent = current - 1;
          while (parent >= 0 && rows[parent].level >= row.level) parent -= 1;
          if (parent >= 0) moveTo(parent);
        }
        break;
      case "Enter":
        if (row.level === 2) props.onSelect(row.resource);
        else toggle(row.key);
        break;
      default:
        return;
    }
    e.preventDefault();
  };
  const rowId = (index: number) => `tree-row-${index}`;
  return (
    <div
      class="tree"
      ref={box}
      role="tree"
      aria-label="Resources by app and cluster"
      tabIndex={0}
      onKeyDown={onKey}
      aria-activedescendant={rows.length > 0 ? rowId(current) : undefined}
      onScroll={(e) => setScrollTop((e.target as HTMLDivElement).scrollTop)}
    >
      <div style={{ height: `${rows.length * ROW_HEIGHT}px`, position: "relative" }}>
        {rows.slice(first, last).map((row, i) => {
          const index = first + i;
          const top = index * ROW_HEIGHT;
          const style = { transform: `translateY(${top}px)` };
          const activeClass = index === current ? " active" : "";
          if (row.level === 2) {
            const r = row.resource;
            return (
              <div
                key={row.key}
                id={rowId(index)}
                class={`row level-2${props.selected === r.key ? " selected" : ""}${activeClass}`}
                style={style}
                role="treeitem"
                aria-level={3}
                aria-selected={props.selected === r.key}
                data-resource={`${r.app}/${r.cluster}/${r.kind}/${r.name}`}
              >
                <button type="button" class="link" onClick={() => props.onSelect(r)}>
                  {r.kind} {r.namespace ? `${r.namespace}/` : ""}
                  {r.name}
                </button>
                {props.onAct && r.kind === "Pod" && (
                  <span class="pod-verbs">
                    <button type="button" aria-label={`Reboot ${r.name} on ${r.cluster}`} onClick={() => props.onAct!(r, "reboot")}>
                      Reboot
                    </button>
                    <button type="button" aria-label={`Snapshot ${r.name} on ${r.cluster}`} onClick={() => props.onAct!(r, "snapshot")}>
                      Snapshot
                    </button>
                  </span>
                )}
                <Badge kind="rsync" value={r.rsync} />
                <Badge kind="cluster" value={r.clusterStatus} />
                <Badge kind="ready" value={r.readiness} />
              </div>
            );
          }
          const open = !collapsed.has(row.key);
          return (
            <div
              key={row.key}
              id={rowId(index)}
              class={`row level-${row.level}${activeClass}`}
              style={style}
              role="treeitem"
              aria-level={row.level + 1}
              aria-expanded={open}
            >
              <button type="button" class="toggle" onClick={() => toggle(row.key)} aria-label={`${open ? "Collapse" : "Expand"} ${row.level === 0 ? row.app : row.cluster}`}>
                {open ? "▾" : "▸"}
              </button>
              <span class="mono">{row.level === 0 ? row.app : row.cluster}</span>
              <span class="muted"> ({row.count})</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function Detail({ session, name, resource }: { session: Session; name: string; resource: Resource }) {
  const [entry, setEntry] = useState<v1.ResourceStatusEntry>();
  const [error, setError] = useState("");
  useEffect(() => {
    setEntry(undefined);
    setError("");
    session.client.status
      .getDeploymentIntentGroupStatus({
        name,
        output: v1.StatusOutput.DETAIL,
        apps: [resource.app],
        clusters: [clusterId(resource.cluster)],
        resources: [resource.name],
      })
      .then((status) => {
        const found = status.resources
          .flatMap((a) => a.clusters.flatMap((c) => c.resources))
          .find((r) => r.name === resource.name && (r.gvk?.kind ?? "") === resource.kind && r.namespace === resource.namespace);
        if (found) setEntry(found);
        else setError("The resource is no longer in the group's status.");
      }, (e) => setError(refusal(e)));
  }, [resource.key]);
  const json = (value: JsonObject | undefined) => (value ? JSON.stringify(value, null, 2) : "—");
  return (
    <section class="detail" aria-labelledby="detail-heading">
      <h2 id="detail-heading">
        {resource.kind} {resource.name} <span class="muted">on {resource.cluster}</span>
      </h2>
      {error && <p role="alert" class="error">{error}</p>}
      {entry && (
        <>
          <h3>Metadata</h3>
          <pre>{json(entry.metadata)}</pre>
          <h3>Spec</h3>
          <pre>{json(entry.spec)}</pre>
          <h3>Status</h3>
          <pre>{json(entry.status)}</pre>
        </>
      )}
    </section>
  );
}

function Counts({ status }: { status: GroupStatus }) {
  const rs = status.rsync;
  const cs = status.clusterCounts;
  const rd = status.readiness;
  return (
    <dl class="counts" aria-label="Counts">
      <dt>Applied</dt>
      <dd data-testid="count-applied">{rs?.applied ?? 0}</dd>
      <dt>Pending</dt>
      <dd>{rs?.pending ?? 0}</dd>
      <dt>Retrying</dt>
      <dd>{rs?.retrying ?? 0}</dd>
      <dt>Failed</dt>
      <dd>{rs?.failed ?? 0}</dd>
      <dt>Present</dt>
      <dd data-testid="count-present">{cs?.present ?? 0}</dd>
      <dt>Not present</dt>
      <dd data-testid="count-not-present">{cs?.notPresent ?? 0}</dd>
      <dt>Ready</dt>
      <dd data-testid="count-ready">{rd?.ready ?? 0}</dd>
      <dt>Not ready</dt>
      <dd>{rd?.notReady ?? 0}</dd>
    </dl>
  );
}

export function Group({ session, name }: { session: Session; name: string }) {
  const [filters, setFilters] = useState<Filters>({ apps: [], clusters: [], resources: [] });
  const [draft, setDraft] = useState({ apps: "", clusters: "", resources: "" });
  const [selected, setSelected] = useState<Resource>();
  const { status, version, live, tick } = useStatus(session, name, filters);
  const actions = useActions(session);
  const apply = (e: Event) => {
    e.preventDefault();
    setFilters({ apps: split(draft.apps), clusters: split(draft.clusters), resources: split(draft.resources) });
  };
  return (
    <main class="page">
      <h1 class="mono">{name}</h1>
      <Lifecycle session={session} name={name} tick={tick} />
      <section aria-labelledby="status-heading">
        <h2 id="status-heading">
          Status <Live live={live} />
        </h2>
        <p class="facts-line">
          State <strong data-testid="status-state">{status.state || "—"}</strong> · instance{" "}
          <span class="mono">{status.instance || "—"}</span> · {status.resources.size} resources
          {[...status.connectivity].map(([cluster, c]) => (
            <span key={cluster} class="muted">
              {" "}
              · {cluster} {label(v1.Connectivity, c).toLowerCase()}
            </span>
          ))}
        </p>
        <Counts status={status} />
        <form class="filters" onSubmit={apply} aria-label="Filters">
          {(["apps", "clusters", "resources"] as const).map((field) => (
            <label key={field}>
              {field[0].toUpperCase() + field.slice(1)}
              <input
                value={draft[field]}
                placeholder="all (comma-separated)"
                onInput={(e) => setDraft({ ...draft, [field]: (e.target as HTMLInputElement).value })}
              />
            </label>
          ))}
          <button type="submit">Filter</button>
        </form>
        <Tree
          status={status}
          version={version}
          onSelect={setSelected}
          selected={selected?.key}
          onAct={session.grants.canWrite(projectOf(name)) ? actions.act : undefined}
        />
      </section>
      <Actions actions={actions.actions} error={actions.error} lives={actions.lives} />
      {selected && <Detail session={session} name={name} resource={selected} />}
    </main>
  );
}
