// The plugin's configuration from --admission-control-config-file (upstream:
// ResourceQuotaConfiguration of apiserver.config.k8s.io/v1): limitedResources name usage that
// may only be consumed where some quota covers it (matchContains: resource names containing any
// of these strings; matchScopes: objects in these scopes, e.g. a PriorityClass kept for
// cluster services).
import type { ScopeRequirement } from "../../quota/scopes.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export interface LimitedResource {
  apiGroup: string;
  resource: string;
  matchContains: string[];
  matchScopes: ScopeRequirement[];
}

export interface QuotaConfiguration {
  limitedResources: LimitedResource[];
}

const kinds = new Set(["apiserver.config.k8s.io/v1", "resourcequota.admission.k8s.io/v1beta1", "resourcequota.admission.k8s.io/v1alpha1", "resourcequota.admission.k8s.io/v1"]);

/** Reads the configuration object; throws a start-up error for one that is not a ResourceQuotaConfiguration. */
export function parseQuotaConfiguration(raw: unknown): QuotaConfiguration {
  if (raw === undefined || raw === null) return { limitedResources: [] };
  const c = raw as { apiVersion?: string; kind?: string; limitedResources?: unknown };
  if (c.kind !== "Configuration" && c.kind !== "ResourceQuotaConfiguration") {
    throw new Error(`ResourceQuota: unexpected configuration kind ${goQuote(c.kind ?? "")}`);
  }
  if (c.apiVersion !== undefined && !kinds.has(c.apiVersion)) throw new Error(`ResourceQuota: unexpected configuration apiVersion ${goQuote(c.apiVersion)}`);
  const limited = Array.isArray(c.limitedResources) ? c.limitedResources : [];
  return {
    limitedResources: limited.map((l: any) => ({
      apiGroup: String(l?.apiGroup ?? ""),
      resource: String(l?.resource ?? ""),
      matchContains: Array.isArray(l?.matchContains) ? l.matchContains.map(String) : [],
      matchScopes: Array.isArray(l?.matchScopes)
        ? l.matchScopes.map((m: any) => ({ scopeName: String(m?.scopeName ?? ""), operator: String(m?.operator ?? ""), values: Array.isArray(m?.values) ? m.values.map(String) : undefined }))
        : [],
    })),
  };
}
