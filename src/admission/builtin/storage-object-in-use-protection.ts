// StorageObjectInUseProtection (upstream plugin/pkg/admission/storage/storageobjectinuseprotection):
// new PersistentVolumes and PersistentVolumeClaims get the protection finalizer, which the
// pv-protection / pvc-protection controllers lift once nothing uses them.
import type { AdmissionPlugin } from "../../registry/admission.js";

export const pvProtectionFinalizer = "kubernetes.io/pv-protection";
export const pvcProtectionFinalizer = "kubernetes.io/pvc-protection";

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: "StorageObjectInUseProtection",
    operations: ["CREATE"],
    resources: [{ group: "", resource: "persistentvolumes" }, { group: "", resource: "persistentvolumeclaims" }],
    admit(a) {
      if (a.type.group !== "" || a.subresource !== "" || !a.object) return;
      const finalizer = a.type.resource === "persistentvolumes" ? pvProtectionFinalizer : a.type.resource === "persistentvolumeclaims" ? pvcProtectionFinalizer : undefined;
      if (!finalizer) return;
      const meta = a.object.metadata;
      if (meta.finalizers?.includes(finalizer)) return;
      meta.finalizers = [...(meta.finalizers ?? []), finalizer];
    },
  };
}
