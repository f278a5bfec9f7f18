// PodTopologyLabels (upstream plugin/pkg/admission/podtopologylabels, behind the
// PodTopologyLabelsAdmission gate, off in 1.34): a pods/binding create gets the target Node's
// topology.kubernetes.io/zone and /region labels on the Binding, which the binding then copies
// onto the pod. Only those two keys; the Binding's own labels win.
import type { AdmissionPlugin } from "../interface.js";
import type { AdmissionParts } from "../plugins.js";
import { objectLookup } from "./lookup.js";
import { isObj, str, type Obj } from "./pod-shape.js";

export const topologyLabelKeys = ["topology.kubernetes.io/zone", "topology.kubernetes.io/region"];

export function podTopologyLabels(parts: () => AdmissionParts, enabled: boolean): AdmissionPlugin {
  const nodes = objectLookup(parts, "", "nodes");
  return {
    name: "PodTopologyLabels",
    operations: ["CREATE"],
    async admit(a) {
      if (!enabled || a.type.group !== "" || a.type.resource !== "pods" || a.subresource !== "binding" || !a.object) return;
      const target = isObj((a.object as Obj).target) ? ((a.object as Obj).target as Obj) : undefined;
      if (!target || (str(target.kind) !== "Node" && str(target.kind) !== "") || !str(target.name)) return;
      const node = await nodes.get("", str(target.name), { live: true });
      if (!node) return;
      const copied: Record<string, string> = {};
      for (const k of topologyLabelKeys) {
        const v = node.metadata.labels?.[k];
        if (v !== undefined) copied[k] = v;
      }
      if (Object.keys(copied).length === 0) return;
      a.object.metadata.labels = { ...copied, ...(a.object.metadata.labels ?? {}) };
    },
  };
}
