import { describe, expect, it } from "vitest";
import { parseRuntimeConfig } from "../../types/runtime-config.js";
import type { KObject } from "../../apimachinery/object.js";
import { builtinResources } from "../../types/builtin-resources.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { isExemptAdmissionConfigurationResource, matchesRule, matchRequest, NamespaceNotFound, ruleRequestOf, type MatchCriteria, type RuleWithOperations } from "./index.js";

const types = builtinTypeRegistry(parseRuntimeConfig("", builtinResources));
const t = (group: string, version: string, resource: string) => types.get(group, version, resource)!;
const pod = (labels: Record<string, string> = {}): KObject => ({ kind: "Pod", apiVersion: "v1", metadata: { name: "p", labels } });
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes =>
  admissionAttributes({ operation: "CREATE", type: t("", "v1", "pods"), namespace: "team", name: "p", subresource: "", dryRun: false, object: pod(), ...over });
const labels: Record<string, Record<string, string>> = { team: { env: "prod" }, dev: { env: "dev" } };
const deps = { types, namespaceLabels: async (ns: string) => labels[ns] };
const allPods: RuleWithOperations = { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], scope: "*" };

describe("rule matching", () => {
  const r = (over: Partial<AdmissionAttributes>) => ruleRequestOf(attrs(over));

  it("matches operations, groups, versions and resources, with wildcards", () => {
    expect(matchesRule(allPods, r({}))).toBe(true);
    expect(matchesRule({ ...allPods, operations: ["UPDATE"] }, r({}))).toBe(false);
    expect(matchesRule({ ...allPods, apiGroups: ["apps"] }, r({}))).toBe(false);
    expect(matchesRule({ ...allPods, apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }, r({}))).toBe(true);
    expect(matchesRule({ ...allPods, resources: ["configmaps"] }, r({}))).toBe(false);
  });

  it("tells resources from their subresources: pods, pods/status, pods/*, */status, */*", () => {
    const status = r({ operation: "UPDATE", subresource: "status" });
    expect(matchesRule(allPods, status)).toBe(false);
    expect(matchesRule({ ...allPods, resources: ["pods/status"] }, status)).toBe(true);
    expect(matchesRule({ ...allPods, resources: ["pods/*"] }, status)).toBe(true);
    expect(matchesRule({ ...allPods, resources: ["*/status"] }, status)).toBe(true);
    expect(matchesRule({ ...allPods, resources: ["*/status"] }, r({}))).toBe(false);
    expect(matchesRule({ ...allPods, resources: ["*"] }, status)).toBe(false);
    expect(matchesRule({ ...allPods, resources: ["*/*"] }, status)).toBe(true);
    expect(matchesRule({ ...allPods, resources: ["*/*"] }, r({}))).toBe(true);
  });

  it("scopes: namespaces are cluster-scoped although their requests name a namespace", () => {
    const nsType = t("", "v1", "namespaces");
    const rule = (scope: RuleWithOperations["scope"]): RuleWithOperations => ({ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], scope });
    expect(matchesRule(rule("Namespaced"), r({}))).toBe(true);
    expect(matchesRule(rule("Cluster"), r({}))).toBe(false);
    const nsUpdate = r({ type: nsType, namespace: "", name: "team", operation: "UPDATE" });
    expect(nsUpdate.namespace).toBe("team");
    expect(matchesRule(rule("Cluster"), nsUpdate)).toBe(true);
    expect(matchesRule(rule("Namespaced"), nsUpdate)).toBe(false);
    expect(matchesRule(rule("Cluster"), r({ type: t("", "v1", "nodes"), namespace: "" }))).toBe(true);
  });

  it("exempts the admission configuration types themselves", () => {
    expect(isExemptAdmissionConfigurationResource(attrs({ type: t("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"), namespace: "" }))).toBe(true);
    expect(isExemptAdmissionConfigurationResource(attrs())).toBe(false);
  });
});

describe("matchRequest", () => {
  const criteria = (over: Partial<MatchCriteria> = {}): MatchCriteria => ({ rules: [allPods], matchPolicy: "Equivalent", ...over });

  it("applies the namespace selector to the request's namespace", async () => {
    expect(await matchRequest(criteria({ namespaceSelector: { matchLabels: { env: "prod" } } }), attrs(), deps)).toMatchObject({ equivalent: false, kind: { kind: "Pod", version: "v1" } });
    expect(await matchRequest(criteria({ namespaceSelector: { matchLabels: { env: "prod" } } }), attrs({ namespace: "dev" }), deps)).toBeUndefined();
    expect(await matchRequest(criteria({ namespaceSelector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] } }), attrs({ namespace: "dev" }), deps)).toBeDefined();
  });

  it("matches a namespace being written on its new labels", async () => {
    const nsType = t("", "v1", "namespaces");
    const ns = { kind: "Namespace", apiVersion: "v1", metadata: { name: "fresh", labels: { env: "prod" } } };
    const c = criteria({ rules: [{ ...allPods, resources: ["namespaces"] }], namespaceSelector: { matchLabels: { env: "prod" } } });
    expect(await matchRequest(c, attrs({ type: nsType, namespace: "", name: "fresh", object: ns }), deps)).toBeDefined();
  });

  it("a missing namespace fails the request only when the rules match", async () => {
    const sel = { matchLabels: { env: "prod" } };
    await expect(matchRequest(criteria({ namespaceSelector: sel }), attrs({ namespace: "gone" }), deps)).rejects.toBeInstanceOf(NamespaceNotFound);
    expect(await matchRequest(criteria({ namespaceSelector: sel, rules: [{ ...allPods, resources: ["configmaps"] }] }), attrs({ namespace: "gone" }), deps)).toBeUndefined();
  });

  it("cluster-scoped objects always pass the namespace selector", async () => {
    const rule = { ...allPods, resources: ["nodes"] };
    const node = { kind: "Node", apiVersion: "v1", metadata: { name: "n" } };
    expect(await matchRequest(criteria({ rules: [rule], namespaceSelector: { matchLabels: { env: "x" } } }), attrs({ type: t("", "v1", "nodes"), namespace: "", name: "n", object: node }), deps)).toBeDefined();
  });

  it("the object selector matches the new or the old object", async () => {
    const c = criteria({ objectSelector: { matchLabels: { app: "web" } } });
    expect(await matchRequest(c, attrs({ object: pod({ app: "web" }) }), deps)).toBeDefined();
    expect(await matchRequest(c, attrs({ object: pod({}) }), deps)).toBeUndefined();
    expect(await matchRequest(c, attrs({ operation: "DELETE", object: undefined, oldObject: pod({ app: "web" }) }), deps)).toBeDefined();
  });

  it("policies: resourceNames limit a rule, and excluded rules win", async () => {
    expect(await matchRequest(criteria({ rules: [{ ...allPods, resourceNames: ["q"] }] }), attrs(), deps)).toBeUndefined();
    expect(await matchRequest(criteria({ rules: [{ ...allPods, resourceNames: ["p"] }] }), attrs(), deps)).toBeDefined();
    expect(await matchRequest(criteria({ excludeRules: [allPods] }), attrs(), deps)).toBeUndefined();
  });

  it("matchPolicy Equivalent matches another served version of the same storage, and gives its kind", async () => {
    const hpa = t("autoscaling", "v2", "horizontalpodautoscalers");
    const rule = { operations: ["*" as const], apiGroups: ["autoscaling"], apiVersions: ["v1"], resources: ["horizontalpodautoscalers"] };
    const a = attrs({ type: hpa, object: { kind: "HorizontalPodAutoscaler", apiVersion: "autoscaling/v2", metadata: { name: "h" } }, name: "h" });
    expect(await matchRequest(criteria({ rules: [rule], matchPolicy: "Exact" }), a, deps)).toBeUndefined();
    const m = await matchRequest(criteria({ rules: [rule] }), a, deps);
    expect(m).toMatchObject({ equivalent: true, kind: { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" } });
    expect(m!.type.version).toBe("v1");
  });

  it("a subresource's kind is the subresource's (Scale), status keeps the parent's", async () => {
    const deploy = t("apps", "v1", "deployments");
    const rule = { operations: ["*" as const], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments/*"] };
    expect(await matchRequest(criteria({ rules: [rule] }), attrs({ type: deploy, operation: "UPDATE", subresource: "scale" }), deps)).toMatchObject({ kind: { group: "autoscaling", version: "v1", kind: "Scale" } });
    expect(await matchRequest(criteria({ rules: [rule] }), attrs({ type: deploy, operation: "UPDATE", subresource: "status" }), deps)).toMatchObject({ kind: { group: "apps", version: "v1", kind: "Deployment" } });
  });
});
