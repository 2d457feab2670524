// The console in a real browser (Debian's Chromium, headless, driven by playwright-core)
// against real flotilla-server --demo processes: sign in with a pasted token, the fleet,
// a group's live tree and verbs, a pod deleted and back without a reload, a server
// restart resumed with no gap, what viewers see, and axe-core's accessibility check.
// Screenshots of each page go to $FLOTILLA_CONSOLE_SHOTS (relative to the repository;
// docs/console refreshes the README's), else to a temporary directory, so that a run
// leaves the working tree as it found it.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { v1 } from "@flotilla/client";
import { type Browser, type Page, chromium } from "playwright-core";
import { DemoServer, sleep } from "./server.js";

const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");
const SHOTS = process.env.FLOTILLA_CONSOLE_SHOTS
  ? resolve(REPO, process.env.FLOTILLA_CONSOLE_SHOTS)
  : mkdtempSync(join(tmpdir(), "flotilla-console-shots-"));
const GROUP = "projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod";
const CLUSTER1 = "clusterProviders/edge/clusters/cluster1";
const RESOURCES = 16; // 2 apps' rendered resources and their pods on 2 clusters
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let browser: Browser;
let server: DemoServer;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  server = await DemoServer.start();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(server.url);
  await page.getByLabel("Bearer token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Fleet", level: 1 }).waitFor();
}

/** axe-core's serious and critical violations on the page as it is. */
async function violations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(`${AXE}\n;undefined`);
  const found = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] })
    .then((r) => r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))`)) as string[];
  return found;
}

/** The text of a resource row's badges, e.g. ["APPLIED", "PRESENT", "READY"]. */
async function badges(page: Page, resource: string): Promise<string[]> {
  return page.locator(`[data-resource="${resource}"] .badge`).allTextContents();
}

/** Every state a resource row's cluster status shows from now on, as the DOM changes. */
async function recordClusterStatus(page: Page, resource: string): Promise<void> {
  await page.evaluate((resource) => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    const read = () => {
      const badge = document.querySelectorAll(`[data-resource="${resource}"] .badge`)[1];
      const text = badge?.textContent ?? "";
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    };
    read();
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, resource);
}

async function seen(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { seen: string[] }).seen);
}

async function until<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await sleep(50);
  }
}

/** The tree's rows as the page shows them against a fresh status query. */
async function compareWithFreshStatus(page: Page): Promise<void> {
  // Both sides are read again until they agree: right after a restart the server's
  // own answer is still settling too.
  await until(
    "the page's rows equal a fresh status query",
    async () => {
      const status = await server.client().status.getDeploymentIntentGroupStatus({ name: GROUP });
      const want = new Map<string, string[]>();
      const text = (values: Record<number, string>, v: number) => (v === 0 ? "—" : values[v]);
      for (const app of status.resources)
        for (const cluster of app.clusters)
          for (const r of cluster.resources) {
            want.set(`${app.appName}/clusterProviders/${cluster.clusterProvider}/clusters/${cluster.name}/${r.gvk?.kind}/${r.name}`, [
              text(v1.RsyncStatus, r.rsyncStatus),
              text(v1.ClusterResourceStatus, r.clusterStatus),
              text(v1.Readiness, r.readiness),
            ]);
          }
      const got = new Map<string, string[]>();
      for (const row of await page.locator("[data-resource]").all()) {
        got.set((await row.getAttribute("data-resource"))!, await row.locator(".badge").allTextContents());
      }
      const differ = [...want]
        .filter(([k, v]) => JSON.stringify(got.get(k)) !== JSON.stringify(v))
        .map(([k, v]) => `${k}: page ${JSON.stringify(got.get(k))}, query ${JSON.stringify(v)}`);
      // The rows themselves when there are more or fewer than expected, to name them.
      const rows = want.size === RESOURCES ? [] : [...want].map(([k, v]) => `${k} ${v.join(",")}`);
      return { size: want.size, rows: got.size, differ, all: rows };
    },
    (r) => r.size === RESOURCES && r.rows === RESOURCES && r.differ.length === 0,
    30_000,
  );
}

test("an admin instantiates the demo, watches it live, through a pod's loss and a server restart", async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  // Nothing is readable without a token: the page asks for one.
  await page.goto(server.url);
  await page.getByLabel("Bearer token").waitFor();
  assert.equal(await page.getByRole("heading", { name: "Fleet" }).count(), 0);
  await page.screenshot({ path: join(SHOTS, "sign-in.png") });
  // A wrong token is refused in words.
  await page.getByLabel("Bearer token").fill("not-a-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("alert").waitFor();
  assert.match((await page.getByRole("alert").textContent()) ?? "", /token/i);

  await signIn(page, server.token);
  assert.ok(!page.url().includes(server.token), "the token is never in a URL");
  await page.getByRole("link", { name: GROUP }).waitFor();
  await page.getByRole("cell", { name: CLUSTER1 }).waitFor();
  await page.getByText("live", { exact: true }).first().waitFor();
  assert.deepEqual(await violations(page), [], "axe-core on the fleet");

  await page.getByRole("link", { name: GROUP }).click();
  await page.getByRole("heading", { name: GROUP, level: 1 }).waitFor();
  await page.getByRole("button", { name: "Approve" }).click();
  await page.getByText("approve: done").waitFor();
  await page.getByRole("button", { name: "Instantiate" }).click();
  await page.getByText("instantiate: done").waitFor();
  await until("counts reach Ready", () => page.getByTestId("count-ready").textContent(), (t) => t === String(RESOURCES));
  await until("rsync applied", () => page.getByTestId("count-applied").textContent(), (t) => t === "8");
  await compareWithFreshStatus(page);
  // A verb the state refuses is said in plain words.
  await page.getByRole("button", { name: "Instantiate" }).click();
  const refused = (await page.getByRole("alert").textContent()) ?? "";
  assert.match(refused, /^instantiate refused: /);
  assert.match(refused, /instantiated/i, refused);
  await page.screenshot({ path: join(SHOTS, "group.png"), fullPage: true });
  assert.deepEqual(await violations(page), [], "axe-core on the group");

  // A resource's detail: metadata, spec and status from the cluster.
  await page.locator(`[data-resource="collectd/${CLUSTER1}/Deployment/collectd"] button`).click();
  await page.getByRole("heading", { name: "Spec" }).waitFor();
  const detail = (await page.locator(".detail").textContent()) ?? "";
  assert.match(detail, /Metadata\{[\s\S]*"name": "collectd"[\s\S]*\}Spec\{[\s\S]*\}Status/, detail);

  // A pod's reboot and a VM pod's snapshot from their rows, watched to the end.
  await page.getByRole("button", { name: `Reboot operator-0 on ${CLUSTER1}` }).click();
  await page.getByRole("button", { name: `Snapshot guest-0 on ${CLUSTER1}` }).click();
  await until(
    "both actions succeed",
    () => page.getByTestId("action-state").allTextContents(),
    (states) => states.length === 2 && states.every((s) => s === "SUCCEEDED"),
    60_000,
  );
  assert.match((await page.locator("[data-action]").last().textContent()) ?? "", /\/var\/tmp\/snapshots/);
  await page.screenshot({ path: join(SHOTS, "actions.png"), fullPage: true });

  // A pod deleted through the simulator goes NotPresent and comes back, no reload.
  const pod = `collectd/${CLUSTER1}/Pod/collectd-0`;
  await recordClusterStatus(page, pod);
  await server.client().simulator.deletePod({ cluster: CLUSTER1, pod: "collectd-0" });
  await until("the pod went and came back", () => seen(page), (s) => s.includes("NOT_PRESENT") && s.at(-1) === "PRESENT");
  await until("the new pod is Ready", () => badges(page, pod), (b) => JSON.stringify(b) === '["—","PRESENT","READY"]');

  // The server restarts under the open page: shown, resumed from the last token.
  await server.stop();
  await until("the break is shown", () => page.locator(".live").first().getAttribute("data-live"), (s) => s === "reconnecting");
  await server.spawn();
  await until("resumed", () => page.locator(".live").first().textContent(), (t) => /resumed/.test(t ?? ""));
  // The restarted server's sims start empty and are applied again: the page follows.
  await until("Ready again after the restart", () => page.getByTestId("count-ready").textContent(), (t) => t === String(RESOURCES), 60_000);
  await compareWithFreshStatus(page);
  // No gap: a change made after the restart arrives, and the page equals a fresh query.
  const second = "collectd/clusterProviders/edge/clusters/cluster2/Pod/collectd-1";
  await recordClusterStatus(page, second);
  await server.client().simulator.deletePod({ cluster: "clusterProviders/edge/clusters/cluster2", pod: "collectd-1" });
  await until("the second pod went and came back", () => seen(page), (s) => s.includes("NOT_PRESENT") && s.at(-1) === "PRESENT");
  await compareWithFreshStatus(page);
  await page.close();
});

const PROFILE = `${GROUP.slice(0, GROUP.indexOf("/deploymentIntentGroups/"))}/compositeProfiles/default/appProfiles/collectd`;

/** Sets the demo's collectd replicas through its app profile (an edit of a running group). */
async function setCollectdReplicas(replicas: number): Promise<void> {
  await server.client().lifecycle.updateAppProfile({
    appProfile: {
      name: PROFILE,
      app: "collectd",
      patches: [{ targetKind: "Deployment", mergePatch: { spec: { replicas } } }],
    },
  });
}

test("a changed profile shows as a pending revision, rolled out and rolled back from the page", async () => {
  const admin = server.client();
  const start = await admin.lifecycle.getDeploymentIntentGroup({ name: GROUP });
  if (start.state !== v1.DeploymentIntentGroupState.INSTANTIATED) {
    await admin.lifecycle.approveDeploymentIntentGroup({ name: GROUP });
    await admin.lifecycle.instantiateDeploymentIntentGroup({ name: GROUP });
  }
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signIn(page, server.token);
  await page.getByRole("link", { name: GROUP }).click();
  await until("instantiated", () => page.getByTestId("group-state").textContent(), (t) => t === "INSTANTIATED");
  await until("Ready", () => page.getByTestId("count-ready").textContent(), (t) => t === String(RESOURCES), 60_000);
  const running = (await page.getByTestId("running-revision").textContent())!;
  assert.equal(await page.getByRole("table", { name: "Pending changes" }).count(), 0, "nothing pending yet");

  // Someone changes the profile elsewhere: the page shows the difference, no reload.
  await setCollectdReplicas(3);
  const row = page.locator(`[data-pending="${PROFILE}"]`);
  await row.waitFor();
  assert.equal(await row.locator(".badge").textContent(), "CHANGED");
  assert.match((await page.getByTestId("pending-approval").textContent()) ?? "", /^Not approved/);
  assert.equal(await page.getByTestId("running-revision").textContent(), running, "what runs is untouched");
  // Rolling out what is not approved is refused in words.
  await page.getByRole("button", { name: "Rollout", exact: true }).click();
  assert.match((await page.getByRole("alert").textContent()) ?? "", /^rollout refused: .*approv/i);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await until("approved", () => page.getByTestId("pending-approval").textContent(), (t) => /^Approved/.test(t ?? ""));
  await page.screenshot({ path: join(SHOTS, "pending.png"), fullPage: true });
  assert.deepEqual(await violations(page), [], "axe-core with a pending revision");

  await page.getByRole("button", { name: "Rollout", exact: true }).click();
  await page.getByText("rollout: done").waitFor();
  await until("nothing pending", () => page.getByRole("table", { name: "Pending changes" }).count(), (n) => n === 0);
  assert.notEqual(await page.getByTestId("running-revision").textContent(), running);
  // One more collectd pod per cluster, Ready.
  await until("the new pods are Ready", () => page.getByTestId("count-ready").textContent(), (t) => t === String(RESOURCES + 2), 60_000);
  await page.locator('[data-history="UPDATED"]').first().waitFor();

  await page.getByRole("button", { name: `Roll back to revision ${running}` }).click();
  await page.getByText(`rollback to revision ${running}: done`).waitFor();
  await until("back at the first revision", () => page.getByTestId("running-revision").textContent(), (t) => t === running);
  await until("the extra pods are gone", () => page.getByTestId("count-ready").textContent(), (t) => t === String(RESOURCES), 60_000);
  await page.locator('[data-history="ROLLED_BACK"]').first().waitFor();
  // What runs again differs from the profile as it is: pending once more.
  await row.waitFor();
  await compareWithFreshStatus(page);

  // The profile set back: nothing pending, and the group as the other tests expect.
  await setCollectdReplicas(2);
  await until("nothing pending again", () => page.getByRole("table", { name: "Pending changes" }).count(), (n) => n === 0);
  await page.close();
});

test("a container cluster's page: start, stop, scale, recover from an alert, delete", async () => {
  const admin = server.client();
  const created = await admin.containerClusters.createContainerCluster({
    containerCluster: { displayName: "web-1", zoneId: "zone-a", serviceOfferingId: "small", size: 2, accountName: "team-a" },
  });
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signIn(page, server.token);
  await page.getByRole("link", { name: "web-1" }).click();
  await page.getByRole("heading", { name: /^web-1/, level: 1 }).waitFor();
  // The state, or what the page shows instead (a probe that waited on a missing
  // element would fail with no word of why it was missing).
  const state = async () =>
    (await page.getByTestId("container-state").textContent({ timeout: 1000 }).catch(() => null)) ??
    `no state shown; the page says: ${((await page.locator("main").textContent()) ?? "").slice(0, 400)}`;
  const vmStates = () => page.locator("[data-vm] td:nth-child(3)").allTextContents();
  await until("running", state, (t) => t === "RUNNING", 60_000);
  await until("two VMs running", vmStates, (s) => s.length === 2 && s.every((v) => v === "Running"));

  await page.getByLabel("New size").fill("3");
  await page.getByRole("button", { name: "Scale" }).click();
  await page.getByText("scale: accepted").waitFor();
  await until("three VMs running", vmStates, (s) => s.length === 3 && s.every((v) => v === "Running"), 60_000);
  await until("running after the scale", state, (t) => t === "RUNNING");
  assert.equal(await page.getByTestId("container-size").textContent(), "3 VMs");

  await page.getByRole("button", { name: "Stop" }).click();
  await until("stopped", state, (t) => t === "STOPPED", 60_000);
  // A verb the state refuses is said in words.
  await page.getByRole("button", { name: "Stop" }).click();
  assert.match((await page.getByRole("alert").textContent()) ?? "", /^stop refused: /);
  await page.getByRole("button", { name: "Start" }).click();
  await until("running again", state, (t) => t === "RUNNING", 60_000);

  // A VM stopped behind the server's back: state sync raises ALERT, recover heals it.
  const vm = (await admin.containerClusters.getContainerCluster({ name: created.name })).vms[0];
  await admin.simulator.stopVm({ vmId: vm.vmId });
  await until("alert", state, (t) => t === "ALERT", 60_000);
  assert.match((await page.locator(".conditions").textContent()) ?? "", /NodesReady: false/);
  await page.screenshot({ path: join(SHOTS, "container-cluster.png"), fullPage: true });
  assert.deepEqual(await violations(page), [], "axe-core on a container cluster");
  await page.getByRole("button", { name: "Recover" }).click();
  await until("recovered", state, (t) => t === "RUNNING", 60_000);
  await until("every VM running", vmStates, (s) => s.length === 3 && s.every((v) => v === "Running"));

  // Delete asks once more; a running cluster must be stopped first, said in words.
  const answer = () =>
    until(
      "the verb answered",
      async () => (await page.locator(".verbs ~ [role=status], .verbs ~ [role=alert]").allTextContents()).join(" "),
      (t) => t.length > 0,
    );
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("button", { name: "Keep it" }).click();
  assert.equal(await page.getByRole("button", { name: "Delete web-1 for good" }).count(), 0);
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("button", { name: "Delete web-1 for good" }).click();
  assert.match(await answer(), /^delete refused: .*stop it first/);
  await page.getByRole("button", { name: "Stop" }).click();
  await until("stopped to be deleted", state, (t) => t === "STOPPED", 60_000);
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("button", { name: "Delete web-1 for good" }).click();
  assert.equal(await answer(), "delete: accepted");
  // Its VMs and network go; the record stays DESTROYED until the collector removes it.
  await until(
    "destroyed",
    async () => ((await page.getByTestId("container-gone").count()) ? "gone" : await state()),
    (t) => t === "DESTROYED" || t === "gone",
    60_000,
  );
  assert.equal(await page.getByRole("group", { name: "Verbs" }).count(), 0, "nothing left to do to it");
  await page.close();
});

test("viewers see no verbs, and nothing of projects not theirs", async () => {
  const admin = server.client();
  await admin.lifecycle.createProject({ projectId: "elsewhere" });
  const viewer = await admin.access.createToken({ token: { role: v1.Role.VIEWER, projects: ["demo"], description: "console viewer" } });
  const outsider = await admin.access.createToken({ token: { role: v1.Role.VIEWER, projects: ["elsewhere"], description: "console outsider" } });

  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signIn(page, viewer.secret);
  await page.getByRole("link", { name: GROUP }).click();
  await page.getByRole("heading", { name: GROUP, level: 1 }).waitFor();
  await page.getByTestId("group-state").waitFor();
  assert.equal(await page.getByRole("group", { name: "Verbs" }).count(), 0, "no verb buttons for a viewer");
  assert.equal(await page.getByRole("button", { name: "Instantiate" }).count(), 0);
  await page.locator("[data-resource]").first().waitFor();
  assert.equal(await page.getByRole("button", { name: /^Reboot / }).count(), 0, "no pod actions for a viewer");

  // The tree by keyboard: one tab stop, arrows move, left/right close and open, Enter
  // shows a resource's detail.
  const tree = page.getByRole("tree");
  await tree.focus();
  const active = async () => {
    const id = await tree.getAttribute("aria-activedescendant");
    return id ? ((await page.locator(`#${id}`).textContent()) ?? "") : "";
  };
  await tree.press("Home");
  assert.match(await active(), /^▾collectd/);
  const shown = await page.locator("[data-resource]").count();
  await tree.press("ArrowLeft");
  await until("collectd closed", () => page.locator("[data-resource^='collectd/']").count(), (n) => n === 0);
  assert.equal(await page.getByRole("treeitem", { name: /collectd/ }).first().getAttribute("aria-expanded"), "false");
  await tree.press("ArrowRight");
  await until("collectd open again", () => page.locator("[data-resource]").count(), (n) => n === shown);
  await tree.press("ArrowDown");
  assert.match(await active(), /cluster1/);
  await tree.press("ArrowDown");
  assert.match(await active(), /^ConfigMap collectd-config/);
  await tree.press("Enter");
  await page.getByRole("heading", { name: /ConfigMap collectd-config/ }).waitFor();
  await tree.press("ArrowLeft");
  assert.match(await active(), /cluster1/, "left from a resource goes to its cluster");
  await tree.press("End");
  assert.match(await active(), /^Pod operator-0/);
  await page.close();

  // Nor on a container cluster's page (infrastructure is written by admins only).
  await admin.containerClusters.createContainerCluster({
    containerCluster: { displayName: "viewed", zoneId: "zone-a", serviceOfferingId: "small", size: 1, accountName: "team-a" },
  });
  const infra = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signIn(infra, viewer.secret);
  await infra.getByRole("link", { name: "viewed" }).click();
  await infra.getByTestId("container-state").waitFor();
  assert.equal(await infra.getByRole("group", { name: "Verbs" }).count(), 0, "no container cluster verbs for a viewer");
  await infra.close();

  const other = await browser.newPage();
  await signIn(other, outsider.secret);
  await other.getByText("No groups this token may read.").waitFor();
  assert.equal(await other.getByRole("link", { name: GROUP }).count(), 0);
  await other.getByText(/reads actions only on the clusters of its projects/).waitFor();
  await other.close();
});

/** A fleet row's cell text, e.g. the connectivity of a cluster. */
async function attribute(page: Page, selector: string, name: string): Promise<string> {
  return (await page.locator(selector).first().getAttribute(name, { timeout: 1000 }).catch(() => null)) ?? "";
}

test("the fleet page follows groups, clusters and open actions live, and starts over after a restart", async () => {
  const admin = server.client();
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await signIn(page, server.token);
  const group = `[data-group="${GROUP}"]`;
  // The demo group, instantiated by the first test: its counts as a SUMMARY query says.
  const summary = await admin.status.getDeploymentIntentGroupStatus({ name: GROUP, output: v1.StatusOutput.SUMMARY });
  const r = summary.rsyncStatus!;
  const total = r.pending + r.applied + r.failed + r.retrying + r.terminated + r.superseded;
  const want = `${r.applied}/${total}/${summary.readiness?.ready ?? 0}`;
  await until("the group's counts", () => attribute(page, `${group} [data-counts]`, "data-counts"), (c) => c === want);
  assert.match((await page.locator(group).textContent()) ?? "", /INSTANTIATED/);

  // A cluster cut and back, no reload.
  const cluster1 = `[data-cluster="${CLUSTER1}"] [data-connectivity]`;
  await until("cluster1 available", () => attribute(page, cluster1, "data-connectivity"), (c) => c === "AVAILABLE");
  await admin.simulator.disconnectCluster({ cluster: CLUSTER1 });
  await until("cluster1 retrying", () => attribute(page, cluster1, "data-connectivity"), (c) => c === "RETRYING");
  await page.screenshot({ path: join(SHOTS, "fleet.png"), fullPage: true });
  assert.deepEqual(await violations(page), [], "axe-core on the live fleet");
  await admin.simulator.reconnectCluster({ cluster: CLUSTER1 });
  await until("cluster1 available again", () => attribute(page, cluster1, "data-connectivity"), (c) => c === "AVAILABLE");

  // An open action shows until it is done.
  const action = await admin.actions.createPodAction({
    cluster: CLUSTER1,
    pod: "operator-0",
    actionName: "Reboot",
    params: { case: "rebootParams", value: { delayInSeconds: 2 } },
  });
  const row = `[data-open-action="${action.name}"]`;
  await page.locator(row).waitFor();
  assert.match((await page.locator(row).textContent()) ?? "", /Reboot.*pod default\/operator-0/);
  await page.locator(row).waitFor({ state: "detached", timeout: 30_000 });

  // A group comes and goes.
  await admin.lifecycle.createProject({ projectId: "fleetwide" });
  await admin.lifecycle.createCompositeApp({ parent: "projects/fleetwide", compositeAppId: "ca", versionId: "v1" });
  const app = "projects/fleetwide/compositeApps/ca/versions/v1";
  await admin.lifecycle.createCompositeProfile({ parent: app, compositeProfileId: "prof" });
  const created = await admin.lifecycle.createDeploymentIntentGroup({
    parent: app,
    deploymentIntentGroupId: "g",
    deploymentIntentGroup: { compositeProfile: "prof" },
  });
  await page.getByRole("link", { name: created.name }).waitFor();
  await admin.lifecycle.deleteDeploymentIntentGroup({ name: created.name });
  await page.getByRole("link", { name: created.name }).waitFor({ state: "detached" });

  // A restart: shown, then a fresh snapshot replaces the rows (no resume token), and
  // changes go on arriving.
  await server.stop();
  await until("the break is shown", () => page.locator(".live").first().getAttribute("data-live"), (s) => s === "reconnecting");
  assert.equal(await page.locator(group).count(), 1, "the rows stay while the stream is down");
  await server.spawn();
  await until("live again", () => page.locator(".live").first().getAttribute("data-live"), (s) => s === "live");
  await admin.simulator.disconnectCluster({ cluster: CLUSTER1 });
  await until("cluster1 retrying after the restart", () => attribute(page, cluster1, "data-connectivity"), (c) => c === "RETRYING");
  await admin.simulator.reconnectCluster({ cluster: CLUSTER1 });
  await until("and back", () => attribute(page, cluster1, "data-connectivity"), (c) => c === "AVAILABLE");
  assert.equal(await page.locator(group).count(), 1);
  await page.close();
});
