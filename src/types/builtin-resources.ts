// Typed view of the built-in resource types of kube-apiserver 1.34: the generated
// table src/types/generated/resources.json (from scripts/generate-schemas.mjs)
// merged with the hand-maintained facts of ./resource-names.ts.

import resourcesFile from "./generated/resources.json" with { type: "json" };
import {
  groupVersionPriority,
  isGroupVersionEnabledByDefault,
  namesOf,
  preferredVersionOf,
  versionLevel,
} from "./resource-names.js";

/** Discovery verbs, as upstream names them. */
export type ResourceVerb = "create" | "delete" | "deletecollection" | "get" | "list" | "patch" | "update" | "watch";

export interface SubresourceFacts {
  /** e.g. "status", "scale", "log", "exec". */
  readonly name: string;
  /** Kind sent/received on the subresource (e.g. "Scale", "Eviction", "PodExecOptions"). */
  readonly kind: string;
  /** Group of `kind` when it differs from the parent resource's group-version (e.g. "autoscaling"). */
  readonly group?: string;
  /** Version of `kind` when it differs from the parent resource's group-version. */
  readonly version?: string;
  readonly verbs: readonly ResourceVerb[];
}

/** Entry of src/types/generated/resources.json. */
export interface GeneratedResource {
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. "pods". */
  readonly resource: string;
  readonly kind: string;
  /** Kind of the list response; absent when the resource has no `list` verb. */
  readonly listKind?: string;
  readonly namespaced: boolean;
  readonly verbs: readonly ResourceVerb[];
  readonly subresources: readonly SubresourceFacts[];
}

export interface ResourceFacts extends GeneratedResource {
  /** Lowercase kind, e.g. "pod". */
  readonly singularName: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly level: "ga" | "beta" | "alpha";
  /** Served by kube-apiserver 1.34 without `--runtime-config`. */
  readonly enabledByDefault: boolean;
  /**
   * Preferred version of the resource's group on a default 1.34 server; for a
   * group with no version enabled by default, its highest-priority version.
   */
  readonly preferredVersion: string;
}

interface ResourcesFile {
  readonly resources: readonly GeneratedResource[];
}

function build(): readonly ResourceFacts[] {
  const file = resourcesFile as unknown as ResourcesFile;
  return Object.freeze(
    file.resources.map((r): ResourceFacts => {
      const names = namesOf(r.group, r.resource);
      const preferredVersion = preferredVersionOf(r.group) ?? groupVersionPriority[r.group]?.[0] ?? r.version;
      return Object.freeze({
        ...r,
        singularName: r.kind.toLowerCase(),
        shortNames: names.shortNames,
        categories: names.categories,
        level: versionLevel(r.version),
        enabledByDefault: isGroupVersionEnabledByDefault(r.group, r.version),
        preferredVersion,
      });
    }),
  );
}

/** Every resource type (group, version, resource) that kube-apiserver 1.34 can serve, enabled by default or not. */
export const builtinResources: readonly ResourceFacts[] = build();

const byGVR = new Map<string, ResourceFacts>();
const byGVK = new Map<string, ResourceFacts>();
for (const r of builtinResources) {
  byGVR.set(`${r.group}/${r.version}/${r.resource}`, r);
  if (!byGVK.has(`${r.group}/${r.version}/${r.kind}`)) byGVK.set(`${r.group}/${r.version}/${r.kind}`, r);
}

/** Looks up a built-in resource by group, version and plural resource name. */
export function findBuiltinResource(group: string, version: string, resource: string): ResourceFacts | undefined {
  return byGVR.get(`${group}/${version}/${resource}`);
}

/** Looks up a built-in resource by group, version and kind. */
export function findBuiltinResourceByKind(group: string, version: string, kind: string): ResourceFacts | undefined {
  return byGVK.get(`${group}/${version}/${kind}`);
}

/** Every (group, version) pair that has at least one built-in resource, in resources.json order. */
export const builtinGroupVersions: readonly { readonly group: string; readonly version: string }[] = (() => {
  const seen = new Set<string>();
  const out: { group: string; version: string }[] = [];
  for (const r of builtinResources) {
    const k = `${r.group}/${r.version}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push({ group: r.group, version: r.version });
    }
  }
  return Object.freeze(out);
})();
