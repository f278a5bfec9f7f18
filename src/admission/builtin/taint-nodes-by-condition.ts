// TaintNodesByCondition (upstream plugin/pkg/admission/nodetaint): a Node is created with the
// not-ready NoSchedule taint, so nothing is scheduled on it before its kubelet reports Ready and
// the node lifecycle controller lifts the taint.
import type { AdmissionPlugin } from "../../registry/admission.js";
import { notReadyTaintKey } from "./default-toleration-seconds.js";
import { isObj, objs, str, type Obj } from "./pod-shape.js";

export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: "TaintNodesByCondition",
    operations: ["CREATE"],
    resources: [{ group: "", resource: "nodes" }],
    admit(a) {
      if (a.type.group !== "" || a.type.resource !== "nodes" || a.subresource !== "" || !a.object) return;
      const node = a.object as Obj;
      if (!isObj(node.spec)) node.spec = {};
      const spec = node.spec as Obj;
      // Taint.MatchTaint: the same key and effect, whatever the value.
      if (objs(spec.taints).some((t) => str(t.key) === notReadyTaintKey && str(t.effect) === "NoSchedule")) return;
      spec.taints = [...(Array.isArray(spec.taints) ? spec.taints : []), { key: notReadyTaintKey, effect: "NoSchedule" }];
    },
  };
}
