// Group versions served by other servers behind this one (the aggregator's extension API
// servers), as discovery lists them: in /apis and /apis/<group> from their APIServices, merged
// with this server's groups in priority order (upstream sorts every APIService by
// groupPriorityMinimum, highest first, then by name; within a group by versionPriority, then
// kube-aware version order), and in aggregated discovery with the version document fetched from
// the backend. Discovery knows them through this interface only; the aggregator provides it.
import { compareKubeAwareVersions } from "../apimachinery/version-order.js";

export interface ExternalGroupVersion {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** The APIServices's name (upstream's tie-break between groups of one priority). */
  name: string;
  /** The backend's APIVersionDiscovery (apidiscovery v2) of this version, freshness included. */
  discovery: Record<string, unknown>;
}

export interface ExternalDiscovery {
  groupVersions(): readonly ExternalGroupVersion[];
  /** The group priority of a group this server serves itself; undefined: below every external one. */
  localGroupPriority(group: string): number | undefined;
  /** The OpenAPI v3 index entries of their group versions ("apis/<group>/<version>" → serverRelativeURL). */
  openapiPaths(): Readonly<Record<string, string>>;
  /** Calls `fn` after every change; returns the unsubscribe. */
  subscribe(fn: () => void): () => void;
}

export interface ExternalGroup {
  name: string;
  priority: number;
  /** The first APIService's name by upstream's order. */
  firstName: string;
  /** Highest priority first: the first is preferred. */
  versions: ExternalGroupVersion[];
}

/** The external group versions by group, each group's versions in upstream's order. */
export function externalGroups(gvs: readonly ExternalGroupVersion[], localGroups: ReadonlySet<string>): ExternalGroup[] {
  const byGroup = new Map<string, ExternalGroupVersion[]>();
  for (const gv of gvs) {
    // A group served here keeps this server's versions (an APIService cannot split a group).
    if (localGroups.has(gv.group) || gv.group === "") continue;
    const list = byGroup.get(gv.group) ?? [];
    list.push(gv);
    byGroup.set(gv.group, list);
  }
  const groups: ExternalGroup[] = [];
  for (const [name, versions] of byGroup) {
    versions.sort((a, b) => b.versionPriority - a.versionPriority || compareKubeAwareVersions(a.version, b.version));
    const byRank = [...versions].sort((a, b) => b.groupPriorityMinimum - a.groupPriorityMinimum || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    groups.push({ name, priority: byRank[0]!.groupPriorityMinimum, firstName: byRank[0]!.name, versions });
  }
  return groups.sort((a, b) => b.priority - a.priority || (a.firstName < b.firstName ? -1 : a.firstName > b.firstName ? 1 : 0));
}

/**
 * This server's groups (in their order) with the external ones slotted in: an external group goes
 * before the first local group of lower priority.
 */
export function mergeOrder<L extends { name: string }>(local: readonly L[], external: readonly ExternalGroup[], localPriority: (group: string) => number | undefined): (L | ExternalGroup)[] {
  const out: (L | ExternalGroup)[] = [];
  let next = 0;
  for (const g of local) {
    const p = localPriority(g.name) ?? 0;
    while (next < external.length && external[next]!.priority > p) out.push(external[next++]!);
    out.push(g);
  }
  while (next < external.length) out.push(external[next++]!);
  return out;
}
