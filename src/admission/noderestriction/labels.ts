// The Node labels a kubelet may set on its own Node (k8s.io/kubelet/pkg/apis IsKubeletLabel), and
// those NodeRestriction forbids it to add, change or remove: anything under
// node-restriction.kubernetes.io (the prefix admins use to steer workloads to trusted nodes), and
// any other kubernetes.io / k8s.io label outside the kubelet's set.

const kubeletLabels: ReadonlySet<string> = new Set([
  "kubernetes.io/hostname",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
]);

const kubeletLabelNamespaces = ["kubelet.kubernetes.io", "node.kubernetes.io"];
const nodeRestrictionNamespace = "node-restriction.kubernetes.io";

/** The prefix of a label key ("" without one). */
export function labelNamespace(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? "" : key.slice(0, slash);
}

const inDomain = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

export function isKubeletLabel(key: string): boolean {
  if (kubeletLabels.has(key)) return true;
  const ns = labelNamespace(key);
  return kubeletLabelNamespaces.some((d) => inDomain(ns, d));
}

function isKubernetesLabel(key: string): boolean {
  const ns = labelNamespace(key);
  return inDomain(ns, "kubernetes.io") || inDomain(ns, "k8s.io");
}

/** Keys added, removed, or given another value between the two label maps. */
export function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): Set<string> {
  const out = new Set<string>();
  const x = a ?? {};
  const y = b ?? {};
  for (const k of Object.keys(x)) if (!(k in y) || x[k] !== y[k]) out.add(k);
  for (const k of Object.keys(y)) if (!(k in x) || x[k] !== y[k]) out.add(k);
  return out;
}

/** The modified keys a kubelet may not touch, sorted (upstream sets.String.List()). */
export function forbiddenLabels(modified: Iterable<string>): string[] {
  const out: string[] = [];
  for (const key of modified) {
    if (inDomain(labelNamespace(key), nodeRestrictionNamespace) || (isKubernetesLabel(key) && !isKubeletLabel(key))) out.push(key);
  }
  return out.sort();
}
