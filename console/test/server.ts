// A real flotilla-server --demo (SQLite, embedded sim clusters) with its console on a
// port of its own; restartable on the same ports.

import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type FlotillaClient, createFlotillaClient } from "@flotilla/client";

// build/test/server.js -> the repository root
const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");

function serverBinary(): string {
  const path = process.env.FLOTILLA_SERVER_BIN ?? join(REPO, "target", "ci", "flotilla-server");
  if (!existsSync(path)) throw new Error(`${path} is missing: build it first (cargo build -p flotilla-server)`);
  return path;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => done(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DemoServer {
  readonly dataDir = mkdtempSync(join(tmpdir(), "flotilla-console-"));
  grpc = "";
  console = "";
  token = "";
  private child: ChildProcess | undefined;

  static async start(): Promise<DemoServer> {
    const server = new DemoServer();
    server.grpc = `127.0.0.1:${await freePort()}`;
    server.console = `127.0.0.1:${await freePort()}`;
    await server.spawn();
    return server;
  }

  /** The console's URL. */
  get url(): string {
    return `http://${this.console}/`;
  }

  async spawn(): Promise<void> {
    const log = openSync(join(this.dataDir, "server.log"), "a");
    const args = ["--demo", "--listen", this.grpc, "--console-listen", this.console, "--data-dir", this.dataDir];
    this.child = spawn(serverBinary(), args, {
      stdio: ["ignore", "ignore", log],
      env: {
        ...process.env,
        FLOTILLA_DATABASE_URL: `sqlite://${this.dataDir}/flotilla.db?mode=rwc`,
        // State sync every half second: a VM stopped behind the server shows soon.
        FLOTILLA_CLUSTER_SYNC_MILLIS: "500",
        RUST_LOG: "info",
      },
    });
    closeSync(log);
    const deadline = Date.now() + 30_000;
    const tokenFile = join(this.dataDir, "admin.token");
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`flotilla-server exited ${this.child.exitCode}:\n${this.log()}`);
      if (existsSync(tokenFile) && this.log().includes("console listening")) {
        this.token = readFileSync(tokenFile, "utf8").trim();
        try {
          await this.client().lifecycle.listProjects({});
          return;
        } catch {
          // not serving yet
        }
      }
      if (Date.now() > deadline) throw new Error(`flotilla-server not healthy:\n${this.log()}`);
      await sleep(50);
    }
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
    this.child = undefined;
  }

  log(): string {
    return readFileSync(join(this.dataDir, "server.log"), "utf8");
  }

  client(token = this.token): FlotillaClient {
    return createFlotillaClient({ address: this.grpc, token, timeoutMs: 5000 });
  }

  async close(): Promise<void> {
    await this.stop("SIGKILL");
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
