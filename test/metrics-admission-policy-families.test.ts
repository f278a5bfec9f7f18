// The admission policy check families of kube-apiserver 1.34 on /metrics, read by a real
// Prometheus text parser after real requests: ValidatingAdmissionPolicy validations counted by
// policy, binding, error type and enforcement action (deny, warn, audit, and evaluation errors
// let through as allow; passing validations not at all), MutatingAdmissionPolicy mutations by
// policy, binding and error type.
import { expect, it, beforeAll, afterAll, describe } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage, type MetricsPage } from "./support/prometheus-text.js";

let s: EmbeddedTestServer;
let page: MetricsPage;
const ns = "policed";
const VAP = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const VAPB = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
const MAP = "/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies";
const MAPB = "/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicybindings";
const rules = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] };
const inNamespace = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } };
const cm = (name: string) => req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name } } });

async function made(path: string, body: object): Promise<void> {
  expect((await req(s, "POST", path, { body })).status, path).toBe(201);
}

/** Creates configmaps named `name`-<random> until the policies are in force (`until` says so of an answer). */
async function whenInForce(name: string, until: (status: number) => boolean): Promise<void> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const r = await cm(`${name}-${Math.random().toString(36).slice(2, 7)}`);
    if (until(r.status)) return;
  }
  throw new Error(`the policies were not in force for ${name} within 15 s`);
}

beforeAll(async () => {
  s = await startTestServer({ options: { featureGates: "MutatingAdmissionPolicy=true", runtimeConfig: "admissionregistration.k8s.io/v1beta1=true" } });
  await made("/api/v1/namespaces", { metadata: { name: ns } });
  await made(VAP, {
    metadata: { name: "no-bad" },
    spec: { matchConstraints: rules, failurePolicy: "Ignore", validations: [{ expression: "!object.metadata.name.startsWith('bad')" }, { expression: "object.data.nope == 'x'" }] },
  });
  await made(VAPB, { metadata: { name: "no-bad-deny" }, spec: { policyName: "no-bad", validationActions: ["Deny"], matchResources: inNamespace } });
  await made(VAPB, { metadata: { name: "no-bad-warn" }, spec: { policyName: "no-bad", validationActions: ["Warn", "Audit"], matchResources: inNamespace } });
  await made(MAP, {
    metadata: { name: "label-it" },
    spec: { matchConstraints: rules, failurePolicy: "Ignore", reinvocationPolicy: "Never", mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'policed': 'yes'}}}" } }, { patchType: "JSONPatch", jsonPatch: { expression: "[JSONPatch{op: 'test', path: '/data/nope', value: 'x'}]" } }] },
  });
  await made(MAPB, { metadata: { name: "label-it-here" }, spec: { policyName: "label-it", matchResources: inNamespace } });
  await whenInForce("bad", (status) => status === 422);
  await whenInForce("good", (status) => status === 201);
  // One of each, counted from here.
  const before = parseMetricsPage((await req(s, "GET", "/metrics")).text);
  const denied = await cm("bad-one");
  expect(denied.status).toBe(422); // the validation's reason, Invalid by default
  expect(String(denied.headers["warning"])).toContain("Validation failed for ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad-warn'");
  const admitted = await cm("good-one");
  expect(admitted.status).toBe(201);
  expect(admitted.json.metadata.labels).toEqual({ policed: "yes" });
  page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
  diff = (name, labels) => page.find(name, labels).reduce((n, x) => n + x.value, 0) - before.find(name, labels).reduce((n, x) => n + x.value, 0);
}, 60_000);
afterAll(async () => s?.stop());

let diff: (name: string, labels: Record<string, string>) => number;

describe("admission policy check families (kube-apiserver 1.34's)", () => {
  it("ValidatingAdmissionPolicy: BETA, by policy, binding, error type and enforcement action; passing checks not counted", () => {
    for (const [name, type] of [["apiserver_validating_admission_policy_check_total", "COUNTER"], ["apiserver_validating_admission_policy_check_duration_seconds", "HISTOGRAM"]] as const) {
      const f = page.families.get(name);
      expect(f?.type, name).toBe(type);
      expect(f!.help, name).toMatch(/^\[BETA\] /);
      for (const x of page.find(type === "HISTOGRAM" ? `${name}_count` : name)) expect(Object.keys(x.labels).sort()).toEqual(["enforcement_action", "error_type", "policy", "policy_binding"]);
    }
    expect(page.families.get("apiserver_validating_admission_policy_check_duration_seconds")!.buckets).toEqual(["5e-07", "0.001", "0.01", "0.1", "1", "+Inf"]);
    const total = "apiserver_validating_admission_policy_check_total";
    // "bad-one": its name check failed under each action of each binding (a denial is an invalid_error upstream).
    expect(diff(total, { policy: "no-bad", policy_binding: "no-bad-deny", error_type: "invalid_error", enforcement_action: "deny" })).toBe(1);
    expect(diff(total, { policy: "no-bad", policy_binding: "no-bad-warn", error_type: "invalid_error", enforcement_action: "warn" })).toBe(1);
    expect(diff(total, { policy: "no-bad", policy_binding: "no-bad-warn", error_type: "invalid_error", enforcement_action: "audit" })).toBe(1);
    // Both: the expression that cannot be evaluated, let through (Ignore), per binding.
    expect(diff(total, { policy: "no-bad", policy_binding: "no-bad-deny", enforcement_action: "allow" })).toBe(2);
    expect(diff(total, { policy: "no-bad", enforcement_action: "allow", error_type: "invalid_error" })).toBe(4);
    // Nothing else: the passing name check of "good-one" is not counted.
    expect(diff(total, { policy: "no-bad" })).toBe(7);
    expect(diff("apiserver_validating_admission_policy_check_duration_seconds_count", { policy: "no-bad" })).toBe(7);
  });

  it("MutatingAdmissionPolicy: ALPHA, by policy, binding and error type", () => {
    const total = "apiserver_mutating_admission_policy_check_total";
    expect(page.families.get(total)?.help).toMatch(/^\[ALPHA\] /);
    expect(page.families.get("apiserver_mutating_admission_policy_check_duration_seconds")?.type).toBe("HISTOGRAM");
    for (const x of page.find(total)) expect(Object.keys(x.labels).sort()).toEqual(["error_type", "policy", "policy_binding"]);
    // Only "good-one" reached mutating admission... and "bad-one" did too: mutation runs before validation.
    expect(diff(total, { policy: "label-it", policy_binding: "label-it-here", error_type: "no_error" })).toBe(2);
    expect(diff(total, { policy: "label-it", policy_binding: "label-it-here", error_type: "invalid_error" })).toBe(2);
  });
});
