// Admission attributes for plugin unit tests: what the store would hand a plugin, with the
// request slots (uid, options, warnings, audit annotations, reinvocation) filled in.
import type { AdmissionAttributes } from "../registry/admission.js";

type Given = Omit<AdmissionAttributes, "uid" | "options" | "warnings" | "auditAnnotations" | "reinvocation"> & Partial<AdmissionAttributes>;

export function admissionAttributes(given: Given): AdmissionAttributes {
  const kind = given.operation === "DELETE" ? "DeleteOptions" : given.operation === "CREATE" ? "CreateOptions" : "UpdateOptions";
  return {
    uid: "0b6a2d5e-9a44-4f55-8a8e-3c1f1d2c0001",
    options: { kind, apiVersion: "meta.k8s.io/v1", ...(given.dryRun ? { dryRun: ["All"] } : {}) } as unknown as AdmissionAttributes["options"],
    warnings: [],
    auditAnnotations: {},
    reinvocation: { isReinvoke: false, shouldReinvoke: false, values: new Map() },
    ...given,
  };
}
