import { describe, expect, it } from "vitest";
import { ApiError } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import { builtinTypeRegistry } from "../../types/register.js";
import type { AdmissionParts } from "../plugins.js";
import { collectParams, paramKindProblem, paramKindString } from "./params.js";

const types = builtinTypeRegistry((f) => f.enabledByDefault);
const cm = (ns: string, name: string, labels: Record<string, string> = {}): KObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: ns, name, labels } });
const pc = (name: string): KObject => ({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name, labels: { tier: "x" } } });

function parts(objects: KObject[], live: KObject[] = [], synced = true): AdmissionParts {
  const informer = (namespaced: boolean, kind: string) => ({
    hasSynced: () => synced,
    synced: synced ? Promise.resolve() : new Promise(() => undefined),
    get: (ns: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name && (!namespaced || o.metadata.namespace === ns)),
    list: (ns?: string) => objects.filter((o) => o.kind === kind && (ns === undefined || o.metadata.namespace === ns)),
  });
  return {
    types,
    informers: { forType: (t: { namespaced: boolean; kind: string }) => informer(t.namespaced, t.kind) },
    stores: {
      for: () => ({
        async get(ns: string, name: string) {
          const found = live.find((o) => o.metadata.name === name && (o.metadata.namespace ?? "") === ns);
          if (!found) throw new ApiError(404, "NotFound", "not found");
          return found;
        },
      }),
    },
  } as unknown as AdmissionParts;
}

const cmKind = { apiVersion: "v1", kind: "ConfigMap" };

describe("collectParams", () => {
  it("no paramKind or no paramRef: evaluated once without params", async () => {
    expect(await collectParams(parts([]), undefined, { name: "x" }, "ns")).toEqual([null]);
    expect(await collectParams(parts([]), cmKind, undefined, "ns")).toEqual([null]);
  });

  it("by name, in the request's namespace unless the ref names one; a miss in the informer is read live", async () => {
    const p = parts([cm("team", "limits"), cm("other", "limits")], [cm("team", "fresh")]);
    expect(await collectParams(p, cmKind, { name: "limits", parameterNotFoundAction: "Deny" }, "team")).toEqual([cm("team", "limits")]);
    expect(await collectParams(p, cmKind, { name: "limits", namespace: "other", parameterNotFoundAction: "Deny" }, "team")).toEqual([cm("other", "limits")]);
    expect(await collectParams(p, cmKind, { name: "fresh", parameterNotFoundAction: "Deny" }, "team")).toEqual([cm("team", "fresh")]);
    expect(await collectParams(p, cmKind, { name: "gone", parameterNotFoundAction: "Allow" }, "team")).toEqual([]);
    await expect(collectParams(p, cmKind, { name: "gone", parameterNotFoundAction: "Deny" }, "team")).rejects.toThrow("no params found for policy binding with `Deny` parameterNotFoundAction");
  });

  it("by selector: every match", async () => {
    const p = parts([cm("team", "a", { use: "yes" }), cm("team", "b", { use: "no" }), cm("team", "c", { use: "yes" }), cm("x", "d", { use: "yes" })]);
    const got = await collectParams(p, cmKind, { selector: { matchLabels: { use: "yes" } }, parameterNotFoundAction: "Allow" }, "team");
    expect(got.map((o) => o!.metadata.name).sort()).toEqual(["a", "c"]);
  });

  it("cluster-scoped params; upstream's configuration errors", async () => {
    const pcKind = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass" };
    const p = parts([pc("high")]);
    expect(await collectParams(p, pcKind, { name: "high", parameterNotFoundAction: "Deny" }, "team")).toEqual([pc("high")]);
    await expect(collectParams(p, pcKind, { name: "high", namespace: "team", parameterNotFoundAction: "Deny" }, "team")).rejects.toThrow("paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
    await expect(collectParams(p, cmKind, { name: "limits", parameterNotFoundAction: "Deny" }, "")).rejects.toThrow("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources");
    await expect(collectParams(p, { apiVersion: "example.com/v1", kind: "Nope" }, { name: "x" }, "team")).rejects.toThrow("paramKind kind `&ParamKind{APIVersion:example.com/v1,Kind:Nope,}` not known");
    expect(paramKindString(cmKind)).toBe("&ParamKind{APIVersion:v1,Kind:ConfigMap,}");
  });

  it("an informer that has not synced within a second fails the binding", async () => {
    await expect(collectParams(parts([], [], false), cmKind, { name: "x" }, "team")).rejects.toThrow("paramKind kind `&ParamKind{APIVersion:v1,Kind:ConfigMap,}` not yet synced to use for admission");
  });

  it("a paramKind nothing serves is the policy's configuration error, in upstream's words", () => {
    expect(paramKindProblem(parts([]), { apiVersion: "v1", kind: "ConfigMap" })).toBeUndefined();
    expect(paramKindProblem(parts([]), undefined)).toBeUndefined();
    expect(paramKindProblem(parts([]), { apiVersion: "example.com/v1", kind: "BadParamKind" })).toBe("failed to find resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'");
    expect(paramKindProblem(parts([]), { apiVersion: "a/b/c", kind: "X" })).toBe("failed to parse apiVersion of paramKind '&ParamKind{APIVersion:a/b/c,Kind:X,}' with error: unexpected GroupVersion string: a/b/c");
  });
});
