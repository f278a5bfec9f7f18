// CertificateSigning (upstream plugin/pkg/admission/certificates/signing): writing a
// CertificateSigningRequest's status — its issued certificate or its conditions — needs `sign` on
// the request's signer (or on "<domain>/*"), judged by the stored object's signer. A status write
// that changes neither passes unchecked.
import { goQuote } from "../../apimachinery/go-quote.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden, semanticEqual } from "./forbidden.js";
import { csrOnly, isCsr, signerNameOf, statusOf } from "./resources.js";
import { isAuthorizedForSignerName } from "./signers.js";

export function certificateSigning(authorizer: () => Authorizer): AdmissionPlugin {
  return {
    name: "CertificateSigning",
    operations: ["UPDATE"],
    resources: csrOnly,
    async validate(a) {
      if (a.subresource !== "status" || !isCsr(a) || !a.user) return;
      const before = statusOf(a.oldObject);
      const after = statusOf(a.object);
      if ((before.certificate ?? "") === (after.certificate ?? "") && semanticEqual(before.conditions, after.conditions)) return;
      const signerName = signerNameOf(a.oldObject);
      if (!(await isAuthorizedForSignerName(authorizer(), a.user, "sign", signerName))) {
        throw admissionForbidden(a, `user not permitted to sign requests with signerName ${goQuote(signerName)}`);
      }
    },
  };
}
