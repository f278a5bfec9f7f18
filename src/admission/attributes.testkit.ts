// Admission attributes for plugin unit tests: what the store would hand a plugin, with the
// request slots (options, warnings, audit annotations, reinvocation) filled in.
import type { AdmissionAttributes } from "../registry/admission.js";

type Given = Omit<AdmissionAttributes, "options" | "warnings" | "auditAnnotations" | "reinvocation"> & Partial<AdmissionAttributes>;

export function admissionAttributes(given: Given): AdmissionAttributes {
  const kind = given.operation === "DELETE" ? "DeleteOptions" : given.operation === "CREATE" ? "CreateOptions" : "UpdateOptions";
  return {
    options: { kind, apiVersion: "meta.k8s.io/v1", ...(given.dryRun ? { dryRun: ["All"] } : {}) } as unknown as AdmissionAttributes["options"],
    warnings: [],
    auditAnnotations: {},
    reinvocation: { isReinvoke: false, shouldReinvoke: false, values: new Map() },
    ...given,
  };
}
