import { describe, expect, it } from "vitest";
import { ApiError } from "../apimachinery/errors.js";
import type { ResourceType } from "../registry/resource-type.js";
import { admissionChain } from "./chain.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";
import { admissionAttributes } from "./attributes.testkit.js";
import { AdmissionMetrics } from "../observability/admission-metrics.js";

const type = { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, gr: { group: "", resource: "configmaps" } } as ResourceType;
const attrs = (operation: AdmissionAttributes["operation"]): AdmissionAttributes =>
  admissionAttributes({ operation, type, namespace: "default", name: "x", subresource: "", object: { metadata: { name: "x" } }, dryRun: false });

describe("admissionChain", () => {
  it("runs mutating plugins in order, each seeing the previous one's change, and validating ones after", async () => {
    const log: string[] = [];
    const label = (name: string): AdmissionPlugin => ({
      name,
      admit(a) {
        log.push(`${name}.admit sees ${JSON.stringify(a.object!.metadata.labels ?? {})}`);
        a.object!.metadata.labels = { ...a.object!.metadata.labels, [name]: "1" };
      },
      validate(a) {
        log.push(`${name}.validate sees ${Object.keys(a.object!.metadata.labels ?? {}).join(",")}`);
      },
    });
    const chain = admissionChain([label("a"), label("b")]);
    const a = attrs("CREATE");
    await chain.admit(a);
    await chain.validate(a);
    expect(log).toEqual(['a.admit sees {}', 'b.admit sees {"a":"1"}', "a.validate sees a,b", "b.validate sees a,b"]);
  });

  it("skips plugins for operations they do not handle", async () => {
    const calls: string[] = [];
    const chain = admissionChain([{ name: "deletes-only", operations: ["DELETE"], validate: (a) => void calls.push(a.operation) }]);
    await chain.validate(attrs("CREATE"));
    await chain.validate(attrs("UPDATE"));
    await chain.validate(attrs("DELETE"));
    expect(calls).toEqual(["DELETE"]);
  });

  it("skips plugins for resources they do not name, in both stages", async () => {
    const calls: string[] = [];
    const secrets = { ...type, resource: "secrets", kind: "Secret", gr: { group: "", resource: "secrets" } } as ResourceType;
    const chain = admissionChain([
      { name: "secrets-only", resources: [{ group: "", resource: "secrets" }], admit: (a) => void calls.push(`admit ${a.type.resource}`), validate: (a) => void calls.push(`validate ${a.type.resource}`) },
      { name: "other-group", resources: [{ group: "apps", resource: "configmaps" }], validate: (a) => void calls.push(`other-group ${a.type.resource}`) },
      { name: "all", validate: (a) => void calls.push(`all ${a.type.resource}`) },
    ]);
    const onSecret = admissionAttributes({ operation: "CREATE", type: secrets, namespace: "default", name: "s", subresource: "", object: { metadata: { name: "s" } }, dryRun: false });
    for (const a of [attrs("CREATE"), onSecret, attrs("UPDATE")]) {
      await chain.admit(a);
      await chain.validate(a);
    }
    expect(calls).toEqual(["all configmaps", "admit secrets", "validate secrets", "all secrets", "all configmaps"]);
  });

  it("stops at the first rejection", async () => {
    const calls: string[] = [];
    const chain = admissionChain([
      { name: "first", validate: () => void calls.push("first") },
      { name: "rejects", validate: () => { calls.push("rejects"); throw new ApiError(403, "Forbidden", "no"); } },
      { name: "never", validate: () => void calls.push("never") },
    ]);
    await expect(chain.validate(attrs("CREATE"))).rejects.toMatchObject({ code: 403, message: "no" });
    expect(calls).toEqual(["first", "rejects"]);
  });

  it("a plugin with only one stage is not called in the other", async () => {
    const calls: string[] = [];
    const chain = admissionChain([{ name: "m", admit: () => void calls.push("admit") }, { name: "v", validate: () => void calls.push("validate") }]);
    await chain.admit(attrs("CREATE"));
    expect(calls).toEqual(["admit"]);
    await chain.validate(attrs("CREATE"));
    expect(calls).toEqual(["admit", "validate"]);
  });

  it("runs the reinvocable plugins once more when one asks for it, and only them", async () => {
    const calls: string[] = [];
    const chain = admissionChain([
      { name: "webhooks", reinvocable: true, admit: (a) => {
        calls.push(`webhooks${a.reinvocation.isReinvoke ? " again" : ""}`);
        if (!a.reinvocation.isReinvoke) a.reinvocation.shouldReinvoke = true;
      } },
      { name: "builtin", admit: () => void calls.push("builtin") },
    ]);
    await chain.admit(attrs("CREATE"));
    expect(calls).toEqual(["webhooks", "builtin", "webhooks again"]);
    calls.length = 0;
    await chain.admit(attrs("UPDATE"));
    expect(calls).toEqual(["webhooks", "builtin", "webhooks again"]);
  });

  it("times each pass and each plugin, rejected or not (the step and controller metrics)", async () => {
    const m = new AdmissionMetrics();
    const chain = admissionChain(
      [
        { name: "Labeller", admit: () => undefined },
        { name: "Refuser", operations: ["UPDATE"], validate: () => Promise.reject(new ApiError(403, "Forbidden", "no")) },
      ],
      m,
    );
    await chain.admit(attrs("CREATE"));
    await chain.validate(attrs("CREATE"));
    await chain.admit(attrs("UPDATE"));
    await expect(chain.validate(attrs("UPDATE"))).rejects.toMatchObject({ code: 403 });
    const counts = (f: { render(): string }) => f.render().split("\n").filter((l) => l.includes("_count"));
    expect(counts(m.step)).toEqual([
      'apiserver_admission_step_admission_duration_seconds_count{operation="CREATE",rejected="false",type="admit"} 1',
      'apiserver_admission_step_admission_duration_seconds_count{operation="CREATE",rejected="false",type="validate"} 1',
      'apiserver_admission_step_admission_duration_seconds_count{operation="UPDATE",rejected="false",type="admit"} 1',
      'apiserver_admission_step_admission_duration_seconds_count{operation="UPDATE",rejected="true",type="validate"} 1',
    ]);
    expect(counts(m.controller)).toEqual([
      'apiserver_admission_controller_admission_duration_seconds_count{name="Labeller",operation="CREATE",rejected="false",type="admit"} 1',
      'apiserver_admission_controller_admission_duration_seconds_count{name="Labeller",operation="UPDATE",rejected="false",type="admit"} 1',
      'apiserver_admission_controller_admission_duration_seconds_count{name="Refuser",operation="UPDATE",rejected="true",type="validate"} 1',
    ]);
  });

  it("with metrics, a plugin that answers at once and one that answers later run in order; one that throws at once is a timed rejection", async () => {
    const m = new AdmissionMetrics();
    const log: string[] = [];
    const chain = admissionChain(
      [
        { name: "Later", admit: async () => void (await new Promise((r) => setTimeout(r, 5)), log.push("later")) },
        { name: "AtOnce", admit: () => void log.push("at once") },
        {
          name: "Thrower",
          operations: ["UPDATE"],
          admit: () => {
            throw new ApiError(403, "Forbidden", "no");
          },
        },
      ],
      m,
    );
    await chain.admit(attrs("CREATE"));
    expect(log).toEqual(["later", "at once"]);
    await expect(chain.admit(attrs("UPDATE"))).rejects.toMatchObject({ code: 403 });
    const counts = m.controller.render().split("\n").filter((l) => l.includes("_count") && l.includes("Thrower"));
    expect(counts).toEqual(['apiserver_admission_controller_admission_duration_seconds_count{name="Thrower",operation="UPDATE",rejected="true",type="admit"} 1']);
    const stepCounts = m.step.render().split("\n").filter((l) => l.includes("_count") && l.includes("UPDATE"));
    expect(stepCounts).toEqual(['apiserver_admission_step_admission_duration_seconds_count{operation="UPDATE",rejected="true",type="admit"} 1']);
  });
});
