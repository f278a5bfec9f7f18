// CertificateApproval (upstream plugin/pkg/admission/certificates/approval): approving or denying
// a CertificateSigningRequest — an update of its approval subresource — needs `approve` on the
// request's signer (or on "<domain>/*"). The signer is read from the stored object, so a request
// that also tries to change spec.signerName is judged by the signer it had.
import { goQuote } from "../../apimachinery/go-quote.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden } from "./forbidden.js";
import { csrOnly, isCsr, signerNameOf } from "./resources.js";
import { isAuthorizedForSignerName } from "./signers.js";

export function certificateApproval(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: "CertificateApproval",
    operations: ["UPDATE"],
    resources: csrOnly,
    async validate(a) {
      if (a.subresource !== "approval" || !isCsr(a) || !a.user) return;
      const signerName = signerNameOf(a.oldObject);
      if (!(await isAuthorizedForSignerName(authorizer(), a.user, "approve", signerName))) {
        throw admissionForbidden(a, `user not permitted to approve requests with signerName ${goQuote(signerName)}`);
      }
    },
  };
}
