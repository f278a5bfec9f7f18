// Runs the real `kapi` CLI as a child process (from source through tsx, so tests never depend
// on a stale build).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withCredentials, type HttpServer } from "./client.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsxLoader = fileURLToPath(new URL("../../node_modules/tsx/dist/esm/index.mjs", import.meta.url));

export function kapiArgs(args: string[]): string[] {
  return ["--import", tsxLoader, "src/cli/main.ts", ...args];
}

export function runKapi(args: string[], timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, kapiArgs(args), { cwd: root });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (c) => (stdout += c));
    p.stderr.on("data", (c) => (stderr += c));
    const t = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("exit", (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts `kapi serve` and resolves once it printed its URL. */
export function serveKapi(args: string[]): Promise<{ proc: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, kapiArgs(["serve", ...args]), { cwd: root });
    let err = "";
    const t = setTimeout(() => reject(new Error(`kapi did not start: ${err}`)), 30_000);
    proc.stderr.on("data", (c) => {
      err += c;
      const m = /serving on (https:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve({ proc, url: m[1], stderr: () => err });
      }
    });
    proc.on("exit", (code) => reject(new Error(`kapi exited ${code}: ${err}`)));
  });
}

/** SIGTERM to a `kapi serve` child still running, resolving once it has exited. */
export async function stopKapi(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  await exited;
}

/** A `kapi serve` child as a TestServer, with the admin kubeconfig it wrote into `dataDir`. */
export function asTestServer(url: string, dataDir: string): HttpServer {
  const kubeconfig = readFileSync(join(dataDir, "admin.kubeconfig"), "utf8");
  return withCredentials({ url, port: Number(new URL(url).port), kubeconfig, stop: async () => undefined });
}
