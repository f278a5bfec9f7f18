// Admission attributes for plugin unit tests: what the store would hand a plugin, with the
// request slots (options, warnings, audit annotations, reinvocation) filled in. The annotations
// plugins add are kept in `annotations` (a key keeps its first value, as the audit event keeps
// it; levels above `auditLevel` are left out, as a request audited at that level records them).
import { atLeast, type Level } from "../observability/audit/types.js";
import type { AdmissionAttributes } from "../registry/admission.js";

type Given = Omit<AdmissionAttributes, "options" | "warnings" | "annotate" | "reinvocation"> & Partial<AdmissionAttributes>;

export type TestAttributes = AdmissionAttributes & { readonly annotations: Record<string, string> };

export function admissionAttributes(given: Given, auditLevel: Level = "RequestResponse"): TestAttributes {
  const kind = given.operation === "DELETE" ? "DeleteOptions" : given.operation === "CREATE" ? "CreateOptions" : "UpdateOptions";
  const annotations: Record<string, string> = {};
  return {
    options: { kind, apiVersion: "meta.k8s.io/v1", ...(given.dryRun ? { dryRun: ["All"] } : {}) } as unknown as AdmissionAttributes["options"],
    warnings: [],
    reinvocation: { isReinvoke: false, shouldReinvoke: false, values: new Map() },
    ...given,
    annotations,
    annotate(key, value, level = "Metadata") {
      if (atLeast(auditLevel, level) && !(key in annotations)) annotations[key] = value;
    },
  };
}
