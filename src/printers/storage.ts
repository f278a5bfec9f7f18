// Printers for the storage.k8s.io API group.
import { age, ageColumn, col, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

const DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";
const BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class";

export function isDefaultStorageClass(sc: any): boolean {
  const a = sc?.metadata?.annotations ?? {};
  return a[DEFAULT_CLASS] === "true" || a[BETA_DEFAULT_CLASS] === "true";
}

export const storageClassPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Provisioner", "string", "Volume plugin that provisions volumes of this class."),
    col("ReclaimPolicy", "string", "Reclaim policy given to provisioned volumes."),
    col("VolumeBindingMode", "string", "When volumes are bound and provisioned."),
    col("AllowVolumeExpansion", "string", "Whether volumes of this class can be expanded."),
    ageColumn(),
  ],
  cells(sc, now) {
    return [
      isDefaultStorageClass(sc) ? `${name(sc)} (default)` : name(sc),
      str(sc?.provisioner),
      typeof sc?.reclaimPolicy === "string" ? sc.reclaimPolicy : "Delete",
      typeof sc?.volumeBindingMode === "string" ? sc.volumeBindingMode : "Immediate",
      sc?.allowVolumeExpansion === true,
      age(sc, now),
    ];
  },
};
