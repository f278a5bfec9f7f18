// The foundation end to end: a real server on loopback, driven over raw HTTPS.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, watchEvents, type EmbeddedTestServer } from "./support/client.js";
import { createNamespace } from "./support/namespaces.js";

let s: EmbeddedTestServer;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
});
afterAll(async () => {
  await s?.stop();
});

const cm = (name: string, data: Record<string, string> = { a: "1" }, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe("health and version", () => {
  it("answers livez, readyz, healthz with verbose and exclude", async () => {
    for (const ep of ["livez", "readyz", "healthz"]) {
      const plain = await req(s, "GET", `/${ep}`);
      expect(plain.status).toBe(200);
      expect(plain.text).toBe("ok");
      const v = await req(s, "GET", `/${ep}?verbose`);
      expect(v.text).toContain("[+]ping ok");
      expect(v.text.trim().endsWith(`${ep} check passed`)).toBe(true);
      // Present at all is verbose, as upstream: it checks for the parameter, not its value.
      expect((await req(s, "GET", `/${ep}?verbose=false`)).text).toContain("[+]ping ok");
      const ex = await req(s, "GET", `/${ep}?verbose&exclude=etcd`);
      expect(ex.text).toContain("[+]etcd excluded: ok");
    }
    expect((await req(s, "GET", "/readyz/ping")).text).toBe("ok");
    expect((await req(s, "GET", "/readyz/nosuchcheck")).status).toBe(404);
  });

  it("reports Kubernetes 1.34", async () => {
    const r = await req(s, "GET", "/version");
    expect(r.json.major).toBe("1");
    expect(r.json.minor).toBe("34");
    expect(r.json.gitVersion).toMatch(/^v1\.34\./);
  });

  it("has the default namespaces", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces");
    const names = r.json.items.map((n: any) => n.metadata.name).sort();
    expect(names).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    expect(r.json.items[0].status.phase).toBe("Active");
    expect(r.json.items[0].spec.finalizers).toEqual(["kubernetes"]);
  });
});

describe("create, get, update, delete", () => {
  it("creates with server-set metadata and rejects a duplicate", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("c1") });
    expect(r.status).toBe(201);
    expect(r.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(r.json.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(Object.keys(r.json).slice(0, 3)).toEqual(["kind", "apiVersion", "metadata"]);
    const dup = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("c1") });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ kind: "Status", status: "Failure", reason: "AlreadyExists", code: 409, message: 'configmaps "c1" already exists', details: { name: "c1", kind: "configmaps" } });
    const got = await req(s, "GET", "/api/v1/namespaces/default/configmaps/c1");
    expect(got.json.data).toEqual({ a: "1" });
  });

  it("generates names from generateName", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { generateName: "gen-" }, data: {} } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("validates names with upstream's message", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("Bad_Name") });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe("Invalid");
    expect(r.json.details.causes[0]).toMatchObject({ reason: "FieldValueInvalid", field: "metadata.name" });
    expect(r.json.message).toMatch(/^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });

  it("refuses creates in a missing namespace and a mismatched body namespace", async () => {
    const missing = await req(s, "POST", "/api/v1/namespaces/nope/configmaps", { body: cm("x") });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('namespaces "nope" not found');
    const mismatch = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { ...cm("x"), metadata: { name: "x", namespace: "kube-system" } } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.reason).toBe("BadRequest");
  });

  it("updates with optimistic concurrency", async () => {
    const created = (await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("c2") })).json;
    const upd = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/c2", { body: { ...created, data: { a: "2" } } });
    expect(upd.status).toBe(200);
    expect(upd.json.data.a).toBe("2");
    expect(upd.json.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    const stale = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/c2", { body: { ...created, data: { a: "3" } } });
    expect(stale.status).toBe(409);
    expect(stale.json.reason).toBe("Conflict");
    expect(stale.json.message).toContain("the object has been modified");
  });

  it("keeps generation on spec changes only and separates /status", async () => {
    const dep = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d1" },
      spec: { replicas: 1, selector: { matchLabels: { app: "d" } }, template: { metadata: { labels: { app: "d" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
      status: { replicas: 5 },
    };
    const c = await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: dep });
    expect(c.status).toBe(201);
    expect(c.json.metadata.generation).toBe(1);
    // The client's status is dropped: a created Deployment's is the zero DeploymentStatus, {}.
    expect(c.json.status).toEqual({});
    const meta = await req(s, "PUT", "/apis/apps/v1/namespaces/default/deployments/d1", { body: { ...c.json, metadata: { ...c.json.metadata, labels: { x: "y" } } } });
    expect(meta.json.metadata.generation).toBe(1);
    const spec = await req(s, "PUT", "/apis/apps/v1/namespaces/default/deployments/d1", { body: { ...meta.json, spec: { ...meta.json.spec, replicas: 3 }, status: { replicas: 9 } } });
    expect(spec.json.metadata.generation).toBe(2);
    expect(spec.json.status).toEqual({});
    const st = await req(s, "PUT", "/apis/apps/v1/namespaces/default/deployments/d1/status", { body: { ...spec.json, spec: { ...spec.json.spec, replicas: 7 }, status: { replicas: 3 } } });
    expect(st.status).toBe(200);
    expect(st.json.status).toEqual({ replicas: 3 });
    expect(st.json.spec.replicas).toBe(3);
    expect(st.json.metadata.generation).toBe(2);
  });

  it("deletes at once without finalizers, waits for finalizers otherwise", async () => {
    await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("gone") });
    const d = await req(s, "DELETE", "/api/v1/namespaces/default/configmaps/gone");
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "gone", kind: "configmaps" } });
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/gone")).status).toBe(404);

    const f = (await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { ...cm("fin"), metadata: { name: "fin", finalizers: ["example.com/hold"] } } })).json;
    const d2 = await req(s, "DELETE", "/api/v1/namespaces/default/configmaps/fin");
    expect(d2.status).toBe(200);
    expect(d2.json.metadata.deletionTimestamp).toBeDefined();
    const still = (await req(s, "GET", "/api/v1/namespaces/default/configmaps/fin")).json;
    expect(still.metadata.deletionTimestamp).toBeDefined();
    expect(still.metadata.uid).toBe(f.metadata.uid);
    const cleared = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/fin", { body: { ...still, metadata: { ...still.metadata, finalizers: [] } } });
    expect(cleared.status).toBe(200);
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/fin")).status).toBe(404);
  });

  it("deletes a namespace with its content", async () => {
    expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "doomed" } } })).status).toBe(201);
    await req(s, "POST", "/api/v1/namespaces/doomed/configmaps", { body: cm("inside") });
    const d = await req(s, "DELETE", "/api/v1/namespaces/doomed");
    expect(d.status).toBe(200);
    expect(d.json.status.phase).toBe("Terminating");
    const late = await req(s, "POST", "/api/v1/namespaces/doomed/configmaps", { body: cm("late") });
    if (late.status !== 404) {
      expect(late.status).toBe(403);
      expect(late.json.message).toContain("because it is being terminated");
    }
    await s.settle(); // the namespace controller has deleted the content, then the namespace
    expect((await req(s, "GET", "/api/v1/namespaces/doomed")).status).toBe(404);
    expect((await req(s, "GET", "/api/v1/namespaces/doomed/configmaps/inside")).status).toBe(404);
  });
});

describe("list, selectors, paging, watch", () => {
  beforeAll(async () => {
    await createNamespace(s, "sel"); // with kube-root-ca.crt, which has no labels
    for (let i = 0; i < 10; i++) {
      await req(s, "POST", "/api/v1/namespaces/sel/configmaps", { body: cm(`m${i}`, { i: String(i) }, { tier: i % 2 ? "odd" : "even", n: String(i) }) });
    }
  });

  it("filters with every label operator", async () => {
    const names = async (sel: string) =>
      (await req(s, "GET", `/api/v1/namespaces/sel/configmaps?labelSelector=${encodeURIComponent(sel)}`)).json.items.map((i: any) => i.metadata.name);
    expect(await names("tier=odd")).toHaveLength(5);
    expect(await names("tier==odd")).toHaveLength(5);
    expect(await names("tier!=odd")).toHaveLength(6); // the unlabelled kube-root-ca.crt too
    expect(await names("n in (1,2,3)")).toEqual(["m1", "m2", "m3"]);
    expect(await names("n notin (1,2,3),tier")).toHaveLength(7);
    expect(await names("!tier")).toEqual(["kube-root-ca.crt"]);
    const bad = await req(s, "GET", `/api/v1/namespaces/sel/configmaps?labelSelector=${encodeURIComponent("a in (")}`);
    expect(bad.status).toBe(400);
  });

  it("filters with field selectors and rejects unsupported fields", async () => {
    const r = await req(s, "GET", "/api/v1/configmaps?fieldSelector=metadata.namespace%3Dsel,metadata.name%3Dm3");
    expect(r.json.items.map((i: any) => i.metadata.name)).toEqual(["m3"]);
    const bad = await req(s, "GET", "/api/v1/configmaps?fieldSelector=spec.foo%3Dbar");
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("field label not supported: spec.foo");
  });

  it("pages a consistent snapshot", async () => {
    const first = (await req(s, "GET", "/api/v1/namespaces/sel/configmaps?limit=4")).json;
    expect(first.items).toHaveLength(4);
    expect(first.metadata.remainingItemCount).toBe(7);
    await req(s, "POST", "/api/v1/namespaces/sel/configmaps", { body: cm("m99") });
    const second = (await req(s, "GET", `/api/v1/namespaces/sel/configmaps?limit=4&continue=${encodeURIComponent(first.metadata.continue)}`)).json;
    const third = (await req(s, "GET", `/api/v1/namespaces/sel/configmaps?limit=4&continue=${encodeURIComponent(second.metadata.continue)}`)).json;
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(third.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(third.metadata.continue).toBeUndefined();
    const all = [...first.items, ...second.items, ...third.items].map((i: any) => i.metadata.name);
    expect(all).toHaveLength(11);
    expect(all).not.toContain("m99");
    expect((await req(s, "GET", "/api/v1/namespaces/sel/configmaps?limit=4&continue=garbage")).status).toBe(400);
  });

  it("watches from a resourceVersion", async () => {
    const list = (await req(s, "GET", "/api/v1/namespaces/sel/configmaps")).json;
    const p = watchEvents(s, `/api/v1/namespaces/sel/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`, (ev) => ev.length >= 2);
    await p.opened;
    await req(s, "POST", "/api/v1/namespaces/sel/configmaps", { body: cm("w1") });
    await req(s, "DELETE", "/api/v1/namespaces/sel/configmaps/w1");
    const events = await p;
    expect(events.map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect(events[0].object.metadata.name).toBe("w1");
  });
});

describe("wire basics", () => {
  it("speaks YAML both ways", async () => {
    const y = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\n";
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: y, headers: { "content-type": "application/yaml", accept: "application/yaml" } });
    expect(r.status).toBe(201);
    expect(r.headers["content-type"]).toBe("application/yaml");
    expect(r.text).toContain("name: yml");
  });

  it("negotiates Accept with fallback and answers 406 / 415", async () => {
    const fb = await req(s, "GET", "/api/v1/namespaces/default/configmaps", { headers: { accept: "application/x-nope, application/json" } });
    expect(fb.status).toBe(200);
    const na = await req(s, "GET", "/api/v1/namespaces/default/configmaps", { headers: { accept: "text/x-nope" } });
    expect(na.status).toBe(406);
    expect(na.json.reason).toBe("NotAcceptable");
    const um = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: "x", headers: { "content-type": "text/x-nope" } });
    expect(um.status).toBe(415);
    expect(um.json.reason).toBe("UnsupportedMediaType");
  });

  it("rejects malformed and mistyped bodies with 400 and oversized ones with 413", async () => {
    const bad = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: "{not json" });
    expect(bad.status).toBe(400);
    const wrong = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" } } });
    expect(wrong.status).toBe(400);
    const big = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "big" }, data: { a: "x".repeat(3 * 1024 * 1024 + 10) } } });
    expect(big.status).toBe(413);
    expect((await req(s, "GET", "/readyz")).status).toBe(200);
  });

  it("pretty-prints on request and gzips large responses", async () => {
    const p = await req(s, "GET", "/api/v1/namespaces/default?pretty=true");
    expect(p.text).toContain('\n  "kind": "Namespace"');
    // pretty is read with Go's ParseBool: its spellings of true, anything else false; empty leaves it to the User-Agent.
    for (const yes of ["True", "1", "t"]) expect((await req(s, "GET", `/api/v1/namespaces/default?pretty=${yes}`)).text, yes).toContain('\n  "kind"');
    for (const no of ["yes", "false", "0"]) expect((await req(s, "GET", `/api/v1/namespaces/default?pretty=${no}`, { headers: { "user-agent": "curl/8.0" } })).text, no).not.toContain("\n  ");
    expect((await req(s, "GET", "/api/v1/namespaces/default?pretty=", { headers: { "user-agent": "curl/8.0" } })).text).toContain('\n  "kind"');
    for (let i = 0; i < 40; i++) await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: cm(`bulk${i}`, { v: "y".repeat(5000) }) });
    const g = await req(s, "GET", "/api/v1/namespaces/default/configmaps", { headers: { "accept-encoding": "gzip" } });
    expect(g.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(g.body).toString()).items.length).toBeGreaterThan(40);
  });

  it("answers unknown paths and verbs with Status errors", async () => {
    const nf = await req(s, "GET", "/api/v1/nosuchresources");
    expect(nf.status).toBe(404);
    expect(nf.json.kind).toBe("Status");
    const ns = await req(s, "DELETE", "/api/v1/namespaces");
    expect(ns.status).toBe(405);
    expect(ns.json).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 });
  });
});

describe("PUT of a missing object", () => {
  it("creates it where upstream allows (leases, RBAC) and answers 404 elsewhere", async () => {
    const lease = await req(s, "PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l1", { body: { metadata: { name: "l1" }, spec: { holderIdentity: "me" } } });
    expect(lease.status).toBe(201);
    expect(lease.json.spec.holderIdentity).toBe("me");
    const role = await req(s, "PUT", "/apis/rbac.authorization.k8s.io/v1/clusterroles/r1", { body: { metadata: { name: "r1" }, rules: [] } });
    expect(role.status).toBe(201);
    const cm = await req(s, "PUT", "/api/v1/namespaces/default/configmaps/absent", { body: { metadata: { name: "absent" } } });
    expect(cm.status).toBe(404);
  });
});
