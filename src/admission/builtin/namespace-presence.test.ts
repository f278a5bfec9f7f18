import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import type { NamespaceStates } from "../../registry/namespace-states.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionParts } from "../plugins.js";
import { namespaceAutoProvision, namespaceExists } from "./namespace-presence.js";
import { typeFor } from "./parts.testkit.js";

const existing = new Set(["live"]);
const namespaces = { get: async (ns: string) => (existing.has(ns) ? "active" : "missing") } as unknown as NamespaceStates;
const created: KObject[] = [];
const parts = () => ({ types: { get: () => typeFor("", "namespaces", false) }, stores: { for: () => ({ create: async (_ns: string, o: KObject) => (created.push(o), existing.add(o.metadata.name!), { object: o }) }) } }) as unknown as AdmissionParts;
const cm = (namespace: string, dryRun = false) => admissionAttributes({ operation: "CREATE", type: typeFor("", "configmaps"), namespace, name: "cm", subresource: "", dryRun, object: { metadata: { name: "cm" } } });

describe("NamespaceAutoProvision", () => {
  it("creates a missing namespace before a create in it, never on a dry run", async () => {
    const plugin = namespaceAutoProvision({ parts, namespaces });
    await plugin.admit!(cm("dry-one", true));
    expect(created).toEqual([]);
    await plugin.admit!(cm("fresh"));
    expect(created.map((o) => o.metadata.name)).toEqual(["fresh"]);
    await plugin.admit!(cm("live"));
    expect(created).toHaveLength(1);
  });
});

describe("NamespaceExists", () => {
  it("answers 404 for writes in a namespace that does not exist", async () => {
    const plugin = namespaceExists({ namespaces });
    await expect(plugin.validate!(cm("nowhere"))).rejects.toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
    await expect(plugin.validate!(cm("live"))).resolves.toBeUndefined();
  });
});
