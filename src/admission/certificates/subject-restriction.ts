// CertificateSubjectRestriction (upstream plugin/pkg/admission/certificates/subjectrestriction):
// nobody may ask the kubernetes.io/kube-apiserver-client signer for a certificate in the
// system:masters group (organization), which would bypass every authorizer.
import type { AdmissionPlugin } from "../../registry/admission.js";
import { parseCsrSubject } from "./csr-request.js";
import { admissionForbidden } from "./forbidden.js";
import { csrOnly, isCsr, signerNameOf } from "./resources.js";

export const kubeAPIServerClientSignerName = "kubernetes.io/kube-apiserver-client";

export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: "CertificateSubjectRestriction",
    operations: ["CREATE"],
    resources: csrOnly,
    validate(a) {
      if (!isCsr(a) || a.subresource !== "") return;
      if (signerNameOf(a.object) !== kubeAPIServerClientSignerName) return;
      let organizations: string[];
      try {
        organizations = parseCsrSubject((a.object?.spec as { request?: unknown } | undefined)?.request).organizations;
      } catch (e) {
        throw admissionForbidden(a, `failed to parse CSR: ${(e as Error).message}`);
      }
      if (organizations.includes("system:masters")) {
        throw admissionForbidden(a, `use of ${kubeAPIServerClientSignerName} signer with system:masters group is not allowed`);
      }
    },
  };
}
