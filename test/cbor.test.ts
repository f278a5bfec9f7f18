// CBOR behind the CBORServingAndStorage gate: custom resources and built-in objects accepted and
// served as application/cbor (self-described, byte-string keys), watch streams as
// application/cbor-seq, errors as CBOR Status; without the gate the media type is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeCbor, decodeCborSequence, encodeCbor } from "../src/encoding/cbor.js";
import { req, startTestServer, type EmbeddedTestServer, type TestServer } from "./support/client.js";
import { crontabCRD } from "./support/crd.js";

let on: EmbeddedTestServer;
let off: TestServer;
const cbor = { "content-type": "application/cbor", accept: "application/cbor" };
const crontabs = "/apis/stable.example.com/v1/namespaces/default/crontabs";

beforeAll(async () => {
  [on, off] = await Promise.all([startTestServer({ options: { featureGates: "CBORServingAndStorage=true" } }), startTestServer()]);
  expect((await req(on, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crontabCRD() })).status).toBe(201);
  await on.settle(); // the CRD is established and served
  expect((await req(on, "GET", crontabs)).status).toBe(200);
});
afterAll(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
});

const crontab = (name: string) => ({ apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name }, spec: { cronSpec: "* * * * *", image: "img" } });

describe("CBOR with the gate on", () => {
  it("creates and reads a custom resource in CBOR, the same object JSON shows (defaults applied)", async () => {
    const created = await req(on, "POST", crontabs, { body: encodeCbor(crontab("c1")), headers: cbor });
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toBe("application/cbor");
    expect(created.body.subarray(0, 3).toString("hex")).toBe("d9d9f7");
    const fromCbor = decodeCbor(created.body) as any;
    expect(fromCbor.spec).toEqual({ cronSpec: "* * * * *", image: "img", replicas: 1 });
    const got = await req(on, "GET", `${crontabs}/c1`, { headers: { accept: "application/cbor" } });
    expect(decodeCbor(got.body)).toEqual((await req(on, "GET", `${crontabs}/c1`)).json);
    const list = decodeCbor((await req(on, "GET", crontabs, { headers: { accept: "application/cbor" } })).body) as any;
    expect(list.kind).toBe("CronTabList");
    expect(list.items.map((i: any) => i.metadata.name)).toEqual(["c1"]);
  });

  it("serves built-in objects in CBOR too, and answers errors as a CBOR Status", async () => {
    const cm = await req(on, "POST", "/api/v1/namespaces/default/configmaps", { body: encodeCbor({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { k: "v" } }), headers: cbor });
    expect(cm.status).toBe(201);
    expect((decodeCbor(cm.body) as any).data).toEqual({ k: "v" });
    const missing = await req(on, "GET", `${crontabs}/nope`, { headers: { accept: "application/cbor" } });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toBe("application/cbor");
    expect(decodeCbor(missing.body)).toMatchObject({ kind: "Status", reason: "NotFound", code: 404 });
  });

  it("refuses a body with a duplicate key and a CBOR Table", async () => {
    const dup = Buffer.from("d9d9f7a2446b696e644143446b696e644144", "hex");
    const r = await req(on, "POST", crontabs, { body: dup, headers: cbor });
    expect(r.status).toBe(400);
    expect((decodeCbor(r.body) as any).message).toContain('found duplicate map key "kind"');
    const table = await req(on, "GET", crontabs, { headers: { accept: "application/cbor;as=Table;v=v1;g=meta.k8s.io" } });
    expect(table.status).toBe(406);
  });

  it("streams a watch as a CBOR sequence of WatchEvents", async () => {
    const rv = (await req(on, "GET", crontabs)).json.metadata.resourceVersion;
    const watching = req(on, "GET", `${crontabs}?watch=1&resourceVersion=${rv}&timeoutSeconds=2`, { headers: { accept: "application/cbor" } });
    // No wait for the stream to open: a watch from `rv` is sent every change after it, made before or after it opened.
    await req(on, "POST", crontabs, { body: crontab("c2") });
    await req(on, "DELETE", `${crontabs}/c2`);
    const w = await watching;
    expect(w.headers["content-type"]).toBe("application/cbor-seq");
    const items = decodeCborSequence(w.body) as any[];
    expect(w.body.subarray(0, 3).toString("hex")).toBe("d9d9f7");
    expect(items.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED c2", "DELETED c2"]);
  });

  it("applies a configuration sent as application/apply-patch+cbor, with conflicts and force as for YAML", async () => {
    const applyCbor = { "content-type": "application/apply-patch+cbor" };
    const path = "/api/v1/namespaces/default/configmaps/applied";
    const config = (value: string) => encodeCbor({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { key: value } });
    const created = await req(on, "PATCH", `${path}?fieldManager=first`, { body: config("one"), headers: applyCbor });
    expect(created.status).toBe(201);
    expect(created.json.data).toEqual({ key: "one" });
    expect(created.json.metadata.managedFields).toMatchObject([{ manager: "first", operation: "Apply", fieldsV1: { "f:data": { "f:key": {} } } }]);
    const conflict = await req(on, "PATCH", `${path}?fieldManager=second`, { body: config("two"), headers: applyCbor });
    expect(conflict.status).toBe(409);
    expect(conflict.json.message).toContain('conflict with "first"');
    const forced = await req(on, "PATCH", `${path}?fieldManager=second&force=true`, { body: config("two"), headers: applyCbor });
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ key: "two" });
    const notAMap = await req(on, "PATCH", `${path}?fieldManager=first`, { body: encodeCbor(["not", "a", "map"]), headers: applyCbor });
    expect(notAMap.status).toBe(400);
  });

  it("names apply-patch+cbor among a custom resource's patch types, where strategic merge is not one", async () => {
    const r = await req(on, "PATCH", `${crontabs}/c1`, { body: "{}", headers: { "content-type": "application/strategic-merge-patch+json" } });
    expect(r.status).toBe(415);
    expect(r.json.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor",
    );
  });

  it("names apply-patch+cbor among the accepted patch types", async () => {
    const r = await req(on, "PATCH", "/api/v1/namespaces/default/configmaps/cm", { body: "{}", headers: { "content-type": "application/cbor" } });
    expect(r.status).toBe(415);
    expect(r.json.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor",
    );
  });
});

describe("CBOR with the gate off (the default)", () => {
  it("refuses CBOR bodies (415) and CBOR answers (406)", async () => {
    const body = await req(off, "POST", "/api/v1/namespaces/default/configmaps", { body: encodeCbor({ metadata: { name: "x" } }), headers: { "content-type": "application/cbor" } });
    expect(body.status).toBe(415);
    expect((await req(off, "GET", "/api/v1/namespaces/default/configmaps", { headers: { accept: "application/cbor" } })).status).toBe(406);
  });

  it("refuses an apply configuration in CBOR (415), naming only the other patch types", async () => {
    const config = encodeCbor({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { key: "one" } });
    const r = await req(off, "PATCH", "/api/v1/namespaces/default/configmaps/applied?fieldManager=first", { body: config, headers: { "content-type": "application/apply-patch+cbor" } });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType", code: 415 });
    expect(r.json.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
    );
    expect((await req(off, "GET", "/api/v1/namespaces/default/configmaps/applied")).status).toBe(404);
  });
});
