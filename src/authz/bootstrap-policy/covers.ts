// Rule coverage as upstream's reconciliation computes it (pkg/registry/rbac/validation: Covers,
// BreakdownRule): a rule is split into atoms (one group, resource, verb and name; or one URL and
// verb), and an atom is covered when some owner rule allows it.
import type { PolicyRule } from "./rules.js";

/** One verb on one resource (and name), or one verb on one URL. */
export function breakdownRule(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of r.apiGroups ?? []) {
    for (const res of r.resources ?? []) {
      for (const v of r.verbs) {
        if (r.resourceNames?.length) for (const n of r.resourceNames) out.push({ apiGroups: [g], resources: [res], verbs: [v], resourceNames: [n] });
        else out.push({ apiGroups: [g], resources: [res], verbs: [v] });
      }
    }
  }
  for (const u of r.nonResourceURLs ?? []) for (const v of r.verbs) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined) => {
  if (set?.includes("*")) return true;
  return (wanted ?? []).every((w) => set?.includes(w));
};

/** Owner resources cover `*` forms: "*" and "*\/sub" ("*\/scale" covers "deployments/scale"). */
function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (!owner) return !wanted?.length;
  if (owner.includes("*")) return true;
  return (wanted ?? []).every((w) => {
    if (owner.includes(w)) return true;
    const slash = w.indexOf("/");
    return slash >= 0 && owner.includes("*" + w.slice(slash));
  });
}

function urlsCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => (owner ?? []).some((o) => o === w || (o.endsWith("*") && w.startsWith(o.slice(0, -1)))));
}

function ruleCovers(owner: PolicyRule, atom: PolicyRule): boolean {
  if (!hasAll(owner.verbs, atom.verbs)) return false;
  if (atom.nonResourceURLs?.length) return urlsCover(owner.nonResourceURLs, atom.nonResourceURLs);
  if (!hasAll(owner.apiGroups, atom.apiGroups)) return false;
  if (!resourcesCover(owner.resources, atom.resources)) return false;
  // no names on the owner: every name
  return !owner.resourceNames?.length || (atom.resourceNames ?? []).length > 0 && hasAll(owner.resourceNames, atom.resourceNames);
}

/** Whether `owner` covers every rule of `servant`, and the atoms it does not. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  // Fast path (every start of an untouched store): a rule the owner holds as is is covered.
  const held = new Set(owner.map(ruleKey));
  for (const r of servant) {
    if (held.has(ruleKey(r))) continue;
    for (const atom of breakdownRule(r)) if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
  }
  return { covered: missing.length === 0, missing };
}

const ruleKey = (r: PolicyRule) =>
  JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
