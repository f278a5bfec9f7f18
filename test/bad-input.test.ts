// Bad input gets a Kubernetes Status error (4xx), never a crash, a hang or a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { crontabCRD } from "./support/crd.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
});
afterAll(async () => s?.stop());

const cases: [string, string, { body?: unknown; headers?: Record<string, string> }?][] = [
  ["GET", "/api/v1/namespaces/default/pods?limit=abc"],
  ["GET", "/api/v1/namespaces/default/pods?resourceVersion=abc"],
  ["GET", "/api/v1/namespaces/default/pods?continue=%%%"],
  ["GET", "/api/v1/namespaces/default/pods?labelSelector=a%20in%20(b"],
  ["GET", "/api/v1/namespaces/default/pods?fieldSelector=a%3D%3D%3Db"],
  ["GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersionMatch=Bogus&resourceVersion=1"],
  ["GET", "/api/v1/namespaces/%ZZ/pods"],
  ["GET", "/apis/nope.example/v1/things"],
  ["GET", "/api/v1/namespaces/default/pods/x/y/z/w"],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0xff]), headers: { "content-type": "application/vnd.kubernetes.protobuf" } }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: Buffer.from([1, 2, 3]), headers: { "content-type": "application/vnd.kubernetes.protobuf" } }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: "- just\n- a list\n", headers: { "content-type": "application/yaml" } }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: "key: [unclosed", headers: { "content-type": "application/yaml" } }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: "null" }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: "[1,2]" }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: '{"metadata":"oops"}' }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: '{"metadata":{"name":"x","labels":"no"}}' }],
  ["POST", "/api/v1/namespaces/default/configmaps", { body: '{"metadata":{"name":"x","finalizers":"no"}}' }],
  ["POST", "/apis/apps/v1/namespaces/default/deployments", { body: '{"metadata":{"name":"d"},"spec":"weird"}' }],
  ["PATCH", "/api/v1/namespaces/default/configmaps/none", { body: "{}", headers: { "content-type": "application/strategic-merge-patch+json" } }],
  ["PATCH", "/api/v1/namespaces/default", { body: "not json", headers: { "content-type": "application/merge-patch+json" } }],
  ["PATCH", "/api/v1/namespaces/default", { body: '[{"op":"bogus"}]', headers: { "content-type": "application/json-patch+json" } }],
  ["PATCH", "/api/v1/namespaces/default", { body: '{"spec":{"finalizers":{"$patch":"bogus"}}}', headers: { "content-type": "application/strategic-merge-patch+json" } }],
  ["PATCH", "/api/v1/namespaces/default?fieldManager=x", { body: "metadata: [", headers: { "content-type": "application/apply-patch+yaml" } }],
  ["PUT", "/api/v1/namespaces/default", { body: '{"metadata":{"name":"other"}}' }],
  ["DELETE", "/api/v1/namespaces/default/configmaps/x", { body: "{bad" }],
  ["DELETE", "/api/v1/namespaces/default/configmaps/x", { body: '{"gracePeriodSeconds":"soon"}' }],
  ["POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", { body: '{"spec":"x"}' }],
];

describe("bad input", () => {
  it.each(cases)("%s %s → 4xx Status", async (method, path, o = {}) => {
    const r = await req(s, method, path, o);
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    expect(r.status, r.text).toBeLessThan(500);
    expect(r.json?.kind, r.text).toBe("Status");
  });

  it("is still healthy afterwards", async () => {
    expect((await req(s, "GET", "/readyz")).status).toBe(200);
  });
});

describe("type checks at decode", () => {
  it("an integer past its Go type's range is json's overflow error, not a stored value", async () => {
    const deployment = (name: string, replicas: number) => ({ metadata: { name }, spec: { replicas, selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } } } });
    const over = await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment("int32-over", 3_000_000_000) });
    expect([over.status, over.json.message]).toEqual([400, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32']);
    expect((await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment("int32-max", 2_147_483_647) })).status).toBe(201);
  });

  it("answers a wrongly typed field with upstream's decode error", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: '{"metadata":{"name":"t1","labels":"no"}}' });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string');
    const n = await req(s, "POST", "/apis/apps/v1/namespaces/default/deployments", { body: { metadata: { name: "t2" }, spec: { replicas: 1.5 } } });
    expect(n.status).toBe(400);
    expect(n.json.message).toContain("cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32");
    const q = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: { metadata: { name: "t3" }, spec: { containers: [{ name: "c", image: "i", resources: { limits: { cpu: 1, memory: "1Gi" } } }] } } });
    expect(q.status).toBe(201); // quantities may be numbers
  });

  // Go's decoder names the struct fields on the way to the value, not array indexes or map keys.
  it("names the struct fields on the way, as Go's decoder does, without list indexes or map keys", async () => {
    const inList = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: { metadata: { name: "t4" }, spec: { containers: [{ name: "c", image: "i" }, { name: 7, image: "i" }] } } });
    expect([inList.status, inList.json.message]).toEqual([400, 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string']);
    const inMap = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "t5", labels: { a: 1 } } } });
    expect([inMap.status, inMap.json.message]).toEqual([400, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string']);
  });
});

// A custom resource's metadata is read alone into an ObjectMeta upstream (apiextensions' GetObjectMeta).
describe("custom resource metadata at decode", () => {
  const crontabs = "/apis/stable.example.com/v1/namespaces/default/crontabs";
  beforeAll(async () => {
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crontabCRD() })).status).toBe(201);
    for (let i = 0; i < 100 && (await req(s, "GET", crontabs)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  const crontab = (metadata: unknown, spec: Record<string, unknown> = {}) => ({ apiVersion: "stable.example.com/v1", kind: "CronTab", metadata, spec: { cronSpec: "* * * * *", ...spec } });

  it("refuses a wrongly typed metadata field with that decode's words (a 400, not a 500)", async () => {
    const labels = await req(s, "POST", crontabs, { body: crontab({ name: "w1", labels: { a: 1 } }) });
    expect([labels.status, labels.json.message]).toEqual([400, 'CronTab in version "v1" cannot be handled as a CronTab: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string']);
    const time = await req(s, "POST", crontabs, { body: crontab({ name: "w2", creationTimestamp: "bad" }) });
    expect([time.status, time.json.message]).toEqual([400, 'CronTab in version "v1" cannot be handled as a CronTab: parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"']);
    const notObject = await req(s, "POST", crontabs, { body: crontab("x") });
    expect([notObject.status, notObject.json.message]).toEqual([400, 'CronTab in version "v1" cannot be handled as a CronTab: json: cannot unmarshal string into Go value of type v1.ObjectMeta']);
  });

  it("drops metadata fields ObjectMeta does not have, reported before the pruned ones", async () => {
    const strict = await req(s, "POST", `${crontabs}?fieldValidation=Strict`, { body: crontab({ name: "w3", foo: 1 }, { bar: 2 }) });
    expect([strict.status, strict.json.message]).toEqual([400, 'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "metadata.foo", unknown field "spec.bar"']);
    const warned = await req(s, "POST", crontabs, { body: crontab({ name: "w3", foo: 1 }) });
    expect(warned.status).toBe(201);
    expect(warned.headers["warning"]).toContain('unknown field \\"metadata.foo\\"');
    expect(warned.json.metadata.foo).toBeUndefined();
    expect((await req(s, "GET", `${crontabs}/w3`)).json.metadata.foo).toBeUndefined();
  });
});
