// ClusterTrustBundleAttest (upstream plugin/pkg/admission/certificates/ctbattest): creating or
// updating a ClusterTrustBundle that names a signer needs `attest` on that signer (or on
// "<domain>/*"). Checked on the new object (validation forbids changing spec.signerName). An
// update that only touches owner references, finalizers or managed fields (garbage collection,
// storage migration) passes unchecked. Only with the ClusterTrustBundle gate on (1.34: beta,
// off; the type is certificates.k8s.io/v1beta1, also behind --runtime-config).
import { goQuote } from "../../apimachinery/go-quote.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden, semanticEqual } from "./forbidden.js";
import { signerNameOf } from "./resources.js";
import { isAuthorizedForSignerName } from "./signers.js";

export function clusterTrustBundleAttest(authorizer: () => Authorizer, gateEnabled: boolean): AdmissionPlugin {
  return {
    name: "ClusterTrustBundleAttest",
    operations: ["CREATE", "UPDATE"],
    resources: [{ group: "certificates.k8s.io", resource: "clustertrustbundles" }],
    async validate(a) {
      if (!gateEnabled || !a.user) return;
      if (a.type.group !== "certificates.k8s.io" || a.type.resource !== "clustertrustbundles") return;
      const signerName = signerNameOf(a.object);
      if (!signerName) return;
      if (a.operation === "UPDATE" && isOnlyMutatingGCFields(a.object, a.oldObject)) return;
      if (!(await isAuthorizedForSignerName(authorizer(), a.user, "attest", signerName))) {
        throw admissionForbidden(a, `user not permitted to attest for signerName ${goQuote(signerName)}`);
      }
    },
  };
}

/** upstream rbac.IsOnlyMutatingGCFields: equal once the new object takes the old one's GC fields. */
export function isOnlyMutatingGCFields(obj: KObject | undefined, old: KObject | undefined): boolean {
  if (!obj || !old) return false;
  const { ownerReferences: _o, finalizers: _f, selfLink: _s, managedFields: _m, ...meta } = obj.metadata as Record<string, unknown>;
  const { ownerReferences: _oo, finalizers: _of, selfLink: _os, managedFields: _om, ...oldMeta } = old.metadata as Record<string, unknown>;
  return semanticEqual({ ...obj, metadata: meta }, { ...old, metadata: oldMeta });
}
