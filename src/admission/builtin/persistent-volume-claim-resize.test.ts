import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { fakeParts, fakeWorld, typeFor } from "./parts.testkit.js";
import { persistentVolumeClaimResize } from "./persistent-volume-claim-resize.js";

const pvcs = typeFor("", "persistentvolumeclaims");
const sc = (name: string, created: string, extra: Record<string, unknown> = {}, isDefault = "true"): KObject => ({
  metadata: { name, creationTimestamp: created, annotations: { "storageclass.kubernetes.io/is-default-class": isDefault } },
  provisioner: "p",
  ...extra,
});
const claim = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KObject => ({ metadata: { name: "c" }, spec: { resources: { requests: { storage: "1Gi" } }, ...spec }, ...(status ? { status } : {}) });
const attrs = (object: KObject, a: Partial<AdmissionAttributes> = {}) => admissionAttributes({ operation: "CREATE", type: pvcs, namespace: "ns", name: "c", subresource: "", dryRun: false, object, ...a });

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
