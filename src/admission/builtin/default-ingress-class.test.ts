import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { defaultIngressClassPlugin } from "./default-ingress-class.js";
import { fakeParts, fakeWorld, typeFor } from "./parts.testkit.js";

const ic = (name: string, created: string, isDefault: boolean): KObject => ({
  metadata: { name, creationTimestamp: created, ...(isDefault ? { annotations: { "ingressclass.kubernetes.io/is-default-class": "true" } } : {}) },
  spec: { controller: "x/y" },
});
const plugin = defaultIngressClassPlugin(fakeParts(fakeWorld({ "networking.k8s.io/ingressclasses": [ic("nginx", "2026-01-01T00:00:00Z", true), ic("other", "2026-05-01T00:00:00Z", false)] })));
const admit = async (ing: KObject) => {
  await plugin.admit!(admissionAttributes({ operation: "CREATE", type: typeFor("networking.k8s.io", "ingresses"), namespace: "ns", name: "i", subresource: "", dryRun: false, object: ing }));
  return (ing.spec as any)?.ingressClassName;
};

describe("DefaultIngressClass", () => {
  it("names the default class in an Ingress without a class", async () => {
    expect(await admit({ metadata: { name: "i" }, spec: {} })).toBe("nginx");
  });
  it("leaves an Ingress naming a class, by field or by the legacy annotation", async () => {
    expect(await admit({ metadata: { name: "i" }, spec: { ingressClassName: "other" } })).toBe("other");
    expect(await admit({ metadata: { name: "i", annotations: { "kubernetes.io/ingress.class": "legacy" } }, spec: {} })).toBeUndefined();
  });
});
