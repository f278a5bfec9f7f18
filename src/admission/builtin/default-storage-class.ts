// DefaultStorageClass (upstream plugin/pkg/admission/storage/storageclass/setdefault): a claim
// created without a class (neither spec.storageClassName nor the beta annotation) gets the
// default StorageClass's name, when one is marked default.
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { newestDefault } from "./default-class.js";
import { objectLookup } from "./lookup.js";
import { isObj, type Obj } from "./pod-shape.js";

export const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";
const defaultAnnotations = ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"];

export const isDefaultStorageClass = (c: KObject) => defaultAnnotations.some((k) => c.metadata.annotations?.[k] === "true");

/** helper.PersistentVolumeClaimHasClass: the beta annotation or a set (even empty) storageClassName. */
export const claimHasClass = (claim: KObject) =>
  (!!claim.metadata.annotations && betaStorageClassAnnotation in claim.metadata.annotations) ||
  (isObj(claim.spec) && typeof (claim.spec as Obj).storageClassName === "string");

export function defaultStorageClassPlugin(parts: () => AdmissionParts): AdmissionPlugin {
  const classes = objectLookup(parts, "storage.k8s.io", "storageclasses");
  return {
    name: "DefaultStorageClass",
    operations: ["CREATE"],
    resources: [{ group: "", resource: "persistentvolumeclaims" }],
    async admit(a) {
      if (a.type.group !== "" || a.type.resource !== "persistentvolumeclaims" || a.subresource !== "" || !a.object) return;
      if (claimHasClass(a.object)) return;
      const def = newestDefault(await classes.list(), isDefaultStorageClass);
      if (!def) return;
      if (!isObj(a.object.spec)) a.object.spec = {};
      (a.object.spec as Obj).storageClassName = def.metadata.name;
    },
  };
}
