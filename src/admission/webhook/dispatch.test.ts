// The two dispatchers against a loopback HTTPS webhook, in process: order, reinvocation, match
// conditions, failurePolicy, dry run, warnings and audit annotations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../apimachinery/errors.js";
import { parseRuntimeConfig } from "../../types/runtime-config.js";
import type { KObject } from "../../apimachinery/object.js";
import { builtinResources } from "../../types/builtin-resources.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import type { WebhookDeps } from "./invocation.js";
import { dispatchMutating } from "./mutating.js";
import { allow, deny, patch, startAdmissionWebhookServer, type AdmissionWebhookServer, type ReviewRequest } from "./server.testkit.js";
import { compileHook } from "./source.js";
import type { WebhookSpec } from "./types.js";
import { dispatchValidating } from "./validating.js";

const types = builtinTypeRegistry(parseRuntimeConfig("", builtinResources));
const cmType = types.get("", "v1", "configmaps")!;
let hooks: AdmissionWebhookServer;
const deps: WebhookDeps = {
  types: () => types,
  namespaceLabels: async () => ({}),
  authorizer: () => ({ authorize: (a) => ({ decision: a.verb === "get" ? "allow" : "no-opinion", reason: "" }) }),
  resolveService: () => async () => {
    throw new Error("no services here");
  },
};
beforeAll(async () => {
  hooks = await startAdmissionWebhookServer();
});
afterAll(() => hooks?.close());

const spec = (name: string, path: string, extra: Partial<WebhookSpec> = {}): WebhookSpec => ({
  name,
  clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle },
  rules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  ...extra,
});
const attrs = (over: Partial<AdmissionAttributes> = {}) =>
  admissionAttributes({ operation: "CREATE", type: cmType, namespace: "ns", name: "c", subresource: "", dryRun: false, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } } as KObject, user: { name: "alice", groups: [] }, ...over });
const addLabel = (k: string) => (r: ReviewRequest) => patch(r, [{ op: "add", path: "/metadata/labels", value: { ...(r.request.object.metadata.labels ?? {}), [k]: String(Object.keys(r.request.object.metadata.labels ?? {}).length) } }]);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: ApiError) => ({ code: e.code, message: e.message }));

describe("mutating dispatch", () => {
  it("calls the webhooks in order, each seeing the previous one's patch; records annotations", async () => {
    hooks.on("/m-a", addLabel("a"));
    hooks.on("/m-b", addLabel("b"));
    const list = [compileHook("cfg-1", 0, spec("a.example.com", "/m-a")), compileHook("cfg-2", 0, spec("b.example.com", "/m-b"))];
    const a = attrs();
    await dispatchMutating(list, a, deps);
    expect(a.object!.metadata.labels).toEqual({ a: "0", b: "1" });
    expect(a.annotations["mutation.webhook.admission.k8s.io/round_0_index_1"]).toBe('{"configuration":"cfg-2","webhook":"b.example.com","mutated":true}');
    expect(a.annotations["mutation.webhook.admission.k8s.io/round_0_index_0"]).toBe('{"configuration":"cfg-1","webhook":"a.example.com","mutated":true}');
    // b changed the object after a ran, but a is not IfNeeded: no second pass.
    expect(a.reinvocation.shouldReinvoke).toBe(true);
  });

  it("records each applied patch from audit level Request on, as upstream's patch annotation", async () => {
    hooks.on("/m-p", addLabel("p"));
    const list = [compileHook("cfg-p", 0, spec("p.example.com", "/m-p"))];
    const key = "patch.webhook.admission.k8s.io/round_0_index_0";
    const atRequest = admissionAttributes(attrs(), "Request");
    await dispatchMutating(list, atRequest, deps);
    expect(atRequest.annotations[key]).toBe('{"configuration":"cfg-p","webhook":"p.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{"p":"0"}}],"patchType":"JSONPatch"}');
    const atMetadata = admissionAttributes(attrs(), "Metadata");
    await dispatchMutating(list, atMetadata, deps);
    expect(atMetadata.annotations[key]).toBeUndefined();
    expect(atMetadata.annotations["mutation.webhook.admission.k8s.io/round_0_index_0"]).toContain('"mutated":true');
  });

  it("IfNeeded: a webhook runs again in the second pass when an in-tree plugin changed the object in between", async () => {
    hooks.on("/m-re", addLabel("re"));
    const list = [compileHook("cfg", 0, spec("re.example.com", "/m-re", { reinvocationPolicy: "IfNeeded" }))];
    const a = attrs();
    await dispatchMutating(list, a, deps);
    expect(a.object!.metadata.labels).toEqual({ re: "0" });
    // An in-tree plugin changes the object, then the chain's second pass.
    a.object = { ...a.object!, metadata: { ...a.object!.metadata, labels: { ...a.object!.metadata.labels, plugin: "x" } } };
    a.reinvocation.isReinvoke = true;
    await dispatchMutating(list, a, deps);
    expect(a.object!.metadata.labels).toEqual({ re: "2", plugin: "x" });
    // Without a change in between, nothing is called again.
    const b = attrs();
    await dispatchMutating(list, b, deps);
    const calls = hooks.seen.length;
    b.reinvocation.isReinvoke = true;
    await dispatchMutating(list, b, deps);
    expect(hooks.seen.length).toBe(calls);
  });

  it("a patch on DELETE (no object) is upstream's 500; a patch that does not apply is a 500 whatever the failurePolicy", async () => {
    hooks.on("/m-del", (r) => patch(r, [{ op: "add", path: "/x", value: 1 }]));
    hooks.on("/m-bad", (r) => patch(r, [{ op: "replace", path: "/spec/nope", value: 1 }]));
    const del = await failure(dispatchMutating([compileHook("c", 0, spec("del.example.com", "/m-del"))], attrs({ operation: "DELETE", object: undefined, oldObject: attrs().object }), deps));
    expect(del).toEqual({ code: 500, message: 'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation' });
    const bad = await failure(dispatchMutating([compileHook("c", 0, spec("bad.example.com", "/m-bad", { failurePolicy: "Ignore" }))], attrs(), deps));
    expect(bad?.code).toBe(500);
    expect(bad?.message).toMatch(/^Internal error occurred: /);
  });

  it("the patched object is decoded as the type: unknown fields dropped, a wrong type is a 500", async () => {
    hooks.on("/m-unknown", (r) => patch(r, [{ op: "add", path: "/bogus", value: 1 }, { op: "add", path: "/data", value: { k: "v" } }]));
    hooks.on("/m-type", (r) => patch(r, [{ op: "add", path: "/data", value: "not a map" }]));
    const a = attrs();
    await dispatchMutating([compileHook("c", 0, spec("unknown.example.com", "/m-unknown"))], a, deps);
    expect(a.object).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { k: "v" } });
    expect(await failure(dispatchMutating([compileHook("c", 0, spec("type.example.com", "/m-type"))], attrs(), deps))).toEqual({
      code: 500,
      message: "Internal error occurred: json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string",
    });
  });
});

describe("validating dispatch", () => {
  it("the first denial decides; warnings and audit annotations are kept", async () => {
    hooks.on("/v-ok", (r) => allow(r, { warnings: ["careful"], auditAnnotations: { seen: "yes" } }));
    hooks.on("/v-no", (r) => deny(r, { code: 409, reason: "Conflict", message: "taken" }));
    const a = attrs();
    const e = await failure(dispatchValidating([compileHook("c1", 0, spec("ok.example.com", "/v-ok")), compileHook("c2", 0, spec("no.example.com", "/v-no"))], a, deps));
    expect(e).toEqual({ code: 409, message: 'admission webhook "no.example.com" denied the request: taken' });
    expect(a.warnings).toEqual(["careful"]);
    expect(a.annotations["ok.example.com/seen"]).toBe("yes");
  });

  it("match conditions see object, request and the authorizer; an error with Fail forbids", async () => {
    hooks.on("/v-cel", (r) => deny(r, { code: 403, message: "called" }));
    const cond = (expression: string, extra: Partial<WebhookSpec> = {}) => [compileHook("c", 0, spec("cel.example.com", "/v-cel", { matchConditions: [{ name: "m", expression }], ...extra }))];
    expect(await failure(dispatchValidating(cond("request.userInfo.username == 'bob'"), attrs(), deps))).toBeUndefined();
    expect((await failure(dispatchValidating(cond("object.metadata.name == 'c' && request.operation == 'CREATE'"), attrs(), deps)))?.code).toBe(403);
    expect((await failure(dispatchValidating(cond("authorizer.group('').resource('pods').check('get').allowed()"), attrs(), deps)))?.code).toBe(403);
    expect(await failure(dispatchValidating(cond("authorizer.group('').resource('pods').check('delete').allowed()"), attrs(), deps))).toBeUndefined();
    expect(await failure(dispatchValidating(cond("object.data.x == 'y'"), attrs(), deps))).toEqual({ code: 403, message: `configmaps "c" is forbidden: expression 'object.data.x == 'y'' resulted in error: no such key: data` });
    expect(await failure(dispatchValidating(cond("object.data.x == 'y'", { failurePolicy: "Ignore" }), attrs(), deps))).toBeUndefined();
  });

  it("a dry run reaches only webhooks without side effects", async () => {
    hooks.on("/v-dry", (r) => allow(r));
    const e = await failure(dispatchValidating([compileHook("c", 0, spec("fx.example.com", "/v-dry", { sideEffects: "Unknown" }))], attrs({ dryRun: true }), deps));
    expect(e).toEqual({ code: 400, message: 'admission webhook "fx.example.com" does not support dry run' });
    expect(await failure(dispatchValidating([compileHook("c", 0, spec("fx.example.com", "/v-dry", { sideEffects: "NoneOnDryRun" }))], attrs({ dryRun: true }), deps))).toBeUndefined();
  });

  it("timeoutSeconds is capped at 30 and defaults to 10", () => {
    expect(compileHook("c", 0, spec("t", "/t", { timeoutSeconds: 99 })).timeoutSeconds).toBe(30);
    expect(compileHook("c", 0, spec("t", "/t")).timeoutSeconds).toBe(10);
    expect(compileHook("c", 0, spec("t", "/t")).endpoint).toMatchObject({ conn: { server: new URL(hooks.url("/t?timeout=10s")) } });
  });
});
