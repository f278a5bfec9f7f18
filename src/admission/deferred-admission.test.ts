import { describe, expect, it } from "vitest";
import { admissionAttributes } from "./attributes.testkit.js";
import { admissionChain } from "./chain.js";
import { DeferredAdmission } from "./deferred-admission.js";
import type { ResourceType } from "../registry/resource-type.js";

const attrs = () => admissionAttributes({ operation: "CREATE", type: { group: "", resource: "configmaps", gr: { group: "", resource: "configmaps" } } as ResourceType, namespace: "ns", name: "cm", subresource: "", dryRun: false, object: { metadata: { name: "cm" } } });

describe("DeferredAdmission", () => {
  it("refuses a write before the chain is bound, then runs the bound chain's stages", async () => {
    const deferred = new DeferredAdmission();
    await expect(deferred.admit(attrs())).rejects.toThrow("before the admission chain was built");
    const seen: string[] = [];
    deferred.bind(admissionChain([{ name: "p", admit: () => void seen.push("admit"), validate: () => void seen.push("validate") }]));
    await deferred.admit(attrs());
    await deferred.validate(attrs());
    expect(seen).toEqual(["admit", "validate"]);
    expect(() => deferred.bind(admissionChain([]))).toThrow("already bound");
  });
});
