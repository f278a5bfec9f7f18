// What a kubelet may do to Node objects (upstream noderestriction admitNode): only its own; never
// register with or switch to a (new) spec.configSource, which would widen what it may read;
// never change its taints; never set, change or remove labels outside the kubelet's set — each
// would let it steer workloads to itself.
import { goQuote } from "../../apimachinery/go-quote.js";
import { admissionForbidden, semanticEqual } from "../certificates/forbidden.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { forbiddenLabels, modifiedLabels } from "./labels.js";
import { specOf } from "./lookup.js";

export function admitNode(nodeName: string, a: AdmissionAttributes): void {
  const q = goQuote(nodeName);
  if (a.name !== nodeName) throw admissionForbidden(a, `node ${q} is not allowed to modify node ${goQuote(a.name)}`);
  if (a.operation === "CREATE") {
    const node = a.object!;
    if (specOf(node).configSource != null) throw admissionForbidden(a, `node ${q} is not allowed to create pods with a non-nil configSource`);
    const forbidden = forbiddenLabels(modifiedLabels(node.metadata.labels, undefined));
    if (forbidden.length > 0) throw admissionForbidden(a, `node ${q} is not allowed to set the following labels: ${forbidden.join(", ")}`);
  }
  if (a.operation === "UPDATE") {
    const node = a.object!;
    const old = a.oldObject!;
    const spec = specOf(node);
    const oldSpec = specOf(old);
    // Only a non-nil new configSource counts: old kubelets may drop the field in a status update.
    if (spec.configSource != null && !semanticEqual(spec.configSource, oldSpec.configSource)) {
      throw admissionForbidden(a, `node ${q} is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!semanticEqual(spec.taints, oldSpec.taints)) throw admissionForbidden(a, `node ${q} is not allowed to modify taints`);
    const forbidden = forbiddenLabels(modifiedLabels(node.metadata.labels, old.metadata.labels));
    if (forbidden.length > 0) throw admissionForbidden(a, `is not allowed to modify labels: ${forbidden.join(", ")}`);
  }
}
