// The workloads whose pod templates PodSecurity audits and warns about, and where each keeps its
// template (upstream: DefaultPodSpecExtractor).
import type { KObject } from "../../apimachinery/object.js";
import type { PodMetaJson, PodSpecJson } from "./check.js";

export const podTemplateResources: readonly { group: string; resource: string }[] = [
  { group: "", resource: "replicationcontrollers" },
  { group: "", resource: "podtemplates" },
  { group: "apps", resource: "replicasets" },
  { group: "apps", resource: "deployments" },
  { group: "apps", resource: "statefulsets" },
  { group: "apps", resource: "daemonsets" },
  { group: "batch", resource: "jobs" },
  { group: "batch", resource: "cronjobs" },
];

const templateResources = new Set(podTemplateResources.map((r) => `${r.group}/${r.resource}`));

export const isPodTemplateResource = (group: string, resource: string) => templateResources.has(`${group}/${resource}`);

interface TemplateJson {
  metadata?: PodMetaJson;
  spec?: PodSpecJson;
}

/** The pod template of a workload object; undefined when the type's template is optional and absent. */
export function extractPodTemplate(group: string, resource: string, obj: KObject): { metadata: PodMetaJson; spec: PodSpecJson } | undefined {
  const o = obj as unknown as { template?: TemplateJson; spec?: { template?: TemplateJson; jobTemplate?: { spec?: { template?: TemplateJson } } } };
  let template: TemplateJson | undefined;
  switch (`${group}/${resource}`) {
    case "/podtemplates":
      template = o.template ?? {};
      break;
    case "/replicationcontrollers":
      template = o.spec?.template; // optional in ReplicationControllers
      if (!template) return undefined;
      break;
    case "batch/cronjobs":
      template = o.spec?.jobTemplate?.spec?.template ?? {};
      break;
    default:
      template = o.spec?.template ?? {};
  }
  return { metadata: template.metadata ?? {}, spec: template.spec ?? {} };
}
