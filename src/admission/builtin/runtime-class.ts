// RuntimeClass (upstream plugin/pkg/admission/runtimeclass): a pod naming a RuntimeClass gets
// the class's pod overhead and scheduling (node selector merged without conflicts, tolerations
// merged); a pod's overhead must be the class's, and no class means no overhead.
import { badRequest } from "../../apimachinery/errors.js";
import { compareQuantity } from "../../apimachinery/quantity.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { admissionForbidden } from "./forbidden.js";
import { objectLookup } from "./lookup.js";
import { isObj, isPods, objs, podsOnly, type Obj } from "./pod-shape.js";
import { mergeTolerations } from "./tolerations.js";

const overheadMismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";

/** Semantic equality of two resource lists: the same names, equal quantities. */
function sameResources(a: Obj, b: Obj): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => k in b && compareQuantity(a[k], b[k]) === 0);
}

export function runtimeClassPlugin(parts: () => AdmissionParts): AdmissionPlugin {
  const classes = objectLookup(parts, "node.k8s.io", "runtimeclasses");

  async function prepare(a: AdmissionAttributes): Promise<{ spec: Obj; rc?: KObject }> {
    const pod = a.object as Obj | undefined;
    if (!pod || !isObj(pod.spec)) throw badRequest("Resource was marked with kind Pod but was unable to be converted");
    const spec = pod.spec;
    if (typeof spec.runtimeClassName !== "string") return { spec };
    const rc = await classes.get("", spec.runtimeClassName, { live: true });
    if (!rc) throw admissionForbidden(a, `pod rejected: RuntimeClass "${spec.runtimeClassName}" not found`);
    return { spec, rc };
  }

  return {
    name: "RuntimeClass",
    operations: ["CREATE"],
    resources: podsOnly,
    async admit(a) {
      if (!isPods(a)) return;
      const { spec, rc } = await prepare(a);
      if (!rc) return;
      const overhead = isObj((rc as Obj).overhead) ? ((rc as Obj).overhead as Obj) : undefined;
      if (overhead && isObj(overhead.podFixed)) {
        const podFixed = overhead.podFixed;
        if (isObj(spec.overhead) && Object.keys(spec.overhead).length > 0 && !sameResources(podFixed, spec.overhead)) throw admissionForbidden(a, overheadMismatch);
        spec.overhead = { ...podFixed };
      }
      const scheduling = isObj((rc as Obj).scheduling) ? ((rc as Obj).scheduling as Obj) : undefined;
      if (scheduling) {
        const fromClass = isObj(scheduling.nodeSelector) ? (scheduling.nodeSelector as Record<string, string>) : {};
        if (isObj(spec.nodeSelector)) {
          const selector = spec.nodeSelector as Record<string, string>;
          for (const [k, v] of Object.entries(fromClass)) {
            if (k in selector && selector[k] !== v) {
              throw admissionForbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${k}] = ${v}; pod.spec.nodeSelector[${k}] = ${selector[k]}`);
            }
            selector[k] = v;
          }
        } else if (Object.keys(fromClass).length > 0) spec.nodeSelector = { ...fromClass };
        const merged = mergeTolerations(objs(spec.tolerations), objs(scheduling.tolerations));
        if (merged.length > 0 || Array.isArray(spec.tolerations)) spec.tolerations = merged;
      }
    },
    async validate(a) {
      if (!isPods(a)) return;
      const { spec, rc } = await prepare(a);
      const overhead = rc && isObj((rc as Obj).overhead) ? ((rc as Obj).overhead as Obj) : undefined;
      if (overhead && isObj(overhead.podFixed)) {
        if (!isObj(spec.overhead) || !sameResources(overhead.podFixed, spec.overhead)) throw admissionForbidden(a, overheadMismatch);
      } else if (spec.overhead !== undefined && spec.overhead !== null) {
        throw admissionForbidden(a, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
      }
    },
  };
}
