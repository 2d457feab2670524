// Container clusters: the live set from WatchContainerClusters (the fleet lists it),
// and one cluster's page — state, phase, conditions, infrastructure, VMs — with its
// verbs (start, stop, scale, recover, delete) for tokens that may write
// infrastructure.

import { useEffect, useState } from "preact/hooks";
import { v1 } from "@flotilla/client/web";
import { label, refusal } from "./api";
import { follow } from "./live";
import { Conditions, Head, Live, type Liveness, When } from "./parts";
import type { Session } from "./main";

/** The container clusters, kept live by WatchContainerClusters. */
export function useContainerClusters(session: Session): { clusters: Map<string, v1.ContainerCluster>; live: Liveness } {
  const [clusters, setClusters] = useState(new Map<string, v1.ContainerCluster>());
  const [live, setLive] = useState<Liveness>({ state: "connecting" });
  useEffect(() => {
    const current = new Map<string, v1.ContainerCluster>();
    return follow(
      (options) => session.client.watchContainerClusters({}, options),
      (event) => event.type === v1.ContainerClusterEventType.SYNCED,
      (event) => {
        const cluster = event.containerCluster;
        switch (event.type) {
          case v1.ContainerClusterEventType.ADDED:
          case v1.ContainerClusterEventType.MODIFIED:
            if (cluster) current.set(cluster.name, cluster);
            break;
          case v1.ContainerClusterEventType.DELETED:
            if (cluster) current.delete(cluster.name);
            break;
          case v1.ContainerClusterEventType.RESYNC_REQUIRED:
            current.clear();
            break;
        }
      },
      () => setClusters(new Map(current)),
      setLive,
    );
  }, []);
  return { clusters, live };
}

type Verb = "start" | "stop" | "scale" | "recover" | "delete";

function Verbs({ session, cluster }: { session: Session; cluster: v1.ContainerCluster }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  const [size, setSize] = useState(String(cluster.size));
  const [confirming, setConfirming] = useState(false);
  const api = session.client.containerClusters;
  const run = async (verb: Verb) => {
    setBusy(true);
    setError("");
    setDone("");
    try {
      const request = { name: cluster.name, requestId: crypto.randomUUID() };
      switch (verb) {
        case "start":
          await api.startContainerCluster(request);
          break;
        case "stop":
          await api.stopContainerCluster(request);
          break;
        case "scale":
          await api.scaleContainerCluster({ ...request, size: Number(size) });
          break;
        case "recover":
          await api.recoverContainerCluster(request);
          break;
        case "delete":
          await api.deleteContainerCluster(request);
          break;
      }
      setDone(`${verb}: accepted`);
    } catch (e) {
      setError(`${verb} refused: ${refusal(e)}`);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <>
      <div class="verbs" role="group" aria-label="Verbs">
        <button type="button" disabled={busy} onClick={() => run("start")}>
          Start
        </button>
        <button type="button" disabled={busy} onClick={() => run("stop")}>
          Stop
        </button>
        <button type="button" disabled={busy} onClick={() => run("recover")}>
          Recover
        </button>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            run("scale");
          }}
        >
          <label>
            New size{" "}
            <input type="number" min={1} value={size} size={4} onInput={(e) => setSize((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" disabled={busy}>
            Scale
          </button>
        </form>
        {confirming ? (
          <>
            <button type="button" class="danger" disabled={busy} onClick={() => run("delete")}>
              Delete {cluster.displayName || cluster.name} for good
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setError("");
              setDone("");
              setConfirming(true);
            }}
          >
            Delete…
          </button>
        )}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {done && (
        <p role="status" class="done">
          {done}
        </p>
      )}
    </>
  );
}

export function ContainerClusterPage({ session, name }: { session: Session; name: string }) {
  const { clusters, live } = useContainerClusters(session);
  const cluster = clusters.get(name);
  const synced = live.state === "live";
  return (
    <main class="page">
      <h1>
        {cluster?.displayName || name} <Live live={live} />
      </h1>
      {!cluster && synced && (
        <p role="status" data-testid="container-gone">
          There is no container cluster {name} (it was deleted, or never existed).
        </p>
      )}
      {cluster && (
        <>
          <dl class="facts">
            <dt>Name</dt>
            <dd class="mono">{cluster.name}</dd>
            <dt>State</dt>
            <dd data-testid="container-state">{label(v1.ContainerClusterState, cluster.state)}</dd>
            <dt>Phase</dt>
            <dd data-testid="container-phase">{label(v1.InfrastructurePhase, cluster.phase)}</dd>
            <dt>Size</dt>
            <dd data-testid="container-size">{cluster.size} VMs</dd>
            <dt>Zone · offering</dt>
            <dd>
              {cluster.zoneId} · {cluster.serviceOfferingId}
            </dd>
            <dt>Account</dt>
            <dd>{cluster.accountName || "—"}</dd>
            <dt>Endpoint</dt>
            <dd class="mono">{cluster.endpoint || "—"}</dd>
            <dt>Registered as</dt>
            <dd class="mono">{cluster.registeredCluster || "—"}</dd>
            <dt>Recovery</dt>
            <dd>
              {label(v1.RecoveryPolicy, cluster.recoveryPolicy)} ({cluster.autoRecover ? "by itself" : "on request"})
            </dd>
            <dt>Conditions</dt>
            <dd>
              <Conditions conditions={cluster.conditions} />
            </dd>
            {cluster.infrastructureStatus?.failureReason && (
              <>
                <dt>Failure</dt>
                <dd class="error">
                  {cluster.infrastructureStatus.failureReason}: {cluster.infrastructureStatus.failureMessage}
                </dd>
              </>
            )}
            <dt>Changed</dt>
            <dd>
              <When time={cluster.updateTime} />
            </dd>
          </dl>
          {session.grants.admin && cluster.state !== v1.ContainerClusterState.DESTROYED && (
            <Verbs session={session} cluster={cluster} key={cluster.name} />
          )}
          <h2 id="vms-heading">VMs</h2>
          <table aria-labelledby="vms-heading">
            <Head columns={["VM", "Id", "State", "Address"]} />
            <tbody>
              {cluster.vms.map((vm) => (
                <tr key={vm.vmId} data-vm={vm.vmId}>
                  <td>{vm.name}</td>
                  <td class="mono">{vm.vmId}</td>
                  <td>{vm.state}</td>
                  <td class="mono">{vm.ipAddress || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
