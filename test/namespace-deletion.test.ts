// Namespace deletion and the garbage collector as kubectl sees them: a deletion that cannot finish
// explains itself in the namespace's conditions (kubectl describe namespace), and lists a
// controller empties are left out of the object (Go's omitempty), never shown as `[]`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SettleTimeoutError } from "../src/index.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { whenSettled } from "./support/settle.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const bin = kubectlBinary(33);

describe.skipIf(!bin)("namespace deletion and orphaning with kubectl 1.33", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  const k = (...args: string[]) => kubectl(bin!, s.kubeconfigPath!, args);
  const getJson = async (...args: string[]) => {
    const r = await k("get", ...args, "-o", "json");
    return r.code === 0 ? JSON.parse(r.stdout) : undefined;
  };
  const condition = (ns: any, type: string) => (ns?.status?.conditions ?? []).find((c: any) => c.type === type);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-ns-deletion-"));
    s = await startTestServer({ dataDir: join(dir, "data") });
  });
  afterAll(async () => {
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a namespace held by a finalized object says so in kubectl describe, then goes once it is released", async () => {
    expect((await k("create", "namespace", "stuck")).code).toBe(0);
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pinned", namespace: "stuck", finalizers: ["example.com/hold"] }, data: { a: "1" } };
    expect((await kubectl(bin!, s.kubeconfigPath!, ["create", "-f", "-"], JSON.stringify(cm))).code).toBe(0);
    expect((await k("delete", "namespace", "stuck", "--wait=false")).code).toBe(0);

    const ns = await whenSettled(s, "the finalizers condition", async () => {
      const ns = await getJson("namespace", "stuck");
      return condition(ns, "NamespaceFinalizersRemaining")?.status === "True" ? ns : undefined;
    });
    expect(ns.status.phase).toBe("Terminating");
    const byType = Object.fromEntries(ns.status.conditions.map((c: any) => [c.type, c]));
    expect(Object.keys(byType)).toEqual(["NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure", "NamespaceDeletionContentFailure", "NamespaceContentRemaining", "NamespaceFinalizersRemaining"]);
    expect(byType.NamespaceDeletionDiscoveryFailure).toMatchObject({ status: "False", reason: "ResourcesDiscovered", message: "All resources successfully discovered" });
    expect(byType.NamespaceDeletionGroupVersionParsingFailure).toMatchObject({ status: "False", reason: "ParsedGroupVersions", message: "All legacy kube types successfully parsed" });
    expect(byType.NamespaceDeletionContentFailure).toMatchObject({ status: "False", reason: "ContentDeleted", message: "All content successfully deleted, may be waiting on finalization" });
    expect(byType.NamespaceContentRemaining).toMatchObject({ status: "True", reason: "SomeResourcesRemain", message: "Some resources are remaining: configmaps. has 1 resource instances" });
    expect(byType.NamespaceFinalizersRemaining).toMatchObject({ status: "True", reason: "SomeFinalizerRemain", message: "Some finalizers are remaining: example.com/hold in 1 resource instances" });
    expect(byType.NamespaceFinalizersRemaining.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const described = await k("describe", "namespace", "stuck");
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toMatch(/Status:\s+Terminating/);
    expect(described.stdout).toMatch(/NamespaceFinalizersRemaining\s+True\s+.*SomeFinalizerRemain\s+Some finalizers are remaining: example.com\/hold in 1 resource instances/);
    expect(described.stdout).toMatch(/NamespaceContentRemaining\s+True\s+.*SomeResourcesRemain\s+Some resources are remaining: configmaps. has 1 resource instances/);

    // Released: the controller finishes the deletion.
    expect((await k("patch", "configmap", "pinned", "-n", "stuck", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')).code).toBe(0);
    await whenSettled(s, "the namespace to go", async () => ((await getJson("namespace", "stuck")) === undefined ? true : undefined));
  });

  it("a delete that admission refuses shows as a content deletion failure", async () => {
    expect((await k("create", "namespace", "guarded")).code).toBe(0);
    expect((await k("create", "configmap", "kept", "-n", "guarded", "--from-literal=a=1")).code).toBe(0);
    const policy = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "no-configmap-delete" },
      spec: { failurePolicy: "Fail", matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["configmaps"] }] }, validations: [{ expression: "false", message: "configmaps here stay" }] },
    };
    const binding = {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "no-configmap-delete" },
      spec: { policyName: "no-configmap-delete", validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "guarded" } } } },
    };
    expect((await kubectl(bin!, s.kubeconfigPath!, ["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: [policy, binding] }))).code).toBe(0);
    // The policy is in force once a delete is refused (its informers carry it within a moment).
    await whenSettled(s, "the policy to refuse deletes", async () => {
      await k("create", "configmap", "probe", "-n", "guarded");
      const r = await k("delete", "configmap", "probe", "-n", "guarded");
      return r.code !== 0 ? true : undefined;
    });
    expect((await k("delete", "namespace", "guarded", "--wait=false")).code).toBe(0);

    // Each failed pass is retried with backoff (upstream: AddRateLimited), so settle() runs out of
    // time naming it; the conditions were written by the first pass.
    const retrying = await s.settle({ timeoutMs: 1000 }).then(() => undefined, (e: Error) => e);
    expect(retrying).toBeInstanceOf(SettleTimeoutError);
    expect(retrying!.message).toMatch(/still busy: namespace-controller (working; )?retrying 1 failed key: guarded \(deletion of namespace guarded failed: configmaps "kept" is forbidden: .*configmaps here stay\)/);
    const failed = condition(await getJson("namespace", "guarded"), "NamespaceDeletionContentFailure");
    expect(failed.status).toBe("True");
    expect(failed.reason).toBe("ContentDeletionFailed");
    expect(failed.message).toMatch(/^Failed to delete all resource types, 1 remaining: configmaps "[^"]+" is forbidden: ValidatingAdmissionPolicy 'no-configmap-delete' with binding 'no-configmap-delete' denied request: configmaps here stay$/);
    const described = await k("describe", "namespace", "guarded");
    expect(described.stdout).toMatch(/NamespaceDeletionContentFailure\s+True\s+.*ContentDeletionFailed\s+Failed to delete all resource types/);

    // Without the binding the deletion completes at the next retry, which settle() waits for.
    expect((await k("delete", "validatingadmissionpolicybinding", "no-configmap-delete")).code).toBe(0);
    await whenSettled(s, "the namespace to go", async () => ((await getJson("namespace", "guarded")) === undefined ? true : undefined));
  });

  it("the namespace controller leaves spec.finalizers out once it removed the last one", async () => {
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "held", finalizers: ["example.com/keep"] } };
    expect((await kubectl(bin!, s.kubeconfigPath!, ["create", "-f", "-"], JSON.stringify(ns))).code).toBe(0);
    expect((await k("delete", "namespace", "held", "--wait=false")).code).toBe(0);
    const finalized = await whenSettled(s, "the kubernetes finalizer to go", async () => {
      const cur = await getJson("namespace", "held");
      return cur && !(cur.spec?.finalizers ?? []).includes("kubernetes") ? cur : undefined;
    });
    expect(finalized.spec).toEqual({});
    expect(finalized.metadata.finalizers).toEqual(["example.com/keep"]);
    expect((await k("patch", "namespace", "held", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')).code).toBe(0);
    await whenSettled(s, "the namespace to go", async () => ((await getJson("namespace", "held")) === undefined ? true : undefined));
  });

  it("kubectl delete --cascade=orphan leaves the dependent with no ownerReferences field", async () => {
    expect((await k("create", "configmap", "owner", "--from-literal=a=1")).code).toBe(0);
    const owner = await getJson("configmap", "owner");
    const dependent = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dependent", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }] } };
    expect((await kubectl(bin!, s.kubeconfigPath!, ["create", "-f", "-"], JSON.stringify(dependent))).code).toBe(0);
    expect((await k("delete", "configmap", "owner", "--cascade=orphan")).code).toBe(0);
    const orphan = await whenSettled(s, "the owner reference to go", async () => {
      const cur = await getJson("configmap", "dependent");
      return cur && !(cur.metadata.ownerReferences ?? []).length ? cur : undefined;
    });
    expect(Object.keys(orphan.metadata)).not.toContain("ownerReferences");
    expect((await getJson("configmap", "owner"))).toBeUndefined();
    // Nor does any manager still claim it in managedFields.
    const raw = await req(s, "GET", "/api/v1/namespaces/default/configmaps/dependent");
    expect(raw.text).not.toContain("ownerReferences");
  });
});
