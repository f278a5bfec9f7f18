// Requests to a deprecated API version (upstream: the endpoint's deprecation warnings and
// MonitorRequest's deprecated branch): the Warning header, the audit annotations
// k8s.io/deprecated and k8s.io/removed-release, and the apiserver_requested_deprecated_apis gauge.
// Signalled once the request reaches its handler, as upstream signals it.
import type { RequestContext } from "../http/context.js";
import type { RequestInfo } from "../http/request-info.js";
import type { DeprecatedApiLabels } from "../observability/metrics.js";
import type { Deprecation, ResourceType } from "../registry/resource-type.js";

/** The deprecation a request to `subresource` of `type` meets, if any. */
export function deprecationOf(type: ResourceType, subresource: string): Deprecation | undefined {
  const d = type.deprecation;
  if (!d || !subresource || d.allSubresources) return d;
  // A subresource served with a kind of its own (autoscaling/v1 Scale, policy/v1 Eviction) is that kind's API, not the type's.
  const s = type.subresources.find((x) => x.name === subresource);
  return s && s.kind === type.kind && !s.group && !s.version ? d : undefined;
}

export function signalDeprecation(ctx: RequestContext, info: RequestInfo, d: Deprecation, gauge?: (l: DeprecatedApiLabels) => void): void {
  if (d.warning) ctx.warnings.push(d.warning);
  ctx.annotate("k8s.io/deprecated", "true");
  if (d.removedRelease) ctx.annotate("k8s.io/removed-release", d.removedRelease);
  gauge?.({ group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, removed_release: d.removedRelease });
}
