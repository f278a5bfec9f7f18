// LimitPodHardAntiAffinityTopology (upstream plugin/pkg/admission/antiaffinity): a pod's required
// anti-affinity may only spread over hosts (kubernetes.io/hostname), not wider domains.
import type { AdmissionPlugin } from "../../registry/admission.js";
import { admissionForbidden } from "./forbidden.js";
import { isObj, isPods, objs, podsOnly, str, type Obj } from "./pod-shape.js";

const hostnameLabel = "kubernetes.io/hostname";

export function limitPodHardAntiAffinityTopology(): AdmissionPlugin {
  return {
    name: "LimitPodHardAntiAffinityTopology",
    operations: ["CREATE", "UPDATE"],
    resources: podsOnly,
    validate(a) {
      if (!isPods(a) || !a.object) return;
      const spec = isObj(a.object.spec) ? (a.object.spec as Obj) : {};
      const anti = isObj(spec.affinity) && isObj((spec.affinity as Obj).podAntiAffinity) ? ((spec.affinity as Obj).podAntiAffinity as Obj) : undefined;
      for (const term of objs(anti?.requiredDuringSchedulingIgnoredDuringExecution)) {
        if (str(term.topologyKey) !== hostnameLabel) {
          throw admissionForbidden(a, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${str(term.topologyKey)} but only key ${hostnameLabel} is allowed`);
        }
      }
    },
  };
}
