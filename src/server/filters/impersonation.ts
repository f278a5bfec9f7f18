// Impersonation (Impersonate-User / -Group / -Uid / -Extra-<key> headers): after authenticating
// the caller, each requested attribute is authorized with the "impersonate" verb, then the
// request proceeds as the impersonated user (upstream's WithImpersonation filter).
import { badRequest, forbidden } from "../../apimachinery/errors.js";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import { anonymousUser, authenticatedGroup, unauthenticatedGroup, type UserInfo } from "../../apimachinery/user.js";
import { userOf } from "../../http/context.js";
import { eventUser } from "./audit.js";
import type { Filter } from "./filter.js";
import { goQuote } from "../../apimachinery/go-quote.js";

type Headers = Record<string, string | string[] | undefined>;

const all = (h: Headers, name: string): string[] => {
  const v = h[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter((s) => s !== "");
};

const serviceAccountPrefix = "system:serviceaccount:";

/** Serves the rest of the chain as the impersonated user, when the request asks for one. */
export function impersonationFilter(authorizer: Authorizer): Filter {
  const impersonating: Filter = async (ctx, next) => {
    const caller = userOf(ctx);
    ctx.user = await impersonate(caller, ctx.ex.headers, authorizer);
    if (ctx.user !== caller) ctx.audit?.impersonated(eventUser(ctx.user));
    return next(ctx);
  };
  // Most requests impersonate no one: they pass on without waiting for anything.
  return (ctx, next) => (asksToImpersonate(ctx.ex.headers) ? impersonating(ctx, next) : next(ctx));
}

function asksToImpersonate(headers: Headers): boolean {
  for (const name in headers) if (name.startsWith("impersonate-")) return true;
  return false;
}

/** The user to serve the request as, or `caller` when no impersonation headers are present. */
export async function impersonate(caller: UserInfo, headers: Headers, authorizer: Authorizer): Promise<UserInfo> {
  const users = all(headers, "impersonate-user");
  const groups = all(headers, "impersonate-group");
  const uids = all(headers, "impersonate-uid");
  const extra: Record<string, string[]> = {};
  for (const name of Object.keys(headers)) {
    if (!name.startsWith("impersonate-extra-")) continue;
    let key: string;
    try {
      key = decodeURIComponent(name.slice("impersonate-extra-".length)).toLowerCase();
    } catch {
      throw badRequest(`invalid escape in impersonation header ${goQuote(name)}`);
    }
    extra[key] = [...(extra[key] ?? []), ...all(headers, name)];
  }
  if (users.length === 0) {
    if (groups.length > 0 || uids.length > 0 || Object.keys(extra).length > 0) {
      throw badRequest("requested impersonation of groups, uid or extra without impersonating a user");
    }
    return caller;
  }
  if (users.length > 1 || uids.length > 1) throw badRequest("only one user and one uid may be impersonated");
  const name = users[0];
  const check = async (attrs: Omit<Attributes, "user" | "verb" | "isResourceRequest" | "path" | "apiVersion">, what: string) => {
    const res = await authorizer.authorize({ user: caller, verb: "impersonate", isResourceRequest: true, path: "", apiVersion: "", ...attrs });
    if (res.decision !== "allow") {
      const scope = attrs.namespace ? ` in the namespace "${attrs.namespace}"` : " at the cluster scope";
      const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
      throw forbidden({ group: attrs.apiGroup, resource }, what, `User "${caller.name}" cannot impersonate resource "${resource}" in API group "${attrs.apiGroup}"${scope}${res.reason ? `: ${res.reason}` : ""}`);
    }
  };
  const sa = name.startsWith(serviceAccountPrefix) ? name.slice(serviceAccountPrefix.length).split(":") : undefined;
  if (sa && sa.length === 2) await check({ namespace: sa[0], apiGroup: "", resource: "serviceaccounts", subresource: "", name: sa[1] }, sa[1]);
  else await check({ namespace: "", apiGroup: "", resource: "users", subresource: "", name }, name);
  for (const g of groups) await check({ namespace: "", apiGroup: "", resource: "groups", subresource: "", name: g }, g);
  for (const u of uids) await check({ namespace: "", apiGroup: "authentication.k8s.io", resource: "uids", subresource: "", name: u }, u);
  for (const [key, values] of Object.entries(extra)) {
    for (const v of values) await check({ namespace: "", apiGroup: "authentication.k8s.io", resource: "userextras", subresource: key, name: v }, v);
  }
  const out: UserInfo = { name, groups: [...groups] };
  if (uids[0]) out.uid = uids[0];
  if (Object.keys(extra).length > 0) out.extra = extra;
  if (sa && sa.length === 2) {
    for (const g of ["system:serviceaccounts", `system:serviceaccounts:${sa[0]}`]) if (!out.groups.includes(g)) out.groups.push(g);
  }
  if (name === anonymousUser) {
    if (!out.groups.includes(unauthenticatedGroup)) out.groups.push(unauthenticatedGroup);
  } else if (!out.groups.includes(authenticatedGroup)) out.groups.push(authenticatedGroup);
  return out;
}

