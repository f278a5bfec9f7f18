// The call journal as a test reads it: what each request asked (user, verb, resource,
// subresource, namespace, name, dry run, field manager, patch type) and was answered (code,
// duration), a watch's events, and waitFor() for requests still to come.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

let s: TestServer;
const base = "/apis/apps/v1/namespaces/jr/deployments";
const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
});

beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "jr" } } });
});
afterAll(async () => {
  await s?.stop();
});

describe("journal entries", () => {
  it("records a create, an update and patches of each type with their options", async () => {
    s.journal.clear();
    expect((await req(s, "POST", `${base}?fieldManager=maker&dryRun=All`, { body: deployment("d1") })).status).toBe(201);
    const created = await req(s, "POST", `${base}?fieldManager=maker`, { body: deployment("d1") });
    expect(created.status).toBe(201);
    expect((await req(s, "PUT", `${base}/d1?fieldManager=updater`, { body: { ...created.json, spec: { ...created.json.spec, replicas: 2 } } })).status).toBe(200);
    const patch = (type: string, body: unknown, q = "") => req(s, "PATCH", `${base}/d1${q}`, { body, headers: { "content-type": type } });
    expect((await patch("application/merge-patch+json", { metadata: { labels: { a: "1" } } })).status).toBe(200);
    expect((await patch("application/strategic-merge-patch+json", { metadata: { labels: { b: "1" } } })).status).toBe(200);
    expect((await patch("application/json-patch+json", [{ op: "add", path: "/metadata/labels/c", value: "1" }])).status).toBe(200);
    expect((await patch("application/apply-patch+yaml", deployment("d1"), "?fieldManager=applier&force=true")).status).toBe(200);
    expect((await req(s, "PUT", `${base}/d1/scale`, { body: { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "d1", namespace: "jr" }, spec: { replicas: 3 } } })).status).toBe(200);

    const common = { user: "kapi-admin", apiGroup: "apps", apiVersion: "v1", resource: "deployments", namespace: "jr" };
    const entries = s.journal.find({ resource: "deployments" });
    expect(entries).toMatchObject([
      { ...common, verb: "create", method: "POST", name: "", subresource: "", code: 201, dryRun: true, fieldManager: "maker", patchType: "" },
      { ...common, verb: "create", code: 201, dryRun: false, fieldManager: "maker" },
      { ...common, verb: "update", name: "d1", code: 200, fieldManager: "updater" },
      { ...common, verb: "patch", name: "d1", patchType: "application/merge-patch+json", fieldManager: "" },
      { ...common, verb: "patch", patchType: "application/strategic-merge-patch+json" },
      { ...common, verb: "patch", patchType: "application/json-patch+json" },
      { ...common, verb: "patch", patchType: "application/apply-patch+yaml", fieldManager: "applier" },
      { ...common, verb: "update", subresource: "scale", name: "d1", code: 200 },
    ]);
    for (const e of entries) {
      expect(e.durationMs).toBeGreaterThan(0);
      expect(e.fault).toBeUndefined();
      expect(Date.parse(e.time)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(s.journal.find({ verb: "update", resource: "deployments", subresource: "" })).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(s.journal)).length).toBe(s.journal.entries().length);
  });

  it("records refusals with their code and who asked (no one for a 401)", async () => {
    expect((await req(s, "GET", `${base}/d1`, { creds: s.as("not-a-token") })).status).toBe(401);
    expect((await req(s, "GET", `${base}/nope`)).status).toBe(404);
    expect(s.journal.find({ name: "nope" })).toMatchObject([{ verb: "get", code: 404, user: "kapi-admin" }]);
    expect(s.journal.find({ name: "d1", verb: "get", code: 401 })).toMatchObject([{ user: "" }]);
  });

  it("records a watch's events (type, name, resourceVersion) as they are sent", async () => {
    const list = await req(s, "GET", `${base}`);
    const watch = req(s, "GET", `${base}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}&timeoutSeconds=2`);
    const opened = await s.waitFor({ verb: "watch", resource: "deployments", namespace: "jr" }, { timeout: 5000 });
    expect(opened.code).toBe(200);
    const created = await req(s, "POST", base, { body: deployment("d2") });
    const deleted = await req(s, "DELETE", `${base}/d2`);
    // Woken by the event itself, not by polling.
    await s.waitFor((e) => e.seq === opened.seq && (e.events ?? []).some((ev) => ev.type === "DELETED"), { timeout: 5000 });
    await watch;
    expect(opened.events).toEqual([
      { type: "ADDED", name: "d2", namespace: "jr", resourceVersion: created.json.metadata.resourceVersion },
      { type: "DELETED", name: "d2", namespace: "jr", resourceVersion: expect.stringMatching(/^\d+$/) },
    ]);
    expect(deleted.status).toBe(200);
  });

  it("waitFor resolves with a request still to come, and rejects with a clear message on timeout", async () => {
    const later = s.waitFor({ verb: "delete", resource: "deployments", name: "d1" }, { timeout: 5000 });
    setTimeout(() => void req(s, "DELETE", `${base}/d1`), 50);
    await expect(later).resolves.toMatchObject({ verb: "delete", name: "d1", code: 200 });
    await expect(s.waitFor({ verb: "update", resource: "widgets" }, { timeout: 50 })).rejects.toThrow(/^waitFor: no journal entry matched \{"verb":"update","resource":"widgets"\} within 50 ms/);
  });

  it("is bounded by its capacity", async () => {
    const small = await startTestServer({ storage: "memory", journal: { capacity: 5 } });
    try {
      for (let i = 0; i < 8; i++) await req(small, "GET", "/api/v1/namespaces/default");
      expect(small.journal.entries()).toHaveLength(5);
      expect(small.journal.dropped).toBeGreaterThanOrEqual(3);
    } finally {
      await small.stop();
    }
  });

  it("journal: false leaves it out; waitFor says so", async () => {
    const off = await startTestServer({ storage: "memory", journal: false });
    try {
      await req(off, "GET", "/api/v1/namespaces/default");
      expect(off.journal.entries()).toEqual([]);
      await expect(off.waitFor({ verb: "get" })).rejects.toThrow("waitFor: the call journal is off for this server (started with journal: false)");
    } finally {
      await off.stop();
    }
  });
});

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
describe.skipIf(!kubectlBin)("kubectl against an injected 429", () => {
  it("retries after Retry-After and succeeds; the journal shows both requests", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-journal-kubectl-"));
    try {
      const kubeconfig = join(dir, "kubeconfig");
      writeFileSync(kubeconfig, s.kubeconfig);
      s.faults.add({ match: { verb: "list", resource: "configmaps", namespace: "jr" }, times: 1, action: { kind: "error", code: 429, retryAfterSeconds: 1 } });
      const t0 = Date.now();
      const r = await kubectl(kubectlBin!, kubeconfig, ["get", "configmaps", "-n", "jr", "-o", "name"]);
      expect(r.code, r.stderr).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
      const lists = s.journal.find({ verb: "list", resource: "configmaps", namespace: "jr" });
      expect(lists.map((e) => e.code)).toEqual([429, 200]);
      expect(lists[0]!.fault).toMatchObject({ action: { kind: "error", code: 429 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
