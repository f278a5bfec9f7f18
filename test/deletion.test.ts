// DELETE options end to end: graceful pods, preconditions, propagation (Background, Foreground,
// Orphan) through the garbage collector, dry run, and unsafe deletion of a corrupt object.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, watchEvents, type TestServer } from "./support/client.js";
import { whenSettled } from "./support/settle.js";
import { startTuned } from "./support/list-watch.js";

const start = (featureGates = "") => startTuned({ featureGates });

const cmPath = "/api/v1/namespaces/default/configmaps";
const gone = (s: TestServer, path: string) => async () => (await req(s, "GET", path)).status === 404;

describe("deletion", () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start("AllowUnsafeMalformedObjectDeletion=true");
  });
  afterAll(async () => s?.stop());

  const owner = async (name: string) => (await req(s, "POST", cmPath, { body: { metadata: { name } } })).json;
  const dependent = async (name: string, o: any, block = false) =>
    (await req(s, "POST", cmPath, { body: { metadata: { name, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: o.metadata.name, uid: o.metadata.uid, ...(block ? { blockOwnerDeletion: true } : {}) }] } } })).json;

  it("deletes pods gracefully when a node runs them, at once otherwise", async () => {
    const pod = (name: string, nodeName?: string) => ({ metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "busybox" }] } });
    await req(s, "POST", "/api/v1/namespaces/default/pods", { body: pod("unscheduled") });
    const d0 = await req(s, "DELETE", "/api/v1/namespaces/default/pods/unscheduled");
    expect(d0.status).toBe(200);
    expect(d0.json.kind).toBe("Pod");
    expect(await gone(s, "/api/v1/namespaces/default/pods/unscheduled")()).toBe(true);

    await req(s, "POST", "/api/v1/namespaces/default/pods", { body: pod("running", "node-1") });
    const before = Date.now();
    const d1 = await req(s, "DELETE", "/api/v1/namespaces/default/pods/running");
    expect(d1.json.metadata.deletionGracePeriodSeconds).toBe(30);
    const when = Date.parse(d1.json.metadata.deletionTimestamp);
    expect(when).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 29_000);
    expect((await req(s, "GET", "/api/v1/namespaces/default/pods/running")).status).toBe(200);
    const shorter = await req(s, "DELETE", "/api/v1/namespaces/default/pods/running?gracePeriodSeconds=5");
    expect(shorter.json.metadata.deletionGracePeriodSeconds).toBe(5);
    const longer = await req(s, "DELETE", "/api/v1/namespaces/default/pods/running", { body: { gracePeriodSeconds: 60 } });
    expect(longer.json.metadata.deletionGracePeriodSeconds).toBe(5);
    await req(s, "DELETE", "/api/v1/namespaces/default/pods/running?gracePeriodSeconds=0");
    expect(await gone(s, "/api/v1/namespaces/default/pods/running")()).toBe(true);
  });

  it("checks uid and resourceVersion preconditions", async () => {
    const o = await owner("pre");
    const uid = await req(s, "DELETE", `${cmPath}/pre`, { body: { preconditions: { uid: "not-it" } } });
    expect(uid.status).toBe(409);
    expect(uid.json.message).toContain("Precondition failed: UID in precondition: not-it");
    const rv = await req(s, "DELETE", `${cmPath}/pre`, { body: { preconditions: { resourceVersion: "1" } } });
    expect(rv.status).toBe(409);
    expect((await req(s, "DELETE", `${cmPath}/pre`, { body: { preconditions: { uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion } } })).status).toBe(200);
  });

  it("collects dependents in the background", async () => {
    const o = await owner("bg-owner");
    await dependent("bg-dep", o);
    expect((await req(s, "DELETE", `${cmPath}/bg-owner`)).status).toBe(200);
    await whenSettled(s, "bg-dep gone", async () => (await gone(s, `${cmPath}/bg-dep`)()) || undefined);
  });

  it("deletes in the foreground: dependents first, then the owner", async () => {
    const o = await owner("fg-owner");
    const dep = await dependent("fg-dep", o, true);
    const isDeletion = (e: any) => e.type === "DELETED" && ["fg-owner", "fg-dep"].includes(e.object.metadata.name);
    const deletions = watchEvents(s, `${cmPath}?watch=1&resourceVersion=${dep.metadata.resourceVersion}`, (evs) => evs.filter(isDeletion).length === 2);
    const d = await req(s, "DELETE", `${cmPath}/fg-owner?propagationPolicy=Foreground`);
    expect(d.status).toBe(200);
    expect(d.json.metadata.finalizers).toEqual(["foregroundDeletion"]);
    expect(d.json.metadata.deletionTimestamp).toBeDefined();
    expect((await deletions).filter(isDeletion).map((e) => e.object.metadata.name)).toEqual(["fg-dep", "fg-owner"]);
  });

  it("orphans dependents with Orphan and with the deprecated orphanDependents", async () => {
    // orphanDependents is read as every query boolean is: True (Python's spelling) and a bare name are true.
    for (const [name, query] of [["or1", "propagationPolicy=Orphan"], ["or2", "orphanDependents=true"], ["or3", "orphanDependents=True"], ["or4", "orphanDependents"]]) {
      const o = await owner(`${name}-owner`);
      await dependent(`${name}-dep`, o);
      const d = await req(s, "DELETE", `${cmPath}/${name}-owner?${query}`);
      expect(d.json.metadata.finalizers).toEqual(["orphan"]);
      await whenSettled(s, `${name}-owner gone`, async () => (await gone(s, `${cmPath}/${name}-owner`)()) || undefined);
      const dep = await req(s, "GET", `${cmPath}/${name}-dep`);
      expect(dep.status).toBe(200);
      expect(dep.json.metadata.ownerReferences ?? []).toEqual([]);
    }
  });

  it("validates delete options", async () => {
    await owner("opts");
    const bad = await req(s, "DELETE", `${cmPath}/opts?propagationPolicy=Sideways`);
    expect(bad.status).toBe(422);
    expect(bad.json.message).toContain('propagationPolicy: Unsupported value: "Sideways"');
    const both = await req(s, "DELETE", `${cmPath}/opts?propagationPolicy=Orphan&orphanDependents=true`);
    expect(both.status).toBe(422);
    expect(both.json.message).toContain("orphanDependents and deletionPropagation cannot be both set");
    const unsafeWithOthers = await req(s, "DELETE", `${cmPath}/opts?ignoreStoreReadErrorWithClusterBreakingPotential=true&gracePeriodSeconds=0`);
    expect(unsafeWithOthers.status).toBe(422);
    // False is still given: with a policy it conflicts just as true does.
    const falseAndPolicy = await req(s, "DELETE", `${cmPath}/opts?propagationPolicy=Background&orphanDependents=False`);
    expect(falseAndPolicy.status).toBe(422);
    expect(falseAndPolicy.json.message).toContain("orphanDependents and deletionPropagation cannot be both set");
  });

  it("reads the options from the body when there is one, else from the query, as upstream's handler", async () => {
    await owner("xor");
    // The query's dryRun is not read beside a body: the delete happens.
    const withBody = await req(s, "DELETE", `${cmPath}/xor?dryRun=All`, { body: { kind: "DeleteOptions", apiVersion: "v1" } });
    expect(withBody.status).toBe(200);
    expect(await gone(s, `${cmPath}/xor`)()).toBe(true);
    await owner("xor");
    // A body's invalid policy is refused even with a valid one in the query.
    const bodyPolicy = await req(s, "DELETE", `${cmPath}/xor?propagationPolicy=Background`, { body: { propagationPolicy: "Sideways" } });
    expect([bodyPolicy.status, bodyPolicy.json.message]).toEqual([422, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"']);
    const bodyDryRun = await req(s, "DELETE", `${cmPath}/xor`, { body: { dryRun: ["All", "Some"] } });
    expect([bodyDryRun.status, bodyDryRun.json.message]).toEqual([422, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Some"}: supported values: "All"']);
    // In the query, gracePeriodSeconds is an int64 the parameter codec parses: 400 in strconv's words.
    const grace = await req(s, "DELETE", `${cmPath}/xor?gracePeriodSeconds=soon`);
    expect([grace.status, grace.json.reason, grace.json.message]).toEqual([400, "BadRequest", 'strconv.ParseInt: parsing "soon": invalid syntax']);
    // ?dryRun= is the list [""], which is not "All".
    const empty = await req(s, "DELETE", `${cmPath}/xor?dryRun=`);
    expect([empty.status, empty.json.message]).toEqual([422, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{""}: supported values: "All"']);
    expect((await req(s, "GET", `${cmPath}/xor`)).status).toBe(200);
  });

  it("dry-runs a delete: nothing removed, no watch event", async () => {
    const o = await owner("dry");
    const w = watchEvents(s, `${cmPath}?watch=1&resourceVersion=${o.metadata.resourceVersion}&fieldSelector=metadata.name%3Ddry`, (e) => e.length > 0);
    const d = await req(s, "DELETE", `${cmPath}/dry?dryRun=All`);
    expect(d.status).toBe(200);
    expect((await req(s, "GET", `${cmPath}/dry`)).status).toBe(200);
    const dc = await req(s, "DELETE", `${cmPath}?dryRun=All&fieldSelector=metadata.name%3Ddry`);
    expect(dc.json.items.map((i: any) => i.metadata.name)).toEqual(["dry"]);
    expect((await req(s, "GET", `${cmPath}/dry`)).status).toBe(200);
    // A real change afterwards must be the first event the watch sees.
    await req(s, "PATCH", `${cmPath}/dry`, { body: { data: { sentinel: "1" } }, headers: { "content-type": "application/merge-patch+json" } });
    expect((await w).map((e) => `${e.type} ${e.object.metadata.name} ${e.object.data?.sentinel}`)).toEqual(["MODIFIED dry 1"]);
  });

  it("removes a corrupt object only with ignoreStoreReadErrorWithClusterBreakingPotential", async () => {
    await owner("corrupt");
    const key = "/registry/configmaps/default/corrupt";
    await s.storage.update(key, "{not json", 0);
    const normal = await req(s, "DELETE", `${cmPath}/corrupt`);
    expect(normal.status).toBe(500);
    expect(normal.json.message).toMatch(/^Internal error occurred: StorageError: corrupt object, Code: 7, Key: \/registry\/configmaps\/default\/corrupt, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=\d+: couldn't get version\/kind; json parse error: invalid character 'n' looking for beginning of object key string$/);
    const unsafe = await req(s, "DELETE", `${cmPath}/corrupt?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(unsafe.status).toBe(200);
    expect(unsafe.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "corrupt", kind: "ConfigMap" } });
    expect(await s.storage.get(key)).toBeUndefined();
  });
});

describe("unsafe deletion without its gate", () => {
  let s: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => s?.stop());
  it("is ignored, as upstream drops the option: a readable object is deleted as usual, a corrupt one stays", async () => {
    await req(s, "POST", cmPath, { body: { metadata: { name: "x" } } });
    const r = await req(s, "DELETE", `${cmPath}/x?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(r.status).toBe(200);
    expect((await req(s, "GET", `${cmPath}/x`)).status).toBe(404);
    await req(s, "POST", cmPath, { body: { metadata: { name: "broken" } } });
    await s.storage.update("/registry/configmaps/default/broken", "{not json", 0);
    const corrupt = await req(s, "DELETE", `${cmPath}/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(corrupt.status).toBe(500);
    expect(await s.storage.get("/registry/configmaps/default/broken")).toBeDefined();
  });
});
