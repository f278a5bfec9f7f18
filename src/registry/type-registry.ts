// Which resource types this server serves, after --runtime-config.
import { builtinResources, type ResourceFacts } from "../types/builtin-resources.js";
import { strategyFor } from "../types/strategies.js";
import { gracePeriodPolicyFor } from "../types/graceful-deletion.js";
import type { ResourceType } from "./resource-type.js";

export interface GroupVersionKey {
  group: string;
  version: string;
}

export class TypeRegistry {
  private readonly byGVR = new Map<string, ResourceType>();
  private readonly groupVersions: GroupVersionKey[] = [];

  constructor(private readonly enabled: (facts: ResourceFacts) => boolean) {
    const seen = new Set<string>();
    for (const f of builtinResources) {
      if (!this.enabled(f)) continue;
      const t = toResourceType(f);
      this.byGVR.set(`${f.group}/${f.version}/${f.resource}`, t);
      const gv = `${f.group}/${f.version}`;
      if (!seen.has(gv)) {
        seen.add(gv);
        this.groupVersions.push({ group: f.group, version: f.version });
      }
    }
  }

  get(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byGVR.get(`${group}/${version}/${resource}`);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.groupVersions.some((gv) => gv.group === group && gv.version === version);
  }

  all(): ResourceType[] {
    return [...this.byGVR.values()];
  }

  enabledGroupVersions(): GroupVersionKey[] {
    return [...this.groupVersions];
  }

  /** The served version of a group-resource to use for internal access (preferred first). */
  preferred(group: string, resource: string): ResourceType | undefined {
    const candidates = this.all().filter((t) => t.group === group && t.resource === resource);
    return candidates.find((t) => t.facts.preferredVersion === t.version) ?? candidates[0];
  }
}

const virtualResources = new Set([
  "tokenreviews",
  "subjectaccessreviews",
  "selfsubjectreviews",
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "localsubjectaccessreviews",
  "bindings",
]);

export function toResourceType(f: ResourceFacts): ResourceType {
  const keyGroup = f.group ? `${f.group}/` : "";
  return {
    facts: f,
    group: f.group,
    version: f.version,
    resource: f.resource,
    kind: f.kind,
    listKind: f.listKind ?? `${f.kind}List`,
    namespaced: f.namespaced,
    gr: { group: f.group, resource: f.resource },
    apiVersion: f.group ? `${f.group}/${f.version}` : f.version,
    keyPrefix: `/registry/${keyGroup}${f.resource}/`,
    strategy: strategyFor(f.group, f.resource),
    hasStatus: f.subresources.some((s) => s.name === "status"),
    verbs: new Set(f.verbs),
    virtual: virtualResources.has(f.resource) && !f.verbs.includes("get"),
    gracePeriod: gracePeriodPolicyFor(f.group, f.resource),
  };
}
