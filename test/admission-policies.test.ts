// ValidatingAdmissionPolicy end to end: policies and bindings written through the API take effect
// within a second; real clients (kubectl, @kubernetes/client-node) see upstream's denials, Warning
// headers and status codes; params come from ConfigMaps and from custom resources.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { auditLog } from "./support/audit-log.js";
import { req, withCredentials, type TestServer } from "./support/client.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let server: KapiServer;
let s: TestServer;
let apps: k8s.AppsV1Api;
let core: k8s.CoreV1Api;
let custom: k8s.CustomObjectsApi;

/** The server's audit log, where the policies' annotations are read from each created object's event. */
const audit = auditLog();

const VAP = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const VAPB = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";

beforeAll(async () => {
  server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-vap-")), authorizationMode: ["RBAC"], options: audit.options });
  s = withCredentials(server);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  core = kc.makeApiClient(k8s.CoreV1Api);
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
  for (const ns of ["vap", "vap-params", "vap-crd", "vap-warn"]) await core.createNamespace({ body: { metadata: { name: ns } } });
});
afterAll(async () => server?.stop());

function deployment(name: string, replicas: number, labels: Record<string, string> = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
  };
}

const deploymentsRule = { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"] };

async function put(path: string, body: any) {
  const r = await req(s, "POST", path, { body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

/** Retries a create until the policy took effect (the informers carry it within a second). */
/**
 * Creates once the policies and bindings written so far are in effect (settled: the admission
 * informers hold them); `done` must hold for that one answer.
 */
async function createSettled(ns: string, body: any, done: (r: Awaited<ReturnType<typeof req>>) => boolean) {
  await server.settle();
  const r = await req(s, "POST", `/apis/apps/v1/namespaces/${ns}/deployments`, { body });
  expect(done(r), `${r.status} ${r.text}`).toBe(true);
  return r;
}

describe("ValidatingAdmissionPolicy", () => {
  it("rejects a Deployment with too many replicas (client-node and kubectl), within a second of the binding", async () => {
    await put(VAP, {
      metadata: { name: "max-replicas" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [deploymentsRule] },
        variables: [{ name: "replicas", expression: "object.spec.replicas" }],
        validations: [{ expression: "variables.replicas <= 5" }],
      },
    });
    const t0 = Date.now();
    await put(VAPB, { metadata: { name: "max-replicas-binding" }, spec: { policyName: "max-replicas", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap" } } } } });
    const r = await createSettled("vap", deployment("big", 10), (r) => r.status === 422);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      message: `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: variables.replicas <= 5`,
      details: { name: "big", group: "apps", kind: "deployments", causes: [{ message: "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: variables.replicas <= 5" }] },
    });
    // client-node sees the same Status.
    const err = await apps.createNamespacedDeployment({ namespace: "vap", body: deployment("big2", 6) as k8s.V1Deployment }).catch((e) => e);
    expect(err.code).toBe(422);
    expect(JSON.parse(err.body).message).toContain("denied request: failed expression: variables.replicas <= 5");
    // Within the limit: accepted; an update over it: denied.
    await apps.createNamespacedDeployment({ namespace: "vap", body: deployment("small", 3) as k8s.V1Deployment });
    const up = await req(s, "PATCH", "/apis/apps/v1/namespaces/vap/deployments/small", { body: { spec: { replicas: 9 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(up.status).toBe(422);
    // Another namespace is not bound.
    const other = await req(s, "POST", "/apis/apps/v1/namespaces/vap-warn/deployments", { body: deployment("free", 10) });
    expect(other.status).toBe(201);
  });

  it.skipIf(!kubectlBin)("kubectl apply is refused with upstream's message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-vap-manifests-"));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "d.json"), JSON.stringify({ ...deployment("applied", 8), metadata: { name: "applied", namespace: "vap" } }));
    const r = await kubectl(kubectlBin!, server.kubeconfigPath!, ["apply", "-f", join(dir, "d.json")]);
    expect(r.code).not.toBe(0);
    // kubectl words an Invalid Status by its causes (one, with no field), as it does against kube-apiserver.
    expect(r.stderr).toContain(`The deployments "applied" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: variables.replicas <= 5`);
    const ok = await kubectl(kubectlBin!, server.kubeconfigPath!, ["create", "deployment", "kc", "-n", "vap", "--image=nginx", "--replicas=2"]);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("takes params from a ConfigMap, with messageExpression, reason and parameterNotFoundAction", async () => {
    await put(VAP, {
      metadata: { name: "replica-limit-cm" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [deploymentsRule] },
        validations: [
          {
            expression: "object.spec.replicas <= int(params.data.maxReplicas)",
            messageExpression: "'replicas ' + string(object.spec.replicas) + ' over ' + params.data.maxReplicas + ' (' + params.kind + ')'",
            reason: "Forbidden",
          },
        ],
      },
    });
    await core.createNamespacedConfigMap({ namespace: "vap-params", body: { metadata: { name: "limits" }, data: { maxReplicas: "4" } } });
    await put(VAPB, {
      metadata: { name: "replica-limit-cm-binding" },
      spec: {
        policyName: "replica-limit-cm",
        validationActions: ["Deny"],
        paramRef: { name: "limits", parameterNotFoundAction: "Deny" },
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-params" } } },
      },
    });
    const r = await createSettled("vap-params", deployment("p1", 5), (r) => r.status === 403);
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe("Forbidden");
    expect(r.json.message).toBe(`deployments.apps "p1" is forbidden: ValidatingAdmissionPolicy 'replica-limit-cm' with binding 'replica-limit-cm-binding' denied request: replicas 5 over 4 (ConfigMap)`);
    expect((await req(s, "POST", "/apis/apps/v1/namespaces/vap-params/deployments", { body: deployment("p2", 4) })).status).toBe(201);
    // A changed param applies to the next request.
    await core.patchNamespacedConfigMap({ namespace: "vap-params", name: "limits", body: [{ op: "replace", path: "/data/maxReplicas", value: "6" }] });
    const r2 = await createSettled("vap-params", deployment("p3", 5), (r) => r.status === 201);
    expect(r2.status).toBe(201);
    // The param gone: parameterNotFoundAction Deny refuses everything the binding matches.
    await core.deleteNamespacedConfigMap({ namespace: "vap-params", name: "limits" });
    const r3 = await createSettled("vap-params", deployment("p4", 1), (r) => r.status !== 201);
    expect(r3.status).toBe(422);
    expect(r3.json.message).toBe(`deployments.apps "p4" is forbidden: ValidatingAdmissionPolicy 'replica-limit-cm' with binding 'replica-limit-cm-binding' denied request: failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`);
  });

  it("takes params from a custom resource selected by labels, one evaluation per param", async () => {
    await put("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      metadata: { name: "replicalimits.rules.example.com" },
      spec: {
        group: "rules.example.com",
        scope: "Namespaced",
        names: { plural: "replicalimits", singular: "replicalimit", kind: "ReplicaLimit" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { maxReplicas: { type: "integer" } } } } }],
      },
    });
    const crPath = "/apis/rules.example.com/v1/namespaces/vap-crd/replicalimits";
    await server.settle(); // the CRD is established and served
    const strict = await req(s, "POST", crPath, { body: { apiVersion: "rules.example.com/v1", kind: "ReplicaLimit", metadata: { name: "strict", labels: { tier: "limits" } }, maxReplicas: 2 } });
    expect(strict.status, strict.text).toBe(201);
    await custom.createNamespacedCustomObject({ group: "rules.example.com", version: "v1", namespace: "vap-crd", plural: "replicalimits", body: { apiVersion: "rules.example.com/v1", kind: "ReplicaLimit", metadata: { name: "loose", labels: { tier: "limits" } }, maxReplicas: 7 } });
    await put(VAP, {
      metadata: { name: "replica-limit-crd" },
      spec: {
        paramKind: { apiVersion: "rules.example.com/v1", kind: "ReplicaLimit" },
        matchConstraints: { resourceRules: [deploymentsRule] },
        validations: [{ expression: "object.spec.replicas <= params.maxReplicas", messageExpression: "'limit ' + params.metadata.name + ' allows ' + string(params.maxReplicas)" }],
      },
    });
    await put(VAPB, {
      metadata: { name: "replica-limit-crd-binding" },
      spec: { policyName: "replica-limit-crd", validationActions: ["Deny"], paramRef: { selector: { matchLabels: { tier: "limits" } }, parameterNotFoundAction: "Allow" }, matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-crd" } } } },
    });
    // 3 replicas pass "loose" but not "strict".
    const r = await createSettled("vap-crd", deployment("c1", 3), (r) => r.status === 422);
    expect(r.json.message).toBe(`deployments.apps "c1" is forbidden: ValidatingAdmissionPolicy 'replica-limit-crd' with binding 'replica-limit-crd-binding' denied request: limit strict allows 2`);
    expect((await req(s, "POST", "/apis/apps/v1/namespaces/vap-crd/deployments", { body: deployment("c2", 2) })).status).toBe(201);
  });

  it("Warn adds upstream's Warning header and admits; Audit records the validation_failure annotation; auditAnnotations publish", async () => {
    await put(VAP, {
      metadata: { name: "warn-replicas" },
      spec: {
        matchConstraints: { resourceRules: [deploymentsRule] },
        matchConditions: [{ name: "not-exempt", expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
        validations: [{ expression: "object.spec.replicas < 3", message: "too many replicas" }],
        auditAnnotations: [{ key: "replicas", valueExpression: "'replicas=' + string(object.spec.replicas)" }],
      },
    });
    await put(VAPB, { metadata: { name: "warn-replicas-binding" }, spec: { policyName: "warn-replicas", validationActions: ["Warn", "Audit"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-warn" } } } } });
    const r = await createSettled("vap-warn", deployment("w1", 4), (r) => r.headers.warning !== undefined);
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe(`299 - "Validation failed for ValidatingAdmissionPolicy 'warn-replicas' with binding 'warn-replicas-binding': too many replicas"`);
    const { "authorization.k8s.io/decision": _d, "authorization.k8s.io/reason": _r, ...fromPolicies } = audit.completed("create", "deployments", "vap-warn", "w1").annotations;
    expect(fromPolicies).toEqual({
      "validation.policy.admission.k8s.io/validation_failure": JSON.stringify([{ message: "too many replicas", policy: "warn-replicas", binding: "warn-replicas-binding", expressionIndex: 0, validationActions: ["Warn", "Audit"] }]),
      "warn-replicas/replicas": "replicas=4",
    });
    // matchConditions: an exempt object is not validated at all.
    const exempt = await req(s, "POST", "/apis/apps/v1/namespaces/vap-warn/deployments", { body: deployment("w2", 4, { exempt: "yes" }) });
    expect(exempt.status).toBe(201);
    expect(exempt.headers.warning).toBeUndefined();
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["create", "deployment", "w3", "-n", "vap-warn", "--image=nginx", "--replicas=5"]);
      expect(k.code, k.stderr).toBe(0);
      expect(k.stderr).toContain(`Warning: Validation failed for ValidatingAdmissionPolicy 'warn-replicas' with binding 'warn-replicas-binding': too many replicas`);
    }
  });

  it("failurePolicy decides about an expression that errors; Ignore admits", async () => {
    await core.createNamespace({ body: { metadata: { name: "vap-fail" } } });
    await put(VAP, {
      metadata: { name: "broken" },
      spec: { failurePolicy: "Fail", matchConstraints: { resourceRules: [{ ...deploymentsRule, resources: ["deployments"] }] }, validations: [{ expression: "object.spec.nope > 1" }] },
    });
    await put(VAPB, { metadata: { name: "broken-binding" }, spec: { policyName: "broken", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-fail" } } } } });
    const r = await createSettled("vap-fail", deployment("f1", 1), (r) => r.status === 422);
    expect(r.json.message).toBe(`deployments.apps "f1" is forbidden: ValidatingAdmissionPolicy 'broken' with binding 'broken-binding' denied request: expression 'object.spec.nope > 1' resulted in error: no such key: nope`);
    await req(s, "PATCH", `${VAP}/broken`, { body: { spec: { failurePolicy: "Ignore" } }, headers: { "content-type": "application/merge-patch+json" } });
    const r2 = await createSettled("vap-fail", deployment("f2", 1), (r) => r.status === 201);
    expect(r2.status).toBe(201);
  });

  it("refuses a policy whose expression does not compile, and a binding with both Deny and Warn (422, upstream's field errors)", async () => {
    const bad = await req(s, "POST", VAP, { body: { metadata: { name: "nocompile" }, spec: { matchConstraints: { resourceRules: [deploymentsRule] }, validations: [{ expression: "object.spec.replicas <" }] } } });
    expect(bad.status).toBe(422);
    expect(bad.json.reason).toBe("Invalid");
    expect(bad.json.message).toMatch(/^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "nocompile" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas <": compilation failed: ERROR: <input>:1:/);
    const both = await req(s, "POST", VAPB, { body: { metadata: { name: "both" }, spec: { policyName: "x", validationActions: ["Deny", "Warn"] } } });
    expect(both.status).toBe(422);
    expect(both.json.message).toContain("spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\"}: must not contain both Deny and Warn");
    // The stored form carries upstream's defaults.
    const got = (await req(s, "GET", `${VAP}/max-replicas`)).json;
    expect(got.spec).toMatchObject({ failurePolicy: "Fail", matchConstraints: { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: "*" }] } });
    expect(got.metadata.generation).toBe(1);
  });

  it("matchPolicy Equivalent: a request through another version is matched, and CEL sees the object converted to the rule's version", async () => {
    await put("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      metadata: { name: "widgets.eq.example.com" },
      spec: {
        group: "eq.example.com",
        scope: "Cluster",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: ["v1", "v2"].map((name) => ({ name, served: true, storage: name === "v1", schema: { openAPIV3Schema: { type: "object", properties: { size: { type: "integer" } } } } })),
      },
    });
    await put(VAP, {
      metadata: { name: "widget-v1" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ["eq.example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] }] },
        validations: [{ expression: "object.size < 10", messageExpression: "'seen as ' + object.apiVersion + ' (' + request.kind.version + '), asked as ' + request.requestKind.version" }],
      },
    });
    await put(VAPB, { metadata: { name: "widget-v1" }, spec: { policyName: "widget-v1", validationActions: ["Deny"] } });
    let r: Awaited<ReturnType<typeof req>> | undefined;
    await server.settle(); // the policy and binding written above are in effect once settled
    r = await req(s, "POST", "/apis/eq.example.com/v2/widgets", { body: { apiVersion: "eq.example.com/v2", kind: "Widget", metadata: { name: `w0` }, size: 20 } });
    expect(r!.json.message).toBe(`widgets.eq.example.com "${r!.json.details.name}" is forbidden: ValidatingAdmissionPolicy 'widget-v1' with binding 'widget-v1' denied request: seen as eq.example.com/v1 (v1), asked as v2`);
    // Exact: the v2 request is not matched at all.
    const got = (await req(s, "GET", `${VAP}/widget-v1`)).json;
    await req(s, "PUT", `${VAP}/widget-v1`, { body: { ...got, spec: { ...got.spec, matchConstraints: { ...got.spec.matchConstraints, matchPolicy: "Exact" } } } });
    let ok: Awaited<ReturnType<typeof req>> | undefined;
    await server.settle(); // the policy and binding written above are in effect once settled
    ok = await req(s, "POST", "/apis/eq.example.com/v2/widgets", { body: { apiVersion: "eq.example.com/v2", kind: "Widget", metadata: { name: `x0` }, size: 20 } });
    expect(ok!.status).toBe(201);
    // Type checking reads the custom resource's schema too.
    await put(VAP, {
      metadata: { name: "widget-typo" },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: ["eq.example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] }] }, validations: [{ expression: "object.sise < 10" }, { expression: "object.size < 10" }] },
    });
    let status: any;
    await server.settle(); // the status controller has checked the policy's types
    status = (await req(s, "GET", `${VAP}/widget-typo`)).json.status;
    expect(status.typeChecking).toEqual({ expressionWarnings: [{ fieldRef: "spec.validations[0].expression", warning: "eq.example.com/v1, Kind=Widget: ERROR: <input>:1:7: undefined field 'sise'\n | object.sise < 10\n | ......^\n" }] });
  });

  it("authorizer: a validation asks the server's authorizer about the requesting user", async () => {
    await core.createNamespace({ body: { metadata: { name: "vap-authz" } } });
    const rbac = "/apis/rbac.authorization.k8s.io/v1";
    await put(`${rbac}/namespaces/vap-authz/roles`, { metadata: { name: "cm-writer" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create"] }] });
    await put(`${rbac}/namespaces/vap-authz/rolebindings`, { metadata: { name: "alice" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cm-writer" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }] });
    await put(VAP, {
      metadata: { name: "deleters-only" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
        validations: [{ expression: "authorizer.requestResource.check('delete').allowed()", messageExpression: "request.userInfo.username + ' may not delete configmaps'", reason: "Forbidden" }],
      },
    });
    await put(VAPB, { metadata: { name: "deleters-only" }, spec: { policyName: "deleters-only", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-authz" } } } } });
    const asAlice = { "Impersonate-User": "alice" };
    let r: Awaited<ReturnType<typeof req>> | undefined;
    await server.settle(); // the policy and binding written above are in effect once settled
    r = await req(s, "POST", "/api/v1/namespaces/vap-authz/configmaps", { body: { metadata: { name: `a0` } }, headers: asAlice });
    expect(r!.json.message).toBe(`configmaps "${r!.json.details.name}" is forbidden: ValidatingAdmissionPolicy 'deleters-only' with binding 'deleters-only' denied request: alice may not delete configmaps`);
    // The admin (system:masters) may delete: admitted.
    expect((await req(s, "POST", "/api/v1/namespaces/vap-authz/configmaps", { body: { metadata: { name: "by-admin" } } })).status).toBe(201);
  });

  it("DELETE: oldObject is the stored object and the denial names it", async () => {
    await core.createNamespace({ body: { metadata: { name: "vap-delete" } } });
    await core.createNamespacedConfigMap({ namespace: "vap-delete", body: { metadata: { name: "keep", labels: { protected: "true" } } } });
    await put(VAP, {
      metadata: { name: "no-delete-protected" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["configmaps"] }] },
        validations: [{ expression: "object == null && oldObject.metadata.?labels.?protected.orValue('') != 'true'", message: "protected" }],
      },
    });
    await put(VAPB, { metadata: { name: "no-delete-protected" }, spec: { policyName: "no-delete-protected", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-delete" } } } } });
    let r: Awaited<ReturnType<typeof req>> | undefined;
    await server.settle(); // the policy and binding written above are in effect once settled
    r = await req(s, "DELETE", "/api/v1/namespaces/vap-delete/configmaps/keep");
    expect(r!.json.message).toBe(`configmaps "keep" is forbidden: ValidatingAdmissionPolicy 'no-delete-protected' with binding 'no-delete-protected' denied request: protected`);
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["delete", "configmap", "keep", "-n", "vap-delete"]);
      expect(k.code).not.toBe(0);
      expect(k.stderr).toContain(`ValidatingAdmissionPolicy 'no-delete-protected' with binding 'no-delete-protected' denied request: protected`);
    }
  });

  it.skipIf(!kubectlBin)("a policy on deployments/scale sees the Scale object (kubectl scale)", async () => {
    await core.createNamespace({ body: { metadata: { name: "vap-scale" } } });
    await apps.createNamespacedDeployment({ namespace: "vap-scale", body: deployment("s", 1) as k8s.V1Deployment });
    await put(VAP, {
      metadata: { name: "max-scale" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["deployments/scale"] }] },
        validations: [{ expression: "object.spec.replicas <= 5", messageExpression: "request.kind.group + '/' + request.kind.kind + ' of ' + request.resource.resource + '/' + request.subResource + ' asks ' + string(object.spec.replicas)" }],
      },
    });
    await put(VAPB, { metadata: { name: "max-scale" }, spec: { policyName: "max-scale", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-scale" } } } } });
    let k: Awaited<ReturnType<typeof kubectl>> | undefined;
    await server.settle(); // the policy and binding written above are in effect once settled
    k = await kubectl(kubectlBin!, server.kubeconfigPath!, ["scale", "deployment", "s", "-n", "vap-scale", "--replicas=9"]);
    expect(k!.stderr).toContain(`ValidatingAdmissionPolicy 'max-scale' with binding 'max-scale' denied request: autoscaling/Scale of deployments/scale asks 9`);
    const ok = await kubectl(kubectlBin!, server.kubeconfigPath!, ["scale", "deployment", "s", "-n", "vap-scale", "--replicas=4"]);
    expect(ok.code, ok.stderr).toBe(0);
    // The binding deleted: within a second the policy no longer applies.
    expect((await req(s, "DELETE", `${VAPB}/max-scale`)).status).toBe(200);
    const t0 = Date.now();
    await server.settle(); // the binding's deletion is in effect once settled
    const r = await req(s, "PATCH", "/apis/apps/v1/namespaces/vap-scale/deployments/s/scale", { body: { spec: { replicas: 9 } }, headers: { "content-type": "application/merge-patch+json" } });
    expect(r!.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("records type checking in status.typeChecking (kubectl reads it)", async () => {
    await put(VAP, {
      metadata: { name: "typo" },
      spec: {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: { resourceRules: [deploymentsRule] },
        validations: [{ expression: "object.spec.replicas > 0" }, { expression: "object.spec.replicass > 1", messageExpression: "'x' + params.datta.x" }],
      },
    });
    let status: any;
    await server.settle(); // the status controller has checked the policy's types
    status = (await req(s, "GET", `${VAP}/typo`)).json.status;
    expect(status).toEqual({
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          { fieldRef: "spec.validations[1].expression", warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n" },
          { fieldRef: "spec.validations[1].messageExpression", warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:13: undefined field 'datta'\n | 'x' + params.datta.x\n | ............^\n" },
        ],
      },
    });
    // A fixed policy: a new generation, no warnings.
    await req(s, "PUT", `${VAP}/typo`, { body: { ...(await req(s, "GET", `${VAP}/typo`)).json, spec: { matchConstraints: { resourceRules: [deploymentsRule] }, validations: [{ expression: "object.spec.replicas > 0" }] } } });
    await server.settle(); // the status controller has checked the policy's types
    status = (await req(s, "GET", `${VAP}/typo`)).json.status;
    expect(status).toEqual({ observedGeneration: 2, typeChecking: {} });
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["get", "validatingadmissionpolicy", "typo", "-o", "jsonpath={.status.observedGeneration}"]);
      expect(k.stdout).toBe("2");
    }
  });
});

describe("MutatingAdmissionPolicy (v1beta1 via --runtime-config, MutatingAdmissionPolicy gate)", () => {
  let m: TestServer & KapiServer;
  let mcore: k8s.CoreV1Api;
  const MAP = "/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies";
  const MAPB = "/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicybindings";
  const post = async (path: string, body: any) => {
    const r = await req(m, "POST", path, { body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };
  const bindTo = (name: string, ns: string, extra: Record<string, unknown> = {}) =>
    post(MAPB, { metadata: { name }, spec: { policyName: name, matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } }, ...extra } });
  /** Creates until `done` holds for the answer (the binding takes effect within a second). */
  /** Creates once settled (the policies and bindings written so far are in effect); `done` must hold for the answer. */
  async function createCm(ns: string, name: string, done: (r: any) => boolean, labels: Record<string, string> = {}) {
    await m.settle();
    const r = await req(m, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `${name}-0`, labels }, data: { k: "v" } } });
    expect(done(r), `${r.status} ${r.text}`).toBe(true);
    return r;
  }

  beforeAll(async () => {
    m = withCredentials((await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-map-")), options: { featureGates: "MutatingAdmissionPolicy=true", runtimeConfig: "admissionregistration.k8s.io/v1beta1=true" } })));
    const kc = new k8s.KubeConfig();
    kc.loadFromString(m.kubeconfig);
    mcore = kc.makeApiClient(k8s.CoreV1Api);
    for (const ns of ["map-apply", "map-json", "map-reinvoke", "map-fail"]) await mcore.createNamespace({ body: { metadata: { name: ns } } });
  });
  afterAll(async () => m?.stop());

  const configMapsRule = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] };

  it("ApplyConfiguration adds labels (merged with the object's own)", async () => {
    await post(MAP, {
      metadata: { name: "add-team" },
      spec: {
        matchConstraints: { resourceRules: [configMapsRule] },
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'team': 'blue', 'owner': request.userInfo.username}}}" } }],
      },
    });
    await bindTo("add-team", "map-apply");
    const r = await createCm("map-apply", "a", (r) => r.json?.metadata?.labels?.team === "blue", { keep: "me" });
    expect(r.status).toBe(201);
    expect(r.json.metadata.labels).toEqual({ keep: "me", team: "blue", owner: expect.any(String) });
    // client-node reads the stored object with the labels.
    const stored = await mcore.readNamespacedConfigMap({ namespace: "map-apply", name: r.json.metadata.name });
    expect(stored.metadata?.labels?.team).toBe("blue");
  });

  it("JSONPatch adds an escaped label key and a data entry; a failed test op changes nothing", async () => {
    await post(MAP, {
      metadata: { name: "patch-cm" },
      spec: {
        matchConstraints: { resourceRules: [configMapsRule] },
        mutations: [
          {
            patchType: "JSONPatch",
            jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {}}, JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/patched'), value: 'yes'}, JSONPatch{op: 'add', path: '/data/added', value: string(size(object.data))}]" },
          },
          { patchType: "JSONPatch", jsonPatch: { expression: "[JSONPatch{op: 'test', path: '/data/k', value: 'other'}, JSONPatch{op: 'add', path: '/data/never', value: 'x'}]" } },
        ],
      },
    });
    await bindTo("patch-cm", "map-json");
    const r = await createCm("map-json", "j", (r) => r.json?.metadata?.labels?.["example.com/patched"] === "yes");
    expect(r.status).toBe(201);
    expect(r.json.metadata.labels).toEqual({ "example.com/patched": "yes" });
    expect(r.json.data).toEqual({ k: "v", added: "1" });
  });

  it("reinvocationPolicy IfNeeded: an earlier policy runs again after a later one changed the object", async () => {
    // "a-copy" (IfNeeded) copies label src to label copy; "b-src" (after it, by name) sets src.
    await post(MAP, {
      metadata: { name: "a-copy" },
      spec: {
        matchConstraints: { resourceRules: [configMapsRule] },
        reinvocationPolicy: "IfNeeded",
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'copy': object.metadata.?labels.?src.orValue('none')}}}" } }],
      },
    });
    await post(MAP, {
      metadata: { name: "b-src" },
      spec: {
        matchConstraints: { resourceRules: [configMapsRule] },
        reinvocationPolicy: "Never",
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'src': 'from-b'}}}" } }],
      },
    });
    await bindTo("a-copy", "map-reinvoke");
    await bindTo("b-src", "map-reinvoke");
    const r = await createCm("map-reinvoke", "r", (r) => r.json?.metadata?.labels?.copy === "from-b");
    expect(r.json.metadata.labels).toEqual({ src: "from-b", copy: "from-b" });
  });

  it("a mutation that fails is refused under Fail with upstream's words, ignored under Ignore", async () => {
    await post(MAP, {
      metadata: { name: "bad-type" },
      spec: {
        matchConstraints: { resourceRules: [configMapsRule] },
        failurePolicy: "Fail",
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadatax{labels: {'a': 'b'}}}" } }],
      },
    });
    await bindTo("bad-type", "map-fail");
    const r = await createCm("map-fail", "f", (r) => r.status === 403);
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      reason: "Invalid",
      code: 403,
      message: `policy 'bad-type' with binding 'bad-type' denied request: type mismatch: unexpected type name "Object.metadatax", expected "Object.metadata", which matches field name path from root Object type`,
      details: { kind: "configmaps", causes: [{ message: `policy 'bad-type' with binding 'bad-type' denied request: type mismatch: unexpected type name "Object.metadatax", expected "Object.metadata", which matches field name path from root Object type` }] },
    });
    const got = await req(m, "GET", `${MAP}/bad-type`);
    await req(m, "PUT", `${MAP}/bad-type`, { body: { ...got.json, spec: { ...got.json.spec, failurePolicy: "Ignore" } } });
    const ok = await createCm("map-fail", "g", (r) => r.status === 201);
    expect(ok.status).toBe(201);
  });

  it("adds a sidecar container to a Deployment (list merged by name) and defaults it; dry run shows the mutation and stores nothing", async () => {
    await mcore.createNamespace({ body: { metadata: { name: "map-sidecar" } } });
    await post(MAP, {
      metadata: { name: "sidecar" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        reinvocationPolicy: "Never",
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression: "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'proxy', image: 'envoy:1.30'}]}}}}",
            },
          },
        ],
      },
    });
    await bindTo("sidecar", "map-sidecar");
    const body = (name: string) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "nginx" }] } } } });
    let r: Awaited<ReturnType<typeof req>> | undefined;
    await m.settle(); // the policy and binding written above are in effect once settled
    r = await req(m, "POST", "/apis/apps/v1/namespaces/map-sidecar/deployments?dryRun=All", { body: body("dry") });
    const containers = r!.json.spec.template.spec.containers;
    expect(containers.map((c: any) => c.name)).toEqual(["app", "proxy"]);
    // The sidecar went through the type's defaulting like any written container.
    expect(containers[1]).toMatchObject({ image: "envoy:1.30", imagePullPolicy: "IfNotPresent", terminationMessagePolicy: "File" });
    expect((await req(m, "GET", "/apis/apps/v1/namespaces/map-sidecar/deployments/dry")).status).toBe(404);
    const real = await req(m, "POST", "/apis/apps/v1/namespaces/map-sidecar/deployments", { body: body("web") });
    expect(real.json.spec.template.spec.containers.map((c: any) => c.name)).toEqual(["app", "proxy"]);
  });

  it.skipIf(!kubectlBin)("kubectl create sees the mutated object", async () => {
    const k = await kubectl(kubectlBin!, m.kubeconfigPath!, ["create", "configmap", "kc", "-n", "map-apply", "--from-literal=x=y", "-o", "jsonpath={.metadata.labels.team}"]);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toBe("blue");
  });
});

describe("switched off: the MutatingAdmissionPolicy gate, the type-checking controller", () => {
  it("stores the policies (v1beta1 served by --runtime-config) but never mutates; --controllers=-validatingadmissionpolicy-status-controller writes no status", async () => {
    const g = withCredentials((await startServer({ storage: "memory", options: { runtimeConfig: "admissionregistration.k8s.io/v1beta1=true", controllers: ["*", "-validatingadmissionpolicy-status-controller"] } })));
    try {
      const base = "/apis/admissionregistration.k8s.io/v1beta1";
      expect((await req(g, "POST", `${base}/mutatingadmissionpolicies`, { body: { metadata: { name: "p" }, spec: { matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] }, reinvocationPolicy: "Never", mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'x': 'y'}}}" } }] } } })).status).toBe(201);
      expect((await req(g, "POST", `${base}/mutatingadmissionpolicybindings`, { body: { metadata: { name: "p" }, spec: { policyName: "p" } } })).status).toBe(201);
      await g.settle(); // the policy and binding are in the admission informers: a mutation would apply now
      const r = await req(g, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "c" } } });
      expect(r.status).toBe(201);
      expect(r.json.metadata.labels).toBeUndefined();
      const vap = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
      expect((await req(g, "POST", vap, { body: { metadata: { name: "v" }, spec: { matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] }, validations: [{ expression: "object.nope == 1" }] } } })).status).toBe(201);
      await g.settle(); // with the status controller on, the status would be written by now
      expect((await req(g, "GET", `${vap}/v`)).json.status).toEqual({});
    } finally {
      await g.stop();
    }
  });
});
