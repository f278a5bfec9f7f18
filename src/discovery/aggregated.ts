// Aggregated discovery (apidiscovery.k8s.io): one document with every group, version and
// resource, so a client needs one request instead of one per group-version. Requested by
// content negotiation on /api (core group alone) and /apis (every other group).
import { parseAccept, type MediaType } from "../encoding/media-type.js";
import type { ResourceType } from "../registry/resource-type.js";
import { sortedVerbs, type ServedGroup } from "./model.js";
import type { ExternalGroup } from "./external.js";

export const discoveryGroup = "apidiscovery.k8s.io";
export const discoveryListKind = "APIGroupDiscoveryList";
export type DiscoveryVersion = "v2" | "v2beta1";

/** The Content-Type of an aggregated answer: exactly the negotiated g, v, as (in that order, as upstream). */
export function aggregatedContentType(version: DiscoveryVersion): string {
  return `application/json;g=${discoveryGroup};v=${version};as=${discoveryListKind}`;
}

function resourceDiscovery(t: ResourceType): Record<string, unknown> {
  // Upstream fills responseKind from the APIResource entry, whose group and version are empty
  // unless the kind lives elsewhere — so top-level resources report group "" and version "".
  const r: Record<string, unknown> = {
    resource: t.resource,
    responseKind: { group: "", version: "", kind: t.kind },
    scope: t.namespaced ? "Namespaced" : "Cluster",
    singularResource: t.singularName,
    verbs: sortedVerbs(t.verbs),
  };
  if (t.shortNames.length > 0) r.shortNames = [...t.shortNames];
  if (t.categories.length > 0) r.categories = [...t.categories];
  const subs = t.subresources;
  if (subs.length > 0) {
    r.subresources = subs.map((s) => ({
      subresource: s.name,
      responseKind: {
        group: s.group !== undefined || s.version !== undefined ? (s.group ?? t.group) : "",
        version: s.group !== undefined || s.version !== undefined ? (s.version ?? t.version) : "",
        kind: s.kind,
      },
      verbs: sortedVerbs(s.verbs),
    }));
  }
  return r;
}

function groupDiscovery(g: ServedGroup | ExternalGroup): Record<string, unknown> {
  // Another server's versions are its own documents, as fetched from it.
  if (!("preferred" in g)) return { metadata: { name: g.name }, versions: g.versions.map((v) => v.discovery) };
  return {
    // ObjectMeta: the core group has no name, and an empty name is omitted.
    metadata: g.name ? { name: g.name } : {},
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map(resourceDiscovery),
      freshness: "Current",
    })),
  };
}

/** The APIGroupDiscoveryList of the given groups, in the given apidiscovery version. */
export function groupDiscoveryList(groups: readonly (ServedGroup | ExternalGroup)[], version: DiscoveryVersion): Record<string, unknown> {
  return {
    kind: discoveryListKind,
    apiVersion: `${discoveryGroup}/${version}`,
    metadata: {},
    items: groups.map(groupDiscovery),
  };
}

export type DiscoveryChoice = { aggregated: DiscoveryVersion } | { plain: "json" | "yaml" } | { none: true };

function isJsonRange(m: MediaType): boolean {
  return (m.type === "application" || m.type === "*") && (m.subtype === "json" || m.subtype === "*");
}

/**
 * Walks the Accept clauses best first, as upstream's negotiation does: a clause asking for
 * `as=APIGroupDiscoveryList` picks aggregated discovery when we can produce it (JSON, a served
 * apidiscovery version); any other clause with `as=` is skipped; a plain clause picks the
 * unaggregated document. Protobuf is not offered, so protobuf clauses fall through to later ones.
 */
export function negotiateDiscovery(accept: string | undefined, versions: ReadonlySet<DiscoveryVersion>): DiscoveryChoice {
  for (const m of parseAccept(accept)) {
    const as = m.params["as"];
    if (as !== undefined) {
      if (as !== discoveryListKind || m.params["g"] !== discoveryGroup) continue;
      const v = m.params["v"] as DiscoveryVersion;
      if (!versions.has(v) || !(m.type === "application" && m.subtype === "json")) continue;
      return { aggregated: v };
    }
    if (isJsonRange(m)) return { plain: "json" };
    if (m.type === "application" && m.subtype === "yaml") return { plain: "yaml" };
  }
  return { none: true };
}
