// A second kapi process as an extension API server behind an APIService: it serves a CRD group
// and trusts the front proxy's CA (--requestheader-*), the first proxies to it through an
// ExternalName service naming localhost. kubectl against the first discovers the group (legacy
// and aggregated discovery), creates, lists, gets and deletes its objects, and a watch streams
// through the aggregator — each request reaching the backend as the caller.
import type { ChildProcess } from "node:child_process";
import { request } from "node:https";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCert } from "../src/authn/pki.testkit.js";
import { req, type HttpServer } from "./support/client.js";
import { asTestServer, serveKapi, stopKapi } from "./support/cli.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { until } from "./support/until.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const group = "wardle.example.com";
let front: PartsServer;
let backend: HttpServer;
let proc: ChildProcess | undefined;
let dir: string;
let kubeconfig: string;

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `flunders.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural: "flunders", singular: "flunder", kind: "Flunder", shortNames: ["fl"] },
    versions: [{ name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "string" } } } } } } }],
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kapi-aggregator-e2e-"));
  const ca = await makeCert({ commonName: "front-proxy-ca" });
  const client = await makeCert({ commonName: "front-proxy-client", issuer: ca });
  writeFileSync(join(dir, "front-proxy-ca.crt"), ca.certPem);
  writeFileSync(join(dir, "front-proxy-client.crt"), client.certPem);
  writeFileSync(join(dir, "front-proxy-client.key"), client.keyPem);
  const backendDir = join(dir, "backend");
  const k = await serveKapi([
    "--data-dir", backendDir, "--secure-port=0", "--bind-address=127.0.0.1", "--storage-backend=memory",
    `--requestheader-client-ca-file=${join(dir, "front-proxy-ca.crt")}`,
    "--requestheader-allowed-names=front-proxy-client",
    "--requestheader-username-headers=X-Remote-User",
    "--requestheader-uid-headers=X-Remote-Uid",
    "--requestheader-group-headers=X-Remote-Group",
    "--requestheader-extra-headers-prefix=X-Remote-Extra-",
  ]);
  proc = k.proc;
  backend = asTestServer(k.url, backendDir);
  expect((await req(backend, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd })).status).toBe(201);
  await until("the CRD served by the backend", async () => (await req(backend, "GET", `/apis/${group}/v1alpha1`)).status === 200, 20_000, 50);

  front = await startTuned({
    requestheaderClientCAFile: join(dir, "front-proxy-ca.crt"),
    requestheaderUsernameHeaders: ["X-Remote-User"],
    requestheaderAllowedNames: ["front-proxy-client"],
    proxyClientCertFile: join(dir, "front-proxy-client.crt"),
    proxyClientKeyFile: join(dir, "front-proxy-client.key"),
  });
  kubeconfig = join(dir, "front.kubeconfig");
  writeFileSync(kubeconfig, front.kubeconfig);
  expect((await req(front, "POST", "/api/v1/namespaces", { body: { metadata: { name: "wardle" } } })).status).toBe(201);
  const svc = { metadata: { name: "api" }, spec: { type: "ExternalName", externalName: "localhost" } };
  expect((await req(front, "POST", "/api/v1/namespaces/wardle/services", { body: svc })).status).toBe(201);
  const apiService = {
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: `v1alpha1.${group}` },
    spec: { group, version: "v1alpha1", groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: "wardle", name: "api", port: backend.port } },
  };
  expect((await req(front, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", { body: apiService })).status).toBe(201);
  await until("the APIService available", async () => {
    const a = (await req(front, "GET", `/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.${group}`)).json as any;
    return (a.status?.conditions ?? []).some((c: any) => c.type === "Available" && c.status === "True");
  }, 20_000, 50);
}, 90_000);

afterAll(async () => {
  await front?.stop();
  await stopKapi(proc);
});

describe("an extension server behind an APIService", () => {
  it("its group is in /apis (after the built-in groups), /apis/<group>, and aggregated discovery with the backend's resources", async () => {
    const list = (await req(front, "GET", "/apis")).json as any;
    const names = list.groups.map((g: any) => g.name);
    expect(names).toContain(group);
    expect(names.indexOf(group)).toBeGreaterThan(names.indexOf("apps"));
    expect((await req(front, "GET", `/apis/${group}`)).json).toEqual({ kind: "APIGroup", apiVersion: "v1", name: group, versions: [{ groupVersion: `${group}/v1alpha1`, version: "v1alpha1" }], preferredVersion: { groupVersion: `${group}/v1alpha1`, version: "v1alpha1" } });
    const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const agg = await until("the backend's discovery fetched", async () => {
      const doc = (await req(front, "GET", "/apis", { headers: { accept } })).json as any;
      const g = doc.items.find((i: any) => i.metadata.name === group);
      return g?.versions[0]?.freshness === "Current" ? g : undefined;
    }, 15_000, 50);
    expect(agg.versions[0].resources.map((r: any) => r.resource)).toEqual(["flunders"]);
    expect(agg.versions[0].resources[0].shortNames).toEqual(["fl"]);
    // /apis/<group>/<version> is the backend's own document.
    const v = (await req(front, "GET", `/apis/${group}/v1alpha1`)).json as any;
    expect(v).toMatchObject({ kind: "APIResourceList", groupVersion: `${group}/v1alpha1` });
    expect(v.resources.map((r: any) => r.name)).toEqual(["flunders"]);
  });

  it("its OpenAPI v3 is listed in /openapi/v3 at the backend's URL and served from there", async () => {
    const key = `apis/${group}/v1alpha1`;
    const entry = await until("the backend's OpenAPI entry", async () => ((await req(front, "GET", "/openapi/v3")).json as any).paths[key], 15_000, 50);
    expect(entry).toEqual(((await req(backend, "GET", "/openapi/v3")).json as any).paths[key]);
    const doc = (await req(front, "GET", entry.serverRelativeURL)).json as any;
    expect(Object.keys(doc.paths)).toContain(`/apis/${group}/v1alpha1/namespaces/{namespace}/flunders`);
    expect(doc.components.schemas[`com.example.wardle.v1alpha1.Flunder`].properties.spec.properties.size).toEqual({ type: "string" });
    // Our own groups stay listed.
    expect(((await req(front, "GET", "/openapi/v3")).json as any).paths["apis/apps/v1"]).toBeDefined();
  });

  it.skipIf(!kubectlBin)("kubectl creates, lists, gets and deletes through the aggregator", async () => {
    const manifest = JSON.stringify({ apiVersion: `${group}/v1alpha1`, kind: "Flunder", metadata: { name: "one", namespace: "default" }, spec: { size: "big" } });
    const created = await kubectl(kubectlBin!, kubeconfig, ["create", "-f", "-"], manifest);
    expect(created.stderr).toBe("");
    expect(created.stdout.trim()).toBe(`flunder.${group}/one created`);
    // It is stored in the backend.
    expect(((await req(backend, "GET", `/apis/${group}/v1alpha1/namespaces/default/flunders/one`)).json as any).spec).toEqual({ size: "big" });
    const got = await kubectl(kubectlBin!, kubeconfig, ["get", "fl", "-n", "default", "-o", "jsonpath={.items[*].metadata.name}"]);
    expect(got.stdout).toBe("one");
    const resources = await kubectl(kubectlBin!, kubeconfig, ["api-resources", `--api-group=${group}`, "--no-headers"]);
    expect(resources.stdout).toMatch(/^flunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder$/m);
    const deleted = await kubectl(kubectlBin!, kubeconfig, ["delete", `flunders.${group}`, "one", "-n", "default"]);
    expect(deleted.stdout.trim()).toBe(`flunder.${group} "one" deleted`);
  });

  it("a watch streams through the aggregator", async () => {
    const url = new URL(`/apis/${group}/v1alpha1/namespaces/default/flunders?watch=true`, front.url);
    const creds = front.admin;
    const events: any[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const r = request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
        expect(res.statusCode).toBe(200);
        let buf = "";
        res.on("data", (c) => {
          buf += c;
          let i;
          while ((i = buf.indexOf("\n")) >= 0) {
            events.push(JSON.parse(buf.slice(0, i)));
            buf = buf.slice(i + 1);
            if (events.length === 1) {
              r.destroy();
              resolve();
            }
          }
        });
      });
      r.on("error", (e) => (events.length ? resolve() : reject(e)));
      r.end();
    });
    await new Promise((r) => setTimeout(r, 200));
    const body = { apiVersion: `${group}/v1alpha1`, kind: "Flunder", metadata: { name: "two" }, spec: { size: "small" } };
    expect((await req(front, "POST", `/apis/${group}/v1alpha1/namespaces/default/flunders`, { body })).status).toBe(201);
    await done;
    expect(events[0]).toMatchObject({ type: "ADDED", object: { metadata: { name: "two" }, spec: { size: "small" } } });
  });

  it("Protobuf is refused for the aggregated group as the backend refuses it for custom resources", async () => {
    const r = await req(front, "GET", `/apis/${group}/v1alpha1/namespaces/default/flunders`, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(r.status).toBe(406);
  });
});
