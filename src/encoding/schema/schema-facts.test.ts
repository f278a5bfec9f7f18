import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { GroupVersionKind } from "../../apimachinery/schema.js";
import { builtinResources } from "../../types/builtin-resources.js";
import {
  definitionForGVK,
  definitionNameForGVK,
  definitionNames,
  getDefinition,
  propertySchema,
  resolveRef,
  type SchemaFacts,
} from "./schema-facts.js";

describe("schema facts", () => {
  it("has every definition of the 1.34 document", () => {
    expect(definitionNames().length).toBe(730);
    expect(getDefinition("io.k8s.api.core.v1.Pod")).toBeDefined();
    expect(getDefinition("#/definitions/io.k8s.api.core.v1.Pod")).toBe(getDefinition("io.k8s.api.core.v1.Pod"));
    expect(getDefinition("io.k8s.api.core.v1.Nope")).toBeUndefined();
  });

  it("reads each definition line as parsing the whole file would", () => {
    const whole = JSON.parse(readFileSync(new URL("../../types/generated/schemas.json", import.meta.url), "utf8")) as {
      definitions: Record<string, SchemaFacts & { "x-kubernetes-group-version-kind"?: GroupVersionKind[] }>;
    };
    const enums = JSON.parse(readFileSync(new URL("../../types/generated/enums.json", import.meta.url), "utf8")) as { definitions: Record<string, unknown> };
    expect(definitionNames()).toEqual(Object.keys(whole.definitions));
    for (const [name, schema] of Object.entries(whole.definitions)) {
      // Definitions with enums are the overlay's (compared by the enum tests); the rest as written.
      if (!enums.definitions[name]) expect(getDefinition(name)).toEqual(schema);
      for (const gvk of schema["x-kubernetes-group-version-kind"] ?? []) expect(definitionNameForGVK(gvk.group, gvk.version, gvk.kind)).toBeDefined();
    }
  });

  it("maps group-version-kinds to definitions", () => {
    expect(definitionNameForGVK("", "v1", "Pod")).toBe("io.k8s.api.core.v1.Pod");
    expect(definitionNameForGVK("apps", "v1", "Deployment")).toBe("io.k8s.api.apps.v1.Deployment");
    expect(definitionNameForGVK("apps", "v1", "DeleteOptions")).toBe("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions");
    expect(definitionNameForGVK("apiextensions.k8s.io", "v1", "CustomResourceDefinition")).toBe(
      "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    );
    expect(definitionForGVK("", "v1", "Pod")).toBe(getDefinition("io.k8s.api.core.v1.Pod"));
    expect(definitionForGVK("", "v1", "NoSuchKind")).toBeUndefined();
  });

  it("has a definition for every built-in resource kind and list kind", () => {
    for (const r of builtinResources) {
      expect(definitionForGVK(r.group, r.version, r.kind), `${r.group}/${r.version}/${r.kind}`).toBeDefined();
      if (r.listKind) {
        expect(definitionForGVK(r.group, r.version, r.listKind), `${r.group}/${r.version}/${r.listKind}`).toBeDefined();
      }
    }
  });

  it("keeps structural facts", () => {
    const pod = getDefinition("io.k8s.api.core.v1.Pod")!;
    expect(pod.type).toBe("object");
    expect(pod.properties?.metadata).toEqual({ $ref: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" });
    expect(pod["x-kubernetes-group-version-kind"]).toEqual([{ group: "", kind: "Pod", version: "v1" }]);

    const containers = propertySchema("io.k8s.api.core.v1.PodSpec", "containers")!;
    expect(containers).toEqual({
      type: "array",
      items: { $ref: "io.k8s.api.core.v1.Container" },
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
    });
    expect(getDefinition("io.k8s.api.core.v1.PodSpec")!.required).toEqual(["containers"]);
    expect(resolveRef(containers.items!)).toBe(getDefinition("io.k8s.api.core.v1.Container"));
    expect(propertySchema("io.k8s.api.core.v1.Container", "name")).toEqual({ type: "string" });

    const strategy = propertySchema("io.k8s.api.apps.v1.DeploymentSpec", "strategy")!;
    expect(strategy["x-kubernetes-patch-strategy"]).toBe("retainKeys");
    expect(resolveRef(strategy).properties?.rollingUpdate).toEqual({ $ref: "io.k8s.api.apps.v1.RollingUpdateDeployment" });
    expect(propertySchema("io.k8s.api.apps.v1.DeploymentSpec", "replicas")).toEqual({ type: "integer", format: "int32" });

    const labels = propertySchema("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "labels")!;
    expect(labels).toEqual({ type: "object", additionalProperties: { type: "string" } });
    expect(getDefinition("io.k8s.apimachinery.pkg.apis.meta.v1.Time")).toEqual({ type: "string", format: "date-time" });
    expect(resolveRef("io.k8s.apimachinery.pkg.util.intstr.IntOrString")["x-kubernetes-int-or-string"]).toBe(true);
    expect(getDefinition("io.k8s.api.core.v1.SeccompProfile")!["x-kubernetes-unions"]).toEqual([
      { discriminator: "type", "fields-to-discriminateBy": { localhostProfile: "LocalhostProfile" } },
    ]);
  });

  it("every $ref resolves", () => {
    const visit = (s: SchemaFacts | boolean | undefined): void => {
      if (s === undefined || typeof s === "boolean") return;
      if (s.$ref !== undefined) expect(getDefinition(s.$ref), s.$ref).toBeDefined();
      for (const p of Object.values(s.properties ?? {})) visit(p);
      visit(s.items);
      visit(s.additionalProperties);
    };
    for (const name of definitionNames()) visit(getDefinition(name));
    expect(() => resolveRef("io.k8s.nope.Nothing")).toThrow(/unknown schema definition/);
  });
});
