// An unmodified client-go program (test/clients/go) against a real kapi: typed clientset over
// protobuf (create/get/list/update/patch/delete a ConfigMap, API errors) and a SharedInformer that
// observes add/update/delete.
//
// client-go v0.34 needs Go >= 1.24 and its modules from the Go module proxy. Neither is on the `node`
// machine kind (Debian bookworm ships Go 1.19 and no k8s.io/client-go, k8s.io/api or
// k8s.io/apimachinery packages), so there this file skips; on a machine with a new enough Go that can
// download the modules it builds the program in a temp copy and runs it.
import { execFile, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";

const source = join(dirname(fileURLToPath(import.meta.url)), "clients", "go");

function goVersion(): [number, number] | undefined {
  const r = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8", timeout: 30_000 });
  const m = r.status === 0 ? /^go(\d+)\.(\d+)/.exec(r.stdout.trim()) : null;
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

const gv = goVersion();
const goUsable = gv !== undefined && (gv[0] > 1 || gv[1] >= 24);

function run(cmd: string, args: string[], cwd: string, timeout: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout, maxBuffer: 32 << 20, env: { ...process.env, GOFLAGS: "-mod=mod" } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe.skipIf(!goUsable)("client-go v0.34", () => {
  let s: KapiServer;
  let dir: string;
  let binary: string | undefined;
  let unavailable: string | undefined;
  let result: any;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-clientgo-"));
    const work = join(dir, "src");
    cpSync(source, work, { recursive: true });
    // go.sum is not committed: resolve the pinned requirements (this needs the module proxy).
    const tidy = await run("go", ["mod", "tidy"], work, 300_000);
    if (tidy.code !== 0) {
      unavailable = `go mod tidy failed (no module proxy?): ${tidy.stderr.slice(0, 2000)}`;
      return;
    }
    const started = Date.now();
    const build = await run("go", ["build", "-o", join(dir, "clientgo"), "."], work, 600_000);
    if (build.code !== 0) throw new Error(`go build failed: ${build.stderr}`);
    console.log(`client-go program built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    binary = join(dir, "clientgo");
    s = await startServer({ dataDir: join(dir, "data") });
    const r = await run(binary, ["-kubeconfig", s.kubeconfigPath!, "-namespace", "clientgo"], dir, 120_000);
    if (r.code !== 0) throw new Error(`clientgo failed (${r.code}): ${r.stderr}`);
    result = JSON.parse(r.stdout.trim().split("\n").pop()!);
  }, 900_000);

  afterAll(async () => {
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("discovers the server version", (ctx) => {
    if (unavailable) ctx.skip();
    expect(result.version.major).toBe("1");
    expect(result.version.minor).toBe("34");
    expect(result.version.gitVersion).toMatch(/^v1\.34\./);
  });

  it("creates, gets, lists, updates, patches and deletes a ConfigMap with the typed clientset", (ctx) => {
    if (unavailable) ctx.skip();
    expect(result.created.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.created.getUID).toBe(result.created.uid);
    expect(result.created.getData).toEqual({ v: "1" });
    expect(result.created.creationSet).toBe(true);
    expect(result.list.all).toEqual(["cg", "other"]);
    expect(result.list.selected).toEqual(["cg"]);
    expect(result.writes).toEqual({ updatedData: { v: "2" }, updatedRVDiff: true, patchedData: { v: "3" }, patchedUID: result.created.uid });
    expect(result.afterDelete).toEqual({ code: 404, reason: "NotFound", is: true });
  });

  it("maps API errors to apierrors predicates", (ctx) => {
    if (unavailable) ctx.skip();
    expect(result.errors).toEqual({
      conflict: { code: 409, reason: "Conflict", is: true },
      notFound: { code: 404, reason: "NotFound", is: true },
      alreadyExists: { code: 409, reason: "AlreadyExists", is: true },
      invalid: { code: 422, reason: "Invalid", is: true },
    });
  });

  it("speaks protobuf on the wire", (ctx) => {
    if (unavailable) ctx.skip();
    const wire = result.wire as Record<string, number>;
    const pb = "application/vnd.kubernetes.protobuf";
    expect(wire[`POST req=${pb} resp=${pb}`]).toBeGreaterThanOrEqual(3);
    expect(wire[`PUT req=${pb} resp=${pb}`]).toBeGreaterThanOrEqual(1);
    expect(wire[`PATCH req=application/strategic-merge-patch+json resp=${pb}`]).toBe(1);
    expect(Object.keys(wire).some((k) => k.startsWith("GET ") && k.endsWith(`resp=${pb};stream=watch`))).toBe(true);
  });

  it("a SharedInformer observes add, update and delete", (ctx) => {
    if (unavailable) ctx.skip();
    expect(result.synced).toBe(true);
    expect(result.informerEvents).toEqual(["ADDED cg v=1", "ADDED other v=", "MODIFIED cg v=1->2", "MODIFIED cg v=2->3", "DELETED cg"]);
    expect(result.informerStore).toEqual(["clientgo/other"]);
  });
});
