// DefaultTolerationSeconds (upstream plugin/pkg/admission/defaulttolerationseconds): a pod that
// does not tolerate the not-ready / unreachable NoExecute taints gets tolerations for them with
// --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (300 each),
// so that its node's failure evicts it after that long rather than at once.
import type { AdmissionPlugin } from "../../registry/admission.js";
import { isPods, objs, podsOnly, podSpec, str, type Obj } from "./pod-shape.js";

export const notReadyTaintKey = "node.kubernetes.io/not-ready";
export const unreachableTaintKey = "node.kubernetes.io/unreachable";

export interface TolerationSecondsFlags {
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
}

/** A toleration with an empty key (all keys) or this key, and NoExecute or every effect, covers the taint. */
const tolerates = (t: Obj, key: string) => (str(t.key) === key || str(t.key) === "") && (str(t.effect) === "NoExecute" || str(t.effect) === "");

export function defaultTolerationSeconds(flags: TolerationSecondsFlags): AdmissionPlugin {
  const notReady = flags.defaultNotReadyTolerationSeconds ?? 300;
  const unreachable = flags.defaultUnreachableTolerationSeconds ?? 300;
  return {
    name: "DefaultTolerationSeconds",
    operations: ["CREATE", "UPDATE"],
    resources: podsOnly,
    admit(a) {
      if (!isPods(a) || !a.object) return;
      const spec = podSpec(a.object);
      const tolerations = objs(spec.tolerations);
      const add: Obj[] = [];
      if (!tolerations.some((t) => tolerates(t, notReadyTaintKey))) add.push({ key: notReadyTaintKey, operator: "Exists", effect: "NoExecute", tolerationSeconds: notReady });
      if (!tolerations.some((t) => tolerates(t, unreachableTaintKey))) add.push({ key: unreachableTaintKey, operator: "Exists", effect: "NoExecute", tolerationSeconds: unreachable });
      if (add.length > 0) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...add];
    },
  };
}
