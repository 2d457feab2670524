// Starts a real flotilla-server process (SQLite, embedded sim clusters) for a test.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, closeSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type FlotillaClient, createFlotillaClient } from "../src/index.js";

// build/test/server.js -> the repository root
const REPO = resolve(fileURLToPath(import.meta.url), "../../../../..");

export function serverBinary(): string {
  const path = process.env.FLOTILLA_SERVER_BIN ?? join(REPO, "target", "debug", "flotilla-server");
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A flotilla-server on a fresh SQLite file; restartable on the same port. */
export class TestServer {
  readonly dataDir = mkdtempSync(join(tmpdir(), "flotilla-ts-"));
  address = "";
  token = "";
  private child: ChildProcess | undefined;

  constructor(private readonly args: string[] = ["--sim"]) {}

  /** A server on a fresh SQLite file, with embedded sim clusters (`--demo` adds the demo). */
  static async start(args: string[] = ["--sim"]): Promise<TestServer> {
    const server = new TestServer(args);
    server.address = `127.0.0.1:${await freePort()}`;
    await server.spawn();
    return server;
  }

  async spawn(): Promise<void> {
    const log = openSync(join(this.dataDir, "server.log"), "a");
    this.child = spawn(serverBinary(), ["--listen", this.address, "--data-dir", this.dataDir, ...this.args], {
      stdio: ["ignore", "ignore", log],
      env: {
        ...process.env,
        FLOTILLA_DATABASE_URL: `sqlite://${this.dataDir}/flotilla.db?mode=rwc`,
        RUST_LOG: process.env.RUST_LOG ?? "info",
      },
    });
    closeSync(log);
    const deadline = Date.now() + 30_000;
    const tokenFile = join(this.dataDir, "admin.token");
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`flotilla-server exited ${this.child.exitCode}:\n${this.log()}`);
      if (existsSync(tokenFile)) {
        this.token = readFileSync(tokenFile, "utf8").trim();
        try {
          await this.client({ timeoutMs: 2000 }).lifecycle.listProjects({});
          return;
        } catch {
          // not listening yet
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

  async restart(): Promise<void> {
    await this.stop();
    await this.spawn();
  }

  log(): string {
    return readFileSync(join(this.dataDir, "server.log"), "utf8");
  }

  client(options: { timeoutMs?: number; token?: string } = {}): FlotillaClient {
    return createFlotillaClient({ address: this.address, token: options.token ?? this.token, timeoutMs: options.timeoutMs });
  }

  async close(): Promise<void> {
    await this.stop("SIGKILL");
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
