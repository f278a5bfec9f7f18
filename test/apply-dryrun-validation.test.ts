// Issue 6 end to end over HTTPS: the field-ownership table of server-side apply, dry run on
// every write verb, and fieldValidation levels.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, watchEvents, type TestServer } from "./support/client.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
});
afterAll(async () => s?.stop());

const base = "/apis/apps/v1/namespaces/default/deployments";
const applyYaml = (name: string, spec: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
${spec}`;
const podSpec = (name: string) => `  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: c
        image: nginx
`;
const apply = (name: string, manager: string, body: string, extra = "") =>
  req(s, "PATCH", `${base}/${name}?fieldManager=${manager}${extra}`, { body, headers: { "content-type": "application/apply-patch+yaml" } });
const managers = (obj: any) => (obj.metadata.managedFields ?? []).map((e: any) => `${e.manager}/${e.operation}`).sort();
const owns = (obj: any, manager: string, field: string) => {
  const e = (obj.metadata.managedFields ?? []).find((m: any) => m.manager === manager);
  return Boolean(e && e.fieldsV1?.["f:spec"]?.[`f:${field}`]);
};

describe("server-side apply ownership table", () => {
  it("creates with an Apply entry in FieldsV1 form", async () => {
    const r = await apply("own", "alice", applyYaml("own", `  replicas: 1\n${podSpec("own")}`));
    expect(r.status).toBe(201);
    const e = r.json.metadata.managedFields[0];
    expect(e).toMatchObject({ manager: "alice", operation: "Apply", apiVersion: "apps/v1", fieldsType: "FieldsV1" });
    expect(e.time).toMatch(/Z$/);
    expect(e.fieldsV1["f:spec"]["f:replicas"]).toEqual({});
    expect(e.fieldsV1["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"c"}']).toMatchObject({ ".": {}, "f:image": {}, "f:name": {} });
  });

  it("conflicts on a different value, with one cause per field naming the owner", async () => {
    const r = await apply("own", "bob", applyYaml("own", "  replicas: 2\n"));
    expect(r.status).toBe(409);
    expect(r.json.reason).toBe("Conflict");
    expect(r.json.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    expect(r.json.details.causes).toEqual([{ reason: "FieldManagerConflict", message: 'conflict with "alice"', field: ".spec.replicas" }]);
  });

  it("shares ownership of an equal value, and removes the field only when its last owner stops applying it", async () => {
    const shared = await apply("own", "bob", applyYaml("own", "  replicas: 1\n"));
    expect(shared.status).toBe(200);
    expect(owns(shared.json, "alice", "replicas") && owns(shared.json, "bob", "replicas")).toBe(true);
    const aliceDrops = await apply("own", "alice", applyYaml("own", podSpec("own")));
    expect(aliceDrops.json.spec.replicas).toBe(1); // bob still owns it
    expect(owns(aliceDrops.json, "alice", "replicas")).toBe(false);
    expect(owns(aliceDrops.json, "bob", "replicas")).toBe(true);
    const bobDrops = await apply("own", "bob", applyYaml("own", "  paused: true\n"));
    expect(bobDrops.json.spec.replicas).toBe(1); // defaulted again after removal (upstream: reset to its default)
    expect(owns(bobDrops.json, "bob", "replicas")).toBe(false);
  });

  it("takes ownership with force=true", async () => {
    const r = await apply("own", "carol", applyYaml("own", "  paused: false\n"), "&force=true");
    expect(r.status).toBe(200);
    expect(r.json.spec.paused).toBe(false);
    expect(owns(r.json, "carol", "paused")).toBe(true);
    expect(managers(r.json)).not.toContain("bob/Apply"); // bob owned only `paused`; a manager with no fields disappears
  });

  it("refuses force on a non-apply patch once given, false included (the option is set by its presence)", async () => {
    for (const force of ["true", "false", ""]) {
      const r = await req(s, "PATCH", `${base}/own?force=${force}`, { body: { spec: {} }, headers: { "content-type": "application/merge-patch+json" } });
      expect(r.status, force).toBe(422);
      expect(r.json.message, force).toContain("force: Forbidden: may not be specified for non-apply patch");
    }
  });

  it("records PUT and non-apply PATCH as Update and never conflicts", async () => {
    const cur = (await req(s, "GET", `${base}/own`)).json;
    const put = await req(s, "PUT", `${base}/own?fieldManager=dave`, { body: { ...cur, spec: { ...cur.spec, paused: true } } });
    expect(put.status).toBe(200);
    expect(managers(put.json)).toContain("dave/Update");
    expect(owns(put.json, "dave", "paused")).toBe(true);
    expect(owns(put.json, "carol", "paused")).toBe(false);
    const patch = await req(s, "PATCH", `${base}/own`, { body: { spec: { minReadySeconds: 5 } }, headers: { "content-type": "application/merge-patch+json", "user-agent": "eve-controller/1.0 (linux)" } });
    expect(managers(patch.json)).toContain("eve-controller/Update");
  });

  it("resets managedFields with [{}] but not with []", async () => {
    const cur = (await req(s, "GET", `${base}/own`)).json;
    const keep = await req(s, "PUT", `${base}/own`, { body: { ...cur, metadata: { ...cur.metadata, managedFields: [] } } });
    expect(keep.json.metadata.managedFields.length).toBeGreaterThan(0);
    const reset = await req(s, "PUT", `${base}/own`, { body: { ...keep.json, metadata: { ...keep.json.metadata, managedFields: [{}] } } });
    expect(reset.status).toBe(200);
    expect(reset.json.metadata.managedFields).toBeUndefined();
  });

  it("refuses an apply body carrying managedFields, and apply without fieldManager", async () => {
    const r = await apply("own", "alice", `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: own\n  managedFields: []\n`);
    expect(r.status).toBe(400);
    const nofm = await req(s, "PATCH", `${base}/own`, { body: "{}", headers: { "content-type": "application/apply-patch+yaml" } });
    expect(nofm.status).toBe(422);
  });
});

describe("dry run", () => {
  it("runs every write verb without storing or emitting events", async () => {
    const cm = "/api/v1/namespaces/default/configmaps";
    const seed = (await req(s, "POST", cm, { body: { metadata: { name: "dry-seed" }, data: { a: "1" } } })).json;
    const events = watchEvents(s, `${cm}?watch=1&resourceVersion=${seed.metadata.resourceVersion}`, (e) => e.length > 0);
    const post = await req(s, "POST", `${cm}?dryRun=All`, { body: { metadata: { name: "dry-new" }, data: { a: "1" } } });
    expect(post.status).toBe(201);
    expect(post.json.metadata.uid).toBeDefined();
    const put = await req(s, "PUT", `${cm}/dry-seed?dryRun=All`, { body: { ...seed, data: { a: "2" } } });
    expect(put.status).toBe(200);
    expect(put.json.data.a).toBe("2");
    const patch = await req(s, "PATCH", `${cm}/dry-seed?dryRun=All`, { body: { data: { a: "3" } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(patch.json.data.a).toBe("3");
    const ssa = await req(s, "PATCH", `${cm}/dry-apply?dryRun=All&fieldManager=x`, { body: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry-apply}\n", headers: { "content-type": "application/apply-patch+yaml" } });
    expect(ssa.status).toBe(201);
    expect((await req(s, "GET", `${cm}/dry-new`)).status).toBe(404);
    expect((await req(s, "GET", `${cm}/dry-apply`)).status).toBe(404);
    expect((await req(s, "GET", `${cm}/dry-seed`)).json.data.a).toBe("1");
    // A real write afterwards must be the first event the watch sees.
    await req(s, "POST", cm, { body: { metadata: { name: "dry-sentinel" } } });
    expect((await events).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED dry-sentinel"]);
    const bad = await req(s, "POST", `${cm}?dryRun=Some`, { body: { metadata: { name: "x" } } });
    expect(bad.status).toBe(422);
    // The whole list, as Go prints a []string.
    expect(bad.json.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    const badValidation = await req(s, "POST", `${cm}?fieldValidation=strict`, { body: { metadata: { name: "x" } } });
    expect([badValidation.status, badValidation.json.message]).toEqual([422, 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"']);
  });
});

describe("field validation", () => {
  const cm = "/api/v1/namespaces/default/configmaps";
  const body = '{"metadata":{"name":"fv-NAME","labels":{"a":"1"}},"data":{"k":"v"},"bogus":1,"metadata":{"name":"fv-NAME"}}';

  it("warns by default, one Warning entry per field, and drops the unknown field", async () => {
    const r = await req(s, "POST", cm, { body: body.replace(/NAME/g, "warn") });
    expect(r.status).toBe(201);
    const warnings = ([] as string[]).concat(r.headers["warning"] as string | string[]);
    expect(warnings.join("\n")).toContain('299 - "unknown field \\"bogus\\""');
    expect(warnings.join("\n")).toContain('299 - "duplicate field \\"metadata\\""');
    expect(r.json.bogus).toBeUndefined();
  });

  it("rejects with Strict listing every field, and is silent with Ignore", async () => {
    const strict = await req(s, "POST", `${cm}?fieldValidation=Strict`, { body: body.replace(/NAME/g, "strict") });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus", duplicate field "metadata"');
    const ignore = await req(s, "POST", `${cm}?fieldValidation=Ignore`, { body: body.replace(/NAME/g, "ignore") });
    expect(ignore.status).toBe(201);
    expect(ignore.headers["warning"]).toBeUndefined();
    const nested = await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict", {
      body: { metadata: { name: "fv-dep" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i", imagePolicy: "x" }] } } } },
    });
    expect(nested.status).toBe(400);
    expect(nested.json.message).toContain('unknown field "spec.template.spec.containers[0].imagePolicy"');
  });

  it("validates patches the same way", async () => {
    const r = await req(s, "PATCH", `${cm}/fv-warn?fieldValidation=Strict`, { body: { data: { x: "1" }, extra: true }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('unknown field "extra"');
  });
});

describe("field validation of YAML bodies", () => {
  it("reports duplicate keys in YAML and in apply bodies", async () => {
    const y = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fv-yaml\ndata:\n  k: a\n  k: b\n";
    const strict = await req(s, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", { body: y, headers: { "content-type": "application/yaml" } });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('duplicate field "data.k"');
    const applied = await req(s, "PATCH", "/api/v1/namespaces/default/configmaps/fv-yaml?fieldManager=m&fieldValidation=Strict", { body: y, headers: { "content-type": "application/apply-patch+yaml" } });
    expect(applied.status).toBe(400);
    expect(applied.json.message).toContain('duplicate field "data.k"');
  });
});
