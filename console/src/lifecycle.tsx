// A group's lifecycle: its state and verbs, the pending revision's difference from
// what runs, its history, and its instances with the revisions they were rendered
// from (a rollback goes back to one of those). Read again whenever the group's
// watch says its lifecycle or revision moved, so the page never polls.

import { useEffect, useState } from "preact/hooks";
import { v1 } from "@flotilla/client/web";
import { label, refusal } from "./api";
import { Conditions, Head, When } from "./parts";
import type { Session } from "./main";

/** The project id of a group's name (`projects/{p}/…`). */
export function projectOf(name: string): string {
  return name.split("/")[1] ?? "";
}

type Verb = "approve" | "instantiate" | "terminate" | "rollout" | "rollback";
const VERBS: Exclude<Verb, "rollback">[] = ["approve", "instantiate", "terminate", "rollout"];

const title = (verb: string) => verb[0].toUpperCase() + verb.slice(1);

/** A verb's outcome as the page shows it. */
interface Outcome {
  error: string;
  done: string;
}

/** The group, its instances, and the verbs run on it; `tick` moves when its watch
 * reports a lifecycle change. */
function useGroup(session: Session, name: string, tick: number) {
  const [group, setGroup] = useState<v1.DeploymentIntentGroup>();
  const [instances, setInstances] = useState<v1.Instance[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>({ error: "", done: "" });
  const reload = () => {
    session.client.lifecycle.getDeploymentIntentGroup({ name }).then(setGroup, (e) =>
      setOutcome({ error: refusal(e), done: "" }),
    );
    session.client.status.listInstances({ name, pageSize: 20 }).then(
      (r) => setInstances(r.instances),
      () => setInstances([]),
    );
  };
  useEffect(reload, [name, tick]);
  const lifecycle = session.client.lifecycle;
  const run = async (verb: Verb, revision = 0n) => {
    const what = verb === "rollback" ? `rollback to revision ${revision}` : verb;
    setBusy(what);
    setOutcome({ error: "", done: "" });
    try {
      const request = { name, requestId: crypto.randomUUID() };
      switch (verb) {
        case "approve":
          await lifecycle.approveDeploymentIntentGroup(request);
          break;
        case "instantiate":
          await lifecycle.instantiateDeploymentIntentGroup(request);
          break;
        case "terminate":
          await lifecycle.terminateDeploymentIntentGroup(request);
          break;
        case "rollout":
          await lifecycle.rolloutDeploymentIntentGroup(request);
          break;
        case "rollback":
          await lifecycle.rollbackDeploymentIntentGroup({ ...request, revision });
          break;
      }
      setOutcome({ error: "", done: `${what}: done` });
    } catch (e) {
      setOutcome({ error: `${what} refused: ${refusal(e)}`, done: "" });
    } finally {
      setBusy(null);
      reload();
    }
  };
  return { group, instances, busy, outcome, run };
}

export function Lifecycle({ session, name, tick }: { session: Session; name: string; tick: number }) {
  const { group, instances, busy, outcome, run } = useGroup(session, name, tick);
  const mayWrite = session.grants.canWrite(projectOf(name));
  return (
    <section aria-labelledby="lifecycle-heading" class="lifecycle">
      <h2 id="lifecycle-heading">Lifecycle</h2>
      {group && (
        <dl class="facts">
          <dt>State</dt>
          <dd data-testid="group-state">{label(v1.DeploymentIntentGroupState, group.state)}</dd>
          <dt>Revision</dt>
          <dd data-testid="group-revision">{String(group.revision)}</dd>
          <dt>Running revision</dt>
          <dd data-testid="running-revision">{group.runningRevision ? String(group.runningRevision) : "—"}</dd>
          <dt>Instance</dt>
          <dd class="mono">{group.currentInstance || "—"}</dd>
          <dt>Conditions</dt>
          <dd>
            <Conditions conditions={group.conditions} />
          </dd>
        </dl>
      )}
      {mayWrite && (
        <div class="verbs" role="group" aria-label="Verbs">
          {VERBS.map((verb) => (
            <button type="button" key={verb} disabled={busy !== null} onClick={() => run(verb)}>
              {title(verb)}
            </button>
          ))}
        </div>
      )}
      {outcome.error && (
        <p role="alert" class="error">
          {outcome.error}
        </p>
      )}
      {outcome.done && (
        <p role="status" class="done">
          {outcome.done}
        </p>
      )}
      {group && group.pendingChanges.length > 0 && <Pending group={group} />}
      {group && (
        <Instances
          group={group}
          instances={instances}
          onRollback={mayWrite && busy === null ? (revision) => run("rollback", revision) : undefined}
        />
      )}
      {group && <History history={group.history} />}
    </section>
  );
}

const CHANGE_TONES: Record<number, string> = {
  [v1.PendingChangeKind.ADDED]: "good",
  [v1.PendingChangeKind.CHANGED]: "warn",
  [v1.PendingChangeKind.REMOVED]: "bad",
};

/** What the pending revision changes against what the running instance was rendered
 * from: what a rollout would send. */
function Pending({ group }: { group: v1.DeploymentIntentGroup }) {
  return (
    <section aria-labelledby="pending-heading" class="pending">
      <h3 id="pending-heading">
        Pending revision {String(group.revision)} against running revision {String(group.runningRevision)}
      </h3>
      <p data-testid="pending-approval">
        {group.pendingApproved
          ? "Approved: a rollout renders it into a new instance and sends only what changed."
          : "Not approved yet: approve it, then roll it out."}
      </p>
      <table aria-label="Pending changes">
        <Head columns={["Change", "Resource"]} />
        <tbody>
          {group.pendingChanges.map((c) => (
            <tr key={c.name} data-pending={c.name}>
              <td>
                <span class={`badge tone-${CHANGE_TONES[c.kind] ?? "neutral"}`}>{label(v1.PendingChangeKind, c.kind)}</span>
              </td>
              <td class="mono">{c.name}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The group's instances, newest first; any revision one was rendered from (other than
 * the running one) can be rolled back to. */
function Instances(props: {
  group: v1.DeploymentIntentGroup;
  instances: v1.Instance[];
  onRollback?: (revision: bigint) => void;
}) {
  const { group, instances, onRollback } = props;
  if (instances.length === 0) return null;
  const instantiated = group.state === v1.DeploymentIntentGroupState.INSTANTIATED;
  const offered = new Set<bigint>();
  return (
    <>
      <h3 id="instances-heading">Instances and revisions</h3>
      <table aria-labelledby="instances-heading">
        <thead>
          <tr>
            <th scope="col">Instance</th>
            <th scope="col">Revision</th>
            <th scope="col">Resources</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            {onRollback && instantiated && <th scope="col">Rollback</th>}
          </tr>
        </thead>
        <tbody>
          {instances.map((i) => {
            // One button per revision, on its newest instance.
            const canRollBack = i.revision !== group.runningRevision && !offered.has(i.revision);
            offered.add(i.revision);
            return (
              <tr key={i.id} data-instance={i.id}>
                <td class="mono">{i.id}</td>
                <td>{String(i.revision)}</td>
                <td>{i.resourceCount}</td>
                <td>{i.current ? "current" : i.terminated ? "terminated" : "superseded"}</td>
                <td>
                  <When time={i.createTime} />
                </td>
                {onRollback && instantiated && (
                  <td>
                    {canRollBack && (
                      <button type="button" onClick={() => onRollback(i.revision)}>
                        Roll back to revision {String(i.revision)}
                      </button>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

function History({ history }: { history: v1.DeploymentIntentGroupEvent[] }) {
  if (history.length === 0) return null;
  return (
    <>
      <h3 id="history-heading">History{history.length > 50 ? " (the last 50)" : ""}</h3>
      <table aria-labelledby="history-heading">
        <Head columns={["When", "What", "State", "Revision", "Instance"]} />
        <tbody>
          {history.slice(-50).reverse().map((e, n) => (
            <tr key={n} data-history={label(v1.DeploymentIntentGroupEventKind, e.kind)}>
              <td>
                <When time={e.time} />
              </td>
              <td>{label(v1.DeploymentIntentGroupEventKind, e.kind)}</td>
              <td>{label(v1.DeploymentIntentGroupState, e.state)}</td>
              <td>{String(e.revision)}</td>
              <td class="mono">{e.instance || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
