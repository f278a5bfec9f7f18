// PodNodeSelector (upstream plugin/pkg/admission/podnodeselector): a namespace's
// scheduler.alpha.kubernetes.io/node-selector annotation (else the configuration's
// clusterDefaultNodeSelector) is merged into its pods' node selectors, which may not conflict
// with it; the configuration may also whitelist, per namespace, the labels pods may select.
import { ApiError, forbidden, internalError } from "../../apimachinery/errors.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { labelsConflict, namespaceAnnotations, selectorToLabelsMap } from "./namespace-annotations.js";
import { isObj, isPods, podsOnly, str, type Obj } from "./pod-shape.js";

export const namespaceNodeSelectorAnnotation = "scheduler.alpha.kubernetes.io/node-selector";

/** The configuration file's podNodeSelectorPluginConfig: clusterDefaultNodeSelector and namespace → whitelist selector. */
export function podNodeSelectorConfig(config: unknown): Record<string, string> {
  const c = isObj(config) && isObj(config.podNodeSelectorPluginConfig) ? config.podNodeSelectorPluginConfig : {};
  return Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)]));
}

export function podNodeSelector(parts: () => AdmissionParts, config: Record<string, string>): AdmissionPlugin {
  const annotationsOf = namespaceAnnotations(parts);

  async function namespaceSelector(ns: string): Promise<Record<string, string>> {
    let annotations: Record<string, string>;
    try {
      annotations = await annotationsOf(ns);
    } catch (e) {
      throw e instanceof ApiError ? e : internalError(e);
    }
    const own = annotations[namespaceNodeSelectorAnnotation];
    return selectorToLabelsMap(own !== undefined ? own : (config.clusterDefaultNodeSelector ?? ""));
  }

  const conflict = (a: AdmissionAttributes, message: string) => forbidden(a.type.gr, str(a.object?.metadata.name), message);

  async function check(a: AdmissionAttributes, spec: Obj): Promise<void> {
    const nsSelector = await namespaceSelector(a.namespace);
    const podSelector = isObj(spec.nodeSelector) ? (spec.nodeSelector as Record<string, string>) : {};
    if (labelsConflict(nsSelector, podSelector)) throw conflict(a, "pod node label selector conflicts with its namespace node label selector");
    const whitelist = selectorToLabelsMap(config[a.namespace] ?? "");
    if (Object.keys(whitelist).length === 0) return;
    if (Object.entries(podSelector).some(([k, v]) => whitelist[k] !== v)) throw conflict(a, "pod node label selector labels conflict with its namespace whitelist");
  }

  return {
    name: "PodNodeSelector",
    operations: ["CREATE"],
    resources: podsOnly,
    async admit(a) {
      if (!isPods(a) || !a.object) return;
      if (!isObj(a.object.spec)) a.object.spec = {};
      const spec = a.object.spec as Obj;
      const nsSelector = await namespaceSelector(a.namespace);
      const podSelector = isObj(spec.nodeSelector) ? (spec.nodeSelector as Record<string, string>) : {};
      if (labelsConflict(nsSelector, podSelector)) throw conflict(a, "pod node label selector conflicts with its namespace node label selector");
      const merged = { ...nsSelector, ...podSelector };
      if (Object.keys(merged).length > 0 || isObj(spec.nodeSelector)) spec.nodeSelector = merged;
      await check(a, spec);
    },
    async validate(a) {
      if (!isPods(a) || !a.object) return;
      await check(a, isObj(a.object.spec) ? (a.object.spec as Obj) : {});
    },
  };
}
