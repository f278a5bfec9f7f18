// The Warning headers of a Service write (upstream: pkg/api/service's GetWarningsForService, the
// service strategy's WarningsOnCreate/WarningsOnUpdate): what validation accepts but a reader
// would misread — fields a headless or ExternalName Service ignores, addresses in a form that
// will be refused one day or is not canonical, the deprecated topology annotation. Sent only for
// a write that validation passed, as upstream's BeforeCreate/BeforeUpdate.
// Not here: loadBalancerSourceRanges' CIDR warnings and trafficDistribution's.
import { ipWarnings } from "../../apimachinery/ip-warnings.js";
import { arr, obj, str, type Obj } from "./helpers.js";

const deprecatedTopologyHints = "service.kubernetes.io/topology-aware-hints";
const topologyMode = "service.kubernetes.io/topology-mode";

export function serviceWarnings(o: Obj): string[] {
  const spec = obj(o.spec);
  const out: string[] = [];
  const annotations = obj(obj(o.metadata).annotations);
  if (Object.hasOwn(annotations, deprecatedTopologyHints)) out.push(`annotation ${deprecatedTopologyHints} is deprecated, please use ${topologyMode} instead`);
  const clusterIP = str(spec.clusterIP);
  if (clusterIP !== "" && clusterIP !== "None") arr(spec.clusterIPs).forEach((ip, i) => out.push(...ipWarnings(`spec.clusterIPs[${i}]`, str(ip))));
  const externalIPs = arr(spec.externalIPs).map(str);
  if (str(spec.type) === "ClusterIP" && clusterIP === "None") {
    if (str(spec.loadBalancerIP) !== "") out.push("spec.loadBalancerIP is ignored for headless services");
    if (externalIPs.length > 0) out.push("spec.externalIPs is ignored for headless services");
    if (str(spec.sessionAffinity) !== "None") out.push("spec.SessionAffinity is ignored for headless services");
  }
  externalIPs.forEach((ip, i) => out.push(...ipWarnings(`spec.externalIPs[${i}]`, ip)));
  if (str(spec.loadBalancerIP) !== "") out.push(...ipWarnings("spec.loadBalancerIP", str(spec.loadBalancerIP)));
  if (str(spec.type) === "ExternalName" && externalIPs.length > 0) out.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (str(spec.type) !== "ExternalName" && str(spec.externalName) !== "") out.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  return out;
}
