// PodTopologyLabels (upstream plugin/pkg/admission/podtopologylabels, behind the
// PodTopologyLabelsAdmission gate, off in 1.34): a pods/binding create gets the target Node's
// topology.kubernetes.io/zone and /region labels on the Binding, which the binding then copies
// onto the pod; a pod created with spec.nodeName gets them directly. Only those two keys; labels
// already on the Binding or pod win.
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { objectLookup } from "./lookup.js";
import { isObj, podsOnly, str, type Obj } from "./pod-shape.js";

export const topologyLabelKeys = ["topology.kubernetes.io/zone", "topology.kubernetes.io/region"];

export function podTopologyLabels(parts: () => AdmissionParts, enabled: boolean): AdmissionPlugin {
  const nodes = objectLookup(parts, "", "nodes");
  return {
    name: "PodTopologyLabels",
    operations: ["CREATE"],
    resources: podsOnly,
    async admit(a) {
      if (!enabled || a.type.group !== "" || a.type.resource !== "pods" || !a.object) return;
      let nodeName: string;
      if (a.subresource === "binding") {
        const target = isObj((a.object as Obj).target) ? ((a.object as Obj).target as Obj) : undefined;
        if (!target || (str(target.kind) !== "Node" && str(target.kind) !== "")) return;
        nodeName = str(target.name);
      } else if (a.subresource === "") {
        // A pod created already bound (spec.nodeName set) gets them at once.
        nodeName = isObj((a.object as Obj).spec) ? str(((a.object as Obj).spec as Obj).nodeName) : "";
      } else return;
      if (!nodeName) return;
      const node = await nodes.get("", nodeName, { live: true });
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
