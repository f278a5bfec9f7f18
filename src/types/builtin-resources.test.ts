import { describe, expect, it } from "vitest";
import {
  builtinGroupVersions,
  builtinResources,
  findBuiltinResource,
  findBuiltinResourceByKind,
} from "./builtin-resources.js";
import {
  groupDiscoveryOrder,
  groupVersionPriority,
  isGroupVersionEnabledByDefault,
  preferredVersionOf,
  resourceNames,
  groupResourceKey,
  versionLevel,
} from "./resource-names.js";

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const STATUS_VERBS = ["get", "patch", "update"];

function res(group: string, version: string, resource: string) {
  const r = findBuiltinResource(group, version, resource);
  if (!r) throw new Error(`missing ${group}/${version}/${resource}`);
  return r;
}

describe("builtin resources", () => {
  it("has unique (group, version, resource) entries", () => {
    const keys = builtinResources.map((r) => `${r.group}/${r.version}/${r.resource}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(builtinResources.length).toBe(90);
  });

  it("pods", () => {
    const pods = res("", "v1", "pods");
    expect(pods.kind).toBe("Pod");
    expect(pods.listKind).toBe("PodList");
    expect(pods.singularName).toBe("pod");
    expect(pods.namespaced).toBe(true);
    expect(pods.verbs).toEqual(ALL_VERBS);
    expect(pods.shortNames).toEqual(["po"]);
    expect(pods.categories).toEqual(["all"]);
    expect(pods.enabledByDefault).toBe(true);
    const subs = Object.fromEntries(pods.subresources.map((s) => [s.name, s]));
    expect(Object.keys(subs).sort()).toEqual(
      ["attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward", "proxy", "resize", "status"].sort(),
    );
    expect(subs.status).toEqual({ name: "status", kind: "Pod", verbs: STATUS_VERBS });
    expect(subs.log).toEqual({ name: "log", kind: "Pod", verbs: ["get"] });
    expect(subs.exec).toEqual({ name: "exec", kind: "PodExecOptions", verbs: ["create", "get"] });
    expect(subs.binding).toEqual({ name: "binding", kind: "Binding", verbs: ["create"] });
    expect(subs.eviction).toEqual({ name: "eviction", kind: "Eviction", group: "policy", version: "v1", verbs: ["create"] });
    expect(subs.proxy!.verbs).toEqual(["create", "delete", "get", "patch", "update"]);
    expect(subs.ephemeralcontainers!.verbs).toEqual(STATUS_VERBS);
    expect(subs.resize!.verbs).toEqual(STATUS_VERBS);
  });

  it("core special cases", () => {
    expect(res("", "v1", "namespaces").verbs).toEqual(["create", "delete", "get", "list", "patch", "update", "watch"]);
    expect(res("", "v1", "namespaces").namespaced).toBe(false);
    expect(res("", "v1", "namespaces").subresources.map((s) => s.name)).toEqual(["finalize", "status"]);
    expect(res("", "v1", "componentstatuses").verbs).toEqual(["get", "list"]);
    expect(res("", "v1", "componentstatuses").shortNames).toEqual(["cs"]);
    expect(res("", "v1", "bindings").verbs).toEqual(["create"]);
    expect(res("", "v1", "bindings").listKind).toBeUndefined();
    expect(res("", "v1", "nodes").namespaced).toBe(false);
    expect(res("", "v1", "nodes").subresources.map((s) => s.name)).toEqual(["proxy", "status"]);
    expect(res("", "v1", "services").shortNames).toEqual(["svc"]);
    expect(res("", "v1", "services").categories).toEqual(["all"]);
    const token = res("", "v1", "serviceaccounts").subresources.find((s) => s.name === "token");
    expect(token).toEqual({ name: "token", kind: "TokenRequest", group: "authentication.k8s.io", version: "v1", verbs: ["create"] });
    expect(res("", "v1", "events").kind).toBe("Event");
    expect(res("events.k8s.io", "v1", "events").kind).toBe("Event");
    expect(res("events.k8s.io", "v1", "events").shortNames).toEqual(["ev"]);
  });

  it("apps and others", () => {
    const deploy = res("apps", "v1", "deployments");
    expect(deploy.shortNames).toEqual(["deploy"]);
    expect(deploy.categories).toEqual(["all"]);
    expect(deploy.subresources).toEqual([
      { name: "scale", kind: "Scale", group: "autoscaling", version: "v1", verbs: STATUS_VERBS },
      { name: "status", kind: "Deployment", verbs: STATUS_VERBS },
    ]);
    const crd = res("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    expect(crd.shortNames).toEqual(["crd", "crds"]);
    expect(crd.categories).toEqual(["api-extensions"]);
    expect(crd.namespaced).toBe(false);
    expect(res("certificates.k8s.io", "v1", "certificatesigningrequests").subresources.map((s) => s.name)).toEqual([
      "approval",
      "status",
    ]);
    expect(findBuiltinResourceByKind("autoscaling", "v2", "HorizontalPodAutoscaler")?.resource).toBe("horizontalpodautoscalers");
    expect(res("autoscaling", "v1", "horizontalpodautoscalers").preferredVersion).toBe("v2");
  });

  it("virtual resources only support create", () => {
    for (const [g, r] of [
      ["authentication.k8s.io", "tokenreviews"],
      ["authentication.k8s.io", "selfsubjectreviews"],
      ["authorization.k8s.io", "subjectaccessreviews"],
      ["authorization.k8s.io", "selfsubjectaccessreviews"],
      ["authorization.k8s.io", "selfsubjectrulesreviews"],
      ["authorization.k8s.io", "localsubjectaccessreviews"],
    ] as const) {
      expect(res(g, "v1", r).verbs).toEqual(["create"]);
    }
    expect(res("authorization.k8s.io", "v1", "localsubjectaccessreviews").namespaced).toBe(true);
  });

  it("enables exactly the GA versions by default", () => {
    for (const r of builtinResources) {
      expect(r.enabledByDefault, `${r.group}/${r.version}/${r.resource}`).toBe(r.level === "ga");
    }
    expect(res("resource.k8s.io", "v1beta2", "resourceclaims").enabledByDefault).toBe(false);
    expect(res("storagemigration.k8s.io", "v1alpha1", "storageversionmigrations").enabledByDefault).toBe(false);
    expect(res("resource.k8s.io", "v1beta1", "deviceclasses").preferredVersion).toBe("v1");
  });

  it("every served group-version is known to the hand-written tables", () => {
    for (const { group, version } of builtinGroupVersions) {
      expect(groupVersionPriority[group], group).toBeDefined();
      expect(groupVersionPriority[group], `${group}/${version}`).toContain(version);
      expect(groupDiscoveryOrder).toContain(group);
    }
    for (const key of Object.keys(resourceNames)) {
      expect(
        builtinResources.some((r) => groupResourceKey(r.group, r.resource) === key),
        key,
      ).toBe(true);
    }
  });

  it("version priority lists GA before beta before alpha", () => {
    const rank = { ga: 0, beta: 1, alpha: 2 };
    for (const versions of Object.values(groupVersionPriority)) {
      for (let i = 1; i < versions.length; i++) {
        expect(rank[versionLevel(versions[i - 1]!)]).toBeLessThanOrEqual(rank[versionLevel(versions[i]!)]);
      }
    }
    expect(preferredVersionOf("autoscaling")).toBe("v2");
    expect(preferredVersionOf("storagemigration.k8s.io")).toBeUndefined();
    expect(preferredVersionOf("storagemigration.k8s.io", () => true)).toBe("v1alpha1");
    expect(preferredVersionOf("resource.k8s.io", (_g, v) => v !== "v1")).toBe("v1beta2");
    expect(isGroupVersionEnabledByDefault("", "v1")).toBe(true);
    expect(isGroupVersionEnabledByDefault("networking.k8s.io", "v1beta1")).toBe(false);
  });
});
