// The PodSecurity plugin as the named-plugin table builds it: configuration from the admission
// configuration file, namespace labels from the namespace states, existing pods from the shared
// pod informer (started on first need).
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionPluginContext } from "../plugins.js";
import { podSecurity } from "./admission.js";
import { loadPodSecurityConfiguration } from "./config.js";
import { defaultChecks, newEvaluator } from "./registry.js";

/** The feature gate that relaxes runAsNonRoot, runAsUser and procMount for pods with hostUsers=false. */
const relaxGate = "UserNamespacesPodSecurityStandards";

export function podSecurityPlugin(ctx: AdmissionPluginContext): AdmissionPlugin {
  const config = loadPodSecurityConfiguration(ctx.configuration("PodSecurity"));
  const evaluator = newEvaluator(defaultChecks, { relaxForUserNamespacePods: ctx.gates.enabled(relaxGate) });
  return podSecurity({
    config,
    evaluator,
    namespaceLabels: (ns) => ctx.namespaces.labels(ns),
    listPods: async (ns, signal) => {
      const { types, informers } = ctx.parts();
      const podsType = types.get("", "v1", "pods");
      if (!podsType) return [];
      const informer = informers.forType(podsType);
      if (!informer.hasSynced()) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => reject(new Error("timed out waiting for the pod informer"));
          signal.addEventListener("abort", onAbort, { once: true });
          void informer.synced.then(() => {
            signal.removeEventListener("abort", onAbort);
            resolve();
          });
        });
      }
      return informer.list(ns) as KObject[];
    },
  });
}
