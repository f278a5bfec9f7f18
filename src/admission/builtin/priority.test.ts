import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { fakeParts, fakeWorld, podsType, typeFor } from "./parts.testkit.js";
import { priorityPlugin } from "./priority.js";

const pc = (name: string, value: number, extra: Record<string, unknown> = {}): KObject => ({ metadata: { name, creationTimestamp: "2026-01-01T00:00:00Z" }, value, ...extra });
const pod = (spec: Record<string, unknown> = {}): KObject => ({ metadata: { name: "p" }, spec: { containers: [], ...spec } });
const pcType = typeFor("scheduling.k8s.io", "priorityclasses", false);

function setup(classes: KObject[]) {
  return priorityPlugin(fakeParts(fakeWorld({ "scheduling.k8s.io/priorityclasses": classes })));
}
const admit = async (plugin: ReturnType<typeof setup>, object: KObject, a: Partial<AdmissionAttributes> = {}) => {
  const attrs = admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name: "p", subresource: "", dryRun: false, object, ...a });
  await plugin.admit!(attrs);
  return (attrs.object as any).spec;
};

describe("Priority admission", () => {
  it("gives a pod without a class priority 0 and PreemptLowerPriority", async () => {
    const spec = await admit(setup([]), pod());
    expect(spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });
    expect(spec.priorityClassName).toBeUndefined();
  });

  it("resolves the class named, with its preemption policy", async () => {
    const spec = await admit(setup([pc("high", 1000, { preemptionPolicy: "Never" })]), pod({ priorityClassName: "high" }));
    expect(spec).toMatchObject({ priority: 1000, preemptionPolicy: "Never", priorityClassName: "high" });
  });

  it("uses the global default class (the lowest of several) for pods without one", async () => {
    const spec = await admit(setup([pc("d1", 50, { globalDefault: true, preemptionPolicy: "PreemptLowerPriority" }), pc("d2", 20, { globalDefault: true, preemptionPolicy: "Never" })]), pod());
    expect(spec).toMatchObject({ priorityClassName: "d2", priority: 20, preemptionPolicy: "Never" });
  });

  it("rejects an unknown class and a priority or policy the client set differently", async () => {
    const plugin = setup([pc("high", 1000, { preemptionPolicy: "PreemptLowerPriority" })]);
    await expect(admit(plugin, pod({ priorityClassName: "nope" }))).rejects.toMatchObject({ code: 403, message: 'pods "p" is forbidden: no PriorityClass with name nope was found' });
    await expect(admit(plugin, pod({ priorityClassName: "high", priority: 5 }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    });
    await expect(admit(plugin, pod({ priorityClassName: "high", preemptionPolicy: "Never" }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
    });
    await expect(admit(plugin, pod({ priorityClassName: "high", priority: 1000 }))).resolves.toMatchObject({ priority: 1000 });
  });

  it("keeps the stored priority on an update that drops it", async () => {
    const spec = await admit(setup([]), pod(), { operation: "UPDATE", oldObject: pod({ priority: 7, preemptionPolicy: "Never" }) });
    expect(spec).toMatchObject({ priority: 7, preemptionPolicy: "Never" });
  });

  it("refuses a second global default class, but lets the default itself be updated", async () => {
    const plugin = setup([pc("d1", 50, { globalDefault: true })]);
    const v = (operation: "CREATE" | "UPDATE", object: KObject) =>
      plugin.validate!(admissionAttributes({ operation, type: pcType, namespace: "", name: object.metadata.name!, subresource: "", dryRun: false, object }));
    await expect(v("CREATE", pc("d2", 1, { globalDefault: true }))).rejects.toMatchObject({
      code: 403,
      message: 'priorityclasses.scheduling.k8s.io "d2" is forbidden: PriorityClass d1 is already marked as default. Only one default can exist',
    });
    await expect(v("UPDATE", pc("d1", 50, { globalDefault: true, description: "x" }))).resolves.toBeUndefined();
    await expect(v("UPDATE", pc("other", 1, { globalDefault: true }))).rejects.toMatchObject({ code: 403 });
    await expect(v("CREATE", pc("plain", 1))).resolves.toBeUndefined();
  });

  it("refuses deleting the system classes", async () => {
    const del = (name: string) => setup([]).validate!(admissionAttributes({ operation: "DELETE", type: pcType, namespace: "", name, subresource: "", dryRun: false, oldObject: pc(name, 1) }));
    await expect(del("system-node-critical")).rejects.toMatchObject({
      code: 403,
      message: 'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    });
    await expect(del("batch")).resolves.toBeUndefined();
  });
});
