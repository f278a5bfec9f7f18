import { describe, expect, it } from "vitest";
import { admissionAttributes } from "../attributes.testkit.js";
import { alwaysAdmit, alwaysDeny } from "./always.js";
import { typeFor } from "./parts.testkit.js";

const a = () => admissionAttributes({ operation: "CREATE", type: typeFor("", "configmaps"), namespace: "ns", name: "cm", subresource: "", dryRun: false, object: { metadata: { name: "cm" } } });

describe("AlwaysAdmit / AlwaysDeny", () => {
  it("admits everything, or denies everything with upstream's message", async () => {
    await expect(Promise.resolve(alwaysAdmit().validate!(a()))).resolves.toBeUndefined();
    expect(() => alwaysDeny().admit!(a())).toThrow('configmaps "cm" is forbidden: admission control is denying all modifications');
    expect(() => alwaysDeny().validate!(a())).toThrow(expect.objectContaining({ code: 403 }));
  });
});
