// /openapi/v2: the swagger 2.0 document kubectl downloads (in gnostic protobuf) for client-side
// validation of what the server cannot validate for it — a `kind: List`, whose items kubectl
// checks one by one — and its JSON form, following the served types (custom resources too).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { crontabCRD } from "./support/crd.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { whenSettled } from "./support/settle.js";

const kubectlBin = kubectlBinary(33);
let s: EmbeddedTestServer;
let dir: string;
let cacheN = 0;
const k = (args: string[], stdin?: string) => kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, `cache${cacheN++}`)}`, ...args], stdin);

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), "kapi-openapi-v2-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
});
afterAll(async () => {
  await s?.stop();
});

const list = (items: unknown[]) => JSON.stringify({ apiVersion: "v1", kind: "List", items });
const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { k: "v" }, ...extra });

describe("/openapi/v2", () => {
  it("serves swagger 2.0 JSON with every kind's definition and its paths, v2-style", async () => {
    const r = await req(s, "GET", "/openapi/v2", { headers: { accept: "application/json" } });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    const doc = r.json;
    expect(doc.swagger).toBe("2.0");
    expect(doc.info).toEqual({ title: "Kubernetes", version: "v1.34.0" });
    const cmDef = doc.definitions["io.k8s.api.core.v1.ConfigMap"];
    expect(cmDef["x-kubernetes-group-version-kind"]).toEqual([{ group: "", kind: "ConfigMap", version: "v1" }]);
    expect(cmDef.properties.metadata).toEqual({ $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" });
    expect(JSON.stringify(doc)).not.toContain("#/components/schemas/");
    expect(doc.definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]).toEqual({ type: "string", format: "int-or-string" });
    const post = doc.paths["/api/v1/namespaces/{namespace}/configmaps"].post;
    expect(post.parameters[0]).toMatchObject({ name: "body", in: "body", required: true, schema: { $ref: "#/definitions/io.k8s.api.core.v1.ConfigMap" } });
    expect(post.parameters).toContainEqual(expect.objectContaining({ name: "fieldValidation", in: "query", type: "string" }));
    expect(post["x-kubernetes-action"]).toBe("post");
    expect(post.responses["201"].schema).toEqual({ $ref: "#/definitions/io.k8s.api.core.v1.ConfigMap" });
  });

  it("answers the protobuf form client-go asks for, with its own ETag, and 304 on a match", async () => {
    const accept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    const r = await req(s, "GET", "/openapi/v2", { headers: { accept } });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/octet-stream");
    // Document.swagger (field 1, length-delimited) comes first: "2.0".
    expect([...r.body.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from("2.0")]);
    const json = await req(s, "GET", "/openapi/v2");
    expect(r.headers.etag).not.toBe(json.headers.etag);
    const again = await req(s, "GET", "/openapi/v2", { headers: { accept, "if-none-match": String(r.headers.etag) } });
    expect(again.status).toBe(304);
    expect((await req(s, "GET", "/openapi/v2", { headers: { accept: "text/plain" } })).status).toBe(406);
  });

  it.skipIf(!kubectlBin)("kubectl applies a kind: List, and validates its items against the v2 schemas", async () => {
    const ok = await k(["apply", "-f", "-"], list([cm("listed-a"), cm("listed-b")]));
    expect(ok.stderr).toBe("");
    expect(ok.stdout).toContain("configmap/listed-a created");
    expect(ok.stdout).toContain("configmap/listed-b created");
    const bad = await k(["apply", "-f", "-"], list([cm("listed-c", { bogus: 1 })]));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('error validating data: ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap');
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/listed-c")).status).toBe(404);
  });

  it.skipIf(!kubectlBin)("follows custom resources: a List of custom objects applies once the CRD is served", async () => {
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crontabCRD("v2.example.com") })).status).toBe(201);
    await whenSettled(s, "the CRD's definition published", async () => !!(await req(s, "GET", "/openapi/v2")).json.definitions["com.example.v2.v1.CronTab"]);
    const ct = (name: string) => ({ apiVersion: "v2.example.com/v1", kind: "CronTab", metadata: { name, namespace: "default" }, spec: { cronSpec: "* * * * *", image: "x" } });
    const r = await k(["apply", "-f", "-"], list([ct("listed-ct"), cm("listed-d")]));
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("crontab.v2.example.com/listed-ct created");
  });
});
