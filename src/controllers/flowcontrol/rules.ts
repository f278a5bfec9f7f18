// Whether a request matches a FlowSchema (upstream: flowcontrol/rule.go): one of its rules whose
// subjects include the user and whose resource rules (for a resource request) or non-resource
// rules (otherwise) cover the verb and what is asked for.
import type { UserInfo } from "../../apimachinery/user.js";
import type { RequestInfo } from "../../http/request-info.js";
import type { FlowSchema, NonResourcePolicyRule, ResourcePolicyRule, Subject } from "../../types/flowcontrol-bootstrap.js";

const serviceAccountPrefix = "system:serviceaccount:";

export function matchesFlowSchema(info: RequestInfo, user: UserInfo, fs: FlowSchema): boolean {
  for (const rule of fs.spec.rules ?? []) {
    if (!rule.subjects.some((s) => matchesSubject(user, s))) continue;
    if (info.isResourceRequest ? (rule.resourceRules ?? []).some((r) => matchesResourceRule(info, r)) : (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(info, r))) return true;
  }
  return false;
}

function matchesSubject(user: UserInfo, s: Subject): boolean {
  switch (s.kind) {
    case "User":
      return s.user !== undefined && (s.user.name === "*" || s.user.name === user.name);
    case "Group":
      return s.group !== undefined && (s.group.name === "*" || user.groups.includes(s.group.name));
    case "ServiceAccount": {
      const sa = s.serviceAccount;
      if (!sa) return false;
      if (sa.name === "*") return user.name.startsWith(`${serviceAccountPrefix}${sa.namespace}:`);
      return user.name === `${serviceAccountPrefix}${sa.namespace}:${sa.name}`;
    }
    default:
      return false;
  }
}

function matchesResourceRule(info: RequestInfo, r: ResourcePolicyRule): boolean {
  if (!contains(info.verb, r.verbs)) return false;
  if (!contains(info.subresource ? `${info.resource}/${info.subresource}` : info.resource, r.resources)) return false;
  if (!contains(info.apiGroup, r.apiGroups)) return false;
  if (!info.namespace) return r.clusterScope === true;
  return contains(info.namespace, r.namespaces ?? []);
}

function matchesNonResourceRule(info: RequestInfo, r: NonResourcePolicyRule): boolean {
  if (!contains(info.verb, r.verbs)) return false;
  for (const url of r.nonResourceURLs) {
    if (url === "*" || url === info.path) return true;
    // "/apis/*" and, as upstream has it, "/apis" cover everything under "/apis/".
    let prefix = url.endsWith("*") ? url.slice(0, -1) : url;
    if (!prefix.endsWith("/")) prefix += "/";
    if (info.path.startsWith(prefix)) return true;
  }
  return false;
}

/** `x` is listed, or the list is just the wildcard. */
function contains(x: string, list: readonly string[]): boolean {
  if (list.length === 1 && list[0] === "*") return true;
  return list.includes(x);
}
