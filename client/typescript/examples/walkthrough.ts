// Flotilla's walk-through in TypeScript: build an application, deploy it to two
// clusters, watch it become Applied and Ready, read its summary, terminate it and watch
// it go.
//
//   FLOTILLA_SERVER=localhost:50051 FLOTILLA_TOKEN=$(cat flotilla-data/admin.token) \
//     npm run example

import { fileURLToPath } from "node:url";
import { type FlotillaClient, FlotillaError, createFlotillaClient, names, v1 } from "../src/index.js";

const FRONTEND = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
spec:
  replicas: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: frontend-config
data:
  theme: dark
`;
const CACHE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: cache\n";

/** Every resource Applied, Present and Ready. */
export function settled(event: v1.WatchEvent): boolean {
  const r = event.rsyncStatus;
  const c = event.clusterStatus;
  const d = event.readiness;
  if (!r || !c || !d) return false;
  const busy = r.pending + r.retrying + r.failed + c.notPresent + c.unknown;
  return r.applied > 0 && busy === 0 && d.notReady === 0;
}

/** Creates the application and its placement; returns the group's name. */
export async function createApplication(client: FlotillaClient): Promise<string> {
  // A project, a composite app with two apps, a profile that patches frontend.
  await client.lifecycle.createProject({ projectId: "tour" });
  const web = names.compositeApp("tour", "web", "v1");
  await client.lifecycle.createCompositeApp({ parent: names.project("tour"), compositeAppId: "web", versionId: "v1" });
  for (const [appId, manifests] of [
    ["frontend", FRONTEND],
    ["cache", CACHE],
  ] as const) {
    await client.lifecycle.createApp({ parent: web, appId, app: { manifests } });
  }
  await client.lifecycle.createCompositeProfile({ parent: web, compositeProfileId: "default" });
  await client.lifecycle.createAppProfile({
    parent: names.compositeProfile(web, "default"),
    appProfileId: "frontend",
    appProfile: { app: "frontend", patches: [{ targetKind: "Deployment", mergePatch: { spec: { replicas: 3 } } }] },
  });

  // Two simulated clusters, and a group placing frontend and cache on both.
  await client.lifecycle.createClusterProvider({ clusterProviderId: "lab" });
  for (const clusterId of ["lab1", "lab2"]) {
    await client.lifecycle.createCluster({
      parent: names.clusterProvider("lab"),
      clusterId,
      cluster: { connectionMode: v1.ConnectionMode.EMBEDDED_SIM, labels: { site: "lab" } },
    });
  }
  const group = names.deploymentIntentGroup(web, "prod");
  await client.lifecycle.createDeploymentIntentGroup({
    parent: web,
    deploymentIntentGroupId: "prod",
    deploymentIntentGroup: { compositeProfile: "default" },
  });
  for (const app of ["frontend", "cache"]) {
    await client.lifecycle.createPlacementIntent({
      parent: group,
      placementIntentId: app,
      placementIntent: { app, clusterProvider: "lab", clusterNames: ["lab1", "lab2"] },
    });
  }
  return group;
}

async function main(): Promise<void> {
  const client = createFlotillaClient({ address: process.env.FLOTILLA_SERVER ?? "localhost:50051" });
  const group = await createApplication(client);

  // Approve and instantiate, then watch until every resource is Applied and Ready.
  await client.lifecycle.approveDeploymentIntentGroup({ name: group });
  await client.lifecycle.instantiateDeploymentIntentGroup({ name: group });
  for await (const event of client.watchStatus({ name: group })) {
    if (event.type === v1.WatchEventType.COUNTS_CHANGED && settled(event)) break;
  }
  console.log("instantiated: every resource applied and ready");

  const summary = await client.status.getDeploymentIntentGroupStatus({ name: group, output: v1.StatusOutput.SUMMARY });
  console.log(
    `summary: state ${summary.state}, applied ${summary.rsyncStatus?.applied}, ` +
      `present ${summary.clusterStatus?.present}, ready ${summary.readiness?.ready}`,
  );

  // A refused transition says why, in a form a program can act on.
  try {
    await client.lifecycle.instantiateDeploymentIntentGroup({ name: group });
  } catch (error) {
    const e = FlotillaError.fromError(error);
    console.log(`instantiate again: ${e.reason} (state ${e.errorMetadata.current_state})`);
  }

  // Terminate, and watch until the group is TERMINATED with nothing left applied.
  await client.lifecycle.terminateDeploymentIntentGroup({ name: group });
  let state = "";
  for await (const event of client.watchStatus({ name: group })) {
    if (event.type === v1.WatchEventType.LIFECYCLE_CHANGED) state = event.state;
    const r = event.rsyncStatus;
    if (event.type === v1.WatchEventType.COUNTS_CHANGED && state === "TERMINATED" && r) {
      if (r.applied + r.pending + r.retrying === 0) break;
    }
  }
  console.log(`terminated: ${state}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`flotilla: ${FlotillaError.fromError(error).describe()}`);
    process.exit(1);
  });
}
