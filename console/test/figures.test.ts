// The console's figures at Flotilla's sizes (BENCHMARKS.md, "Web console"): a group of
// 10,000 resources (10 apps × 25 ConfigMaps on 40 embedded sim clusters) rendered from
// its snapshot, then 500 changes a second (a cluster's 250 resources cut or let back
// every half second) reaching the DOM. Figures come from the page's own account
// (`flotillaConsole`, console/src/figures.ts); printed, and held to the target
// of a rendered tree within 1 s of the snapshot.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FlotillaClient, names, v1 } from "@flotilla/client";
import { type Browser, chromium } from "playwright-core";
import { DemoServer, sleep } from "./server.js";

const CLUSTERS = 40;
const APPS = 10;
const MAPS = 25;
const RESOURCES = CLUSTERS * APPS * MAPS;
const DRIVE_MS = 10_000;
const FLIP_MS = 500;

let browser: Browser;
let server: DemoServer;

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
  server = await DemoServer.start();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const clusterName = (i: number) => names.cluster("scale", `s${i}`);

async function bigGroup(client: FlotillaClient): Promise<string> {
  await client.lifecycle.createProject({ projectId: "scale" });
  const app = names.compositeApp("scale", "fleet", "v1");
  await client.lifecycle.createCompositeApp({ parent: names.project("scale"), compositeAppId: "fleet", versionId: "v1" });
  for (let a = 0; a < APPS; a++) {
    const manifests = Array.from(
      { length: MAPS },
      (_, m) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app${a}-map${m}\ndata:\n  n: "${m}"\n`,
    ).join("---\n");
    await client.lifecycle.createApp({ parent: app, appId: `app${a}`, app: { manifests } });
  }
  await client.lifecycle.createCompositeProfile({ parent: app, compositeProfileId: "default" });
  await client.lifecycle.createClusterProvider({ clusterProviderId: "scale" });
  const clusterIds = Array.from({ length: CLUSTERS }, (_, i) => `s${i}`);
  for (const clusterId of clusterIds) {
    await client.lifecycle.createCluster({
      parent: names.clusterProvider("scale"),
      clusterId,
      cluster: { connectionMode: v1.ConnectionMode.EMBEDDED_SIM },
    });
  }
  const group = names.deploymentIntentGroup(app, "prod");
  await client.lifecycle.createDeploymentIntentGroup({ parent: app, deploymentIntentGroupId: "prod", deploymentIntentGroup: { compositeProfile: "default" } });
  for (let a = 0; a < APPS; a++) {
    await client.lifecycle.createPlacementIntent({
      parent: group,
      placementIntentId: `app${a}`,
      placementIntent: { app: `app${a}`, clusterProvider: "scale", clusterNames: clusterIds },
    });
  }
  await client.lifecycle.approveDeploymentIntentGroup({ name: group });
  await client.lifecycle.instantiateDeploymentIntentGroup({ name: group });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const s = await client.status.getDeploymentIntentGroupStatus({ name: group, output: v1.StatusOutput.SUMMARY });
    if ((s.rsyncStatus?.applied ?? 0) === RESOURCES) return group;
    if (Date.now() > deadline) throw new Error(`not converged: ${JSON.stringify(s.rsyncStatus)}`);
    await sleep(500);
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

interface PageFigures {
  snapshotStart?: number;
  synced?: number;
  rendered?: number;
  renderedResources?: number;
  changes: number[];
}

test("a 10,000-resource group renders within 1 s of its snapshot and takes 500 changes a second", async () => {
  const client = server.client();
  const group = await bigGroup(client);
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(server.url);
  await page.getByLabel("Bearer token").fill(server.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("link", { name: group }).click();
  const figures = () => page.evaluate(() => (window as unknown as { flotillaConsole: PageFigures }).flotillaConsole);
  const deadline = Date.now() + 60_000;
  let f = await figures();
  while (f.rendered === undefined) {
    assert.ok(Date.now() < deadline, "the tree never rendered");
    await sleep(50);
    f = await figures();
  }
  assert.equal(f.renderedResources, RESOURCES);
  const render = f.rendered - f.synced!;
  const whole = f.rendered - f.snapshotStart!;
  console.log(`console figure: ${RESOURCES} resources: snapshot received in ${(f.synced! - f.snapshotStart!).toFixed(0)} ms, tree rendered ${render.toFixed(0)} ms after it (${whole.toFixed(0)} ms from the first event)`);
  // Scrolled to the end, the last rows are there at once (only the rows in view exist).
  const rows = await page.locator("[data-resource]").count();
  assert.ok(rows < 200, `only the rows in view are in the DOM (${rows})`);
  await page.locator(".tree").evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.locator('[data-resource^="app9/"]').first().waitFor({ timeout: 2000 });

  // 500 changes a second: every half second a cluster's 250 resources are cut (they go
  // Retrying) or let back (Applied again), two clusters down at a time.
  await page.evaluate(() => {
    (window as unknown as { flotillaConsole: PageFigures }).flotillaConsole.changes.length = 0;
  });
  const down: number[] = [];
  let next = 0;
  let flips = 0;
  // How late the page's own timers run while changes pour in: a frozen page is late.
  await page.evaluate(() => {
    const w = window as unknown as { lateness: number[] };
    w.lateness = [];
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      w.lateness.push(now - last - 50);
      last = now;
    }, 50);
  });
  const started = Date.now();
  while (Date.now() - started < DRIVE_MS) {
    const tick = Date.now();
    if (down.length >= 2) await client.simulator.reconnectCluster({ cluster: clusterName(down.shift()!) });
    else {
      const c = next++ % CLUSTERS;
      await client.simulator.disconnectCluster({ cluster: clusterName(c) });
      down.push(c);
    }
    flips += 1;
    await sleep(Math.max(0, FLIP_MS - (Date.now() - tick)));
  }
  for (const c of down) await client.simulator.reconnectCluster({ cluster: clusterName(c) });
  await sleep(3000);
  f = await figures();
  const lateness = (await page.evaluate(() => (window as unknown as { lateness: number[] }).lateness)) as number[];
  const rate = f.changes.length / (DRIVE_MS / 1000);
  const p50 = percentile(f.changes, 0.5);
  const p99 = percentile(f.changes, 0.99);
  const late = percentile(lateness, 0.99);
  console.log(
    `console figure: ${f.changes.length} changes in ${DRIVE_MS / 1000} s of driving (${flips} flips, ~${rate.toFixed(0)}/s): change -> DOM p50 ${p50.toFixed(0)} ms p99 ${p99.toFixed(0)} ms; the page's 50 ms timer late by p99 ${late.toFixed(0)} ms`,
  );
  assert.ok(f.changes.length >= (RESOURCES / CLUSTERS) * flips * 0.9, `the changes reached the page (${f.changes.length})`);
  assert.ok(render <= 1000, `the tree rendered ${render.toFixed(0)} ms after its snapshot (target 1 s)`);
  await page.close();
});
