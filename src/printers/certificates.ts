// Printers for the certificates.k8s.io API group.
import { humanDuration } from "./duration.js";
import { age, arr, col, int, name, nameColumn, str } from "./helpers.js";
import type { Printer } from "./types.js";

export function csrCondition(csr: any): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of arr(csr?.status?.conditions)) {
    if (c?.type === "Approved") approved = true;
    else if (c?.type === "Denied") denied = true;
    else if (c?.type === "Failed") failed = true;
  }
  let status = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) status += ",Failed";
  if (str(csr?.status?.certificate).length > 0) status += ",Issued";
  return status;
}

export const certificateSigningRequestPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Age", "string", "Time elapsed since the object was created."),
    col("SignerName", "string", "Signer asked to sign the certificate."),
    col("Requestor", "string", "User who created the request."),
    col("RequestedDuration", "string", "Requested validity of the certificate."),
    col("Condition", "string", "Approval and issuance state."),
  ],
  cells(csr, now) {
    const spec = csr?.spec ?? {};
    return [
      name(csr),
      age(csr, now),
      str(spec.signerName) || "<none>",
      str(spec.username),
      typeof spec.expirationSeconds === "number" ? humanDuration(int(spec.expirationSeconds) * 1000) : "<none>",
      csrCondition(csr),
    ];
  },
};
