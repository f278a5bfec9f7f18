// Fault injection seen by real clients: each fault is the server's own answer to them, so the
// client's own handling (an informer's relist and re-watch, an ApiException's code and reason)
// is what runs. kubectl's retry and the Python client are in testkit-faults-clients.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiException, CoreV1Api, KubeConfig, makeInformer, type Informer, type V1ConfigMap } from "@kubernetes/client-node";
import { req, startTestServer, type TestServer } from "./support/client.js";

let s: TestServer;
let api: CoreV1Api;
let kc: KubeConfig;

beforeAll(async () => {
  // Without the root CA publisher: its kube-root-ca.crt would join each namespace's ConfigMaps at a moment of its own.
  s = await startTestServer({ storage: "memory", options: { controllers: ["*", "-root-ca-cert-publisher"] } });
  kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  api = kc.makeApiClient(CoreV1Api);
  for (const ns of ["inf-expire", "inf-drop", "errors", "commit", "slow"]) await api.createNamespace({ body: { metadata: { name: ns } } });
});
afterAll(async () => {
  await s?.stop();
});

const cm = (name: string) => ({ metadata: { name }, data: { k: "v" } });

/** An informer on one namespace's ConfigMaps, and a way to wait until its cache holds some names. */
async function informerOn(ns: string): Promise<{ informer: Informer<V1ConfigMap>; holds: (names: string[]) => Promise<void>; errors: unknown[] }> {
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => api.listNamespacedConfigMap({ namespace: ns }));
  const errors: unknown[] = [];
  informer.on("error", (e) => errors.push(e));
  const waiters: (() => void)[] = [];
  informer.on("add", () => waiters.forEach((w) => w()));
  await informer.start();
  const holds = (names: string[]) =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`informer holds ${informer.list(ns).map((o) => o.metadata!.name)} not ${names}`)), 10_000);
      const check = () => {
        const have = informer.list(ns).map((o) => o.metadata!.name!).sort();
        if (JSON.stringify(have) !== JSON.stringify([...names].sort())) return;
        clearTimeout(t);
        resolve();
      };
      waiters.push(check);
      check();
    });
  return { informer, holds, errors };
}

describe("watch faults through a client-node informer", () => {
  it("an injected 410 on watch makes the informer relist, and its cache stays correct", async () => {
    const ns = "inf-expire";
    await api.createNamespacedConfigMap({ namespace: ns, body: cm("before") });
    s.faults.add({ match: { verb: "watch", resource: "configmaps", namespace: ns }, times: 1, action: { kind: "error", code: 410 } });
    const { informer, holds, errors } = await informerOn(ns);
    // The first watch gets ERROR 410 in its stream; the informer lists again and watches again.
    await s.waitFor((e) => e.verb === "watch" && e.namespace === ns && e.fault === undefined, { timeout: 10_000 });
    await api.createNamespacedConfigMap({ namespace: ns, body: cm("after") });
    await holds(["before", "after"]);
    expect(errors).toEqual([]);
    informer.stop();
    const watches = s.journal.find({ verb: "watch", namespace: ns, resource: "configmaps" });
    expect(watches[0]!.fault).toMatchObject({ action: { kind: "error", code: 410 } });
    expect(watches[0]!.events).toEqual([{ type: "ERROR" }]);
    expect(s.journal.find({ verb: "list", namespace: ns, resource: "configmaps" })).toHaveLength(2);
  });

  it("a watch dropped after N events: the informer watches again from its last version, no relist", async () => {
    const ns = "inf-drop";
    s.faults.add({ match: { verb: "watch", namespace: ns }, times: 1, action: { kind: "dropWatch", afterEvents: 2 } });
    const { informer, holds, errors } = await informerOn(ns);
    for (const n of ["a", "b", "c"]) await api.createNamespacedConfigMap({ namespace: ns, body: cm(n) });
    await holds(["a", "b", "c"]);
    expect(errors).toEqual([]);
    informer.stop();
    const watches = s.journal.find({ verb: "watch", namespace: ns });
    expect(watches.length).toBeGreaterThanOrEqual(2);
    expect(watches[0]!.events!.map((e) => `${e.type} ${e.name}`)).toEqual(["ADDED a", "ADDED b"]);
    expect(watches[1]!.fault).toBeUndefined();
    expect(s.journal.find({ verb: "list", namespace: ns })).toHaveLength(1);
  });

  it("expireWatch sends a BOOKMARK at the last version, then ERROR 410 Expired, then ends", async () => {
    const ns = "inf-expire";
    const list = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps`);
    const rv = list.json.metadata.resourceVersion;
    s.faults.add({ match: { verb: "watch", namespace: ns }, times: 1, action: { kind: "expireWatch", afterEvents: 1 } });
    const watch = req(s, "GET", `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`);
    await s.waitFor({ verb: "watch", namespace: ns, path: `/api/v1/namespaces/${ns}/configmaps` }, { timeout: 5000 });
    const created = await api.createNamespacedConfigMap({ namespace: ns, body: cm("expiring") });
    const events = (await watch).text.trim().split("\n").map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK", "ERROR"]);
    expect(events[1].object.metadata.resourceVersion).toBe(created.metadata!.resourceVersion);
    expect(events[2].object).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/), reason: "Expired", code: 410 });
    const entry = s.journal.find({ verb: "watch", namespace: ns }).at(-1)!;
    expect(entry.events!.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK", "ERROR"]);
  });
});

describe("error Statuses, each as upstream sends it", () => {
  const path = "/api/v1/namespaces/errors/configmaps";
  beforeAll(async () => {
    await api.createNamespacedConfigMap({ namespace: "errors", body: cm("x") });
  });
  const cases: [number, Record<string, unknown>, Record<string, unknown>, Record<string, string>?][] = [
    [409, {}, { reason: "Conflict", message: 'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again', details: { name: "x", kind: "configmaps" } }],
    [422, { field: "data" }, { reason: "Invalid", message: 'ConfigMap "x" is invalid: data: Forbidden: refused by an injected fault', details: { name: "x", kind: "ConfigMap", causes: [{ reason: "FieldValueForbidden", message: "Forbidden: refused by an injected fault", field: "data" }] } }],
    [429, { retryAfterSeconds: 3 }, { reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 3 } }, { "retry-after": "3" }],
    [500, { message: "disk on fire" }, { reason: "InternalError", message: "Internal error occurred: disk on fire", details: { causes: [{ message: "disk on fire" }] } }],
    [503, {}, { reason: "ServiceUnavailable", message: "the server is currently unable to handle the request" }],
    [504, {}, { reason: "Timeout", message: "Timeout: request did not complete within the allotted timeout" }],
  ];
  it.each(cases)("%i", async (code, extra, body, headers = {}) => {
    s.faults.add({ match: { verb: "get", resource: "configmaps", name: "x" }, times: 1, action: { kind: "error", code: code as 409, ...extra } });
    const r = await req(s, "GET", `${path}/x`);
    expect(r.status).toBe(code);
    expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, ...body });
    for (const [h, v] of Object.entries(headers)) expect(r.headers[h]).toBe(v);
    expect(s.journal.find({ verb: "get", name: "x", code }).at(-1)!.fault).toMatchObject({ action: { kind: "error", code } });
    // `times: 1`: the next read is the real one.
    expect((await req(s, "GET", `${path}/x`)).status).toBe(200);
  });

  it("a 410 on list is Expired, as for a resourceVersion older than the history", async () => {
    s.faults.add({ match: { verb: "list", namespace: "errors" }, times: 1, action: { kind: "error", code: 410 } });
    const r = await req(s, "GET", `${path}?resourceVersion=5&resourceVersionMatch=NotOlderThan`);
    expect(r.status).toBe(410);
    expect(r.json).toMatchObject({ reason: "Expired", code: 410, message: expect.stringMatching(/^too old resource version: 5 \(\d+\)$/) });
  });

  it("client-node sees a 409 as an ApiException with the Status body", async () => {
    s.faults.add({ match: { verb: "update", name: "x" }, times: 1, action: { kind: "error", code: 409 } });
    const current = await api.readNamespacedConfigMap({ namespace: "errors", name: "x" });
    const e = await api.replaceNamespacedConfigMap({ namespace: "errors", name: "x", body: current }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiException);
    expect((e as ApiException<string>).code).toBe(409);
    expect(JSON.parse((e as ApiException<string>).body)).toMatchObject({ reason: "Conflict", code: 409 });
    // The retry the controller would make goes through.
    await api.replaceNamespacedConfigMap({ namespace: "errors", name: "x", body: current });
  });
});

describe("where faults meet requests", () => {
  it("only after authentication and authorization: a refused request is refused, the rule does not fire", async () => {
    const rule = s.faults.add({ match: { resource: "configmaps", namespace: "errors" }, action: { kind: "error", code: 500 } });
    try {
      expect((await req(s, "GET", "/api/v1/namespaces/errors/configmaps/x", { creds: s.as("not-a-token") })).status).toBe(401);
      expect(s.faults.list().find((r) => r.id === rule.id)!.fired).toBe(0);
      expect((await req(s, "GET", "/api/v1/namespaces/errors/configmaps/x")).status).toBe(500);
      expect(s.faults.list().find((r) => r.id === rule.id)!.fired).toBe(1);
    } finally {
      s.faults.remove(rule.id);
    }
  });

  it("not on non-resource paths (health, discovery)", async () => {
    const rule = s.faults.add({ action: { kind: "error", code: 503 } });
    try {
      expect((await req(s, "GET", "/readyz")).status).toBe(200);
      expect((await req(s, "GET", "/api/v1")).status).toBe(200);
      expect((await req(s, "GET", "/api/v1/namespaces/errors/configmaps/x")).status).toBe(503);
    } finally {
      s.faults.remove(rule.id);
    }
  });
});

describe("the other faults", () => {
  it("committed but answered with a timeout: the client gets 504, the object exists", async () => {
    s.faults.add({ match: { verb: "create", resource: "configmaps", namespace: "commit" }, times: 1, action: { kind: "timeoutAfterCommit" } });
    const e = await api.createNamespacedConfigMap({ namespace: "commit", body: cm("maybe") }).catch((x: unknown) => x);
    expect((e as ApiException<string>).code).toBe(504);
    expect(JSON.parse((e as ApiException<string>).body)).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Timeout: request did not complete within the allotted timeout", reason: "Timeout", code: 504 });
    const got = await api.readNamespacedConfigMap({ namespace: "commit", name: "maybe" });
    expect(got.data).toEqual({ k: "v" });
    expect(s.journal.find({ verb: "create", namespace: "commit" })).toMatchObject([{ code: 504, fault: { action: { kind: "timeoutAfterCommit" } } }]);
  });

  it("a write that fails is answered as it was (nothing was committed to hide)", async () => {
    s.faults.add({ match: { verb: "create", namespace: "commit" }, times: 1, action: { kind: "timeoutAfterCommit" } });
    const r = await req(s, "POST", "/api/v1/namespaces/commit/configmaps", { body: cm("maybe") });
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe("AlreadyExists");
    expect(s.journal.find({ verb: "create", namespace: "commit", code: 409 })[0]!.fault).toMatchObject({ outcome: expect.stringMatching(/^not applied/) });
  });

  it("latency is observed by the client and in the journal", async () => {
    await api.createNamespacedConfigMap({ namespace: "slow", body: cm("s") });
    s.faults.add({ match: { verb: "get", namespace: "slow" }, times: 1, action: { kind: "latency", ms: 300 } });
    const t0 = performance.now();
    await api.readNamespacedConfigMap({ namespace: "slow", name: "s" });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(295);
    const fast = performance.now();
    await api.readNamespacedConfigMap({ namespace: "slow", name: "s" });
    expect(performance.now() - fast).toBeLessThan(300);
    const [slowEntry] = s.journal.find({ verb: "get", namespace: "slow" });
    expect(slowEntry!.durationMs).toBeGreaterThanOrEqual(295);
    expect(slowEntry!.fault).toMatchObject({ action: { kind: "latency", ms: 300 } });
  });

  it("a latency beyond the request's timeout ends in the deadline's 504", async () => {
    s.faults.add({ match: { verb: "get", namespace: "slow" }, times: 1, action: { kind: "latency", ms: 5000 } });
    const t0 = performance.now();
    const r = await req(s, "GET", "/api/v1/namespaces/slow/configmaps/s?timeout=200ms");
    expect(r.status).toBe(504);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
