// DefaultStorageClass, StorageObjectInUseProtection and PersistentVolumeClaimResize.
import { describe, expect, it } from "vitest";
import type { KObject } from "../../registry/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../interface.js";
import { defaultStorageClassPlugin } from "./default-storage-class.js";
import { fakeParts, fakeWorld, typeFor } from "./parts.testkit.js";
import { persistentVolumeClaimResize } from "./persistent-volume-claim-resize.js";
import { storageObjectInUseProtection } from "./storage-object-in-use-protection.js";

const pvcs = typeFor("", "persistentvolumeclaims");
const sc = (name: string, created: string, extra: Record<string, unknown> = {}, isDefault = "true"): KObject => ({
  metadata: { name, creationTimestamp: created, annotations: { "storageclass.kubernetes.io/is-default-class": isDefault } },
  provisioner: "p",
  ...extra,
});
const claim = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KObject => ({ metadata: { name: "c" }, spec: { resources: { requests: { storage: "1Gi" } }, ...spec }, ...(status ? { status } : {}) });
const attrs = (object: KObject, a: Partial<AdmissionAttributes> = {}) => admissionAttributes({ operation: "CREATE", type: pvcs, namespace: "ns", name: "c", subresource: "", dryRun: false, object, ...a });

describe("DefaultStorageClass", () => {
  const plugin = (classes: KObject[]) => defaultStorageClassPlugin(fakeParts(fakeWorld({ "storage.k8s.io/storageclasses": classes })));
  it("names the newest default class (then the first by name) in a claim without a class", async () => {
    const classes = [sc("old", "2026-01-01T00:00:00Z"), sc("b-new", "2026-02-01T00:00:00Z"), sc("a-new", "2026-02-01T00:00:00Z"), sc("newest-not-default", "2026-03-01T00:00:00Z", {}, "false")];
    const c = claim();
    await plugin(classes).admit!(attrs(c));
    expect((c.spec as any).storageClassName).toBe("a-new");
  });
  it("leaves claims with a class (even empty, or the beta annotation) alone", async () => {
    const p = plugin([sc("d", "2026-01-01T00:00:00Z")]);
    const empty = claim({ storageClassName: "" });
    await p.admit!(attrs(empty));
    expect((empty.spec as any).storageClassName).toBe("");
    const annotated = claim();
    annotated.metadata.annotations = { "volume.beta.kubernetes.io/storage-class": "x" };
    await p.admit!(attrs(annotated));
    expect((annotated.spec as any).storageClassName).toBeUndefined();
    const none = claim();
    await plugin([]).admit!(attrs(none));
    expect((none.spec as any).storageClassName).toBeUndefined();
  });
});

describe("StorageObjectInUseProtection", () => {
  it("adds the protection finalizer to new claims and volumes, once", () => {
    const c = claim();
    storageObjectInUseProtection().admit!(attrs(c));
    expect(c.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    storageObjectInUseProtection().admit!(attrs(c));
    expect(c.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    const pv: KObject = { metadata: { name: "pv", finalizers: ["x"] } };
    storageObjectInUseProtection().admit!(attrs(pv, { type: typeFor("", "persistentvolumes", false), namespace: "" }));
    expect(pv.metadata.finalizers).toEqual(["x", "kubernetes.io/pv-protection"]);
  });
});

describe("PersistentVolumeClaimResize", () => {
  const plugin = persistentVolumeClaimResize(fakeParts(fakeWorld({ "storage.k8s.io/storageclasses": [sc("grow", "2026-01-01T00:00:00Z", { allowVolumeExpansion: true }), sc("fixed", "2026-01-01T00:00:00Z")] })));
  const resize = (cls: string, phase: string, to = "2Gi") =>
    plugin.validate!(attrs(claim({ storageClassName: cls, resources: { requests: { storage: to } } }), { operation: "UPDATE", oldObject: claim({ storageClassName: cls }, { phase }) }));
  it("lets bound claims of an expandable class grow", async () => {
    await expect(resize("grow", "Bound")).resolves.toBeUndefined();
    await expect(resize("fixed", "Pending", "1Gi")).resolves.toBeUndefined();
  });
  it("refuses growth of unbound claims and of classes that do not allow expansion, as upstream words it", async () => {
    await expect(resize("grow", "Pending")).rejects.toMatchObject({ code: 403, message: 'persistentvolumeclaims "c" is forbidden: Only bound persistent volume claims can be expanded' });
    await expect(resize("fixed", "Bound")).rejects.toMatchObject({
      message: 'persistentvolumeclaims "c" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    });
    await expect(resize("missing", "Bound")).rejects.toMatchObject({ code: 403 });
  });
});
