// ExtendedResourceToleration (upstream plugin/pkg/admission/extendedresourcetoleration): a pod
// requesting an extended resource (example.com/gpu) tolerates the NoSchedule taint of that name,
// so nodes dedicated to the resource (tainted with it) take exactly the pods that need it.
import { isQualifiedName } from "../../apimachinery/validation.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import { isObj, isPods, objs, podsOnly, type Obj } from "./pod-shape.js";
import { mergeTolerations } from "./tolerations.js";

/** helper.IsExtendedResourceName: prefixed, outside kubernetes.io, not a quota "requests." name, and qualified as one. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes("/") || name.includes("kubernetes.io/")) return false; // native
  if (name.startsWith("requests.")) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export function extendedResourceToleration(): AdmissionPlugin {
  return {
    name: "ExtendedResourceToleration",
    operations: ["CREATE", "UPDATE"],
    resources: podsOnly,
    admit(a) {
      if (!isPods(a) || !a.object) return;
      const spec = isObj(a.object.spec) ? (a.object.spec as Obj) : {};
      const names = new Set<string>();
      for (const c of [...objs(spec.containers), ...objs(spec.initContainers)]) {
        const requests = isObj(c.resources) && isObj((c.resources as Obj).requests) ? ((c.resources as Obj).requests as Obj) : {};
        for (const name of Object.keys(requests)) if (isExtendedResourceName(name)) names.add(name);
      }
      if (names.size === 0) return;
      const wanted = [...names].sort().map((key) => ({ key, operator: "Exists", effect: "NoSchedule" }));
      spec.tolerations = mergeTolerations(objs(spec.tolerations), wanted);
    },
  };
}
