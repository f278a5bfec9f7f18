// One `kapi serve` replica of the soak: its own data directory (certificates, kubeconfig) and a
// fixed port, so a replica killed with SIGKILL comes back at the same address and its informer
// can resume there. Started from source through tsx, as the tests start the CLI.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { kapiArgs } from "../../test/support/cli.js";
import { repoRoot } from "../core/child.js";
import { clientCredsFromKubeconfig, type ClientCreds } from "../core/tls.js";

const startTimeoutMs = 60_000;
/** Below Linux's ephemeral range (32768–60999): an outgoing connection cannot take the port while a replica is down. */
const portRange = [20_000, 32_000] as const;
const portRetries = 10;

/** A free port outside the ephemeral range, for a replica that must come back at the same address. */
export async function stablePort(): Promise<number> {
  for (;;) {
    const port = portRange[0] + Math.floor(Math.random() * (portRange[1] - portRange[0]));
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export class Replica {
  private proc: ChildProcess | undefined;
  private log = "";
  /** Start-ups (the first and every restart), each from spawn to serving. */
  readonly startMs: number[] = [];

  constructor(
    readonly name: string,
    readonly port: number,
    readonly dataDir: string,
    private readonly flags: string[],
  ) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  creds(): ClientCreds {
    return clientCredsFromKubeconfig(readFileSync(join(this.dataDir, "admin.kubeconfig"), "utf8"));
  }

  /** Spawns the replica and resolves once it prints that it is serving; again while its port is still taken. */
  async start(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.startOnce();
      } catch (e) {
        if (!/EADDRINUSE/.test((e as Error).message) || attempt >= portRetries) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private startOnce(): Promise<void> {
    const t0 = performance.now();
    const args = ["serve", `--secure-port=${this.port}`, "--bind-address=127.0.0.1", `--data-dir=${this.dataDir}`, ...this.flags];
    const proc = spawn(process.execPath, kapiArgs(args), { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
    this.proc = proc;
    let err = "";
    let started = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start within ${startTimeoutMs} ms: ${err.slice(-2000)}`)), startTimeoutMs);
      proc.stderr!.on("data", (c: Buffer) => {
        const s = c.toString();
        // Keep the tail only: a 10-minute run must not grow without bound.
        this.log = (this.log + s).slice(-64 * 1024);
        if (started) return;
        err += s;
        if (/serving on https:\/\//.test(err)) {
          started = true;
          clearTimeout(timer);
          this.startMs.push(performance.now() - t0);
          resolve();
        }
      });
      proc.once("exit", (code, signal) => {
        if (started) return;
        clearTimeout(timer);
        reject(new Error(`${this.name} exited during start-up (${code ?? signal}): ${err.slice(-2000)}`));
      });
    });
  }

  /** SIGKILL, and wait until the process is gone. */
  async kill9(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGKILL");
    await exited;
  }

  /** SIGTERM (a graceful stop), SIGKILL after 15 s. */
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGTERM");
    const t = setTimeout(() => p.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(t);
  }

  /** The last lines the replica wrote to stderr. */
  tail(lines = 20): string {
    return this.log.split("\n").slice(-lines).join("\n");
  }
}
