// The server's authorizer behind the CEL authorizer library's interface: what admission
// expressions (webhook matchConditions, policies) call when they ask `authorizer.check(...)`.
import type { CelAuthorizer } from "../cel/library/authz.js";
import type { Authorizer } from "./authorizer.js";

/** `authorizer` is read on each check: the server's chain is built after its admission plugins. */
export function celAuthorizer(authorizer: () => Authorizer): CelAuthorizer {
  return {
    async check(at) {
      const r = await authorizer().authorize({
        user: { name: at.user?.username ?? "", uid: at.user?.uid, groups: [...(at.user?.groups ?? [])], extra: at.user?.extra as Record<string, string[]> | undefined },
        verb: at.verb,
        isResourceRequest: at.isResourceRequest,
        path: at.path,
        namespace: at.namespace,
        apiGroup: at.apiGroup,
        apiVersion: at.apiVersion,
        resource: at.resource,
        subresource: at.subresource,
        name: at.name,
        ...(at.fieldSelector ? { fieldSelector: at.fieldSelector } : {}),
        ...(at.labelSelector ? { labelSelector: at.labelSelector } : {}),
      });
      return { decision: r.decision, reason: r.reason, ...(r.error ? { error: r.error } : {}) };
    },
  };
}
