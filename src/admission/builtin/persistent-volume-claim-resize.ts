// PersistentVolumeClaimResize (upstream plugin/pkg/admission/storage/persistentvolume/resize): a
// claim's storage request may only grow when it is bound and its (unchanged) StorageClass sets
// allowVolumeExpansion.
import { compareQuantity } from "../../apimachinery/quantity.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { betaStorageClassAnnotation } from "./default-storage-class.js";
import { admissionForbidden } from "./forbidden.js";
import { objectLookup } from "./lookup.js";
import { isObj, str, type Obj } from "./pod-shape.js";

const storageRequest = (claim: KObject): unknown => {
  const spec = isObj(claim.spec) ? (claim.spec as Obj) : {};
  const requests = isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : {};
  return requests.storage ?? "0";
};

/** helper.GetPersistentVolumeClaimClass: the beta annotation first, then the field. */
const claimClass = (claim: KObject): string => {
  const ann = claim.metadata.annotations?.[betaStorageClassAnnotation];
  if (ann !== undefined) return ann;
  return isObj(claim.spec) ? str((claim.spec as Obj).storageClassName) : "";
};

export function persistentVolumeClaimResize(parts: () => AdmissionParts): AdmissionPlugin {
  const classes = objectLookup(parts, "storage.k8s.io", "storageclasses");
  return {
    name: "PersistentVolumeClaimResize",
    operations: ["UPDATE"],
    resources: [{ group: "", resource: "persistentvolumeclaims" }],
    async validate(a) {
      if (a.type.group !== "" || a.type.resource !== "persistentvolumeclaims" || a.subresource !== "" || !a.object || !a.oldObject) return;
      if (compareQuantity(storageRequest(a.object), storageRequest(a.oldObject)) <= 0) return;
      const phase = isObj(a.oldObject.status) ? (a.oldObject.status as Obj).phase : undefined;
      if (phase !== "Bound") throw admissionForbidden(a, "Only bound persistent volume claims can be expanded");
      const cls = claimClass(a.object);
      const oldCls = claimClass(a.oldObject);
      let allowed = false;
      if (cls !== "" && cls === oldCls) {
        const sc = await classes.get("", cls);
        allowed = !!sc && (sc as Obj).allowVolumeExpansion === true;
      }
      if (!allowed) throw admissionForbidden(a, "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize");
    },
  };
}
