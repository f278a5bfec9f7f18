// The served API surface in discovery order, computed from the type registry: groups in the
// aggregator's priority order (built-in groups first, then others by name, as upstream ranks
// custom resource groups below every built-in one), each group's versions by version priority
// (kube-aware order where the built-in facts have none), each version's
// resources sorted by name (upstream installs REST paths in sorted order, and every discovery
// form lists them in that order).
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { groupDiscoveryOrder, groupVersionPriority } from "../types/resource-names.js";
import { compareKubeAwareVersions } from "../apimachinery/version-order.js";

export interface ServedVersion {
  version: string;
  /** "v1" for the core group, else "group/version". */
  groupVersion: string;
  resources: ResourceType[];
}

export interface ServedGroup {
  /** "" for the core (legacy) group. */
  name: string;
  versions: ServedVersion[];
  preferred: ServedVersion;
}

function groupRank(name: string): number {
  const i = groupDiscoveryOrder.indexOf(name);
  return i < 0 ? groupDiscoveryOrder.length : i;
}

function versionRank(group: string, version: string): number {
  const i = (groupVersionPriority[group] ?? []).indexOf(version);
  return i < 0 ? Number.MAX_SAFE_INTEGER : i;
}

function compareVersions(group: string, a: string, b: string): number {
  return versionRank(group, a) - versionRank(group, b) || compareKubeAwareVersions(a, b);
}

/** Every served group (core first), versions highest priority first; the first is preferred. */
export function servedGroups(types: TypeRegistry): ServedGroup[] {
  const byGroup = new Map<string, Map<string, ResourceType[]>>();
  for (const t of types.all()) {
    let versions = byGroup.get(t.group);
    if (!versions) byGroup.set(t.group, (versions = new Map()));
    let list = versions.get(t.version);
    if (!list) versions.set(t.version, (list = []));
    list.push(t);
  }
  const groups: ServedGroup[] = [];
  for (const [name, versions] of byGroup) {
    const served = [...versions.entries()]
      .sort(([a], [b]) => compareVersions(name, a, b))
      .map(([version, resources]) => ({
        version,
        groupVersion: name ? `${name}/${version}` : version,
        resources: resources.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
      }));
    groups.push({ name, versions: served, preferred: served[0] });
  }
  return groups.sort((a, b) => groupRank(a.name) - groupRank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Verbs as discovery lists them: sorted (upstream sorts the set of kube verbs). */
export function sortedVerbs(verbs: Iterable<string>): string[] {
  return [...new Set(verbs)].sort();
}
