// What the certificate plugins read of the objects they judge.
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes } from "../../registry/admission.js";

/** The resources of a plugin that looks at CertificateSigningRequests only (AdmissionPlugin.resources). */
export const csrOnly = [{ group: "certificates.k8s.io", resource: "certificatesigningrequests" }] as const;

export const isCsr = (a: AdmissionAttributes): boolean => a.type.group === "certificates.k8s.io" && a.type.resource === "certificatesigningrequests";

export function signerNameOf(o: KObject | undefined): string {
  const s = (o?.spec as { signerName?: unknown } | undefined)?.signerName;
  return typeof s === "string" ? s : "";
}

export function statusOf(o: KObject | undefined): { certificate?: string; conditions?: unknown } {
  const s = o?.status;
  return s && typeof s === "object" ? (s as { certificate?: string; conditions?: unknown }) : {};
}
