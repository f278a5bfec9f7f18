// The pod subresources that act rather than store: binding (a scheduler's assignment) and
// eviction (a budget-respecting delete, what `kubectl drain` calls). Both pass admission as
// creates of their subresource.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../src/index.js";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33);
let s: TestServer;
let dir: string;
const admitted: string[] = [];

beforeAll(async () => {
  s = await startTestServer({
    admissionPlugins: [{ name: "Recorder", validate: (a: AdmissionAttributes) => void (a.subresource && admitted.push(`${a.operation} ${a.type.resource}/${a.subresource} ${a.name} ${a.object?.kind ?? ""}`)) }],
  });
  dir = mkdtempSync(join(tmpdir(), "kapi-eviction-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
  await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "evict" } } });
});
afterAll(async () => {
  await s?.stop();
});

const pods = "/api/v1/namespaces/evict/pods";
async function pod(name: string, labels: Record<string, string> = {}): Promise<any> {
  const r = await req(s, "POST", pods, { body: { metadata: { name, labels }, spec: { containers: [{ name: "c", image: "busybox" }] } } });
  expect(r.status).toBe(201);
  return r.json;
}
const bind = (name: string, node: string, extra: Record<string, unknown> = {}) =>
  req(s, "POST", `${pods}/${name}/binding`, { body: { apiVersion: "v1", kind: "Binding", metadata: { name, ...extra }, target: { kind: "Node", name: node } } });
/** A running, ready pod (the status a kubelet would write). */
async function running(name: string): Promise<void> {
  const cur = (await req(s, "GET", `${pods}/${name}`)).json;
  cur.status = { ...cur.status, phase: "Running", conditions: [...(cur.status.conditions ?? []), { type: "Ready", status: "True" }] };
  expect((await req(s, "PUT", `${pods}/${name}/status`, { body: cur })).status).toBe(200);
}
const evict = (name: string, deleteOptions?: unknown, query = "") =>
  req(s, "POST", `${pods}/${name}/eviction${query}`, { body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: "evict" }, ...(deleteOptions ? { deleteOptions } : {}) } });

describe("pods/binding", () => {
  it("assigns the node, marks the pod scheduled, merges annotations, and passes admission as a Binding", async () => {
    await pod("b1");
    const r = await bind("b1", "node-a", { annotations: { "scheduler.example/by": "test" } });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
    const p = (await req(s, "GET", `${pods}/b1`)).json;
    expect(p.spec.nodeName).toBe("node-a");
    expect(p.metadata.annotations).toEqual({ "scheduler.example/by": "test" });
    expect(p.status.conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True" }));
    expect(admitted).toContain("CREATE pods/binding b1 Binding");
  });

  it("refuses a second assignment, a name mismatch, a bad target and a stale precondition as upstream", async () => {
    const again = await bind("b1", "node-b");
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "node-a"');
    const mismatch = await req(s, "POST", `${pods}/b1/binding`, { body: { apiVersion: "v1", kind: "Binding", metadata: { name: "other" }, target: { name: "n" } } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.message).toBe("name in URL does not match name in Binding object");
    await pod("b2");
    const badTarget = await req(s, "POST", `${pods}/b2/binding`, { body: { apiVersion: "v1", kind: "Binding", metadata: { name: "b2" }, target: { kind: "Pod" } } });
    expect(badTarget.status).toBe(500);
    expect(badTarget.json.message).toBe('[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]');
    const stale = await bind("b2", "node-a", { uid: "00000000-0000-0000-0000-000000000000" });
    expect(stale.status).toBe(409);
    expect(stale.json.message).toContain("Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000");
    expect((await req(s, "GET", `${pods}/b2`)).json.spec.nodeName).toBeUndefined();
  });
});

describe("pods/eviction", () => {
  it("a pod no budget covers is deleted; the Eviction is admitted as policy/v1 Eviction", async () => {
    await pod("e1");
    const r = await evict("e1");
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
    expect((await req(s, "GET", `${pods}/e1`)).status).toBe(404);
    expect(admitted).toContain("CREATE pods/eviction e1 Eviction");
  });

  it("respects a PodDisruptionBudget: 429 while unprocessed, then one disruption, then 429 with the budget's numbers", async () => {
    for (const n of ["guarded-1", "guarded-2"]) {
      await pod(n, { app: "guarded" });
      await running(n);
    }
    const pdb = await req(s, "POST", "/apis/policy/v1/namespaces/evict/poddisruptionbudgets", { body: { metadata: { name: "budget" }, spec: { minAvailable: 1, selector: { matchLabels: { app: "guarded" } } } } });
    expect(pdb.status).toBe(201);
    const early = await evict("guarded-1");
    expect(early.status).toBe(429);
    expect(early.headers["retry-after"]).toBe("10");
    expect(early.json).toMatchObject({ reason: "TooManyRequests", message: "Cannot evict pod as it would violate the pod's disruption budget.", details: { causes: [{ reason: "DisruptionBudget", message: "The disruption budget budget is still being processed by the server." }] } });
    // What the disruption controller would write.
    const cur = (await req(s, "GET", "/apis/policy/v1/namespaces/evict/poddisruptionbudgets/budget")).json;
    cur.status = { observedGeneration: 1, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 };
    expect((await req(s, "PUT", "/apis/policy/v1/namespaces/evict/poddisruptionbudgets/budget/status", { body: cur })).status).toBe(200);
    // A dry run checks without charging.
    expect((await evict("guarded-1", undefined, "?dryRun=All")).status).toBe(201);
    expect((await req(s, "GET", "/apis/policy/v1/namespaces/evict/poddisruptionbudgets/budget")).json.status.disruptionsAllowed).toBe(1);
    expect((await req(s, "GET", `${pods}/guarded-1`)).status).toBe(200);
    const ok = await evict("guarded-1", { gracePeriodSeconds: 0 });
    expect(ok.status).toBe(201);
    const after = (await req(s, "GET", "/apis/policy/v1/namespaces/evict/poddisruptionbudgets/budget")).json.status;
    expect(after.disruptionsAllowed).toBe(0);
    expect(Object.keys(after.disruptedPods)).toEqual(["guarded-1"]);
    expect(after.conditions).toContainEqual(expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" }));
    const refused = await evict("guarded-2");
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBeUndefined();
    expect(refused.json.details.causes).toEqual([{ reason: "DisruptionBudget", message: "The disruption budget budget needs 1 healthy pods and has 2 currently" }]);
    expect((await req(s, "GET", `${pods}/guarded-2`)).status).toBe(200);
  });

  it.skipIf(!kubectlBin)("kubectl drain evicts the pods bound to a node", async () => {
    for (const n of ["d1", "d2"]) {
      await pod(n);
      expect((await bind(n, "drained")).status).toBe(201);
    }
    await req(s, "POST", "/api/v1/nodes", { body: { metadata: { name: "drained" } } });
    const r = await kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, "cache")}`, "drain", "drained", "--force", "--grace-period=0", "--timeout=20s"]);
    expect(r.stderr).not.toContain("error");
    expect(r.stdout).toContain("pod/d1 evicted");
    expect(r.stdout).toContain("pod/d2 evicted");
    expect(r.stdout).toContain("node/drained drained");
    expect((await req(s, "GET", "/api/v1/nodes/drained")).json.spec.unschedulable).toBe(true);
    expect((await req(s, "GET", `${pods}/d1`)).status).toBe(404);
  });
});
