// The built `kapi` command (the package's bin, dist/bundle/kapi.cjs), as an installed package runs
// it: the CommonJS bundle through its V8 code cache. The first run writes the cache, the next one
// uses it; both answer the same. Needs `npm run build` (npm ci runs it).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "dist/bundle/kapi.cjs");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kapi-cli-bundle-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, NODE_COMPILE_CACHE: join(dir, "cache") });
const caches = () => (existsSync(join(dir, "cache")) ? readdirSync(join(dir, "cache"), { recursive: true }).map(String).filter((f) => f.endsWith(".cache")) : []);

function run(args: string[], nodeFlags: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...nodeFlags, bin, ...args], { cwd: root, env: env() });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (c) => (stdout += c));
    p.stderr.on("data", (c) => (stderr += c));
    p.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const readyz = (port: number) =>
  new Promise<number>((resolve) => {
    const r = request({ host: "127.0.0.1", port, path: "/readyz", rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    r.on("error", () => resolve(0));
    r.end();
  });

/** `kapi serve` on a memory store until /readyz answers 200; then SIGTERM, and its exit code. */
async function serveOnce(dataDir: string): Promise<{ ready: number; code: number | null }> {
  const p = spawn(process.execPath, [bin, "serve", "--storage-backend=memory", `--data-dir=${dataDir}`, "--secure-port=0", "--bind-address=127.0.0.1"], { cwd: root, env: env() });
  let err = "";
  const port = await new Promise<number>((resolve, reject) => {
    p.stderr.on("data", (c) => {
      err += c;
      const m = /serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve(Number(m[1]));
    });
    p.on("exit", () => reject(new Error(`kapi serve exited: ${err}`)));
  });
  let ready = 0;
  for (let i = 0; i < 500 && ready !== 200; i++) {
    ready = await readyz(port);
    if (ready !== 200) await new Promise((r) => setTimeout(r, 10));
  }
  const exited = new Promise<number | null>((r) => p.on("exit", (code) => r(code)));
  p.kill("SIGTERM");
  return { ready, code: await exited };
}

describe("the built kapi command", () => {
  it("answers --version the same with and without its code cache, writing one for the command", async () => {
    expect(existsSync(bin), "dist/bundle/kapi.cjs is missing: run npm run build").toBe(true);
    const first = await run(["--version"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^kapi \S+\nKubernetes v1\.\d+\.\d+\n$/);
    expect(caches().some((f) => f.endsWith("-other.cache"))).toBe(true);
    const second = await run(["--version"]);
    expect(second).toEqual(first);
    // A Node that cannot require ES modules (before 20.19) runs the ES module build instead.
    expect(await run(["--version"], ["--no-experimental-require-module"])).toEqual(first);
  });

  it("serves /readyz from a first start (cache written at exit) and from a start that uses the cache", async () => {
    const before = caches().length;
    const first = await serveOnce(join(dir, "data-1"));
    expect(first).toEqual({ ready: 200, code: 0 });
    const serveCaches = caches().filter((f) => f.endsWith("-serve.cache"));
    expect(serveCaches).toHaveLength(1);
    expect(caches().length).toBe(before + 1);
    // Made by a start a client reached: the request path's code is in it too.
    expect(JSON.parse(readFileSync(join(dir, "cache", `${serveCaches[0]}.paths`), "utf8"))).toEqual(["memory first start", "request served"]);
    const second = await serveOnce(join(dir, "data-2"));
    expect(second).toEqual({ ready: 200, code: 0 });
  });
});
