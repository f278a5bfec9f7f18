// `kapi testenv` driven as a Python operator suite would: start the process, read KUBECONFIG and
// the control URL and token from its output, use the kubernetes client for the API and urllib for
// the control endpoint (test/clients/python/testenv_client.py): faults, the journal, reset (the
// suite's objects gone, the start-up ones kept), snapshot → change → restore, settle; then stop it
// with SIGINT.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kapiArgs, runKapi } from "./support/cli.js";

const python = "/usr/bin/python3";
const root = fileURLToPath(new URL("..", import.meta.url));
const script = join(dirname(fileURLToPath(import.meta.url)), "clients", "python", "testenv_client.py");
const hasClient = spawnSync(python, ["-c", "import kubernetes"], { timeout: 30_000 }).status === 0;

/** Starts `kapi testenv` and resolves with the KEY=value lines it printed. */
function startTestenv(args: string[] = []): Promise<{ proc: ChildProcess; env: Record<string, string>; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, kapiArgs(["testenv", ...args]), { cwd: root });
    let out = "";
    let err = "";
    const t = setTimeout(() => reject(new Error(`kapi testenv printed no settings: ${out}\n${err}`)), 30_000);
    proc.stderr.on("data", (c) => (err += c));
    proc.stdout.on("data", (c) => {
      out += c;
      const env = Object.fromEntries(out.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
      if (env.KAPI_CONTROL_TOKEN) {
        clearTimeout(t);
        resolve({ proc, env, stderr: () => err });
      }
    });
    proc.on("exit", (code) => reject(new Error(`kapi testenv exited ${code}: ${err}`)));
  });
}

describe.skipIf(!hasClient)("kapi testenv with the Python client", () => {
  let proc: ChildProcess;
  let env: Record<string, string>;
  let stderr: () => string;
  let ran: Promise<any> | undefined;
  /** What the Python suite saw (its one JSON line); it runs once, for the first test that asks. */
  const pythonSuite = () =>
    (ran ??= new Promise<any>((resolve, reject) =>
      execFile(python, [script], { timeout: 60_000, env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: "1" } }, (e, stdout, stderr) => {
        if (e) return reject(new Error(`${e.message}\n${stderr}`));
        resolve(JSON.parse(String(stdout).trim().split("\n").pop()!));
      }),
    ));
  beforeAll(async () => {
    ({ proc, env, stderr } = await startTestenv());
  });
  afterAll(() => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });

  it("prints the kubeconfig path, the API and control URLs and a token", () => {
    expect(existsSync(env.KUBECONFIG!)).toBe(true);
    expect(env.KAPI_URL).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(env.KAPI_CONTROL_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.KAPI_CONTROL_TOKEN).toMatch(/^[0-9a-f]{64}$/);
    expect(stderr()).toMatch(/kapi: serving on https:\/\/127\.0\.0\.1:\d+ \(storage memory\)/);
  });

  it("a Python suite injects a 409, sees it as ApiException, retries, reads the journal", async () => {
    const out = await pythonSuite();
    expect(out.add).toEqual([201, { id: 1, match: { verb: "update", resource: "configmaps", name: "settings" }, times: 1, probability: 1, action: { kind: "error", code: 409 }, fired: 0 }]);
    expect(out.faults_listed[1]).toHaveLength(1);
    expect(out.conflict).toEqual({
      status: 409,
      reason: "Conflict",
      body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: 'Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again', reason: "Conflict", details: { name: "settings", kind: "configmaps" }, code: 409 },
    });
    expect(out.retried).toEqual({ mode: "b" });
    expect(out.faults_after).toEqual([200, []]);
    const [status, journal] = out.journal;
    expect(status).toBe(200);
    expect(journal.map((e: any) => [e.verb, e.name, e.code, e.user])).toEqual([
      ["update", "settings", 409, "kapi-admin"],
      ["update", "settings", 200, "kapi-admin"],
    ]);
    expect(journal[0].fault).toEqual({ rule: 1, action: { kind: "error", code: 409 } });
    expect(out.wait_found[0]).toBe(200);
    expect(out.wait_found[1]).toMatchObject({ verb: "update", name: "settings", code: 200 });
    expect(out.wait_timeout).toEqual([504, expect.objectContaining({ reason: "Timeout", code: 504, message: expect.stringMatching(/^waitFor: no journal entry matched \{"verb":"delete","name":"never"\} within 100 ms/) })]);
    const bad = (r: [number, any]) => [r[0], r[1].reason, r[1].message];
    expect(bad(out.bad_probability)).toEqual([400, "BadRequest", "probability: must be a number from 0 to 1, got 2"]);
    expect(bad(out.bad_kind)).toEqual([400, "BadRequest", 'action.kind: unknown fault kind "explode" (known: error, latency, dropWatch, expireWatch, timeoutAfterCommit)']);
    expect(bad(out.bad_matcher)[2]).toMatch(/^match: unknown key "verbs"/);
    expect(bad(out.bad_code)).toEqual([400, "BadRequest", "action.code: 418 is not an injectable status (allowed: 409, 410, 422, 429, 500, 503, 504)"]);
    expect(bad(out.bad_json)).toEqual([400, "BadRequest", "the request needs a JSON body"]);
    expect(bad(out.no_token)).toEqual([401, "Unauthorized", "Unauthorized"]);
    expect(bad(out.wrong_token)).toEqual([401, "Unauthorized", "Unauthorized"]);
    expect(out.cleared_journal[0]).toBe(200);
    expect(out.journal_after_clear).toEqual([200, []]);
  });

  it("reset over the control URL removes what the suite created and keeps the start-up objects", async () => {
    const out = await pythonSuite();
    expect(out.reset).toEqual([200, {}]);
    expect(out.after_reset).toEqual({
      "namespace py-testenv": 404,
      "configmap py-testenv/settings": 404,
      "namespace default": 200,
      "namespace kube-system": 200,
      "configmap default/kube-root-ca.crt": 200,
      "serviceaccount default/default": 200,
      "clusterrole cluster-admin": 200,
    });
  });

  it("snapshot, changes, restore: the snapshot's objects are back as they were, later ones gone", async () => {
    const out = await pythonSuite();
    expect(out.snapshot).toEqual([200, "KapiSnapshot", true]);
    expect(out.restore).toEqual([200, {}]);
    expect(out.after_restore).toEqual({
      "fixture data": { mode: "original" },
      "fixture resourceVersion moved on": true,
      "configmap default/after-snapshot": 404,
      "configmap default/kube-root-ca.crt": 200,
    });
    expect(out.bad_restore).toEqual([400, expect.objectContaining({ reason: "BadRequest", message: expect.stringContaining("format version 99 (written by kapi 9.9.9) cannot be read") })]);
  });

  it("settle over the control URL answers once a deleted namespace is finalized", async () => {
    const out = await pythonSuite();
    expect(out.settle).toEqual([200, {}]);
    expect(out.after_settle).toBe(404);
  });

  it("stops on SIGINT and removes its temporary directory", async () => {
    const exited = new Promise<number | null>((resolve) => proc.on("exit", resolve));
    proc.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(existsSync(dirname(env.KUBECONFIG!))).toBe(false);
  });
});

describe("kapi testenv bad flags", () => {
  it("refuses a bad --control-port and an unknown flag with a clear message", async () => {
    const port = await runKapi(["testenv", "--control-port=99999"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('kapi testenv: --control-port: must be a port number from 0 to 65535, got "99999"');
    const unknown = await runKapi(["testenv", "--frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("kapi testenv: unknown flag: --frobnicate");
  });
});
