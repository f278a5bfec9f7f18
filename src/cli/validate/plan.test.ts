import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import type { Manifest } from "./manifests.js";
import { planSteps } from "./plan.js";

const m = (document: number, object: Partial<KObject>): Manifest => ({ file: "f.yaml", document, object: object as KObject });

describe("planSteps", () => {
  it("creates namespaces, CRDs, policy params, then policies and bindings; dry-runs the rest in file order", () => {
    const manifests = [
      m(1, { apiVersion: "example.com/v1", kind: "Widget" }),
      m(2, { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicyBinding" }),
      m(3, { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", spec: { paramKind: { apiVersion: "v1", kind: "ConfigMap" } } } as Partial<KObject>),
      m(4, { apiVersion: "v1", kind: "ConfigMap" }),
      m(5, { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" }),
      m(6, { apiVersion: "v1", kind: "Namespace" }),
      m(7, { apiVersion: "v1", kind: "Secret" }),
      { file: "f.yaml", document: 8, error: "not an object" },
    ];
    const steps = planSteps(manifests).map((phase) => phase.map((s) => [s.manifest.document, s.persist]));
    expect(steps).toEqual([[[6, true]], [[5, true]], [[4, true]], [[2, true], [3, true]], [[1, false], [7, false]]]);
  });

  it("a ConfigMap is dry-run when no policy takes ConfigMaps as params", () => {
    const steps = planSteps([m(1, { apiVersion: "v1", kind: "ConfigMap" })]);
    expect(steps.flat()).toEqual([{ manifest: expect.objectContaining({ document: 1 }), persist: false }]);
  });
});
