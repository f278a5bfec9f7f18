// NodeRestriction (upstream plugin/pkg/admission/noderestriction): the admission half of the
// Node authorizer. A kubelet — user system:node:<name> in group system:nodes — may only write
// what concerns its own node: its Node, pods bound to it, its Lease, its CSINode, its
// ResourceSlices, its CSRs, tokens for its pods. Everyone else passes untouched. Off by default,
// as upstream (--enable-admission-plugins=NodeRestriction).
import { goQuote } from "../../apimachinery/go-quote.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { nodeIdentity } from "../../authz/node/authorizer.js";
import { admissionForbidden } from "../certificates/forbidden.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { ObjectLookup } from "./lookup.js";
import { admitNode } from "./nodes.js";
import { admitCSINode, admitCSR, admitLease, admitPVCStatus, admitResourceSlice } from "./others.js";
import { admitPod, admitPodEviction, admitPodStatus } from "./pods.js";
import { admitServiceAccount } from "./token.js";

export interface NodeRestrictionGates {
  /** RecoverVolumeExpansionFailure (1.34: GA, on). */
  recoverVolumeExpansionFailure: boolean;
  /** ServiceAccountNodeAudienceRestriction (1.34: beta, on). */
  serviceAccountNodeAudienceRestriction: boolean;
  /** AllowInsecureKubeletCertificateSigningRequests (1.34: off): skips the kubelet CSR check. */
  allowInsecureKubeletCertificateSigningRequests: boolean;
}

/** What a node's writes are restricted on (the cases of admit below): writes of anything else pass. */
const nodeRestrictedResources = [
  { group: "", resource: "pods" },
  { group: "", resource: "nodes" },
  { group: "", resource: "persistentvolumeclaims" },
  { group: "", resource: "serviceaccounts" },
  { group: "coordination.k8s.io", resource: "leases" },
  { group: "storage.k8s.io", resource: "csinodes" },
  { group: "resource.k8s.io", resource: "resourceslices" },
  { group: "certificates.k8s.io", resource: "certificatesigningrequests" },
];

export function nodeRestriction(lookup: ObjectLookup, authorizer: () => Authorizer, gates: NodeRestrictionGates): AdmissionPlugin {
  return {
    name: "NodeRestriction",
    operations: ["CREATE", "UPDATE", "DELETE"],
    resources: nodeRestrictedResources,
    async admit(a) {
      const id = nodeIdentity(a.user);
      if (!id.isNode) return;
      const nodeName = id.nodeName;
      if (!nodeName) throw admissionForbidden(a, `could not determine node from user ${goQuote(a.user!.name)}`);
      const { group, resource } = a.type;
      const gr = group ? `${resource}.${group}` : resource;
      switch (gr) {
        case "pods":
          switch (a.subresource) {
            case "":
              return admitPod(nodeName, a, lookup);
            case "status":
              return admitPodStatus(nodeName, a);
            case "eviction":
              return admitPodEviction(nodeName, a, lookup);
            default:
              throw admissionForbidden(a, `unexpected pod subresource ${goQuote(a.subresource)}, only 'status' and 'eviction' are allowed`);
          }
        case "nodes":
          return admitNode(nodeName, a);
        case "persistentvolumeclaims":
          if (a.subresource !== "status") throw admissionForbidden(a, "may only update PVC status");
          return admitPVCStatus(nodeName, a, gates.recoverVolumeExpansionFailure);
        case "serviceaccounts":
          return admitServiceAccount(nodeName, a, { lookup, authorizer, audienceRestriction: gates.serviceAccountNodeAudienceRestriction });
        case "leases.coordination.k8s.io":
          return admitLease(nodeName, a);
        case "csinodes.storage.k8s.io":
          return admitCSINode(nodeName, a);
        case "resourceslices.resource.k8s.io":
          return admitResourceSlice(nodeName, a);
        case "certificatesigningrequests.certificates.k8s.io":
          if (gates.allowInsecureKubeletCertificateSigningRequests) return;
          return admitCSR(nodeName, a);
        default:
          return;
      }
    },
  };
}
