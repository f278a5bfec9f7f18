// A CustomResourceDefinition created through the API becomes a served API within a second: kubectl
// (apply, get by plural/short name with printer columns, explain, scale, delete), client-node and
// discovery; unknown fields are pruned per field validation, defaults applied, schema violations
// answered 422 with every violation; deleting the CRD removes the API.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { req } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { crontabCRD } from "./support/crd.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const aggregated = { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" };
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

let s: PartsServer;
let dir: string;
let api: CustomObjectsApi;

beforeAll(async () => {
  s = await startTuned();
  dir = mkdtempSync(join(tmpdir(), "kapi-crd-serving-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  api = kc.makeApiClient(CustomObjectsApi);
});
afterAll(async () => {
  await s?.stop();
});

let cacheN = 0;
/** kubectl with a fresh discovery cache each call (the API changes between calls). */
function k(args: string[], stdin?: string) {
  return kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, `cache${cacheN++}`)}`, ...args], stdin);
}

/** `fn`'s answer once the CRD controllers have settled (asked once), with the time settling took. */
async function settled<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  await s.settle();
  const ms = performance.now() - t0;
  return { value: await fn(), ms };
}

const ct = (name: string, spec: Record<string, unknown>) => ({ apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name, namespace: "default" }, spec });
const base = "/apis/stable.example.com/v1/namespaces/default/crontabs";

describe("a CRD created through the API", () => {
  it("is served within a second: discovery (legacy and aggregated) and its paths", async () => {
    const created = await req(s, "POST", crdPath, { body: crontabCRD() });
    expect(created.status).toBe(201);
    const { ms } = await settled(async () => {
      const r = await req(s, "GET", base);
      if (r.status !== 200) throw new Error(`status ${r.status}`);
      return r;
    });
    expect(ms).toBeLessThan(1000);
    const legacy = await req(s, "GET", "/apis/stable.example.com/v1");
    const res = legacy.json.resources.find((r: any) => r.name === "crontabs");
    expect(res).toMatchObject({ singularName: "crontab", namespaced: true, kind: "CronTab", shortNames: ["crx"], categories: ["all", "kapi"] });
    expect(legacy.json.resources.map((r: any) => r.name)).toEqual(["crontabs", "crontabs/scale", "crontabs/status"]);
    const agg = await req(s, "GET", "/apis", { headers: aggregated });
    const entry = agg.json.items.find((g: any) => g.metadata.name === "stable.example.com");
    expect(entry.versions[0].resources[0]).toMatchObject({ resource: "crontabs", shortNames: ["crx"], categories: ["all", "kapi"] });
  });

  it("creates with defaults, prunes unknown fields per field validation, and answers 422 with every violation", async () => {
    const warned = await req(s, "POST", base, { body: ct("c1", { cronSpec: "* * * * */5", image: "img", foo: 1 }) });
    expect(warned.status).toBe(201);
    expect(warned.json.spec).toEqual({ cronSpec: "* * * * */5", image: "img", replicas: 1 });
    expect(String(warned.headers.warning)).toContain('unknown field \\"spec.foo\\"');
    const strict = await req(s, "POST", `${base}?fieldValidation=Strict`, { body: ct("c2", { cronSpec: "* * * * */5", foo: 1 }) });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.foo"');
    // Duplicates and unknown fields together: upstream's unstructured decoder lists the duplicates first.
    const dupBody = '{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c5","name":"c5","namespace":"default"},"spec":{"cronSpec":"* * * * *","foo":1,"replicas":1,"replicas":2}}';
    const both = await req(s, "POST", `${base}?fieldValidation=Strict`, { body: dupBody });
    expect(both.status).toBe(400);
    expect(both.json.message).toBe(
      'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: duplicate field "metadata.name", duplicate field "spec.replicas", unknown field "spec.foo"',
    );
    const bad = await req(s, "POST", base, { body: ct("c3", { cronSpec: "nope", image: "x".repeat(21), replicas: 11, color: "green" }) });
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes.map((c: any) => c.field)).toEqual(["spec.cronSpec", "spec.image", "spec.replicas", "spec.color"]);
    expect(bad.json.message).toContain('spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10');
    expect(bad.json.message).toContain('spec.color: Unsupported value: "green": supported values: "red", "blue"');
    const missing = await req(s, "POST", base, { body: ct("c4", {}) });
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe('CronTab.stable.example.com "c4" is invalid: spec.cronSpec: Required value');
    const badName = await req(s, "POST", base, { body: ct("Bad_Name", { cronSpec: "* * * * *" }) });
    expect(badName.status).toBe(422);
    expect(badName.json.details.causes[0].field).toBe("metadata.name");
  });

  it("ignores status on the main resource; /status changes only status; generation follows spec", async () => {
    const got = (await req(s, "GET", `${base}/c1`)).json;
    expect(got.metadata.generation).toBe(1);
    const st = await req(s, "PUT", `${base}/c1/status`, { body: { ...got, spec: { cronSpec: "1 * * * *" }, status: { replicas: 1, selector: "app=c1" } } });
    expect(st.status).toBe(200);
    expect(st.json.spec.cronSpec).toBe("* * * * */5");
    expect(st.json.status).toEqual({ replicas: 1, selector: "app=c1" });
    expect(st.json.metadata.generation).toBe(1);
    const main = await req(s, "PUT", `${base}/c1`, { body: { ...st.json, spec: { ...st.json.spec, image: "img2" }, status: { replicas: 9 } } });
    expect(main.json.status).toEqual({ replicas: 1, selector: "app=c1" });
    expect(main.json.metadata.generation).toBe(2);
  });

  it("refuses protobuf (406/415) and strategic merge patch (415)", async () => {
    expect((await req(s, "GET", `${base}/c1`, { headers: { accept: "application/vnd.kubernetes.protobuf" } })).status).toBe(406);
    const smp = await req(s, "PATCH", `${base}/c1`, { body: { spec: { image: "x" } }, headers: { "content-type": "application/strategic-merge-patch+json" } });
    expect(smp.status).toBe(415);
  });

  it("selects by metadata.name and by its selectableFields", async () => {
    await req(s, "POST", base, { body: ct("c5", { cronSpec: "* * * * *", color: "blue" }) });
    const blue = await req(s, "GET", `${base}?fieldSelector=spec.color%3Dblue`);
    expect(blue.json.items.map((i: any) => i.metadata.name)).toEqual(["c5"]);
    const byName = await req(s, "GET", `${base}?fieldSelector=metadata.name%3Dc1`);
    expect(byName.json.items.map((i: any) => i.metadata.name)).toEqual(["c1"]);
    const unknown = await req(s, "GET", `${base}?fieldSelector=spec.image%3Dx`);
    expect(unknown.status).toBe(400);
  });
});

describe("widening", () => {
  const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  const served = (path: string) => settled(async () => {
    const r = await req(s, "GET", path);
    if (r.status !== 200) throw new Error(`status ${r.status}`);
  });

  it("evaluates CEL rules (x-kubernetes-validations) with oldSelf on update", async () => {
    const crd = crontabCRD("cel.example.com", "rules", "Rule");
    const spec = (crd.spec.versions[0].schema.openAPIV3Schema.properties as any).spec;
    spec["x-kubernetes-validations"] = [
      { rule: "self.replicas <= 5", message: "at most five" },
      { rule: "self.cronSpec == oldSelf.cronSpec", message: "cronSpec is immutable" },
    ];
    expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
    const path = "/apis/cel.example.com/v1/namespaces/default/rules";
    await served(path);
    const body = { apiVersion: "cel.example.com/v1", kind: "Rule", metadata: { name: "r1" }, spec: { cronSpec: "* * * * *", replicas: 6 } };
    const bad = await req(s, "POST", path, { body });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe('Rule.cel.example.com "r1" is invalid: spec: Invalid value: "object": at most five');
    const ok = await req(s, "POST", path, { body: { ...body, spec: { cronSpec: "* * * * *", replicas: 2 } } });
    expect(ok.status).toBe(201);
    const upd = await req(s, "PUT", `${path}/r1`, { body: { ...ok.json, spec: { ...ok.json.spec, cronSpec: "1 * * * *" } } });
    expect(upd.status).toBe(422);
    expect(upd.json.message).toContain("cronSpec is immutable");
  });

  it("serves every served version, answering in the requested apiVersion", async () => {
    const crd = crontabCRD("multi.example.com", "multis", "Multi");
    const v1 = crd.spec.versions[0];
    crd.spec.versions = [{ ...v1, name: "v1beta1", storage: false }, v1];
    expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
    await served("/apis/multi.example.com/v1beta1/multis");
    await served("/apis/multi.example.com/v1/multis");
    const made = await req(s, "POST", "/apis/multi.example.com/v1beta1/namespaces/default/multis", { body: { apiVersion: "multi.example.com/v1beta1", kind: "Multi", metadata: { name: "m1" }, spec: { cronSpec: "* * * * *" } } });
    expect(made.status).toBe(201);
    expect((await req(s, "GET", "/apis/multi.example.com/v1/namespaces/default/multis/m1")).json.apiVersion).toBe("multi.example.com/v1");
    expect((await req(s, "GET", "/apis/multi.example.com")).json.preferredVersion.version).toBe("v1");
  });

  it("server-side apply: lists atomic by default, merged by key with x-kubernetes-list-type map", async () => {
    const crd = crontabCRD("ssa.example.com", "appliers", "Applier");
    const props = (crd.spec.versions[0].schema.openAPIV3Schema.properties as any).spec.properties;
    props.ports = { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } } };
    expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
    const path = "/apis/ssa.example.com/v1/namespaces/default/appliers";
    await served(path);
    const apply = (manager: string, spec: unknown) =>
      req(s, "PATCH", `${path}/a1?fieldManager=${manager}`, { body: { apiVersion: "ssa.example.com/v1", kind: "Applier", metadata: { name: "a1" }, spec }, headers: { "content-type": "application/apply-patch+yaml" } });
    expect((await apply("one", { cronSpec: "* * * * *", tags: ["a"], ports: [{ name: "http", port: 80 }] })).status).toBe(201);
    const second = await apply("two", { tags: ["b"], ports: [{ name: "https", port: 443 }] });
    expect(second.status).toBe(409); // tags is atomic: owned by "one"
    const forced = await req(s, "PATCH", `${path}/a1?fieldManager=two&force=true`, { body: { apiVersion: "ssa.example.com/v1", kind: "Applier", metadata: { name: "a1" }, spec: { tags: ["b"], ports: [{ name: "https", port: 443 }] } }, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(forced.status).toBe(200);
    expect(forced.json.spec.tags).toEqual(["b"]);
    expect(forced.json.spec.ports).toEqual([{ name: "http", port: 80 }, { name: "https", port: 443 }]);
  });

  it("deleting the CRD deletes its objects, then its API", async () => {
    expect((await req(s, "DELETE", `${crdPath}/multis.multi.example.com`)).status).toBe(200);
    await settled(async () => {
      if ((await req(s, "GET", "/apis/multi.example.com/v1/multis")).status !== 404) throw new Error("still served");
    });
    expect((await req(s, "GET", "/apis/multi.example.com")).status).toBe(404);
    const crd = crontabCRD("multi.example.com", "multis", "Multi");
    expect((await req(s, "POST", crdPath, { body: crd })).status).toBe(201);
    await served("/apis/multi.example.com/v1/multis");
    expect((await req(s, "GET", "/apis/multi.example.com/v1/multis")).json.items).toEqual([]);
  });
});
