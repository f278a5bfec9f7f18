// Custom resources against a real server: structural defaults applied on read from storage (an
// object stored before a `default` was added is served with it on get, list and watch, while the
// stored bytes stay as written); ratcheted CEL rule failures and pruned unknown fields reach the
// client as Warning headers; creates refused while the CRD terminates (405 as upstream) and
// deleting a CRD with objects in several namespaces removes them, then the CRD and its API
// (through kubectl).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, watchEvents } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { whenSettled } from "./support/settle.js";
import { mkns, startTuned, type PartsServer } from "./support/list-watch.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

let s: PartsServer;
let dir: string;
beforeAll(async () => {
  s = await startTuned();
  dir = mkdtempSync(join(tmpdir(), "kapi-crd-gaps-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
  for (const ns of ["gaps-a", "gaps-b", "gaps-c"]) await mkns(s, ns);
});
afterAll(async () => {
  await s?.stop();
});

let cacheN = 0;
function k(args: string[], stdin?: string) {
  return kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, `cache${cacheN++}`)}`, ...args], stdin);
}

/** Once the CRD controllers have settled, `fn` holds (asked once: a controller that has not done its part fails the test). */
const settled = (what: string, fn: () => Promise<boolean>) => whenSettled(s, what, fn);

function crd(group: string, plural: string, kind: string, spec: Record<string, unknown>) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec } } } }],
    },
  };
}

async function putCRD(body: ReturnType<typeof crd>): Promise<void> {
  const name = body.metadata.name;
  const cur = await req(s, "GET", `${crdPath}/${name}`);
  const r =
    cur.status === 404
      ? await req(s, "POST", crdPath, { body })
      : await req(s, "PUT", `${crdPath}/${name}`, { body: { ...body, metadata: { ...body.metadata, resourceVersion: cur.json.metadata.resourceVersion } } });
  expect(r.status, r.text).toBeLessThan(300);
}

const warningsOf = (h: string | string[] | undefined): string => (Array.isArray(h) ? h.join("\n") : h ?? "");

describe("defaulting on read from storage", () => {
  const base = "/apis/read.example.com/v1/namespaces/gaps-a/widgets";
  const sizeOnly = { type: "object", properties: { size: { type: "integer" } } };
  const withDefault = { type: "object", properties: { size: { type: "integer" }, flavor: { type: "string", default: "vanilla" }, extra: { type: "object", default: { n: 1 }, properties: { n: { type: "integer" } } } } };

  it("an object stored before a default was added is read with it (get, yaml, list, list from storage, watch); the stored bytes are unchanged", async () => {
    await putCRD(crd("read.example.com", "widgets", "Widget", sizeOnly));
    await settled("the CRD to be served", async () => (await req(s, "GET", base)).status === 200);
    const created = await req(s, "POST", base, { body: { apiVersion: "read.example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.spec).toEqual({ size: 3 });
    // A watch opened before the schema changes ends when the type is rebuilt; the one after sees defaults.

    await putCRD(crd("read.example.com", "widgets", "Widget", withDefault));
    await settled("the new default to be read", async () => (await req(s, "GET", `${base}/w1`)).json?.spec?.flavor === "vanilla");

    const got = await req(s, "GET", `${base}/w1`);
    expect(got.json.spec).toEqual({ size: 3, flavor: "vanilla", extra: { n: 1 } });
    expect(got.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    // A second GET of the same revision is served the same (cached per stored revision).
    expect((await req(s, "GET", `${base}/w1`)).json).toEqual(got.json);
    const yaml = await req(s, "GET", `${base}/w1`, { headers: { accept: "application/yaml" } });
    expect(yaml.text).toContain("flavor: vanilla");
    const list = await req(s, "GET", base);
    expect(list.json.items.map((i: any) => i.spec)).toEqual([{ size: 3, flavor: "vanilla", extra: { n: 1 } }]);
    const exact = await req(s, "GET", `${base}?resourceVersion=${created.json.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(exact.status, exact.text).toBe(200);
    expect(exact.json.items[0].spec.flavor).toBe("vanilla");
    const events = await watchEvents(s, `${base}?watch=true`, (evs) => evs.length >= 1);
    expect(events[0]).toMatchObject({ type: "ADDED", object: { spec: { size: 3, flavor: "vanilla", extra: { n: 1 } } } });

    // Storage still holds what was written: defaulting happens on read.
    const kv = await s.storage.get("/registry/read.example.com/widgets/gaps-a/w1");
    expect(JSON.parse(kv!.value).spec).toEqual({ size: 3 });

    // An explicit value is kept; a later update stores the defaults.
    const upd = await req(s, "PUT", `${base}/w1`, { body: { ...got.json, spec: { size: 4 } } });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.json.spec).toEqual({ size: 4, flavor: "vanilla", extra: { n: 1 } });
    const kv2 = await s.storage.get("/registry/read.example.com/widgets/gaps-a/w1");
    expect(JSON.parse(kv2!.value).spec).toEqual({ size: 4, flavor: "vanilla", extra: { n: 1 } });
  });

  it("a second object's reads and the watch after a write carry the defaults too", async () => {
    // Written through storage directly as an old server would have stored it (no defaults).
    const now = await req(s, "GET", `${base}/w1`);
    const stored = { kind: "Widget", apiVersion: "read.example.com/v1", metadata: { name: "w2", namespace: "gaps-a", uid: "u-w2", creationTimestamp: now.json.metadata.creationTimestamp, generation: 1 }, spec: { size: 9 } };
    await s.storage.create("/registry/read.example.com/widgets/gaps-a/w2", JSON.stringify(stored));
    await settled("the directly stored object to be served", async () => (await req(s, "GET", `${base}/w2`)).status === 200);
    expect((await req(s, "GET", `${base}/w2`)).json.spec).toEqual({ size: 9, flavor: "vanilla", extra: { n: 1 } });
    const list = await req(s, "GET", base);
    expect(list.json.items.find((i: any) => i.metadata.name === "w2").spec).toEqual({ size: 9, flavor: "vanilla", extra: { n: 1 } });
  });
});

describe("warnings", () => {
  const base = "/apis/warn.example.com/v1/namespaces/gaps-a/gizmos";
  const noRule = { type: "object", properties: { size: { type: "integer" }, note: { type: "string" } } };
  const withRule = { type: "object", properties: { size: { type: "integer", "x-kubernetes-validations": [{ rule: "self <= 5", message: "size must be at most 5" }] }, note: { type: "string" } } };

  it("a ratcheted CEL rule failure (unchanged invalid value on update) is a Warning header; a changed one is 422", async () => {
    await putCRD(crd("warn.example.com", "gizmos", "Gizmo", noRule));
    await settled("the CRD to be served", async () => (await req(s, "GET", base)).status === 200);
    const created = await req(s, "POST", base, { body: { apiVersion: "warn.example.com/v1", kind: "Gizmo", metadata: { name: "g1" }, spec: { size: 10, note: "a" } } });
    expect(created.status, created.text).toBe(201);
    await putCRD(crd("warn.example.com", "gizmos", "Gizmo", withRule));
    await settled("the new CEL rule to refuse", async () => (await req(s, "POST", base, { body: { apiVersion: "warn.example.com/v1", kind: "Gizmo", metadata: { name: "probe" }, spec: { size: 6 } } })).status === 422);

    // PUT changing only the note: size (10) is unchanged → tolerated, with a warning.
    const cur = (await req(s, "GET", `${base}/g1`)).json;
    const put = await req(s, "PUT", `${base}/g1`, { body: { ...cur, spec: { size: 10, note: "b" } } });
    expect(put.status, put.text).toBe(200);
    expect(warningsOf(put.headers.warning)).toBe('299 - "spec.size: Invalid value: 10: size must be at most 5"');
    // Merge patch and apply likewise.
    const merge = await req(s, "PATCH", `${base}/g1`, { body: { spec: { note: "c" } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(merge.status, merge.text).toBe(200);
    expect(warningsOf(merge.headers.warning)).toContain("size must be at most 5");
    // A changed invalid value is an error.
    const bad = await req(s, "PATCH", `${base}/g1`, { body: { spec: { size: 11 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toEqual([{ reason: "FieldValueInvalid", message: "Invalid value: 11: size must be at most 5", field: "spec.size" }]);
    // Create: nothing to ratchet against.
    const create = await req(s, "POST", base, { body: { apiVersion: "warn.example.com/v1", kind: "Gizmo", metadata: { name: "g2" }, spec: { size: 7 } } });
    expect(create.status).toBe(422);
  });

  it("pruned unknown fields are warned on create, update, merge patch and apply (fieldValidation=Warn)", async () => {
    const body = { apiVersion: "warn.example.com/v1", kind: "Gizmo", metadata: { name: "g3" }, spec: { size: 1, bogus: true } };
    const c = await req(s, "POST", `${base}?fieldValidation=Warn`, { body });
    expect(c.status, c.text).toBe(201);
    expect(warningsOf(c.headers.warning)).toBe('299 - "unknown field \\"spec.bogus\\""');
    expect(c.json.spec).toEqual({ size: 1 });
    const u = await req(s, "PUT", `${base}/g3?fieldValidation=Warn`, { body: { ...body, metadata: { name: "g3" }, spec: { size: 2, bogus: 1 } } });
    expect(u.status, u.text).toBe(200);
    expect(warningsOf(u.headers.warning)).toContain('unknown field \\"spec.bogus\\"');
    const m = await req(s, "PATCH", `${base}/g3?fieldValidation=Warn`, { body: { spec: { bogus2: 1 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(m.status, m.text).toBe(200);
    expect(warningsOf(m.headers.warning)).toContain('unknown field \\"spec.bogus2\\"');
    const a = await req(s, "PATCH", `${base}/g3?fieldManager=t&fieldValidation=Warn`, { body: { ...body, spec: { size: 2, bogus3: 1 } }, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(a.status, a.text).toBe(200);
    expect(warningsOf(a.headers.warning)).toContain('unknown field \\"spec.bogus3\\"');
    // Ratcheting warning and pruning warning together (g1 still has size 10).
    const both = await req(s, "PATCH", `${base}/g1?fieldValidation=Warn`, { body: { spec: { note: "d", zzz: 1 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(both.status, both.text).toBe(200);
    expect(warningsOf(both.headers.warning)).toContain('unknown field \\"spec.zzz\\"');
    expect(warningsOf(both.headers.warning)).toContain("size must be at most 5");
  });
});

const findTerminating = (crd: any) => (crd?.status?.conditions ?? []).find((c: any) => c.type === "Terminating");

describe("terminating CRDs", () => {
  const group = "term.example.com";
  const path = (ns: string) => `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  const gadget = (name: string, finalizers?: string[]) => ({ apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: { size: 1 } });

  it("refuses creates while terminating (405), deletes every object in every namespace, then the CRD and its API go", async () => {
    await putCRD(crd(group, "gadgets", "Gadget", { type: "object", properties: { size: { type: "integer" } } }));
    await settled("the CRD to be served", async () => (await req(s, "GET", path("gaps-a"))).status === 200);
    for (const ns of ["gaps-a", "gaps-b", "gaps-c"]) {
      for (const n of ["x", "y"]) expect((await req(s, "POST", path(ns), { body: gadget(n) })).status).toBe(201);
    }
    // One object holds a finalizer, so the CRD stays terminating until it is released.
    expect((await req(s, "POST", path("gaps-b"), { body: gadget("held", ["example.com/hold"]) })).status).toBe(201);

    const del = await req(s, "DELETE", `${crdPath}/gadgets.${group}`);
    expect(del.status, del.text).toBe(200);
    // The object that holds the CRD keeps its finalizer pass waiting, not busy: the controllers settle.
    await settled("the CRD to be terminating", async () => (await req(s, "GET", `${crdPath}/gadgets.${group}`)).json.status.conditions.some((c: any) => c.type === "Terminating" && c.status === "True"));

    const refused = await req(s, "POST", path("gaps-a"), { body: gadget("z") });
    expect(refused.status).toBe(405);
    expect(refused.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "create not allowed while custom resource definition is terminating",
      reason: "MethodNotAllowed",
      details: { group, kind: "gadgets" },
      code: 405,
    });
    // Reads, updates and deletes are still served while terminating.
    await settled("the finalizer to delete all but the held object", async () => (await req(s, "GET", `/apis/${group}/v1/gadgets`)).json.items.length === 1);
    const held = await req(s, "GET", `${path("gaps-b")}/held`);
    expect(held.json.metadata.deletionTimestamp).toBeTruthy();

    if (kubectlBin) {
      const kc = await k(["create", "-f", "-"], JSON.stringify({ ...gadget("viakubectl"), metadata: { name: "viakubectl", namespace: "gaps-c" } }));
      expect(kc.stderr).toContain("create not allowed while custom resource definition is terminating");
      expect(kc.stderr).toContain("MethodNotAllowed");
      // Releasing the last object lets the finalizer finish: the CRD and its API go.
      const patched = await k(["patch", "gadgets.term.example.com", "held", "-n", "gaps-b", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
      expect(patched.stderr).toBe("");
    } else {
      const p = await req(s, "PATCH", `${path("gaps-b")}/held`, { body: { metadata: { finalizers: null } }, headers: { "content-type": "application/merge-patch+json" } });
      expect(p.status).toBe(200);
    }
    await settled("the CRD to go", async () => (await req(s, "GET", `${crdPath}/gadgets.${group}`)).status === 404);
    await settled("its API to go", async () => (await req(s, "GET", path("gaps-a"))).status === 404);
    for (const ns of ["gaps-a", "gaps-b", "gaps-c"]) {
      expect(await s.storage.range(`/registry/${group}/gadgets/${ns}/`)).toMatchObject({ items: [] });
    }
    expect((await req(s, "GET", `/apis/${group}`)).status).toBe(404);
    if (kubectlBin) {
      const gone = await k(["get", "gadgets", "-A"]);
      expect(gone.stderr).toContain('the server doesn\'t have a resource type "gadgets"');
      expect((await k(["get", "crd", `gadgets.${group}`])).stderr).toContain("NotFound");
    }
  });

  it("a CRD held by an object's finalizer waits quietly (a handful of writes, settle() returns) and goes once it is released", async () => {
    const g = "held.example.com";
    const objects = `/apis/${g}/v1/namespaces/gaps-a/widgets`;
    await putCRD(crd(g, "widgets", "Widget", { type: "object" }));
    await settled("the CRD to be served", async () => (await req(s, "GET", objects)).status === 200);
    expect((await req(s, "POST", objects, { body: { apiVersion: `${g}/v1`, kind: "Widget", metadata: { name: "w", finalizers: ["example.com/hold"] } } })).status).toBe(201);
    const del = await req(s, "DELETE", `${crdPath}/widgets.${g}`);
    expect(del.status, del.text).toBe(200);
    // Every write of the CRD in the second after its deletion: the Terminating condition, once;
    // a pass that requeued itself on its own condition write made thousands.
    const writes = await watchEvents(s, `${crdPath}?watch=1&fieldSelector=metadata.name%3Dwidgets.${g}&resourceVersion=${del.json.metadata.resourceVersion}`, () => false, 1000);
    expect(writes.length, writes.map((e) => findTerminating(e.object)?.reason).join(", ")).toBeLessThanOrEqual(3);
    await s.settle();
    const held = await req(s, "GET", `${crdPath}/widgets.${g}`);
    expect(held.json.metadata.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    expect(findTerminating(held.json)).toMatchObject({ status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" });
    // Settled means quiet: no further write while the object still holds it.
    const rv = held.json.metadata.resourceVersion;
    await s.settle();
    expect((await req(s, "GET", `${crdPath}/widgets.${g}`)).json.metadata.resourceVersion).toBe(rv);
    const released = await req(s, "PATCH", `${objects}/w`, { body: { metadata: { finalizers: null } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(released.status, released.text).toBe(200);
    await settled("the CRD to go", async () => (await req(s, "GET", `${crdPath}/widgets.${g}`)).status === 404);
  });

  it.skipIf(!kubectlBin)("kubectl delete crd with objects in several namespaces returns once they, the CRD and the API are gone", async () => {
    const g = "term2.example.com";
    const def = crd(g, "doohickeys", "Doohickey", { type: "object", properties: { size: { type: "integer" } } });
    expect((await k(["apply", "-f", "-"], JSON.stringify(def))).stdout).toBe(`customresourcedefinition.apiextensions.k8s.io/doohickeys.${g} created\n`);
    await settled("the CRD to be served", async () => (await req(s, "GET", `/apis/${g}/v1/doohickeys`)).status === 200);
    const items = ["gaps-a", "gaps-b", "gaps-c"].flatMap((ns) => ["p", "q"].map((n) => ({ apiVersion: `${g}/v1`, kind: "Doohickey", metadata: { name: n, namespace: ns }, spec: { size: 2 } })));
    const applied = await k(["apply", "-f", "-"], items.map((i) => JSON.stringify(i)).join("\n"));
    expect(applied.stderr).toBe("");
    expect((await k(["get", "doohickeys", "-A", "--no-headers"])).stdout.trim().split("\n")).toHaveLength(6);
    const deleted = await k(["delete", "crd", `doohickeys.${g}`]);
    expect(deleted.stdout).toBe(`customresourcedefinition.apiextensions.k8s.io "doohickeys.${g}" deleted\n`);
    expect((await req(s, "GET", `${crdPath}/doohickeys.${g}`)).status).toBe(404);
    expect((await s.storage.range(`/registry/${g}/doohickeys/`)).items).toEqual([]);
    await settled("its API to go", async () => (await req(s, "GET", `/apis/${g}/v1/doohickeys`)).status === 404);
    expect((await k(["get", "doohickeys", "-A"])).stderr).toContain('the server doesn\'t have a resource type "doohickeys"');
  });
});
