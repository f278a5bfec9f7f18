// The aggregation layer's objects: the local APIServices kube-apiserver registers for its own
// group versions and for every CRD group version, their names validated as upstream validates
// them, the availability controller's transitions for a service-backed APIService (reasons and
// messages as upstream writes them), and the extension-apiserver-authentication ConfigMap.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { makeCert } from "../src/authn/pki.testkit.js";
import { startTestBackend, type TestBackend } from "../src/aggregator/backend.testkit.js";
import { req } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { until } from "./support/until.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let s: PartsServer;
let backend: TestBackend;
let dir: string;
let frontProxyCA: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kapi-aggregator-"));
  const ca = await makeCert({ commonName: "front-proxy-ca" });
  const client = await makeCert({ commonName: "front-proxy-client", issuer: ca });
  frontProxyCA = ca.certPem;
  writeFileSync(join(dir, "front-proxy-ca.crt"), ca.certPem);
  writeFileSync(join(dir, "front-proxy-client.crt"), client.certPem);
  writeFileSync(join(dir, "front-proxy-client.key"), client.keyPem);
  writeFileSync(join(dir, "tokens.csv"), 'alice-token,alice,alice-uid,"devs,system:masters"\n');
  backend = await startTestBackend();
  s = await startTuned({
    requestheaderClientCAFile: join(dir, "front-proxy-ca.crt"),
    requestheaderUsernameHeaders: ["X-Remote-User"],
    requestheaderGroupHeaders: ["X-Remote-Group"],
    requestheaderExtraHeadersPrefix: ["X-Remote-Extra-"],
    requestheaderAllowedNames: ["front-proxy-client"],
    proxyClientCertFile: join(dir, "front-proxy-client.crt"),
    proxyClientKeyFile: join(dir, "front-proxy-client.key"),
    tokenAuthFile: join(dir, "tokens.csv"),
  });
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
});
afterAll(async () => {
  await s?.stop();
  await backend?.close();
});

const get = async (name: string) => (await req(s, "GET", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`)).json as any;
const available = (a: any) => (a?.status?.conditions ?? []).find((c: any) => c.type === "Available");

describe("local APIServices", () => {
  it("every served built-in group version has one, labelled onstart, Available with reason Local", async () => {
    await s.settle();
    const core = await get("v1.");
    expect(core.spec).toEqual({ group: "", version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.metadata.labels).toEqual({ "kube-aggregator.kubernetes.io/automanaged": "onstart" });
    expect(available(core)).toMatchObject({ status: "True", reason: "Local", message: "Local APIServices are always available" });
    const apps = await get("v1.apps");
    expect(apps.spec).toEqual({ group: "apps", version: "v1", groupPriorityMinimum: 17800, versionPriority: 15 });
    expect(available(apps)?.reason).toBe("Local");
    // kube-apiserver 1.34's priorities of the newest GA versions.
    expect((await get("v1.resource.k8s.io")).spec).toEqual({ group: "resource.k8s.io", version: "v1", groupPriorityMinimum: 16200, versionPriority: 21 });
    expect((await get("v1.flowcontrol.apiserver.k8s.io")).spec).toEqual({ group: "flowcontrol.apiserver.k8s.io", version: "v1", groupPriorityMinimum: 16100, versionPriority: 21 });
    // The aggregator's own group has none (upstream lists it first in /apis without one).
    expect((await req(s, "GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apiregistration.k8s.io")).status).toBe(404);
  });

  it.skipIf(!kubectlBin)("kubectl get apiservices lists them as Local", async () => {
    const { stdout: out } = await kubectl(kubectlBin!, join(dir, "kubeconfig"), ["get", "apiservices"]);
    expect(out).toMatch(/^v1\.\s+Local\s+True\s/m);
    expect(out).toMatch(/^v1\.apps\s+Local\s+True\s/m);
  });

  it("/readyz lists the aggregator's post-start hooks and autoregister-completion, in kube-apiserver 1.34's order", async () => {
    await s.settle();
    const verbose = await req(s, "GET", "/readyz?verbose");
    expect(verbose.status).toBe(200);
    const names = verbose.text.split("\n").filter((l) => l.startsWith("[+]")).map((l) => l.slice(3).replace(/ ok$/, ""));
    const aggregator = names.filter((n) => /^poststarthook\/(aggregator-|start-kube-aggregator|apiservice-|kube-apiserver-autoregistration)|^autoregister-completion$/.test(n));
    expect(aggregator).toEqual([
      "poststarthook/aggregator-reload-proxy-client-cert",
      "poststarthook/start-kube-aggregator-informers",
      "poststarthook/apiservice-status-local-available-controller",
      "poststarthook/apiservice-status-remote-available-controller",
      "poststarthook/apiservice-registration-controller",
      "poststarthook/apiservice-discovery-controller",
      "poststarthook/kube-apiserver-autoregistration",
      "autoregister-completion",
      "poststarthook/apiservice-openapi-controller",
      "poststarthook/apiservice-openapiv3-controller",
    ]);
    // Before shutdown, the last check, as upstream.
    expect(names.indexOf("autoregister-completion")).toBeLessThan(names.indexOf("shutdown"));
    for (const path of ["/readyz/autoregister-completion", "/healthz/autoregister-completion", "/livez/autoregister-completion", "/readyz/poststarthook/apiservice-registration-controller"]) {
      const one = await req(s, "GET", path);
      expect([path, one.status, one.text]).toEqual([path, 200, "ok"]);
    }
  });

  it("an onstart APIService edited after start is left as edited", async () => {
    const r = await req(s, "PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.batch", { body: { spec: { versionPriority: 7 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r.status).toBe(200);
    await s.settle();
    expect((await get("v1.batch")).spec.versionPriority).toBe(7);
  });

  it("a CRD's served version gets an automanaged APIService, gone with the CRD", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gadgets.stuff.example.com" },
      spec: {
        group: "stuff.example.com",
        scope: "Namespaced",
        names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
        versions: [
          { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
          { name: "v1beta1", served: false, storage: false, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
        ],
      },
    };
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd })).status).toBe(201);
    await s.settle();
    const a = await get("v1.stuff.example.com");
    expect(a.metadata.labels).toEqual({ "kube-aggregator.kubernetes.io/automanaged": "true" });
    expect(a.spec).toEqual({ group: "stuff.example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(available(a)?.reason).toBe("Local");
    expect((await req(s, "GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.stuff.example.com")).status).toBe(404);
    // A continuously managed one is put back when edited.
    await req(s, "PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.stuff.example.com", { body: { spec: { versionPriority: 5 } }, headers: { "content-type": "application/merge-patch+json" } });
    await s.settle();
    expect((await get("v1.stuff.example.com")).spec.versionPriority).toBe(100);
    expect((await req(s, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.stuff.example.com")).status).toBe(200);
    await until("the CRD's APIService removed", async () => (await req(s, "GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.stuff.example.com")).status === 404, 10_000, 50);
  });
});

describe("APIService validation", () => {
  const apiService = (name: string, spec: Record<string, unknown>) => ({ apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name }, spec });

  it("the name must be version.group; the core group's v1. is a valid name", async () => {
    const r = await req(s, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", { body: apiService("v1.wrong.example.com", { group: "right.example.com", version: "v1", groupPriorityMinimum: 100, versionPriority: 10 }) });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('APIService.apiregistration.k8s.io "v1.wrong.example.com" is invalid: metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.right.example.com"');
    const core = await req(s, "PUT", "/apis/apiregistration.k8s.io/v1/apiservices/v1.", { body: { ...(await get("v1.")), spec: { group: "", version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 } } });
    expect(core.status).toBe(200);
  });

  it("priorities, the empty group and local TLS settings as upstream refuses them", async () => {
    const r = await req(s, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", { body: apiService("v2.", { group: "", version: "v2", groupPriorityMinimum: 0, versionPriority: 1001, insecureSkipTLSVerify: true }) });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueRequired", message: "Required value: only v1 may have an empty group and it better be legacy kube", field: "spec.group" },
      { reason: "FieldValueInvalid", message: "Invalid value: 0: must be positive and less than 20000", field: "spec.groupPriorityMinimum" },
      { reason: "FieldValueInvalid", message: "Invalid value: 1001: must be positive and less than 1000", field: "spec.versionPriority" },
      { reason: "FieldValueInvalid", message: "Invalid value: true: local APIServices may not have insecureSkipTLSVerify", field: "spec.insecureSkipTLSVerify" },
    ]);
  });
});

describe("availability of a service-backed APIService", () => {
  const name = "v1alpha1.wardle.example.com";
  const condition = async () => available(await get(name));
  const waitFor = (reason: string) => until(`reason ${reason}`, async () => ((await condition())?.reason === reason ? condition() : undefined), 15_000, 50);

  it("ServiceNotFound → ServicePortError → EndpointsNotFound → MissingEndpoints → Passed → FailedDiscoveryCheck", async () => {
    expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "wardle" } } })).status).toBe(201);
    const body = { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name }, spec: { group: "wardle.example.com", version: "v1alpha1", groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: "wardle", name: "api", port: 8443 } } };
    expect((await req(s, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", { body })).status).toBe(201);
    expect(await waitFor("ServiceNotFound")).toMatchObject({ status: "False", message: 'service/api in "wardle" is not present' });

    const svc = { metadata: { name: "api" }, spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] } };
    expect((await req(s, "POST", "/api/v1/namespaces/wardle/services", { body: svc })).status).toBe(201);
    expect(await waitFor("ServicePortError")).toMatchObject({ status: "False", message: 'service/api in "wardle" is not listening on port 8443' });

    const r = await req(s, "PATCH", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { body: { spec: { service: { port: 443 } } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r.status).toBe(200);
    expect(await waitFor("EndpointsNotFound")).toMatchObject({ status: "False", message: 'cannot find endpointslices for service/api in "wardle"' });

    const slice = { metadata: { name: "api-1", labels: { "kubernetes.io/service-name": "api" } }, addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.7"], conditions: { ready: false } }], ports: [{ name: "https", port: 8443 }] };
    expect((await req(s, "POST", "/apis/discovery.k8s.io/v1/namespaces/wardle/endpointslices", { body: slice })).status).toBe(201);
    expect(await waitFor("MissingEndpoints")).toMatchObject({ status: "False", message: 'endpointslices for service/api in "wardle" have no addresses with port name "https"' });

    // An ExternalName service naming localhost: the aggregator dials it (no endpoint checks).
    expect((await req(s, "DELETE", "/api/v1/namespaces/wardle/services/api")).status).toBe(200);
    const external = { metadata: { name: "api" }, spec: { type: "ExternalName", externalName: "localhost" } };
    expect((await req(s, "POST", "/api/v1/namespaces/wardle/services", { body: external })).status).toBe(201);
    await req(s, "PATCH", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { body: { spec: { service: { port: backend.port } } }, headers: { "content-type": "application/merge-patch+json" } });
    const passed = await waitFor("Passed");
    expect(passed).toMatchObject({ status: "True", message: "all checks passed" });
    // The discovery check: GET /apis/<group>/<version> as system:kube-aggregator with the front-proxy certificate.
    const check = backend.seen.find((r) => r.url === "/apis/wardle.example.com/v1alpha1")!;
    expect(check.headers["x-remote-user"]).toBe("system:kube-aggregator");
    expect(check.headers["x-remote-group"]).toBe("system:masters");
    expect(check.clientCN).toBe("front-proxy-client");

    backend.on(() => ({ status: 403, body: "{}" }));
    const url = `https://localhost:${backend.port}/apis/wardle.example.com/v1alpha1`;
    // The periodic recheck (every 30 s) or a change finds it; touch the APIService to not wait.
    await req(s, "PATCH", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { body: { metadata: { labels: { touched: "1" } } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(await waitFor("FailedDiscoveryCheck")).toMatchObject({ status: "False", message: `failing or missing response from ${url}: bad status from ${url}: 403` });

    // kube-aggregator's families: the gauge per APIService (1 while not Available), the counter of
    // each change from Available to not, by its new reason.
    const metrics = async () => (await req(s, "GET", "/metrics")).text;
    const text = await metrics();
    expect(text).toContain("# HELP aggregator_unavailable_apiservice [ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.\n# TYPE aggregator_unavailable_apiservice gauge\n");
    expect(text).toContain(`aggregator_unavailable_apiservice{name="${name}"} 1\n`);
    expect(text).toContain('aggregator_unavailable_apiservice{name="v1.apps"} 0\n');
    expect(text).toContain("# HELP aggregator_unavailable_apiservice_total [ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.\n# TYPE aggregator_unavailable_apiservice_total counter\n");
    // Unknown to False at creation, then False to False with other reasons, are no such change.
    expect(text).not.toMatch(new RegExp(`aggregator_unavailable_apiservice_total\\{name="${name.replace(/\./g, "\\.")}",reason="(ServiceNotFound|ServicePortError|EndpointsNotFound|MissingEndpoints)"`));
    expect(text).toContain(`aggregator_unavailable_apiservice_total{name="${name}",reason="FailedDiscoveryCheck"} 1\n`);
    expect(text).not.toMatch(/aggregator_unavailable_apiservice_total\{name="v1\.apps"/);
    // The backend answers again only now: the controller retries a failed check within milliseconds,
    // and a passing retry would set the gauge back to 0 before the scrape above.
    backend.on(() => undefined);
    // A deleted APIService leaves the gauge; its counter stays (upstream's).
    expect((await req(s, "DELETE", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`)).status).toBe(200);
    await until("gauge forgotten", async () => (!(await metrics()).includes(`aggregator_unavailable_apiservice{name="${name}"}`) ? true : undefined), 15_000, 50);
    expect(await metrics()).toContain(`aggregator_unavailable_apiservice_total{name="${name}",reason="FailedDiscoveryCheck"} 1\n`);
  });
});

describe("an APIService on default/kubernetes:443", () => {
  it("is routed to this very server on the port it listens on, though started with --secure-port=0", async () => {
    // kapi publishes no endpoints of its own Service: one slice stands in for them, so that the
    // availability check gets as far as dialling.
    const slice = { metadata: { name: "kubernetes-stand-in", labels: { "kubernetes.io/service-name": "kubernetes" } }, addressType: "IPv4", endpoints: [{ addresses: ["192.0.2.1"], conditions: { ready: true } }], ports: [{ name: "https", port: 6443 }] };
    expect((await req(s, "POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", { body: slice })).status).toBe(201);
    const name = "v1.loop.example.com";
    const body = { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name }, spec: { group: "loop.example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: "default", name: "kubernetes", port: 443 } } };
    expect((await req(s, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", { body })).status).toBe(201);
    const port = new URL(s.url).port;
    expect(port).not.toBe("0");
    const url = `https://127.0.0.1:${port}/apis/loop.example.com/v1`;
    // This server answers its own unavailable group with the aggregator's 503: the check reached it.
    const condition = await until("FailedDiscoveryCheck", async () => {
      const c = available(await get(name));
      return c?.reason === "FailedDiscoveryCheck" ? c : undefined;
    }, 15_000, 50);
    expect(condition).toMatchObject({ status: "False", message: `failing or missing response from ${url}: bad status from ${url}: 503` });
    expect((await req(s, "DELETE", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`)).status).toBe(200);
  });
});

describe("extension-apiserver-authentication", () => {
  it("kube-system holds the client CA and the request-header settings, as JSON lists", async () => {
    await s.settle();
    const cm = (await req(s, "GET", "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication")).json as any;
    expect(Object.keys(cm.data).sort()).toEqual([
      "client-ca-file",
      "requestheader-allowed-names",
      "requestheader-client-ca-file",
      "requestheader-extra-headers-prefix",
      "requestheader-group-headers",
      "requestheader-uid-headers",
      "requestheader-username-headers",
    ]);
    expect(cm.data["requestheader-username-headers"]).toBe('["X-Remote-User"]');
    expect(cm.data["requestheader-uid-headers"]).toBe("[]");
    expect(cm.data["requestheader-allowed-names"]).toBe('["front-proxy-client"]');
    expect(cm.data["requestheader-client-ca-file"]).toBe(frontProxyCA);
    expect(cm.data["client-ca-file"]).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
  });

  it("what another server wrote is kept, ours added", async () => {
    const path = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
    const r = await req(s, "PATCH", path, { body: { data: { "requestheader-username-headers": '["X-Other-User"]' } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r.status).toBe(200);
    await until("ours merged back", async () => ((await req(s, "GET", path)).json as any).data["requestheader-username-headers"] === '["X-Other-User","X-Remote-User"]', 10_000, 50);
  });
});

describe("proxying to a service-backed APIService", () => {
  const name = "v1.proxied.example.com";
  const alice = { token: "alice-token", ca: undefined as unknown as string };

  it("the caller's identity in the X-Remote-* headers, its own credentials and identity headers never", async () => {
    await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "proxied" } } });
    const external = { metadata: { name: "api" }, spec: { type: "ExternalName", externalName: "localhost" } };
    expect((await req(s, "POST", "/api/v1/namespaces/proxied/services", { body: external })).status).toBe(201);
    const body = { apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", metadata: { name }, spec: { group: "proxied.example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: "proxied", name: "api", port: backend.port } } };
    expect((await req(s, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", { body })).status).toBe(201);
    await until("available", async () => available(await get(name))?.status === "True", 15_000, 50);

    backend.on((r) => (r.url.startsWith("/apis/proxied.example.com/v1/namespaces") ? { status: 200, body: '{"kind":"ThingList","items":[]}' } : undefined));
    const creds = { ...s.admin, token: "alice-token", cert: undefined, key: undefined };
    const r = await req(s, "GET", "/apis/proxied.example.com/v1/namespaces/default/things?watch=false&b=2&a=1", {
      creds,
      headers: { "X-Remote-User": "mallory", "X-Remote-Extra-Scopes": "all", "X-Remote-Group": "system:masters" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ kind: "ThingList", items: [] });
    const seen = backend.seen.filter((x) => x.url.startsWith("/apis/proxied.example.com/v1/namespaces")).at(-1)!;
    expect(seen.url).toBe("/apis/proxied.example.com/v1/namespaces/default/things?a=1&b=2&watch=false");
    expect(seen.clientCN).toBe("front-proxy-client");
    expect(seen.headers["x-remote-user"]).toBe("alice");
    expect(seen.headers["x-remote-uid"]).toBe("alice-uid");
    expect(seen.headers["x-remote-group"]).toBe("devs, system:masters, system:authenticated");
    expect(seen.headers["x-remote-extra-scopes"]).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
  });

  it("an impersonated caller is forwarded as the user it became; Impersonate-* does not cross", async () => {
    const r = await req(s, "GET", "/apis/proxied.example.com/v1/namespaces/default/things", { headers: { "Impersonate-User": "bob", "Impersonate-Group": "team", "Impersonate-Extra-Reason": "Debug" } });
    expect(r.status).toBe(200);
    const seen = backend.seen.at(-1)!;
    expect(seen.headers["x-remote-user"]).toBe("bob");
    expect(seen.headers["x-remote-group"]).toBe("team, system:authenticated");
    expect(seen.headers["x-remote-extra-reason"]).toBe("Debug");
    expect(Object.keys(seen.headers).filter((h) => h.startsWith("impersonate-"))).toEqual([]);
  });

  it("a WebSocket upgrade is joined through to the backend, with the caller's identity", async () => {
    const url = new URL("/apis/proxied.example.com/v1/namespaces/default/things/x/exec?command=sh", s.url.replace("https", "wss"));
    const ws = new WebSocket(url.toString(), ["v5.channel.k8s.io"], { ca: s.admin.ca, headers: { authorization: "Bearer alice-token", "x-remote-user": "mallory" } });
    const reply = await new Promise<string>((resolve, reject) => {
      ws.on("open", () => ws.send("hello"));
      ws.on("message", (m) => resolve(String(m)));
      ws.on("error", reject);
    });
    ws.close();
    expect(reply).toBe("echo: hello");
    expect(ws.protocol).toBe("v5.channel.k8s.io");
    const seen = backend.seen.filter((r) => r.url.includes("/exec")).at(-1)!;
    expect(seen.headers["x-remote-user"]).toBe("alice");
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.clientCN).toBe("front-proxy-client");
  });

  it("a backend that is down: 503 in plain text with the dial error; an unavailable APIService: service unavailable", async () => {
    const port = backend.port;
    await backend.close();
    const r = await req(s, "GET", "/apis/proxied.example.com/v1/namespaces/default/things");
    expect(r.status).toBe(503);
    expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(r.text).toBe(`dial tcp 127.0.0.1:${port}: connect: connection refused\n`);
    await req(s, "PATCH", `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { body: { metadata: { labels: { touched: "1" } } }, headers: { "content-type": "application/merge-patch+json" } });
    const failed = await until("FailedDiscoveryCheck", async () => { const c = available(await get(name)); return c?.reason === "FailedDiscoveryCheck" ? c : undefined; }, 15_000, 50);
    const url = `https://localhost:${port}/apis/proxied.example.com/v1`;
    expect(failed.message).toBe(`failing or missing response from ${url}: Get "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`);
    const after = await req(s, "GET", "/apis/proxied.example.com/v1/namespaces/default/things");
    expect(after.status).toBe(503);
    expect(after.text).toBe("service unavailable\n");
  });
});
