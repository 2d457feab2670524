// The TypeScript client against a real flotilla-server: the walk-through, errors,
// paging, and a watch that survives a server restart.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Code } from "@connectrpc/connect";
import { FlotillaError, type FlotillaClient, names, pages, v1 } from "../src/index.js";
import { createApplication, settled } from "../examples/walkthrough.js";
import { TestServer } from "./server.js";

const BUILD = resolve(fileURLToPath(import.meta.url), "../..");

async function refusal(call: Promise<unknown>): Promise<FlotillaError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof FlotillaError, `a FlotillaError, not ${String(error)}`);
    return error;
  }
  assert.fail("the call should have failed");
}

async function withServer(body: (server: TestServer) => Promise<void>, args?: string[]): Promise<void> {
  const server = await TestServer.start(args);
  try {
    await body(server);
  } catch (error) {
    console.error(server.log().split("\n").slice(-40).join("\n"));
    throw error;
  } finally {
    await server.close();
  }
}

test("the walk-through example runs green", () =>
  withServer(async (server) => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(BUILD, "examples", "walkthrough.js")], {
      env: { ...process.env, FLOTILLA_SERVER: server.address, FLOTILLA_TOKEN: server.token },
      timeout: 120_000,
    });
    assert.deepEqual(stdout.trim().split("\n"), [
      "instantiated: every resource applied and ready",
      // 2 documents of frontend and 1 of cache on each of 2 clusters; present and ready
      // count frontend's 3 pods on each cluster too
      "summary: state INSTANTIATED, applied 6, present 12, ready 12",
      "instantiate again: INVALID_STATE_TRANSITION (state INSTANTIATED)",
      "terminated: TERMINATED",
    ]);
  }));

test("the README snippet runs verbatim", () =>
  withServer(
    async (server) => {
      const readme = readFileSync(join(BUILD, "..", "..", "..", "docs", "guide", "clients.md"), "utf8");
      const section = readme.split("\n### TypeScript\n")[1] ?? "";
      const code = (section.split("```typescript\n")[1] ?? "").split("```")[0] ?? "";
      assert.ok(code.includes("createFlotillaClient"), "the README has the snippet");
      // Inside the package, "@flotilla/client" resolves to the package itself.
      const file = join(BUILD, "readme-snippet.mjs");
      writeFileSync(file, code.replace("localhost:50051", server.address));
      const { stdout } = await promisify(execFile)(process.execPath, [file], {
        env: { ...process.env, FLOTILLA_TOKEN: server.token },
        timeout: 60_000,
      });
      assert.equal(stdout, "ready: 8 resources applied\n");
    },
    ["--demo"],
  ));

test("a refused transition carries its reason and precondition", () =>
  withServer(async (server) => {
    const client = server.client();
    const group = await createApplication(client);
    const error = await refusal(client.lifecycle.instantiateDeploymentIntentGroup({ name: group }));
    assert.equal(error.code, Code.FailedPrecondition);
    assert.equal(error.reason, "INVALID_STATE_TRANSITION");
    assert.equal(error.errorMetadata.current_state, "CREATED");
    assert.deepEqual(
      error.preconditionViolations.map((v) => [v.type, v.subject]),
      [["STATE", group]],
    );
    assert.match(error.describe(), /FailedPrecondition: .* \[INVALID_STATE_TRANSITION\]/);
  }));

test("a bad name carries field violations", () =>
  withServer(async (server) => {
    const client = server.client();
    const error = await refusal(client.lifecycle.createProject({ projectId: "Bad_Name" }));
    assert.equal(error.code, Code.InvalidArgument);
    assert.deepEqual(error.fields, ["project_id"]);
    assert.match(error.fieldViolations[0]?.description ?? "", /RFC 1123/);
    // The name builders refuse it before any call is made.
    assert.throws(() => names.project("Bad_Name"), /not a valid id/);
    // And a token the server does not know is UNAUTHENTICATED.
    const stranger = server.client({ token: "flt_not-a-token" });
    assert.equal((await refusal(stranger.lifecycle.listProjects({}))).code, Code.Unauthenticated);
  }));

test("pages yield every item once", () =>
  withServer(async (server) => {
    const client = server.client();
    const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
    for (const projectId of ids) await client.lifecycle.createProject({ projectId });
    const seen: string[] = [];
    for await (const p of pages(client.lifecycle.listProjects, { pageSize: 2 }, (r) => r.projects)) {
      seen.push(p.name);
    }
    assert.deepEqual(seen.sort(), ids.map((id) => names.project(id)));
  }));

type State = Map<string, string>;

function apply(state: State, event: v1.WatchEvent): void {
  const r = event.resource;
  if (event.type === v1.WatchEventType.RESOURCE_CHANGED && r) {
    const key = [event.appName, event.cluster, r.gvk?.kind, r.name].join("/");
    state.set(key, [r.rsyncStatus, r.clusterStatus, r.readiness].join(","));
  }
}

async function snapshot(client: FlotillaClient, group: string): Promise<State> {
  const state: State = new Map();
  for await (const event of client.watchStatus({ name: group })) {
    if (event.type === v1.WatchEventType.SYNCED) return state;
    apply(state, event);
  }
  throw new Error("the watch ended");
}

test("a watch survives a server restart without losing or repeating events", () =>
  withServer(async (server) => {
    const client = server.client();
    const group = await createApplication(client);
    await client.lifecycle.approveDeploymentIntentGroup({ name: group });
    const state: State = new Map();
    const tokens: string[] = [];
    let synced = false;
    let restartedAfter = -1;
    const disconnects: (string | undefined)[] = [];
    const watch = client.watchStatus({ name: group }, { onDisconnect: (e) => disconnects.push(e?.rawMessage) });
    for await (const event of watch) {
      tokens.push(event.resumeToken);
      apply(state, event);
      if (event.type === v1.WatchEventType.SYNCED && !synced) {
        synced = true;
        await client.lifecycle.instantiateDeploymentIntentGroup({ name: group });
      } else if (synced && restartedAfter < 0 && event.type === v1.WatchEventType.RESOURCE_CHANGED) {
        // The first resource change of the instantiate: kill -9 the server and start
        // it again now, in the middle of the rollout, under the open stream.
        restartedAfter = tokens.length;
        await server.stop("SIGKILL");
        await server.spawn();
      } else if (event.type === v1.WatchEventType.COUNTS_CHANGED && restartedAfter > 0 && settled(event)) {
        break;
      }
    }
    assert.ok(watch.reconnects >= 1, "the stream was cut by the restart");
    assert.equal(disconnects.length, watch.reconnects, "each reopening was told first");
    assert.ok(tokens.length > restartedAfter, "events arrived after the restart");
    assert.equal(new Set(tokens).size, tokens.length, "no event is handed out twice");
    assert.deepEqual(state, await snapshot(server.client(), group), "the events add up to a fresh snapshot");
  }));

test("action and container cluster watches start with a snapshot", () =>
  withServer(async (server) => {
    const client = server.client();
    await createApplication(client);
    for await (const event of client.watchActions({ cluster: names.cluster("lab", "lab1") })) {
      assert.equal(event.type, v1.ActionEventType.SYNCED);
      break;
    }
    for await (const event of client.watchContainerClusters({})) {
      assert.equal(event.type, v1.ContainerClusterEventType.SYNCED);
      break;
    }
    const nowhere = client.watchActions({ cluster: names.cluster("lab", "nowhere") });
    const error = await refusal(nowhere[Symbol.asyncIterator]().next());
    assert.equal(error.code, Code.NotFound);
  }));
