// Auditing end to end: a real server with --audit-policy-file and --audit-log-path, driven by raw
// HTTPS, @kubernetes/client-node and kubectl. Each verb at each level, a watch, refused requests
// (403 after impersonation, 401), the Audit-Id header, admission's annotations (PodSecurity),
// authorization's, and the deprecation signals (Warning, audit annotation, gauge) of v1
// ComponentStatus, v1 Endpoints and a beta version enabled with --runtime-config.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, readFileSync } from "node:fs";
import { sensitiveHeaders, type IncomingHttpHeaders } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { auditLog } from "./support/audit-log.js";
import { h2session, req, watchEvents, withCredentials, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const audit = auditLog({
  omitManagedFields: true,
  rules: [
    { level: "RequestResponse", namespaces: ["at-rr"] },
    { level: "Request", namespaces: ["at-req"] },
    { level: "Metadata", namespaces: ["at-meta", "at-psa"] },
    { level: "Metadata", resources: [{ group: "", resources: ["componentstatuses", "endpoints"] }, { group: "networking.k8s.io" }] },
    { level: "None" },
  ],
});
let server: KapiServer;
let s: TestServer;

beforeAll(async () => {
  server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-audit-")), authorizationMode: ["RBAC"], options: { ...audit.options, runtimeConfig: "networking.k8s.io/v1beta1=true" } });
  s = withCredentials(server);
  for (const name of ["at-rr", "at-req", "at-meta", "default-none"]) expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name } } })).status).toBe(201);
  expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "at-psa", labels: { "pod-security.kubernetes.io/enforce": "baseline" } } } })).status).toBe(201);
});
afterAll(async () => server?.stop());

/** The events of one request, by the Audit-ID it was sent with. */
const eventsOf = (id: string) => audit.events().filter((e) => e.auditID === id);
const stagesOf = (id: string) => eventsOf(id).map((e) => e.stage);

/** One request of each verb on configmaps in `ns`, each with its own Audit-ID (`<ns>-<verb>`). */
async function everyVerb(ns: string): Promise<void> {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const call = async (verb: string, method: string, path: string, body?: unknown, contentType?: string) => {
    const r = await req(s, method, path, { body, headers: { "audit-id": `${ns}-${verb}`, ...(contentType ? { "content-type": contentType } : {}) } });
    expect(r.status, `${verb}: ${r.text}`).toBeLessThan(300);
    expect(r.headers["audit-id"]).toBe(`${ns}-${verb}`);
    return r.json;
  };
  const created = await call("create", "POST", base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1" }, data: { a: "1" } });
  await call("get", "GET", `${base}/c1`);
  await call("list", "GET", base);
  await call("update", "PUT", `${base}/c1`, { ...created, data: { a: "2" } });
  await call("patch", "PATCH", `${base}/c1`, { data: { b: "3" } }, "application/merge-patch+json");
  await call("delete", "DELETE", `${base}/c1`, { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0 });
  await call("create2", "POST", base, { metadata: { name: "c2" } });
  await call("deletecollection", "DELETE", base);
}

describe("audit events", () => {
  it("Metadata: every verb gets RequestReceived and ResponseComplete, naming who asked for what, without bodies", async () => {
    await everyVerb("at-meta");
    for (const verb of ["create", "get", "list", "update", "patch", "delete", "deletecollection"]) {
      expect(stagesOf(`at-meta-${verb}`), verb).toEqual(["RequestReceived", "ResponseComplete"]);
      const done = eventsOf(`at-meta-${verb}`)[1];
      expect(done, verb).toMatchObject({ kind: "Event", apiVersion: "audit.k8s.io/v1", level: "Metadata", verb, user: { username: "kapi-admin" }, objectRef: { resource: "configmaps", namespace: "at-meta", apiVersion: "v1" }, annotations: { "authorization.k8s.io/decision": "allow" } });
      expect(done.requestObject, verb).toBeUndefined();
      expect(done.responseObject, verb).toBeUndefined();
      expect(done.sourceIPs, verb).toEqual(["127.0.0.1"]);
    }
    const created = eventsOf("at-meta-create")[1];
    expect(created.objectRef.name).toBe("c1"); // from the request's object
    expect(created.responseStatus).toEqual({ metadata: {}, code: 201 });
    expect(created.requestURI).toBe("/api/v1/namespaces/at-meta/configmaps");
    expect(eventsOf("at-meta-update")[1].objectRef).toMatchObject({ name: "c1", uid: expect.any(String), resourceVersion: expect.any(String) });
    expect(created.stageTimestamp >= created.requestReceivedTimestamp).toBe(true);
  });

  it("Request: the request's body too; RequestResponse: the response's as well, managedFields left out", async () => {
    await everyVerb("at-req");
    await everyVerb("at-rr");
    const done = (ns: string, verb: string) => eventsOf(`${ns}-${verb}`).find((e) => e.stage === "ResponseComplete");
    expect(done("at-req", "create").requestObject).toMatchObject({ kind: "ConfigMap", metadata: { name: "c1" }, data: { a: "1" } });
    expect(done("at-req", "create").responseObject).toBeUndefined();
    expect(done("at-req", "patch").requestObject).toEqual({ data: { b: "3" } });
    expect(done("at-req", "delete").requestObject).toMatchObject({ kind: "DeleteOptions", gracePeriodSeconds: 0 });
    expect(done("at-req", "get").requestObject).toBeUndefined();
    expect(done("at-rr", "create").responseObject).toMatchObject({ kind: "ConfigMap", metadata: { name: "c1", uid: expect.any(String) }, data: { a: "1" } });
    expect(done("at-rr", "create").responseObject.metadata.managedFields).toBeUndefined();
    expect(done("at-rr", "get").responseObject).toMatchObject({ metadata: { name: "c1" } });
    expect(done("at-rr", "get").responseObject.metadata.managedFields).toBeUndefined();
    const list = done("at-rr", "list").responseObject;
    expect(list.kind).toBe("ConfigMapList");
    expect(list.items.map((i: any) => i.metadata.name)).toContain("c1");
    expect(done("at-rr", "update").requestObject).toMatchObject({ data: { a: "2" } });
    expect(done("at-rr", "patch").responseObject).toMatchObject({ data: { a: "2", b: "3" } });
    // The "None" rule records nothing.
    await req(s, "GET", "/api/v1/namespaces/default-none/configmaps", { headers: { "audit-id": "none-list" } });
    expect(eventsOf("none-list")).toEqual([]);
  });

  it("requestObject is the body as upstream's handlers log it: defaulted, before admission and preparation; patches as sent; DeleteOptions as decoded (kubectl)", async () => {
    if (!kubectlBin) return;
    const k = (args: string[], stdin?: string) => kubectl(kubectlBin, server.kubeconfigPath!, ["-n", "at-req", ...args], stdin);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p1" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    expect((await k(["create", "-f", "-"], JSON.stringify(pod))).stderr).toBe("");
    const created = audit.completed("create", "pods", "at-req", "p1");
    const sent = created.requestObject;
    // kind and apiVersion first, as the encoder writes them.
    expect(Object.keys(sent).slice(0, 2)).toEqual(["kind", "apiVersion"]);
    // The type's defaults are there (the decoder applies them)...
    expect(sent.spec).toMatchObject({ restartPolicy: "Always", dnsPolicy: "ClusterFirst", containers: [{ name: "c", image: "busybox", imagePullPolicy: "Always", terminationMessagePath: "/dev/termination-log" }] });
    // ...what the server sets when it prepares the object is not, nor what admission adds (the service account's).
    expect(sent.metadata.uid).toBeUndefined();
    expect(sent.metadata.creationTimestamp).toBeUndefined();
    expect(sent.spec.serviceAccountName).toBeUndefined();
    expect(created.objectRef).toMatchObject({ resource: "pods", namespace: "at-req", name: "p1" });

    // A patch's bytes as sent, compacted: key order and numbers kept (a re-encoded object would move "2" first and write 1.50 as 1.5).
    expect((await k(["create", "configmap", "cm-patched"])).stderr).toBe("");
    expect((await k(["patch", "configmap", "cm-patched", "--type=merge", "-p", '{"data": {"a": "1"}}'])).stderr).toBe("");
    expect(audit.completed("patch", "configmaps", "at-req", "cm-patched").requestObject).toEqual({ data: { a: "1" } });
    const patch = '{ "metadata": {"annotations": {"b": "1", "2": "x"}},\n "x-number": 1.50 }';
    const r = await req(s, "PATCH", "/api/v1/namespaces/at-req/configmaps/cm-patched", { body: patch, headers: { "content-type": "application/merge-patch+json", "audit-id": "raw-patch" } });
    expect(r.status).toBe(200);
    const line = readFileSync(audit.path, "utf8").split("\n").find((l) => l.includes('"auditID":"raw-patch","stage":"ResponseComplete"'))!;
    expect(line).toContain(`"requestObject":{"metadata":{"annotations":{"b":"1","2":"x"}},"x-number":1.50}`);

    // kubectl delete sends DeleteOptions: recorded as upstream's meta codec writes the decoded options.
    expect((await k(["delete", "configmap", "cm-patched"])).stderr).toBe("");
    expect(audit.completed("delete", "configmaps", "at-req", "cm-patched").requestObject).toEqual({ kind: "DeleteOptions", apiVersion: "meta.k8s.io/__internal", propagationPolicy: "Background" });
  });

  it("a watch gets ResponseStarted when it opens and ResponseComplete when it ends (client-node)", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    const ended = new Promise<void>((resolve, reject) => {
      void new k8s.Watch(kc).watch("/api/v1/namespaces/at-meta/configmaps", { timeoutSeconds: 1 }, () => undefined, (err) => (err ? reject(err) : resolve()));
    });
    await ended;
    const watches = audit.events().filter((e) => e.verb === "watch" && e.objectRef?.namespace === "at-meta");
    const id = watches[0].auditID;
    expect(stagesOf(id)).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
    expect(eventsOf(id)[1].responseStatus).toEqual({ metadata: {}, code: 200 });
    expect(eventsOf(id)[0].userAgent).toMatch(/./);
  });

  it("a refused request: 403 after impersonation (impersonatedUser, forbid), 401 (one ResponseStarted event)", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/at-meta/configmaps", { headers: { "audit-id": "as-nobody", "impersonate-user": "nobody", "impersonate-group": "team" } });
    expect(r.status).toBe(403);
    expect(stagesOf("as-nobody")).toEqual(["RequestReceived", "ResponseComplete"]);
    const done = eventsOf("as-nobody")[1];
    expect(done.user.username).toBe("kapi-admin");
    expect(done.impersonatedUser).toEqual({ username: "nobody", groups: ["team", "system:authenticated"] });
    expect(done.annotations).toMatchObject({ "authorization.k8s.io/decision": "forbid" });
    expect(done.responseStatus).toMatchObject({ status: "Failure", reason: "Forbidden", code: 403, message: expect.stringContaining('User "nobody" cannot list resource "configmaps"') });
    const anon = await req(s, "GET", "/api/v1/namespaces/at-meta/configmaps", { creds: s.as("no-such-token"), headers: { "audit-id": "bad-token" } });
    expect(anon.status).toBe(401);
    expect(anon.headers["audit-id"]).toBe("bad-token");
    expect(eventsOf("bad-token")).toMatchObject([{ stage: "ResponseStarted", user: {}, verb: "list", responseStatus: { status: "Failure", reason: "Unauthorized", code: 401 } }]);
  });

  it("records PodSecurity's annotations from admission", async () => {
    const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    expect((await req(s, "POST", "/api/v1/namespaces/at-psa/pods", { body: pod, headers: { "audit-id": "psa-pod" } })).status).toBe(201);
    expect(eventsOf("psa-pod")[1].annotations).toMatchObject({ "pod-security.kubernetes.io/enforce-policy": "baseline:latest" });
  });

  it("sends an Audit-Id on every response, unaudited ones too, and a new one per request", async () => {
    const a = await req(s, "GET", "/version");
    const b = await req(s, "GET", "/version");
    expect(a.headers["audit-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers["audit-id"]).not.toBe(a.headers["audit-id"]);
  });

  // A value no other response repeats would only take a slot of the connection's HPACK table and
  // push out the headers every response repeats (the priority and fairness UIDs, cache-control).
  it("sends the Audit-Id over HTTP/2 as a header HPACK never indexes, the repeated headers as usual", async () => {
    const session = h2session(s);
    try {
      for (let i = 0; i < 2; i++) {
        const headers = await new Promise<IncomingHttpHeaders & { [sensitiveHeaders]?: string[] }>((resolve, reject) => {
          const r = session.request({ ":path": "/api/v1/namespaces/default/configmaps" });
          r.on("response", resolve).on("error", reject).resume();
        });
        expect(headers[":status"]).toBe(200);
        expect(headers["audit-id"]).toMatch(/^[0-9a-f-]{36}$/);
        expect(headers["x-kubernetes-pf-flowschema-uid"]).toBeTruthy();
        expect(headers[sensitiveHeaders]).toEqual(["audit-id"]);
      }
    } finally {
      session.close();
    }
  });
});

describe("deprecation signals", () => {
  it("v1 ComponentStatus: kubectl shows upstream's Warning; the event carries k8s.io/deprecated; the gauge is 1", async () => {
    const r = await req(s, "GET", "/api/v1/componentstatuses", { headers: { "audit-id": "cs-list" } });
    expect(r.status).toBe(200);
    expect(r.headers.warning).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
    expect(eventsOf("cs-list")[1].annotations).toMatchObject({ "k8s.io/deprecated": "true" });
    expect(eventsOf("cs-list")[1].annotations["k8s.io/removed-release"]).toBeUndefined();
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["get", "endpoints", "-A"]);
      expect(k.code, k.stderr).toBe(0);
      expect(k.stderr).toContain("Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice");
    }
    const ip = await req(s, "GET", "/apis/networking.k8s.io/v1beta1/ipaddresses", { headers: { "audit-id": "ip-list" } });
    expect(ip.headers.warning).toBe('299 - "networking.k8s.io/v1beta1 IPAddress is deprecated in v1.34+, unavailable in v1.37+"');
    expect(eventsOf("ip-list")[1].annotations).toMatchObject({ "k8s.io/deprecated": "true", "k8s.io/removed-release": "1.37" });
    const notDeprecated = await req(s, "GET", "/apis/networking.k8s.io/v1/ipaddresses");
    expect(notDeprecated.headers.warning).toBeUndefined();
    const page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
    const gauge = "apiserver_requested_deprecated_apis";
    expect(page.families.get(gauge)).toMatchObject({ type: "GAUGE", help: expect.stringMatching(/^\[STABLE\] /) });
    expect(page.find(gauge, { group: "", version: "v1", resource: "componentstatuses", subresource: "", removed_release: "" }).map((m) => m.value)).toEqual([1]);
    expect(page.find(gauge, { group: "networking.k8s.io", version: "v1beta1", resource: "ipaddresses", subresource: "", removed_release: "1.37" }).map((m) => m.value)).toEqual([1]);
    expect(page.find(gauge, { group: "networking.k8s.io", version: "v1" })).toEqual([]);
    expect(page.find("apiserver_audit_event_total")[0]!.value).toBeGreaterThan(20);
    expect(page.find("apiserver_audit_level_total", { level: "RequestResponse" })[0]!.value).toBeGreaterThan(0);
    expect(page.find("apiserver_audit_requests_rejected_total")[0]!.value).toBe(0);
  });
});
