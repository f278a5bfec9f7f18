import { describe, expect, it } from "vitest";
import type { UserInfo } from "../../apimachinery/user.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { csrRequest } from "../certificates/csr.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { forbiddenLabels, isKubeletLabel, modifiedLabels } from "./labels.js";
import type { ObjectLookup } from "./lookup.js";
import { nodeRestriction } from "./plugin.js";

const type = (group: string, resource: string, namespaced = true) => ({ group, resource, namespaced, gr: { group, resource } }) as ResourceType;
const pods = type("", "pods");
const nodes = type("", "nodes", false);
const leases = type("coordination.k8s.io", "leases");
const csinodes = type("storage.k8s.io", "csinodes", false);
const slices = type("resource.k8s.io", "resourceslices", false);
const pvcs = type("", "persistentvolumeclaims");
const serviceaccounts = type("", "serviceaccounts");
const csrs = type("certificates.k8s.io", "certificatesigningrequests", false);
const configmaps = type("", "configmaps");

const mynode: UserInfo = { name: "system:node:mynode", groups: ["system:nodes", "system:authenticated"] };
const bob: UserInfo = { name: "bob", groups: ["system:authenticated"] };

const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}, mirror = false): KObject =>
  ({
    metadata: {
      name,
      namespace: "ns",
      uid: `${name}-uid`,
      ...(mirror
        ? {
            annotations: { "kubernetes.io/config.mirror": "x" },
            ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid: `${nodeName}-uid`, controller: true }],
          }
        : {}),
    },
    spec: { nodeName, containers: [{ name: "c", image: "i" }], ...extra },
  }) as KObject;

/** A store of the objects below, keyed "<group>/<resource>/<ns>/<name>". */
function lookupOf(objects: Record<string, KObject>): ObjectLookup {
  return { get: async (g, r, ns, n) => objects[`${g}/${r}/${ns}/${n}`] };
}

const world: Record<string, KObject> = {
  "/nodes//mynode": { metadata: { name: "mynode", uid: "mynode-uid" } } as KObject,
  "/pods/ns/mypod": pod("mypod", "mynode"),
  "/pods/ns/otherpod": pod("otherpod", "othernode"),
  "/pods/ns/sapod": pod("sapod", "mynode", { volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { audience: "vault" } }] } }] }),
  "/pods/ns/csipod": pod("csipod", "mynode", { volumes: [{ name: "v", csi: { driver: "csi.example.com" } }] }),
  "/pods/ns/pvcpod": pod("pvcpod", "mynode", { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "claim" } }] }),
  "/pods/ns/lostpvcpod": pod("lostpvcpod", "mynode", { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "gone" } }] }),
  "storage.k8s.io/csidrivers//csi.example.com": { metadata: { name: "csi.example.com" }, spec: { tokenRequests: [{ audience: "storage" }] } } as KObject,
  "/persistentvolumeclaims/ns/claim": { metadata: { name: "claim" }, spec: { volumeName: "pv1" } } as KObject,
  "/persistentvolumes//pv1": { metadata: { name: "pv1" }, spec: { csi: { driver: "csi.example.com" } } } as KObject,
};

const noAuthz: Authorizer = { authorize: () => ({ decision: "no-opinion", reason: "" }) };
const gates = { recoverVolumeExpansionFailure: true, serviceAccountNodeAudienceRestriction: true, allowInsecureKubeletCertificateSigningRequests: false };
const plugin = (authz: Authorizer = noAuthz, g = gates) => nodeRestriction(lookupOf(world), () => authz, g);

const run = async (a: Partial<AdmissionAttributes>, p = plugin()) => {
  await p.admit!(admissionAttributes({ operation: "CREATE", type: pods, namespace: "ns", name: "x", subresource: "", dryRun: false, user: mynode, ...a }));
};
const refusal = (a: Partial<AdmissionAttributes>, p = plugin()) => run(a, p).then(() => undefined, (e) => e);

describe("NodeRestriction: pods", () => {
  it("lets a node create a mirror pod bound to itself", async () => {
    await expect(run({ name: "m", object: pod("m", "mynode", {}, true) })).resolves.toBeUndefined();
  });

  it("refuses normal pods, pods bound elsewhere and pods referring to other objects, with upstream's messages", async () => {
    expect((await refusal({ name: "p", object: pod("p", "mynode") })).message).toBe(
      'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "mynode" can only create mirror pods',
    );
    expect((await refusal({ name: "p", object: pod("p", "othernode", {}, true) })).message).toBe('pods "p" is forbidden: node "mynode" can only create pods with spec.nodeName set to itself');
    const cases: [Record<string, unknown>, string][] = [
      [{ serviceAccountName: "default" }, "can not create pods that reference a service account"],
      [{ volumes: [{ name: "s", secret: { secretName: "s" } }] }, "can not create pods that reference secrets"],
      [{ volumes: [{ name: "c", configMap: { name: "c" } }] }, "can not create pods that reference configmaps"],
      [{ volumes: [{ name: "b", projected: { sources: [{ clusterTrustBundle: { name: "b" } }] } }] }, "can not create pods that reference clustertrustbundles"],
      [{ volumes: [{ name: "v", persistentVolumeClaim: { claimName: "c" } }] }, "can not create pods that reference persistentvolumeclaims"],
    ];
    for (const [extra, why] of cases) {
      expect((await refusal({ name: "p", object: pod("p", "mynode", extra, true) })).message).toBe(`pods "p" is forbidden: node "mynode" ${why}`);
    }
  });

  it("checks the mirror pod's owner reference against the Node", async () => {
    const withOwners = (owners: unknown[]) => {
      const p = pod("m", "mynode", {}, true);
      p.metadata.ownerReferences = owners as never;
      return p;
    };
    const valid = { apiVersion: "v1", kind: "Node", name: "mynode", uid: "mynode-uid", controller: true };
    expect((await refusal({ name: "m", object: withOwners([]) })).message).toContain('node "mynode" can only create pods with an owner reference set to itself');
    expect((await refusal({ name: "m", object: withOwners([valid, valid]) })).message).toContain("with a single owner reference set to itself");
    expect((await refusal({ name: "m", object: withOwners([{ ...valid, controller: false }]) })).message).toContain("with a controller owner reference set to itself");
    expect((await refusal({ name: "m", object: withOwners([{ ...valid, blockOwnerDeletion: true }]) })).message).toContain("must not set blockOwnerDeletion on an owner reference");
    expect((await refusal({ name: "m", object: withOwners([{ ...valid, uid: "stale" }]) })).message).toBe('pods "m" is forbidden: node mynode UID mismatch: expected stale got mynode-uid');
  });

  it("allows deleting and updating status of its own pods only", async () => {
    await expect(run({ operation: "DELETE", name: "mypod" })).resolves.toBeUndefined();
    expect((await refusal({ operation: "DELETE", name: "otherpod" })).message).toBe('pods "otherpod" is forbidden: node "mynode" can only delete pods with spec.nodeName set to itself');
    expect(await refusal({ operation: "DELETE", name: "nopod" })).toMatchObject({ code: 404, message: 'pod "nopod" not found' });
    expect((await refusal({ operation: "UPDATE", name: "mypod", object: world["/pods/ns/mypod"], oldObject: world["/pods/ns/mypod"] })).message).toBe(
      'pods "mypod" is forbidden: unexpected operation "UPDATE", node "mynode" can only create and delete mirror pods',
    );
    const mine = world["/pods/ns/mypod"]!;
    await expect(run({ operation: "UPDATE", subresource: "status", name: "mypod", object: mine, oldObject: mine })).resolves.toBeUndefined();
    const other = world["/pods/ns/otherpod"]!;
    expect((await refusal({ operation: "UPDATE", subresource: "status", name: "otherpod", object: other, oldObject: other })).message).toContain(
      'node "mynode" can only update pod status for pods with spec.nodeName set to itself',
    );
    const relabeled = { ...mine, metadata: { ...mine.metadata, labels: { a: "b" } } } as KObject;
    expect((await refusal({ operation: "UPDATE", subresource: "status", name: "mypod", object: relabeled, oldObject: mine })).message).toContain('node "mynode" cannot update labels through pod status');
    expect((await refusal({ operation: "UPDATE", subresource: "exec", name: "mypod", object: mine, oldObject: mine })).message).toContain(
      `unexpected pod subresource "exec", only 'status' and 'eviction' are allowed`,
    );
  });

  it("allows evicting its own pods only", async () => {
    const eviction = (name: string) => ({ metadata: { name, namespace: "ns" } }) as KObject;
    await expect(run({ subresource: "eviction", name: "mypod", object: eviction("mypod") })).resolves.toBeUndefined();
    await expect(run({ subresource: "eviction", name: "", object: eviction("mypod") })).resolves.toBeUndefined();
    expect((await refusal({ subresource: "eviction", name: "otherpod", object: eviction("otherpod") })).message).toBe('pods "otherpod" is forbidden: node mynode can only evict pods with spec.nodeName set to itself');
    expect((await refusal({ subresource: "eviction", name: "", object: eviction("") })).message).toContain("could not determine pod from request data");
  });

  it("leaves everyone else alone", async () => {
    await expect(run({ user: bob, name: "p", object: pod("p", "othernode") })).resolves.toBeUndefined();
    await expect(run({ user: bob, operation: "DELETE", name: "otherpod" })).resolves.toBeUndefined();
  });

  it("refuses a node user without a name", async () => {
    const e = await refusal({ user: { name: "system:node:", groups: ["system:nodes"] }, name: "p", object: pod("p", "x") });
    expect(e.message).toBe('pods "p" is forbidden: could not determine node from user "system:node:"');
  });
});

describe("NodeRestriction: nodes", () => {
  const node = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) => ({ metadata: { name, labels }, spec }) as KObject;

  it("refuses another node's object", async () => {
    const e = await refusal({ type: nodes, namespace: "", operation: "UPDATE", name: "othernode", object: node("othernode"), oldObject: node("othernode") });
    expect(e).toMatchObject({ code: 403, message: 'nodes "othernode" is forbidden: node "mynode" is not allowed to modify node "othernode"' });
  });

  it("refuses forbidden labels on create and update, listing them sorted", async () => {
    const bad = { "node-restriction.kubernetes.io/foo": "v", "foo.node-restriction.kubernetes.io/foo": "v", "other.kubernetes.io/foo": "v", "other.k8s.io/foo": "v", "example.com/ok": "v" };
    const list = "foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo";
    expect((await refusal({ type: nodes, namespace: "", name: "mynode", object: node("mynode", bad) })).message).toBe(`nodes "mynode" is forbidden: node "mynode" is not allowed to set the following labels: ${list}`);
    expect((await refusal({ type: nodes, namespace: "", operation: "UPDATE", name: "mynode", object: node("mynode", bad), oldObject: node("mynode") })).message).toBe(
      `nodes "mynode" is forbidden: is not allowed to modify labels: ${list}`,
    );
    // Removing one is modifying it too.
    expect((await refusal({ type: nodes, namespace: "", operation: "UPDATE", name: "mynode", object: node("mynode"), oldObject: node("mynode", { "node-restriction.kubernetes.io/x": "1" }) })).message).toContain(
      "is not allowed to modify labels: node-restriction.kubernetes.io/x",
    );
  });

  it("allows kubelet labels, unchanged forbidden labels, and refuses taint and configSource changes", async () => {
    const ok = { "kubernetes.io/hostname": "h", "topology.kubernetes.io/zone": "z", "kubelet.kubernetes.io/x": "1", "foo.node.kubernetes.io/y": "2", "example.com/z": "3" };
    await expect(run({ type: nodes, namespace: "", name: "mynode", object: node("mynode", ok) })).resolves.toBeUndefined();
    const kept = { "node-restriction.kubernetes.io/foo": "v" };
    await expect(run({ type: nodes, namespace: "", operation: "UPDATE", name: "mynode", object: node("mynode", { ...kept, ...ok }), oldObject: node("mynode", kept) })).resolves.toBeUndefined();
    const tainted = node("mynode", {}, { taints: [{ key: "k", effect: "NoSchedule" }] });
    expect((await refusal({ type: nodes, namespace: "", operation: "UPDATE", name: "mynode", object: node("mynode"), oldObject: tainted })).message).toContain('node "mynode" is not allowed to modify taints');
    await expect(run({ type: nodes, namespace: "", operation: "UPDATE", name: "mynode", object: node("mynode", {}, { taints: [] }), oldObject: node("mynode") })).resolves.toBeUndefined();
    const config = node("mynode", {}, { configSource: { configMap: { name: "c" } } });
    expect((await refusal({ type: nodes, namespace: "", name: "mynode", object: config })).message).toContain("is not allowed to create pods with a non-nil configSource");
    expect((await refusal({ type: nodes, namespace: "", operation: "UPDATE", name: "mynode", object: config, oldObject: node("mynode") })).message).toContain(
      "is not allowed to update configSource to a new non-nil configSource",
    );
  });

  it("knows the kubelet's label set", () => {
    expect(isKubeletLabel("beta.kubernetes.io/arch")).toBe(true);
    expect(isKubeletLabel("node-role.kubernetes.io/control-plane")).toBe(false);
    expect([...modifiedLabels({ a: "1", b: "2" }, { a: "2", c: "3" })].sort()).toEqual(["a", "b", "c"]);
    expect(forbiddenLabels(["node-role.kubernetes.io/worker", "x.k8s.io/y", "example.com/z"])).toEqual(["node-role.kubernetes.io/worker", "x.k8s.io/y"]);
  });
});

describe("NodeRestriction: leases, CSINodes, ResourceSlices, PVC status, CSRs", () => {
  const named = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec }) as KObject;

  it("limits leases to its own in kube-node-lease", async () => {
    await expect(run({ type: leases, namespace: "kube-node-lease", name: "mynode", object: named("mynode") })).resolves.toBeUndefined();
    expect((await refusal({ type: leases, namespace: "default", name: "mynode", object: named("mynode") })).message).toBe(
      'leases.coordination.k8s.io "mynode" is forbidden: can only access leases in the "kube-node-lease" system namespace',
    );
    expect((await refusal({ type: leases, namespace: "kube-node-lease", operation: "DELETE", name: "other" })).message).toContain("can only access node lease with the same name as the requesting node");
  });

  it("limits CSINodes and ResourceSlices to its own", async () => {
    expect((await refusal({ type: csinodes, namespace: "", name: "other", object: named("other") })).message).toContain("can only access CSINode with the same name as the requesting node");
    expect((await refusal({ type: slices, namespace: "", name: "s", object: named("s", { nodeName: "other" }) })).message).toBe(
      'resourceslices.resource.k8s.io "s" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node',
    );
    expect((await refusal({ type: slices, namespace: "", operation: "DELETE", name: "s", oldObject: named("s", { nodeName: "other" }) })).message).toContain(
      "can only delete ResourceSlice with the same NodeName as the requesting node",
    );
    await expect(run({ type: slices, namespace: "", name: "s", object: named("s", { nodeName: "mynode" }) })).resolves.toBeUndefined();
  });

  it("allows PVC status capacity and conditions only", async () => {
    const pvc = (status: Record<string, unknown>, labels?: Record<string, string>) => ({ metadata: { name: "c", resourceVersion: "1", ...(labels ? { labels } : {}) }, spec: {}, status }) as KObject;
    await expect(run({ type: pvcs, operation: "UPDATE", subresource: "status", name: "c", object: pvc({ capacity: { storage: "2Gi" } }), oldObject: pvc({}) })).resolves.toBeUndefined();
    const e = await refusal({ type: pvcs, operation: "UPDATE", subresource: "status", name: "c", object: pvc({}, { a: "b" }), oldObject: pvc({}) });
    expect(e.message).toContain('persistentvolumeclaims "c" is forbidden: node "mynode" is not allowed to update fields other than status.quantity and status.conditions: ');
    expect((await refusal({ type: pvcs, operation: "UPDATE", name: "c", object: pvc({}), oldObject: pvc({}) })).message).toBe('persistentvolumeclaims "c" is forbidden: may only update PVC status');
  });

  it("lets a node ask for kubelet certificates for itself only", async () => {
    const csr = async (cn: string, signerName = "kubernetes.io/kube-apiserver-client-kubelet") => ({ metadata: { name: "n" }, spec: { signerName, request: (await csrRequest(cn, ["system:nodes"])).request } }) as KObject;
    await expect(run({ type: csrs, namespace: "", name: "n", object: await csr("system:node:mynode") })).resolves.toBeUndefined();
    expect((await refusal({ type: csrs, namespace: "", name: "n", object: await csr("system:node:othernode", "kubernetes.io/kubelet-serving") })).message).toBe(
      'certificatesigningrequests.certificates.k8s.io "n" is forbidden: can only create a node CSR with CN=system:node:mynode',
    );
    await expect(run({ type: csrs, namespace: "", name: "n", object: await csr("anyone", "example.com/signer") })).resolves.toBeUndefined();
    const insecure = plugin(noAuthz, { ...gates, allowInsecureKubeletCertificateSigningRequests: true });
    await expect(run({ type: csrs, namespace: "", name: "n", object: await csr("system:node:othernode") }, insecure)).resolves.toBeUndefined();
  });

  it("ignores unrelated types", async () => {
    await expect(run({ type: configmaps, name: "cm", object: named("cm") })).resolves.toBeUndefined();
  });
});

describe("NodeRestriction: service account tokens", () => {
  const tokenRequest = (podName: string, uid: string, audiences?: string[]) =>
    ({ metadata: { name: "sa" }, spec: { ...(audiences ? { audiences } : {}), ...(podName ? { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: podName, uid } } : {}) } }) as KObject;
  const token = (tr: KObject, p = plugin()) => refusal({ type: serviceaccounts, subresource: "token", name: "sa", object: tr }, p);

  it("requires a binding to a pod of its own, by uid", async () => {
    expect((await token(tokenRequest("", ""))).message).toBe('serviceaccounts "sa" is forbidden: node requested token not bound to a pod');
    expect((await token(tokenRequest("mypod", ""))).message).toContain("node requested token with a pod binding without a uid");
    expect(await token(tokenRequest("nopod", "u"))).toMatchObject({ code: 404, message: 'pod "nopod" not found' });
    expect((await token(tokenRequest("mypod", "old"))).message).toContain(
      "the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated",
    );
    expect((await token(tokenRequest("otherpod", "otherpod-uid"))).message).toContain("node requested token bound to a pod scheduled on a different node");
  });

  it("allows only audiences the pod uses, or the authorizer grants", async () => {
    expect(await token(tokenRequest("sapod", "sapod-uid", ["vault"]))).toBeUndefined();
    expect(await token(tokenRequest("csipod", "csipod-uid", ["storage"]))).toBeUndefined();
    expect(await token(tokenRequest("pvcpod", "pvcpod-uid", ["storage"]))).toBeUndefined();
    expect((await token(tokenRequest("sapod", "sapod-uid", ["a", "b"]))).message).toContain("node may only request 0 or 1 audiences");
    expect((await token(tokenRequest("mypod", "mypod-uid", ["vault"]))).message).toBe(
      'serviceaccounts "sa" is forbidden: audience "vault" not found in pod spec volume, system:node:mynode is not authorized to request tokens for this audience',
    );
    expect((await token(tokenRequest("lostpvcpod", "lostpvcpod-uid", ["storage"]))).message).toBe(
      'serviceaccounts "sa" is forbidden: error validating audience "storage": persistentvolumeclaim "gone" not found',
    );
    const granting: Authorizer = {
      authorize: (a) => ({ decision: a.verb === "request-serviceaccounts-token-audience" && a.resource === "vault" && a.name === "sa" ? "allow" : "no-opinion", reason: "" }),
    };
    expect(await token(tokenRequest("mypod", "mypod-uid", ["vault"]), plugin(granting))).toBeUndefined();
    expect(await token(tokenRequest("mypod", "mypod-uid", ["vault"]), plugin(noAuthz, { ...gates, serviceAccountNodeAudienceRestriction: false }))).toBeUndefined();
  });
});

describe("NodeRestriction is off by default, the certificate plugins on", () => {
  it("needs --enable-admission-plugins=NodeRestriction", async () => {
    const { enabledAdmissionPlugins } = await import("../plugins.js");
    const defaults = enabledAdmissionPlugins({});
    expect(defaults).not.toContain("NodeRestriction");
    expect(defaults).toEqual(expect.arrayContaining(["CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction"]));
    const on = enabledAdmissionPlugins({ enableAdmissionPlugins: ["NodeRestriction"] });
    // In upstream's order: after ServiceAccount and LimitRanger's place, before the certificate plugins.
    expect(on.indexOf("NodeRestriction")).toBeGreaterThan(on.indexOf("NamespaceLifecycle"));
    expect(on.indexOf("NodeRestriction")).toBeLessThan(on.indexOf("CertificateApproval"));
  });
});
