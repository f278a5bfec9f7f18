// Which paths serve a type, by its scope: a cluster-scoped type lives only at the cluster path, a
// namespaced one below /namespaces/{namespace}/ and, for reading across all namespaces, its bare
// collection (list and watch). Any other combination is a path nobody serves (404), as upstream,
// where such paths match no route.
import type { RequestInfo } from "../http/request-info.js";

export function servedAtPathScope(namespaced: boolean, info: RequestInfo): boolean {
  if (info.namespacedPath) return namespaced;
  if (!namespaced) return true;
  return info.parts.length === 1 && (info.verb === "list" || info.verb === "watch");
}
