// Admission webhooks end to end: a real server, loopback HTTPS webhooks with their own CA, and
// real clients (kubectl, @kubernetes/client-node, raw HTTPS). Mutating webhooks adding a label
// and a sidecar, validating ones rejecting (any denial answered 400 or above, on both paths and
// in both review versions), slow ones timing out under Fail and Ignore, one reached through a
// Service reference (Service → EndpointSlice, no kube-proxy), v1 and v1beta1 reviews, malformed
// answers (failurePolicy decides, never a 500 of kapi's own), dry run with
// sideEffects, reinvocation, match conditions, and `kubectl apply` of a manifest set.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { allow, deny, patch, startAdmissionWebhookServer, type AdmissionWebhookServer, type ReviewRequest } from "../src/admission/webhook/server.testkit.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { auditLog } from "./support/audit-log.js";
import { req, withCredentials, type TestServer } from "./support/client.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let server: KapiServer;
let s: TestServer;
let hooks: AdmissionWebhookServer;
let core: k8s.CoreV1Api;
let nsCount = 0;

/** The server's audit log: the annotations webhooks add are read from the created object's event. */
const audit = auditLog();
const auditSeen = { get: (key: string): Record<string, string> | undefined => audit.completed("create", "configmaps", key.split("/")[0]!, key.split("/")[1]!)?.annotations };

beforeAll(async () => {
  server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-webhooks-")), options: audit.options });
  s = withCredentials(server);
  hooks = await startAdmissionWebhookServer({ dnsNames: ["hooksvc.webhook-system.svc"] });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
afterAll(async () => {
  await server?.stop();
  await hooks?.close();
});

const mwcPath = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const vwcPath = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

/** A fresh namespace; webhooks of a test select it by name so tests never see each other's. */
async function namespace(): Promise<string> {
  const name = `wh-${++nsCount}`;
  const r = await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name } } });
  expect(r.status).toBe(201);
  return name;
}

type Hook = Record<string, unknown>;
function hook(name: string, path: string, ns: string, extra: Hook = {}): Hook {
  return {
    name,
    clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle },
    rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps", "pods"] }],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

async function configure(kind: "mutating" | "validating", name: string, webhooks: Hook[]): Promise<void> {
  const path = kind === "mutating" ? mwcPath : vwcPath;
  const r = await req(s, "POST", path, {
    body: { apiVersion: "admissionregistration.k8s.io/v1", kind: kind === "mutating" ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration", metadata: { name }, webhooks },
  });
  expect(r.status, r.text).toBe(201);
}

let probeN = 0;
/** The configuration at `path` is in effect once settled: one dry-run create reaches its webhook. */
async function inEffect(ns: string, path: string): Promise<void> {
  await server.settle();
  const name = `probe-${++probeN}`;
  await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: { metadata: { name } } });
  if (!hooks.seen.some((x) => x.path.startsWith(path) && x.review.request.name === name)) throw new Error(`webhook ${path} not called once settled`);
}

const cm = (name: string, labels?: Record<string, string>) => ({ metadata: { name, ...(labels ? { labels } : {}) }, data: { k: "v" } });
const seenAt = (path: string) => hooks.seen.filter((x) => x.path.startsWith(path));

describe("mutating", () => {
  it("adds a label and a sidecar container (client-node), with an upstream-shaped v1 review", async () => {
    const ns = await namespace();
    hooks.on("/mutate-sidecar", (r) => {
      const ops: unknown[] = [{ op: "add", path: "/metadata/labels", value: { ...(r.request.object.metadata.labels ?? {}), injected: "yes" } }];
      if (r.request.kind.kind === "Pod") ops.push({ op: "add", path: "/spec/containers/-", value: { name: "sidecar", image: "busybox:1.36" } });
      return patch(r, ops);
    });
    await configure("mutating", `sidecar-${ns}`, [hook("sidecar.example.com", "/mutate-sidecar", ns)]);
    await inEffect(ns, "/mutate-sidecar");
    // ServiceAccount admission refuses pods until the namespace's default ServiceAccount exists.
    await server.settle();
    const pod = await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: "app" }, spec: { containers: [{ name: "app", image: "nginx:1.25" }] } } });
    expect(pod.metadata?.labels).toEqual({ injected: "yes" });
    expect(pod.spec?.containers.map((c) => c.name)).toEqual(["app", "sidecar"]);
    // Defaults apply to what the webhook added.
    expect(pod.spec?.containers[1]!.terminationMessagePath).toBe("/dev/termination-log");
    const stored = await core.readNamespacedPod({ namespace: ns, name: "app" });
    expect(stored.spec?.containers.map((c) => c.name)).toEqual(["app", "sidecar"]);
    const review = seenAt("/mutate-sidecar").find((x) => x.review.request.name === "app")!.review;
    expect(review.apiVersion).toBe("admission.k8s.io/v1");
    expect(review.request).toMatchObject({
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      requestResource: { group: "", version: "v1", resource: "pods" },
      name: "app",
      namespace: ns,
      operation: "CREATE",
      userInfo: { username: "kapi-admin" },
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
      oldObject: null,
    });
    expect(review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(review.request.object.spec.containers).toHaveLength(1);
    expect(seenAt("/mutate-sidecar")[0]!.path).toBe("/mutate-sidecar?timeout=10s");
  });

  it("a patch that breaks the type's validation is rejected by it (re-checked after the patch)", async () => {
    const ns = await namespace();
    hooks.on("/mutate-bad-label", (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { "bad label": "x" } }]));
    await configure("mutating", `bad-label-${ns}`, [hook("badlabel.example.com", "/mutate-bad-label", ns)]);
    await inEffect(ns, "/mutate-bad-label").catch(() => undefined);
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("c1") });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('metadata.labels: Invalid value: "bad label"');
  });

  it("reinvocationPolicy IfNeeded runs an earlier webhook again after a later one changed the object", async () => {
    const ns = await namespace();
    hooks.on("/mutate-first", (r) => {
      const labels = r.request.object.metadata.labels ?? {};
      return patch(r, [{ op: "add", path: "/metadata/labels", value: { ...labels, first: String(Object.keys(labels).length) } }]);
    });
    hooks.on("/mutate-second", (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { ...(r.request.object.metadata.labels ?? {}), second: "yes" } }]));
    await configure("mutating", `a-first-${ns}`, [hook("first.example.com", "/mutate-first", ns, { reinvocationPolicy: "IfNeeded" })]);
    await configure("mutating", `b-second-${ns}`, [hook("second.example.com", "/mutate-second", ns)]);
    await inEffect(ns, "/mutate-second");
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("re") });
    expect(r.status, r.text).toBe(201);
    // first ran (0 labels), second added its label, first ran again and saw 2 labels.
    expect(r.json.metadata.labels).toEqual({ first: "2", second: "yes" });
    expect(seenAt("/mutate-first").filter((x) => x.review.request.name === "re")).toHaveLength(2);
    expect(seenAt("/mutate-second").filter((x) => x.review.request.name === "re")).toHaveLength(1);
    expect(auditSeen.get(`${ns}/re`)).toMatchObject({
      "mutation.webhook.admission.k8s.io/round_0_index_0": expect.stringContaining('"mutated":true'),
      "mutation.webhook.admission.k8s.io/round_1_index_0": expect.stringContaining('"webhook":"first.example.com"'),
    });
  });

  it("every webhook call is a round trip of its own with a fresh request.uid, as upstream (one write's webhooks and reinvocation, one deletecollection's deletes)", async () => {
    const ns = await namespace();
    hooks.on("/uid-first", (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { ...(r.request.object.metadata.labels ?? {}), first: "yes" } }]));
    hooks.on("/uid-second", (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { ...(r.request.object.metadata.labels ?? {}), second: "yes" } }]));
    hooks.on("/uid-validate", (r) => allow(r));
    const ops = (operations: string[]) => ({ rules: [{ operations, apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] });
    await configure("mutating", `a-uid-first-${ns}`, [hook("uid-first.example.com", "/uid-first", ns, { reinvocationPolicy: "IfNeeded" })]);
    await configure("mutating", `b-uid-second-${ns}`, [hook("uid-second.example.com", "/uid-second", ns)]);
    await configure("validating", `uid-validate-${ns}`, [hook("uid-validate.example.com", "/uid-validate", ns, ops(["CREATE", "DELETE"]))]);
    await inEffect(ns, "/uid-validate");
    await inEffect(ns, "/uid-second");

    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("one", { batch: "uid" }) })).status).toBe(201);
    const calls = ["/uid-first", "/uid-second", "/uid-validate"].flatMap((p) => seenAt(p).filter((x) => x.review.request.name === "one" && !x.review.request.dryRun));
    expect(calls.map((x) => x.path.split("?")[0]).sort()).toEqual(["/uid-first", "/uid-first", "/uid-second", "/uid-validate"]);
    const uids = calls.map((x) => x.review.request.uid);
    for (const uid of uids) expect(uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(uids).size).toBe(4);

    // One HTTP request, two deletes: each delete's review has its own uid too.
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("two", { batch: "uid" }) })).status).toBe(201);
    await core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: "batch=uid" });
    const deletes = seenAt("/uid-validate").filter((x) => x.review.request.operation === "DELETE");
    expect(deletes.map((x) => x.review.request.name).sort()).toEqual(["one", "two"]);
    expect(new Set(deletes.map((x) => x.review.request.uid)).size).toBe(2);
    expect(deletes.every((x) => !uids.includes(x.review.request.uid))).toBe(true);
  });
});

describe("scale subresource", () => {
  it.skipIf(!kubectlBin)("webhooks on deployments/scale get the autoscaling/v1 Scale; a patch of it sets the replicas (kubectl scale)", async () => {
    const ns = await namespace();
    hooks.on("/scale-cap", (r) => (r.request.object.spec.replicas > 3 ? patch(r, [{ op: "replace", path: "/spec/replicas", value: 3 }]) : allow(r)));
    hooks.on("/scale-check", (r) => (r.request.object.spec.replicas === 0 ? deny(r, { code: 403, message: "never to zero" }) : allow(r)));
    const rules = [{ operations: ["UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments/scale"] }];
    await configure("mutating", `scale-m-${ns}`, [hook("scale-cap.example.com", "/scale-cap", ns, { rules })]);
    await configure("validating", `scale-v-${ns}`, [hook("scale-check.example.com", "/scale-check", ns, { rules })]);
    const dep = { metadata: { name: "web" }, spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.25" }] } } } };
    expect((await req(s, "POST", `/apis/apps/v1/namespaces/${ns}/deployments`, { body: dep })).status).toBe(201);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const k = await kubectl(kubectlBin!, server.kubeconfigPath!, ["-n", ns, "scale", "deployment/web", "--replicas=10"]);
    expect(k.stderr).toBe("");
    const got = await req(s, "GET", `/apis/apps/v1/namespaces/${ns}/deployments/web`);
    expect(got.json.spec.replicas).toBe(3);
    const review = seenAt("/scale-cap").at(-1)!.review.request;
    expect(review).toMatchObject({ kind: { group: "autoscaling", version: "v1", kind: "Scale" }, resource: { group: "apps", version: "v1", resource: "deployments" }, subResource: "scale", object: { kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 10 } }, oldObject: { kind: "Scale", spec: { replicas: 1 } } });
    const zero = await kubectl(kubectlBin!, server.kubeconfigPath!, ["-n", ns, "scale", "deployment/web", "--replicas=0"]);
    expect(zero.stderr).toContain('admission webhook "scale-check.example.com" denied the request: never to zero');
    expect(seenAt("/scale-check").at(-1)!.review.request.object).toMatchObject({ kind: "Scale", spec: { replicas: 0 } });
  });
});

describe("validating", () => {
  it("rejects with upstream's message through kubectl and client-node; warnings and audit annotations pass through", async () => {
    const ns = await namespace();
    hooks.on("/validate-deny", (r) =>
      r.request.object.metadata.name.startsWith("bad")
        ? deny(r, { code: 403, reason: "Forbidden", message: "name must not start with bad" })
        : allow(r, { warnings: ["checked by deny.example.com"], auditAnnotations: { verdict: "ok" } }),
    );
    await configure("validating", `deny-${ns}`, [hook("deny.example.com", "/validate-deny", ns)]);
    await inEffect(ns, "/validate-deny");
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("bad-1") });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ reason: "Forbidden", message: 'admission webhook "deny.example.com" denied the request: name must not start with bad' });
    const err = await core.createNamespacedConfigMap({ namespace: ns, body: cm("bad-2") }).catch((e) => e);
    expect(err.code).toBe(403);
    expect(JSON.parse(err.body).message).toBe('admission webhook "deny.example.com" denied the request: name must not start with bad');
    const ok = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("good") });
    expect(ok.status).toBe(201);
    expect(ok.headers.warning).toBe('299 - "checked by deny.example.com"');
    expect(auditSeen.get(`${ns}/good`)?.["deny.example.com/verdict"]).toBe("ok");
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["-n", ns, "create", "configmap", "bad-3", "--from-literal=a=b"]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain('admission webhook "deny.example.com" denied the request: name must not start with bad');
      const w = await kubectl(kubectlBin, server.kubeconfigPath!, ["-n", ns, "create", "configmap", "good-2", "--from-literal=a=b"]);
      expect(w.code, w.stderr).toBe(0);
      expect(w.stderr).toContain("Warning: checked by deny.example.com");
    }
  });

  it("DELETE: the webhook sees the old object and DeleteOptions; a denial keeps the object (kubectl delete)", async () => {
    const ns = await namespace();
    hooks.on("/validate-delete", (r) => (r.request.oldObject?.metadata?.labels?.protected === "true" ? deny(r, { code: 403, reason: "Forbidden", message: "protected" }) : allow(r)));
    await configure("validating", `del-${ns}`, [hook("delete.example.com", "/validate-delete", ns, { rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] })]);
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("keep", { protected: "true" }) })).status).toBe(201);
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("drop") })).status).toBe(201);
    const t0 = Date.now();
    let r;
    do r = await req(s, "DELETE", `/api/v1/namespaces/${ns}/configmaps/keep?dryRun=All`);
    while (r.status === 200 && Date.now() - t0 < 5000);
    expect(r.status).toBe(403);
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["-n", ns, "delete", "configmap", "keep"]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain('admission webhook "delete.example.com" denied the request: protected');
    }
    expect((await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/keep`)).status).toBe(200);
    expect((await req(s, "DELETE", `/api/v1/namespaces/${ns}/configmaps/drop`)).status).toBe(200);
    const review = seenAt("/validate-delete").find((x) => x.review.request.name === "drop")!.review.request;
    expect(review).toMatchObject({ operation: "DELETE", object: null, oldObject: { metadata: { name: "drop" } }, options: { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" } });
  });

  it("a denial without a message or code is upstream's 'without explanation' 400", async () => {
    const ns = await namespace();
    hooks.on("/validate-bare", (r) => deny(r, {}));
    await configure("validating", `bare-${ns}`, [hook("bare.example.com", "/validate-bare", ns)]);
    await inEffect(ns, "/validate-bare").catch(() => undefined);
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("x") });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: 'admission webhook "bare.example.com" denied the request without explanation', code: 400 });
  });

  it("validating webhooks run in parallel", async () => {
    const ns = await namespace();
    for (const p of ["/validate-slow-a", "/validate-slow-b", "/validate-slow-c"]) hooks.on(p, (r) => ({ ...allow(r), delayMs: r.request.name.startsWith("probe") ? 0 : 600 }) as never);
    await configure("validating", `par-${ns}`, ["a", "b", "c"].map((x) => hook(`${x}.par.example.com`, `/validate-slow-${x}`, ns)));
    await inEffect(ns, "/validate-slow-c");
    const t0 = Date.now();
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("parallel") });
    expect(r.status).toBe(201);
    // In parallel: about one webhook's 600 ms, never the three in a row (1.8 s).
    expect(Date.now() - t0).toBeLessThan(1750);
  });

  it("matchConditions (CEL) and objectSelector skip the webhook", async () => {
    const ns = await namespace();
    hooks.on("/validate-cel", (r) => deny(r, { code: 403, message: "no" }));
    await configure("validating", `cel-${ns}`, [
      hook("cel.example.com", "/validate-cel", ns, {
        matchConditions: [{ name: "not-skipped", expression: "object.metadata.name != 'skip-me' && request.operation == 'CREATE'" }],
        objectSelector: { matchExpressions: [{ key: "exempt", operator: "DoesNotExist" }] },
      }),
    ]);
    await inEffect(ns, "/validate-cel").catch(() => undefined);
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("other") })).status).toBe(403);
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("skip-me") })).status).toBe(201);
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("exempt-one", { exempt: "true" }) })).status).toBe(201);
  });

  it("a match condition that errors: Fail forbids, Ignore skips", async () => {
    const ns = await namespace();
    hooks.on("/validate-cel-err", (r) => allow(r));
    const cond = [{ name: "boom", expression: "object.data.missing == 'x'" }];
    await configure("validating", `celerr-${ns}`, [hook("celerr.example.com", "/validate-cel-err", ns, { matchConditions: cond })]);
    const t0 = Date.now();
    let r;
    do r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm(`c${Date.now()}`) });
    while (r.status === 201 && Date.now() - t0 < 5000);
    expect(r.status).toBe(403);
    expect(r.json.message).toMatch(/^configmaps "c\d+" is forbidden: expression 'object.data.missing == 'x'' resulted in error: no such key: missing$/);
  });
});

describe("denial codes", () => {
  // Whatever code a webhook puts in its refusal, the client must see a refusal: a 2xx would be
  // read as the object created, a missing code must not look like the server failing (500).
  const denials = [
    { name: "no-code", status: { message: "no code given" }, code: 400, reason: undefined },
    { name: "code-200", status: { status: "Success", code: 200, message: "said 200" }, code: 400, reason: undefined },
    { name: "code-403", status: { code: 403, reason: "Forbidden", message: "said 403" }, code: 403, reason: "Forbidden" },
  ];
  const paths = [
    { kind: "validating", version: "v1" },
    { kind: "mutating", version: "v1" },
    { kind: "validating", version: "v1beta1" },
    { kind: "mutating", version: "v1beta1" },
  ] as const;
  for (const { kind, version } of paths) {
    it(`a ${kind} webhook's denial (${version} review) is answered with a code of at least 400 and a Failure status (client-node)`, async () => {
      const ns = await namespace();
      const path = `/deny-codes-${kind}-${version}`;
      const name = `codes.${kind}.${version}.example.com`;
      hooks.on(path, (r) => {
        const denial = denials.find((d) => r.request.name === d.name);
        return denial ? deny(r, denial.status) : allow(r);
      });
      await configure(kind, `codes-${ns}`, [hook(name, path, ns, { admissionReviewVersions: [version] })]);
      await inEffect(ns, path);
      for (const d of denials) {
        const err = await core.createNamespacedConfigMap({ namespace: ns, body: cm(d.name) }).then(
          (created) => new Error(`created: ${JSON.stringify(created)}`),
          (e) => e,
        );
        expect(err, d.name).toBeInstanceOf(k8s.ApiException);
        expect(err.code, d.name).toBe(d.code);
        const status = JSON.parse(err.body);
        expect(status, d.name).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `admission webhook "${name}" denied the request: ${d.status.message}`,
          ...(d.reason ? { reason: d.reason } : {}),
          code: d.code,
        });
        expect((await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/${d.name}`)).status, d.name).toBe(404);
      }
      expect(seenAt(path).at(-1)!.review.apiVersion).toBe(`admission.k8s.io/${version}`);
    });
  }
});

describe("failurePolicy", () => {
  it("a slow webhook times out: Fail answers upstream's 500, Ignore lets the write through", async () => {
    const ns = await namespace();
    hooks.on("/slow", (r) => ({ ...allow(r), delayMs: r.request.name.startsWith("probe") ? 0 : 6000 }) as never);
    await configure("validating", `slow-fail-${ns}`, [hook("slow-fail.example.com", "/slow", ns, { timeoutSeconds: 1, objectSelector: { matchLabels: { policy: "fail" } } })]);
    await configure("validating", `slow-ignore-${ns}`, [hook("slow-ignore.example.com", "/slow", ns, { timeoutSeconds: 1, failurePolicy: "Ignore", objectSelector: { matchLabels: { policy: "ignore" } } })]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const t0 = Date.now();
    const fail = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("f", { policy: "fail" }) });
    // Cut at the webhook's 1 s, long before its 6 s answer (slack for a loaded machine).
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(fail.status).toBe(500);
    expect(fail.json).toMatchObject({
      reason: "InternalError",
      message: `Internal error occurred: failed calling webhook "slow-fail.example.com": failed to call webhook: Post "https://127.0.0.1:${hooks.port}/slow?timeout=1s": context deadline exceeded`,
    });
    const ignore = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("i", { policy: "ignore" }) });
    expect(ignore.status).toBe(201);
    expect(seenAt("/slow").map((x) => x.path)).toContain("/slow?timeout=1s");
  });

  it.each([
    ["wrong uid", (r: ReviewRequest) => ({ response: { uid: "not-the-uid", allowed: true } }), (r: ReviewRequest) => `received invalid webhook response: expected response.uid="${r.request.uid}", got "not-the-uid"`],
    ["non-JSON", () => ({ raw: "hello, world", contentType: "application/json" }), () => "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'h' looking for beginning of value"],
    ["text", () => ({ raw: "hello, world", contentType: "text/plain; charset=utf-8" }), () => "failed to call webhook: serializer for text/plain doesn't exist"],
    ["undecodable patch", (r: ReviewRequest) => ({ response: { uid: r.request.uid, allowed: true, patchType: "JSONPatch", patch: Buffer.from("{not json").toString("base64") } }), () => "received undecodable patch in webhook response: invalid character 'n' looking for beginning of object key string"],
    ["a 500", () => ({ raw: "oops", status: 500, contentType: "text/plain" }), () => 'failed to call webhook: an error on the server ("oops") has prevented the request from succeeding'],
    ["no response", () => ({ response: undefined as never }), () => "received invalid webhook response: webhook response was absent"],
  ])("malformed answer (%s): Fail → 500 naming the webhook, Ignore → admitted", async (what, answer, reason) => {
    const ns = await namespace();
    const path = `/malformed-${what.replace(/\W+/g, "-")}`;
    let last: ReviewRequest | undefined;
    hooks.on(path, (r) => {
      last = r;
      return (answer as (r: ReviewRequest) => never)(r);
    });
    await configure("mutating", `mal-fail-${ns}`, [hook("mal-fail.example.com", path, ns, { objectSelector: { matchLabels: { policy: "fail" } } })]);
    await configure("mutating", `mal-ignore-${ns}`, [hook("mal-ignore.example.com", path, ns, { failurePolicy: "Ignore", objectSelector: { matchLabels: { policy: "ignore" } } })]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const before = parseMetricsPage((await req(s, "GET", "/metrics")).text);
    const fail = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("f", { policy: "fail" }) });
    expect(fail.status).toBe(500);
    expect(fail.json.message).toBe(`Internal error occurred: failed calling webhook "mal-fail.example.com": ${reason(last!)}`);
    const ignore = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("i", { policy: "ignore" }) });
    expect(ignore.status).toBe(201);
    // Recorded for the audit log under upstream's key (the index is the webhook's place among all mutating ones).
    const failedOpen = Object.entries(auditSeen.get(`${ns}/i`) ?? {}).filter(([k]) => /^failed-open\.mutation\.webhook\.admission\.k8s\.io\/round_0_index_\d+$/.test(k));
    expect(failedOpen.map(([, v]) => v)).toEqual(["mal-ignore.example.com"]);
    // On /metrics as upstream counts them: the webhook's own status when it answered one, else 503.
    const after = parseMetricsPage((await req(s, "GET", "/metrics")).text);
    const added = (name: string, labels: Record<string, string>) => (after.find(name, labels)[0]?.value ?? 0) - (before.find(name, labels)[0]?.value ?? 0);
    const code = what === "a 500" ? "500" : "503";
    expect(added("apiserver_admission_webhook_rejection_count", { name: "mal-fail.example.com", type: "admit", operation: "CREATE", error_type: "calling_webhook_error", rejection_code: code })).toBe(1);
    expect(added("apiserver_admission_webhook_request_total", { name: "mal-ignore.example.com", type: "admit", code, rejected: "false" })).toBe(1);
    expect(added("apiserver_admission_webhook_fail_open_count", { name: "mal-ignore.example.com", type: "admit" })).toBe(1);
  });

  it("a webhook that cannot be reached: connection refused", async () => {
    const ns = await namespace();
    await configure("validating", `down-${ns}`, [{ ...hook("down.example.com", "/x", ns), clientConfig: { url: "https://127.0.0.1:1/x", caBundle: hooks.caBundle } }]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("c") });
    expect(r.status).toBe(500);
    expect(r.json.message).toBe('Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/x?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
  });

  it("a caBundle that does not sign the serving certificate", async () => {
    const ns = await namespace();
    await configure("validating", `untrusted-${ns}`, [{ ...hook("untrusted.example.com", "/x", ns), clientConfig: { url: hooks.url("/x") } }]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("c") });
    expect(r.status).toBe(500);
    expect(r.json.message).toBe(`Internal error occurred: failed calling webhook "untrusted.example.com": failed to call webhook: Post "https://127.0.0.1:${hooks.port}/x?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
  });
});

describe("review versions", () => {
  it("v1beta1 is sent when the webhook accepts only it, and its answer is not checked for uid", async () => {
    const ns = await namespace();
    hooks.on("/v1beta1", (r) => ({ response: { allowed: true, patch: Buffer.from(JSON.stringify([{ op: "add", path: "/metadata/labels", value: { beta: "yes" } }])).toString("base64") } }));
    await configure("mutating", `beta-${ns}`, [hook("beta.example.com", "/v1beta1", ns, { admissionReviewVersions: ["v1beta2", "v1beta1", "v1"] })]);
    await inEffect(ns, "/v1beta1");
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("b") });
    expect(r.status, r.text).toBe(201);
    expect(r.json.metadata.labels).toEqual({ beta: "yes" });
    expect(seenAt("/v1beta1").at(-1)!.review.apiVersion).toBe("admission.k8s.io/v1beta1");
  });

  it("a configuration naming no version the server knows is refused (upstream's validation)", async () => {
    const r = await req(s, "POST", vwcPath, {
      body: { metadata: { name: "v9" }, webhooks: [{ ...hook("v9.example.com", "/v9", "x"), admissionReviewVersions: ["v9"], timeoutSeconds: 31, sideEffects: "Some" }] },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "v9" is invalid: [webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun", webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, webhooks[0].admissionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1]',
    );
  });

  it.skipIf(!kubectlBin)("kubectl shows the API's defaults", async () => {
    const ns = await namespace();
    await configure("mutating", `defaults-${ns}`, [{ ...hook("defaults.example.com", "/d", ns), clientConfig: { service: { namespace: ns, name: "svc" } }, rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }] }]);
    const k = await kubectl(kubectlBin!, server.kubeconfigPath!, ["get", "mutatingwebhookconfiguration", `defaults-${ns}`, "-o", "json"]);
    expect(k.stderr).toBe("");
    const got = JSON.parse(k.stdout);
    expect(got.metadata.generation).toBe(1);
    expect(got.webhooks[0]).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: "Never",
      clientConfig: { service: { namespace: ns, name: "svc", port: 443 } },
      rules: [{ scope: "*" }],
    });
  });
});

describe("dry run", () => {
  // A webhook declaring side effects cannot be created through v1 (see the validation test); the
  // 400 such a webhook gives a dry run is covered by the dispatcher's unit test.
  it("NoneOnDryRun is called with dryRun true; nothing is stored", async () => {
    const ns = await namespace();
    hooks.on("/dry", (r) => allow(r));
    await configure("validating", `dry-none-${ns}`, [hook("noneondryrun.example.com", "/dry", ns, { sideEffects: "NoneOnDryRun", objectSelector: { matchLabels: { fx: "none" } } })]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const none = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm("d2", { fx: "none" }) });
    expect(none.status).toBe(201);
    const review = seenAt("/dry").find((x) => x.review.request.name === "d2")!.review;
    expect(review.request.dryRun).toBe(true);
    expect(review.request.options).toEqual({ kind: "CreateOptions", apiVersion: "meta.k8s.io/v1", dryRun: ["All"] });
    expect((await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/d2`)).status).toBe(404);
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["-n", ns, "create", "configmap", "d3", "--from-literal=a=b", "--dry-run=server", "-o", "name"]);
      expect(k.stderr).toBe("");
      expect(k.stdout.trim()).toBe("configmap/d3");
      expect(seenAt("/dry").some((x) => x.review.request.name === "d3" && x.review.request.dryRun === true)).toBe(false); // not selected: no fx=none label
      const l = await kubectl(kubectlBin, server.kubeconfigPath!, ["-n", ns, "create", "-f", "-", "--dry-run=server", "-o", "name"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "d4", labels: { fx: "none" } } }));
      expect(l.stderr).toBe("");
      expect(seenAt("/dry").find((x) => x.review.request.name === "d4")?.review.request.dryRun).toBe(true);
      expect((await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/d4`)).status).toBe(404);
    }
  });
});

describe("configuration changes", () => {
  it("take effect once the server's informers have them (settle()), when written and when deleted", async () => {
    const ns = await namespace();
    hooks.on("/live", (r) => deny(r, { code: 403, message: "closed" }));
    const create = (name: string) => req(s, "POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm(name) });
    await configure("validating", `live-${ns}`, [hook("live.example.com", "/live", ns)]);
    const t0 = performance.now();
    await server.settle();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((await create("l1")).status).toBe(403);
    expect((await req(s, "DELETE", `${vwcPath}/live-${ns}`)).status).toBe(200);
    await server.settle();
    expect((await create("l2")).status).toBe(201);
  });

  it("webhooks are never called for webhook configurations themselves", async () => {
    hooks.on("/all", (r) => deny(r, { code: 403, message: "everything is closed" }));
    await configure("validating", "zz-all", [{ ...hook("all.example.com", "/all", "x"), namespaceSelector: {}, rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }] }]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    // Even a webhook matching everything cannot block its own removal.
    expect((await req(s, "DELETE", `${vwcPath}/zz-all`)).status).toBe(200);
  });
});

describe("service reference", () => {
  // Endpoints and EndpointSlices may not name loopback addresses (upstream ValidateEndpointIP), so
  // the loopback webhook is reached through an ExternalName Service for localhost.
  it("is resolved through an ExternalName Service to the loopback webhook (TLS checked against <name>.<namespace>.svc)", async () => {
    const ns = await namespace();
    expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "webhook-system" } } })).status).toBe(201);
    const svc = { metadata: { name: "hooksvc" }, spec: { type: "ExternalName", externalName: "localhost", ports: [{ name: "https", port: hooks.port }] } };
    expect((await req(s, "POST", "/api/v1/namespaces/webhook-system/services", { body: svc })).status).toBe(201);
    hooks.on("/svc", (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { via: "service" } }]));
    await configure("mutating", `svc-${ns}`, [{ ...hook("svc.example.com", "/svc", ns), clientConfig: { service: { namespace: "webhook-system", name: "hooksvc", path: "/svc", port: hooks.port }, caBundle: hooks.caBundle } }]);
    await inEffect(ns, "/svc");
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("s") });
    expect(r.status, r.text).toBe(201);
    expect(r.json.metadata.labels).toEqual({ via: "service" });
  });

  it("a Service without endpoints: upstream's dial error", async () => {
    const ns = await namespace();
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "empty" }, spec: { ports: [{ port: 443 }] } } })).status).toBe(201);
    await configure("validating", `nosvc-${ns}`, [{ ...hook("nosvc.example.com", "/x", ns), clientConfig: { service: { namespace: ns, name: "empty" }, caBundle: hooks.caBundle } }]);
    await server.settle(); // the configurations reach the dispatcher through an informer
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: cm("c") });
    expect(r.status).toBe(500);
    expect(r.json.message).toBe(`Internal error occurred: failed calling webhook "nosvc.example.com": failed to call webhook: Post "https://empty.${ns}.svc:443/?timeout=10s": no endpoints available for service "empty"`);
  });
});

describe.skipIf(!kubectlBin)("kubectl apply of a manifest set", () => {
  it("every object passes the webhooks: mutated, validated, stored", async () => {
    const ns = await namespace();
    hooks.on("/apply-mutate", (r) => patch(r, [{ op: "add", path: "/metadata/annotations", value: { ...(r.request.object.metadata.annotations ?? {}), "team.example.com/owner": "platform" } }]));
    hooks.on("/apply-validate", (r) => (r.request.object.metadata.annotations?.["team.example.com/owner"] ? allow(r) : deny(r, { code: 403, message: "owner annotation missing" })));
    const rules = [
      { operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps", "services", "secrets"] },
      { operations: ["CREATE", "UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] },
    ];
    await configure("mutating", `apply-m-${ns}`, [hook("owner.example.com", "/apply-mutate", ns, { rules })]);
    await configure("validating", `apply-v-${ns}`, [hook("owner-check.example.com", "/apply-validate", ns, { rules })]);
    await inEffect(ns, "/apply-validate");
    const manifest = `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ${ns}}
data: {mode: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: ${ns}}
stringData: {password: hunter2}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${ns}}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.25"}]}
`;
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", "-"], manifest);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("deployment.apps/web created");
    const again = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", "-"], manifest.replace("mode: fast", "mode: slow"));
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("configmap/settings configured");
    for (const path of [`/api/v1/namespaces/${ns}/configmaps/settings`, `/api/v1/namespaces/${ns}/secrets/creds`, `/api/v1/namespaces/${ns}/services/web`, `/apis/apps/v1/namespaces/${ns}/deployments/web`]) {
      const got = await req(s, "GET", path);
      expect(got.json.metadata.annotations?.["team.example.com/owner"], path).toBe("platform");
    }
    const updates = seenAt("/apply-validate").filter((x) => x.review.request.operation === "UPDATE" && x.review.request.name === "settings");
    expect(updates.length).toBeGreaterThan(0);
    expect(updates[0]!.review.request.oldObject.data).toEqual({ mode: "fast" });
    expect(updates[0]!.review.request.options.kind).toBe("UpdateOptions");
  });
});
