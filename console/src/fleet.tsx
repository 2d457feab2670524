// The fleet: cluster providers and their clusters, intent groups, container clusters
// (live, from WatchContainerClusters).

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

import { useEffect, useState } from "preact/hooks";
import { pages, v1 } from "@flotilla/client/web";
import { label, refusal } from "./api";
import { useContainerClusters } from "./container";
import { Conditions, Live } from "./parts";
import { type Session, navigate } from "./main";

interface ClusterRow {
  provider: string;
  cluster: v1.Cluster;
}

async function loadClusters(session: Session): Promise<ClusterRow[]> {
  const rows: ClusterRow[] = [];
  const lifecycle = session.client.lifecycle;
  for await (const provider of pages(lifecycle.listClusterProviders, { pageSize: 1000 }, (r) => r.clusterProviders)) {
    for await (const cluster of pages(lifecycle.listClusters, { parent: provider.name, pageSize: 1000 }, (r) => r.clusters)) {
      rows.push({ provider: provider.name, cluster });
    }
  }
  return rows;
}

async function loadGroups(session: Session): Promise<v1.DeploymentIntentGroup[]> {
  const groups: v1.DeploymentIntentGroup[] = [];
  const lifecycle = session.client.lifecycle;
  for await (const project of pages(lifecycle.listProjects, { pageSize: 1000 }, (r) => r.projects)) {
    for await (const app of pages(lifecycle.listCompositeApps, { parent: project.name, pageSize: 1000 }, (r) => r.compositeApps)) {
      for await (const group of pages(
        lifecycle.listDeploymentIntentGroups,
        { parent: app.name, pageSize: 1000 },
        (r) => r.deploymentIntentGroups,
      )) {
        groups.push(group);
      }
    }
  }
  return groups;
}

function useLoad<T>(load: () => Promise<T>): { value?: T; error?: string } {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  useEffect(() => {
    load().then(
      (value) => setState({ value }),
      (error) => setState({ error: refusal(error) }),
    );
  }, []);
  return state;
}

export function Fleet({ session }: { session: Session }) {
  const clusters = useLoad(() => loadClusters(session));
  const groups = useLoad(() => loadGroups(session));
  const containers = useContainerClusters(session);
  return (
    <main class="page">
      <h1>Fleet</h1>
      <section aria-labelledby="groups-heading">
        <h2 id="groups-heading">Deployment intent groups</h2>
        {groups.error && <p role="alert" class="error">{groups.error}</p>}
        {!groups.value && !groups.error && <p class="loading">Loading…</p>}
        {groups.value && groups.value.length === 0 && <p>No groups this token may read.</p>}
        {groups.value && groups.value.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col">State</th>
                <th scope="col">Revision</th>
                <th scope="col">Instance</th>
              </tr>
            </thead>
            <tbody>
              {groups.value.map((g) => (
                <tr key={g.name}>
                  <td>
                    <Link to={`/groups/${encodeURIComponent(g.name)}`}>{g.name}</Link>
                  </td>
                  <td>
                    <span class={`state state-${label(v1.DeploymentIntentGroupState, g.state).toLowerCase()}`}>
                      {label(v1.DeploymentIntentGroupState, g.state)}
                    </span>
                  </td>
                  <td>{String(g.revision)}</td>
                  <td class="mono">{g.currentInstance || "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="clusters-heading">
        <h2 id="clusters-heading">Clusters</h2>
        {clusters.error && <p role="alert" class="error">{clusters.error}</p>}
        {!clusters.value && !clusters.error && <p class="loading">Loading…</p>}
        {clusters.value && (
          <table>
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col">Connection</th>
                <th scope="col">Conditions</th>
              </tr>
            </thead>
            <tbody>
              {clusters.value.map(({ cluster }) => (
                <tr key={cluster.name}>
                  <td class="mono">{cluster.name}</td>
                  <td>{label(v1.ConnectionMode, cluster.connectionMode)}</td>
                  <td>
                    <Conditions conditions={cluster.conditions} />
                  </td>
                </tr>
              ))}
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
          <table>
            <thead>
              <tr>
                <th scope="col">Container cluster</th>
                <th scope="col">State</th>
                <th scope="col">Phase</th>
                <th scope="col">VMs</th>
                <th scope="col">Conditions</th>
              </tr>
            </thead>
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
    </main>
  );
}
