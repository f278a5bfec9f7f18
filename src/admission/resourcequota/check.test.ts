import { describe, expect, it } from "vitest";
import { ApiError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import { checkRequest, type QuotaRequest } from "./check.js";
import { evaluatorFor } from "../../quota/evaluators/registry.js";

const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>, spec: object = {}) =>
  ({ metadata: { name, namespace: "ns", resourceVersion: "5" }, spec: { hard, ...spec }, status: { hard, ...(used ? { used } : {}) } }) as unknown as KObject;
const pods = evaluatorFor("", "pods")!;
const pvcs = evaluatorFor("", "persistentvolumeclaims")!;
const pod = (name: string, requests?: object, spec: object = {}) =>
  ({ metadata: { name }, spec: { containers: [{ name: "c", image: "x", resources: requests ? { requests } : {} }], ...spec } }) as KObject;
const create = (object: KObject, extra: Partial<QuotaRequest> = {}): QuotaRequest => ({
  operation: "CREATE",
  subresource: "",
  object,
  gr: { group: "", resource: "pods" },
  name: object.metadata.name!,
  ...extra,
});

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("not refused");
}

describe("checkRequest", () => {
  it("charges every matching quota and leaves the others as they were", () => {
    const qs = [quota("a", { pods: "3", "requests.cpu": "2" }, { pods: "1", "requests.cpu": "500m" }), quota("b", { "count/configmaps": "1" }, { "count/configmaps": "0" })];
    const out = checkRequest(qs, create(pod("p", { cpu: "250m" })), pods, 0);
    expect(out[0]!.status).toEqual({ hard: { pods: "3", "requests.cpu": "2" }, used: { pods: "2", "requests.cpu": "750m" } });
    expect(out[1]).toBe(qs[1]);
    expect(qs[0]!.status).toMatchObject({ used: { pods: "1" } }); // the input is not changed
  });

  it("refuses with the exceeded resources only", () => {
    const qs = [quota("compute", { pods: "10", "requests.cpu": "1", "requests.memory": "1Gi" }, { pods: "1", "requests.cpu": "800m", "requests.memory": "1Gi" })];
    const e = refusal(() => checkRequest(qs, create(pod("big", { cpu: "300m", memory: "1Mi" })), pods, 0));
    expect(e.code).toBe(403);
    expect(e.message).toBe('pods "big" is forbidden: exceeded quota: compute, requested: requests.cpu=300m,requests.memory=1Mi, used: requests.cpu=800m,requests.memory=1Gi, limited: requests.cpu=1,requests.memory=1Gi');
  });

  it("refuses while the quota's usage of a counted resource is unknown", () => {
    const e = refusal(() => checkRequest([quota("fresh", { pods: "1", "count/pods": "1", secrets: "2" })], create(pod("p")), pods, 0));
    expect(e.message).toBe('pods "p" is forbidden: status unknown for quota: fresh, resources: count/pods,pods');
  });

  it("charges an update only the growth, to quotas that counted the stored object", () => {
    const old = { metadata: { name: "c", resourceVersion: "3" }, spec: { storageClassName: "gold", resources: { requests: { storage: "1Gi" } } } } as unknown as KObject;
    const grown = { ...old, spec: { ...(old.spec as object), resources: { requests: { storage: "3Gi" } } } } as KObject;
    const qs = [quota("disk", { "requests.storage": "10Gi", persistentvolumeclaims: "5" }, { "requests.storage": "1Gi", persistentvolumeclaims: "1" })];
    const r: QuotaRequest = { operation: "UPDATE", subresource: "", object: grown, oldObject: old, gr: { group: "", resource: "persistentvolumeclaims" }, name: "c" };
    expect(checkRequest(qs, r, pvcs, 0)[0]!.status).toMatchObject({ used: { "requests.storage": "3Gi", persistentvolumeclaims: "1" } });
    // Shrinking charges nothing (the controller gives it back).
    const shrunk: QuotaRequest = { ...r, object: old, oldObject: grown };
    expect(checkRequest(qs, shrunk, pvcs, 0)[0]).toBe(qs[0]);
  });

  it("charges a claim's status write without refusing it", () => {
    const old = { metadata: { name: "c", resourceVersion: "3" }, spec: { resources: { requests: { storage: "1Gi" } } }, status: {} } as unknown as KObject;
    const allocated = { ...old, status: { allocatedResources: { storage: "5Gi" } } } as KObject;
    const qs = [quota("disk", { "requests.storage": "2Gi" }, { "requests.storage": "1Gi" })];
    const r: QuotaRequest = { operation: "UPDATE", subresource: "status", object: allocated, oldObject: old, gr: { group: "", resource: "persistentvolumeclaims" }, name: "c" };
    expect(checkRequest(qs, r, pvcs, 0)[0]!.status).toMatchObject({ used: { "requests.storage": "5Gi" } });
  });

  it("a quota with scopes counts only the objects in all of them", () => {
    const qs = [quota("be", { pods: "1" }, { pods: "1" }, { scopes: ["BestEffort"] })];
    expect(checkRequest(qs, create(pod("burst", { cpu: "1" })), pods, 0)).toEqual(qs);
    expect(refusal(() => checkRequest(qs, create(pod("be")), pods, 0)).message).toBe('pods "be" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1');
  });

  it("limitedResources: consumption and scopes that need a covering quota", () => {
    const limited = [
      { apiGroup: "", resource: "pods", matchContains: ["requests.cpu"], matchScopes: [] },
      { apiGroup: "", resource: "pods", matchContains: [], matchScopes: [{ scopeName: "PriorityClass", operator: "In", values: ["cluster-services"] }] },
    ];
    const e = refusal(() => checkRequest([], create(pod("p", { cpu: "1" })), pods, 0, limited));
    expect(e.message).toBe('pods "p" is forbidden: insufficient quota to consume: requests.cpu');
    expect(checkRequest([], create(pod("p")), pods, 0, limited)).toEqual([]);
    const scoped = refusal(() => checkRequest([], create(pod("s", undefined, { priorityClassName: "cluster-services" })), pods, 0, limited));
    expect(scoped.code).toBe(500);
    expect(scoped.message).toBe("insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]");
    const covering = quota("cs", { pods: "10" }, { pods: "0" }, { scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["cluster-services"] }] } });
    expect(checkRequest([covering], create(pod("s", undefined, { priorityClassName: "cluster-services" })), pods, 0, limited)[0]!.status).toMatchObject({ used: { pods: "1" } });
  });
});
