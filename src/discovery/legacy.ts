// Unaggregated ("legacy") discovery documents: /api, /apis, /apis/{group}, /api/v1 and
// /apis/{group}/{version}. Shapes follow what kube-apiserver sends: the core-group answers
// (/api, /api/v1) carry no apiVersion (upstream strips it for backward compatibility with 1.1);
// /apis and /apis/{group} come from the aggregator and carry apiVersion "v1".
import type { ResourceType } from "../registry/resource-type.js";
import { sortedVerbs, type ServedGroup, type ServedVersion } from "./model.js";
import { storageVersionHashOf } from "./storage-version-hash.js";
import type { ExternalGroup } from "./external.js";

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

function gvFor(v: ServedVersion): GroupVersionForDiscovery {
  return { groupVersion: v.groupVersion, version: v.version };
}

/** /api: the legacy group's versions and where clients reach the server. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

/** One APIGroup (as /apis lists it and /apis/{group} answers it). */
export function apiGroup(g: ServedGroup, withTypeMeta: boolean): Record<string, unknown> {
  const body = {
    name: g.name,
    versions: g.versions.map(gvFor),
    preferredVersion: gvFor(g.preferred),
  };
  return withTypeMeta ? { kind: "APIGroup", apiVersion: "v1", ...body } : body;
}

/** The APIGroup of a group other servers serve (upstream's convertToDiscoveryAPIGroup over its APIServices). */
export function externalApiGroup(g: ExternalGroup, withTypeMeta: boolean): Record<string, unknown> {
  const gv = (v: { version: string }) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version });
  const body = { name: g.name, versions: g.versions.map(gv), preferredVersion: gv(g.versions[0]!) };
  return withTypeMeta ? { kind: "APIGroup", apiVersion: "v1", ...body } : body;
}

/** /apis: every named group (the core group is only at /api), external ones where their priority puts them. */
export function apiGroupList(groups: readonly (ServedGroup | ExternalGroup)[]): Record<string, unknown> {
  const entry = (g: ServedGroup | ExternalGroup) => ("preferred" in g ? apiGroup(g, false) : externalApiGroup(g, false));
  return { kind: "APIGroupList", apiVersion: "v1", groups: groups.filter((g) => g.name !== "").map(entry) };
}

/** The APIResource entries of one resource: itself, then each subresource as "<resource>/<sub>". */
export function apiResources(t: ResourceType): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: t.resource,
    singularName: t.singularName,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: sortedVerbs(t.verbs),
  };
  if (t.shortNames.length > 0) main.shortNames = [...t.shortNames];
  if (t.categories.length > 0) main.categories = [...t.categories];
  const hash = storageVersionHashOf(t);
  if (hash) main.storageVersionHash = hash;
  const out = [main];
  for (const s of t.subresources) {
    // Subresources have no singular name (serialised as ""), and carry group/version only when
    // their kind lives in another group-version (e.g. deployments/scale → autoscaling/v1 Scale).
    const sub: Record<string, unknown> = { name: `${t.resource}/${s.name}`, singularName: "", namespaced: t.namespaced };
    if (s.group !== undefined || s.version !== undefined) {
      sub.group = s.group ?? t.group;
      sub.version = s.version ?? t.version;
    }
    sub.kind = s.kind;
    sub.verbs = sortedVerbs(s.verbs);
    out.push(sub);
  }
  return out;
}

/** /api/v1 or /apis/{group}/{version}. */
export function apiResourceList(group: string, v: ServedVersion): Record<string, unknown> {
  const resources = v.resources.flatMap(apiResources);
  return group === ""
    ? { kind: "APIResourceList", groupVersion: v.groupVersion, resources }
    : { kind: "APIResourceList", apiVersion: "v1", groupVersion: v.groupVersion, resources };
}
