// The order Kubernetes gives versions that have no explicit priority (custom resource groups,
// groups unknown to the built-in facts): GA before beta before alpha, higher numbers first
// ("v2" > "v1" > "v1beta2" > "v1beta1" > "v1alpha1"), and strings that are not Kubernetes-style
// versions after all of them, alphabetically.

interface KubeVersion {
  major: number;
  /** 2 = GA, 1 = beta, 0 = alpha. */
  stability: number;
  minor: number;
}

const pattern = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/;

function parse(v: string): KubeVersion | undefined {
  const m = pattern.exec(v);
  if (!m) return undefined;
  return { major: Number(m[1]), stability: m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/** Negative when `a` comes first (has the higher priority). */
export function compareKubeAwareVersions(a: string, b: string): number {
  const va = parse(a);
  const vb = parse(b);
  if (va && vb) return vb.stability - va.stability || vb.major - va.major || vb.minor - va.minor;
  if (va) return -1;
  if (vb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
