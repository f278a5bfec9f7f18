import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { podSecurity, type PodSecurityDeps } from "./admission.js";
import { isSignificantPodUpdate } from "./pod-updates.js";
import { defaultConfiguration, loadPodSecurityConfiguration } from "./config.js";
import { defaultChecks, newEvaluator } from "./registry.js";

const type = (group: string, resource: string, kind: string, namespaced = true) =>
  ({ group, version: "v1", resource, kind, namespaced, gr: { group, resource } }) as unknown as ResourceType;
const pods = type("", "pods", "Pod");
const namespaces = type("", "namespaces", "Namespace", false);
const deployments = type("apps", "deployments", "Deployment");
const cronjobs = type("batch", "cronjobs", "CronJob");
const rcs = type("", "replicationcontrollers", "ReplicationController");

const nsLabels: Record<string, Record<string, string>> = {
  restricted: { "pod-security.kubernetes.io/enforce": "restricted" },
  warned: { "pod-security.kubernetes.io/warn": "baseline", "pod-security.kubernetes.io/warn-version": "v1.33", "pod-security.kubernetes.io/audit": "restricted" },
  open: {},
  broken: { "pod-security.kubernetes.io/enforce": "bogus" },
  "kube-system": { "pod-security.kubernetes.io/enforce": "restricted" },
};

let existing: KObject[] = [];
const deps = (config = defaultConfiguration): PodSecurityDeps => ({
  config,
  evaluator: newEvaluator(defaultChecks, { relaxForUserNamespacePods: false }),
  namespaceLabels: async (ns) => nsLabels[ns],
  listPods: async () => existing,
});
const plugin = podSecurity(deps(loadPodSecurityConfiguration({
  apiVersion: "pod-security.admission.config.k8s.io/v1",
  kind: "PodSecurityConfiguration",
  exemptions: { usernames: ["system:serviceaccount:ci:deployer"], runtimeClasses: ["kata"], namespaces: ["kube-system"] },
})));

const privilegedPod = (name = "x", extra: Record<string, unknown> = {}) =>
  ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "nginx", securityContext: { privileged: true } }], ...extra } }) as unknown as KObject;
const restrictedPod = (name = "ok") =>
  ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [{ name: "c", image: "nginx", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
    },
  }) as unknown as KObject;

const attrs = (a: Partial<AdmissionAttributes>) =>
  admissionAttributes({ operation: "CREATE", type: pods, namespace: "restricted", name: "x", subresource: "", dryRun: false, object: privilegedPod(), ...a });

/** The error a validation threw. */
const failure = async (f: () => void | Promise<void>): Promise<any> => {
  try {
    await f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
};

const fullRestrictedMessage =
  'pods "x" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe("PodSecurity on pods", () => {
  it("refuses a privileged pod in a restricted namespace with upstream's message and records the enforced policy", async () => {
    const a = attrs({});
    const e = await failure(() => plugin.validate!(a));
    expect(e).toMatchObject({ code: 403, reason: "Forbidden", message: fullRestrictedMessage, details: { name: "x", kind: "pods" } });
    expect(a.annotations).toEqual({ "pod-security.kubernetes.io/enforce-policy": "restricted:latest" });
    expect(a.warnings).toEqual([]);
  });

  it("admits a compliant pod", async () => {
    const a = attrs({ object: restrictedPod() });
    await expect(plugin.validate!(a)).resolves.toBeUndefined();
    expect(a.annotations).toEqual({ "pod-security.kubernetes.io/enforce-policy": "restricted:latest" });
  });

  it("warns and audits at their own levels and versions", async () => {
    const a = attrs({ namespace: "warned", object: privilegedPod("x", { hostPID: true }) });
    await plugin.validate!(a);
    expect(a.warnings).toEqual(['would violate PodSecurity "baseline:v1.33": host namespaces (hostPID), privileged (container "c" must not set securityContext.privileged=true)']);
    expect(a.annotations["pod-security.kubernetes.io/enforce-policy"]).toBe("privileged:latest");
    expect(a.annotations["pod-security.kubernetes.io/audit-violations"]).toMatch(/^would violate PodSecurity "restricted:latest": host namespaces \(hostPID\), privileged /);
  });

  it("short-circuits a fully privileged namespace", async () => {
    const a = attrs({ namespace: "open" });
    await plugin.validate!(a);
    expect(a.annotations).toEqual({ "pod-security.kubernetes.io/enforce-policy": "privileged:latest" });
  });

  it("enforces restricted when the enforce label is invalid, recording the parse error", async () => {
    const a = attrs({ namespace: "broken" });
    await expect(plugin.validate!(a)).rejects.toMatchObject({ code: 403 });
    expect(a.annotations["pod-security.kubernetes.io/error"]).toBe(
      'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted',
    );
  });

  it("exempts configured namespaces, users and runtime classes", async () => {
    const ns = attrs({ namespace: "kube-system" });
    await plugin.validate!(ns);
    expect(ns.annotations).toEqual({ "pod-security.kubernetes.io/exempt": "namespace" });
    const user = attrs({ user: { name: "system:serviceaccount:ci:deployer", groups: [] } });
    await plugin.validate!(user);
    expect(user.annotations).toEqual({ "pod-security.kubernetes.io/exempt": "user" });
    const rc = attrs({ object: privilegedPod("x", { runtimeClassName: "kata" }) });
    await plugin.validate!(rc);
    expect(rc.annotations).toEqual({ "pod-security.kubernetes.io/exempt": "runtimeClass" });
  });

  it("ignores status and other subresources that cannot change the checked fields", async () => {
    for (const sub of ["status", "binding", "eviction"]) await expect(plugin.validate!(attrs({ operation: "UPDATE", subresource: sub, oldObject: restrictedPod("x") }))).resolves.toBeUndefined();
  });

  it("re-evaluates an update only when it changes what updates may change", async () => {
    const old = privilegedPod();
    const labelled = { ...old, metadata: { ...old.metadata, labels: { a: "b" } } } as KObject;
    await expect(plugin.validate!(attrs({ operation: "UPDATE", object: labelled, oldObject: old }))).resolves.toBeUndefined();
    const newImage = JSON.parse(JSON.stringify(old));
    newImage.spec.containers[0].image = "nginx:2";
    await expect(plugin.validate!(attrs({ operation: "UPDATE", object: newImage, oldObject: old }))).rejects.toMatchObject({ code: 403 });
  });

  it("checks ephemeral containers added through the ephemeralcontainers subresource", async () => {
    const old = restrictedPod("x");
    const debug = JSON.parse(JSON.stringify(old));
    debug.spec.ephemeralContainers = [{ name: "debugger", image: "busybox", targetContainerName: "c" }];
    const e = await failure(() => plugin.validate!(attrs({ operation: "UPDATE", subresource: "ephemeralcontainers", object: debug, oldObject: old })));
    expect(e.message).toBe(
      'pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "debugger" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "debugger" must set securityContext.capabilities.drop=["ALL"])',
    );
  });

  it("answers 500 as upstream when the namespace cannot be found", async () => {
    await expect(plugin.validate!(attrs({ namespace: "gone" }))).rejects.toMatchObject({ code: 500, message: 'Internal error occurred: failed to lookup namespace "gone"' });
  });
});

describe("PodSecurity on workloads", () => {
  const deployment = (ns: string) =>
    ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: ns }, spec: { template: { metadata: {}, spec: privilegedPod().spec } } }) as unknown as KObject;

  it("never refuses a workload, but warns and audits about its template", async () => {
    const a = attrs({ type: deployments, name: "web", object: deployment("restricted") });
    await expect(plugin.validate!(a)).resolves.toBeUndefined();
    // No warn label: warn follows the enforce label, so the refusal its pods will meet shows now.
    expect(a.warnings).toHaveLength(1);
    expect(a.warnings[0]).toMatch(/^would violate PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/);
    const open = attrs({ type: deployments, name: "web", namespace: "open", object: deployment("open") });
    await plugin.validate!(open);
    expect(open.warnings).toEqual([]); // no labels: every mode privileged
    const w = attrs({ type: deployments, name: "web", namespace: "warned", object: deployment("warned") });
    await plugin.validate!(w);
    expect(w.warnings).toEqual(['would violate PodSecurity "baseline:v1.33": privileged (container "c" must not set securityContext.privileged=true)']);
    expect(w.annotations["pod-security.kubernetes.io/enforce-policy"]).toBeUndefined();
    expect(w.annotations["pod-security.kubernetes.io/audit-violations"]).toContain('would violate PodSecurity "restricted:latest": privileged');
  });

  it("finds CronJob templates and skips ReplicationControllers without one", async () => {
    const cj = { metadata: { name: "cj" }, spec: { jobTemplate: { spec: { template: { spec: privilegedPod().spec } } } } } as unknown as KObject;
    const a = attrs({ type: cronjobs, name: "cj", namespace: "warned", object: cj });
    await plugin.validate!(a);
    expect(a.warnings).toHaveLength(1);
    const rc = attrs({ type: rcs, name: "rc", namespace: "warned", object: { metadata: { name: "rc" }, spec: {} } as unknown as KObject });
    await plugin.validate!(rc);
    expect(rc.warnings).toEqual([]);
    expect(rc.annotations).toEqual({});
  });
});

describe("PodSecurity on namespaces", () => {
  const ns = (name: string, labels: Record<string, string>) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } }) as unknown as KObject;
  const nsAttrs = (name: string, labels: Record<string, string>, old?: Record<string, string>) =>
    attrs({ type: namespaces, namespace: "", name, object: ns(name, labels), operation: old ? "UPDATE" : "CREATE", oldObject: old ? ns(name, old) : undefined });

  it("refuses invalid labels with 422 on create", async () => {
    await expect(plugin.validate!(nsAttrs("team", { "pod-security.kubernetes.io/enforce": "strict" }))).rejects.toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'Namespace "team" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    });
  });

  it("refuses invalid labels on update only when they changed", async () => {
    const bad = { "pod-security.kubernetes.io/enforce": "strict" };
    await expect(plugin.validate!(nsAttrs("team", { ...bad, other: "x" }, bad))).resolves.toBeUndefined();
    await expect(plugin.validate!(nsAttrs("team", { "pod-security.kubernetes.io/warn-version": "v2" }, {}))).rejects.toMatchObject({ code: 422 });
  });

  it("warns about existing pods when the enforce level tightens, one pod per controller first", async () => {
    const owned = (name: string, uid: string) => ({ ...privilegedPod(name), metadata: { name, ownerReferences: [{ controller: true, uid, kind: "ReplicaSet", name: "rs", apiVersion: "apps/v1" }] } }) as KObject;
    existing = [owned("web-b", "rs1"), owned("web-a", "rs1"), owned("web-c", "rs1"), privilegedPod("solo", { hostIPC: true }), restrictedPod("fine")];
    const a = nsAttrs("team", { "pod-security.kubernetes.io/enforce": "baseline" }, {});
    await plugin.validate!(a);
    expect(a.warnings).toEqual([
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      "solo: host namespaces, privileged",
      "web-a (and 2 other pods): privileged",
    ]);
  });

  it("does not check existing pods when the level loosens or stays", async () => {
    existing = [privilegedPod("p")];
    const loosen = nsAttrs("team", { "pod-security.kubernetes.io/enforce": "baseline" }, { "pod-security.kubernetes.io/enforce": "restricted" });
    await plugin.validate!(loosen);
    expect(loosen.warnings).toEqual([]);
    const same = nsAttrs("team", { "pod-security.kubernetes.io/enforce": "baseline", x: "y" }, { "pod-security.kubernetes.io/enforce": "baseline" });
    await plugin.validate!(same);
    expect(same.warnings).toEqual([]);
  });

  it("caps the pods checked and says so", async () => {
    const capped = podSecurity({ ...deps(), namespaceMaxPodsToCheck: 2 });
    existing = [privilegedPod("a"), privilegedPod("b"), privilegedPod("c")];
    const a = nsAttrs("team", { "pod-security.kubernetes.io/enforce": "baseline" }, {});
    await capped.validate!(a);
    expect(a.warnings).toEqual([
      "new PodSecurity enforce level only checked against the first 2 of 3 existing pods",
      'existing pods in namespace "team" violate the new PodSecurity enforce level "baseline:latest"',
      "a (and 1 other pod): privileged",
    ]);
  });

  it("warns that an exempt namespace's labels are ignored", async () => {
    const a = nsAttrs("kube-system", { "pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted" }, {});
    await plugin.validate!(a);
    expect(a.warnings).toEqual(['namespace "kube-system" is exempt from Pod Security, and the policy (enforce=baseline:latest, warn=restricted:latest) will be ignored']);
  });
});

describe("isSignificantPodUpdate", () => {
  it("notices containers added, images and seccomp annotations changed", () => {
    const p = restrictedPod() as any;
    const clone = () => JSON.parse(JSON.stringify(p));
    expect(isSignificantPodUpdate(clone(), p)).toBe(false);
    const more = clone();
    more.spec.containers.push({ name: "d", image: "x" });
    expect(isSignificantPodUpdate(more, p)).toBe(true);
    const annotated = clone();
    annotated.metadata.annotations = { "container.seccomp.security.alpha.kubernetes.io/c": "unconfined" };
    expect(isSignificantPodUpdate(annotated, p)).toBe(true);
    const sc = clone();
    sc.spec.containers[0].securityContext.privileged = true; // not an update pods allow: validation refuses it
    expect(isSignificantPodUpdate(sc, p)).toBe(false);
  });
});
