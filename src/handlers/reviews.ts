// Virtual resources answered from the request alone: SelfSubjectReview, TokenReview and the
// access reviews, decided by the configured authenticator and authorizer. Nothing is stored.
import { badRequest, invalid } from "../apimachinery/errors.js";
import { required, type FieldError } from "../apimachinery/validation.js";
import type { AuthnRequest } from "../authn/authenticator.js";
import type { AuthnOutcome } from "../authn/union.js";
import type { UserInfo } from "../authn/user.js";
import type { Authorizer } from "../authz/authorizer.js";
import type { KObject } from "../registry/object.js";
import type { ResourceHandler, ResourceRequest } from "./context.js";
import { readObject } from "./body.js";
import { negotiateWrite, writeResult } from "./output.js";

/** authentication.k8s.io UserInfo as Go writes it: every field omitted when empty. */
function userInfoJson(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.name) out.username = u.name;
  if (u.uid) out.uid = u.uid;
  if (u.groups.length > 0) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

function answer(r: ResourceRequest, body: KObject, status: Record<string, unknown>): void {
  const n = negotiateWrite(r);
  const metadata = { ...(body.metadata ?? {}), creationTimestamp: null };
  writeResult(r, n, 201, { kind: r.type.kind, apiVersion: r.type.apiVersion, metadata, ...(body.spec !== undefined ? { spec: body.spec } : {}), status });
}

interface AccessSpec {
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  group?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

function validateAccessSpec(kind: string, spec: AccessSpec, needsUser: boolean): void {
  const errs: FieldError[] = [];
  const hasRes = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonRes = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasRes && hasNonRes) errs.push({ type: "FieldValueInvalid", field: "spec.nonResourceAttributes", message: "cannot be specified in combination with resourceAttributes", badValue: spec.nonResourceAttributes });
  if (!hasRes && !hasNonRes) errs.push(required("spec.resourceAttributes", "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (needsUser && !spec.user && !(spec.groups ?? spec.group ?? []).length) errs.push(required("spec.user", "at least one of user or group must be specified"));
  if (errs.length > 0) throw invalid({ group: "authorization.k8s.io", kind }, "", errs);
}

async function decide(authorizer: Authorizer, user: UserInfo, spec: AccessSpec): Promise<Record<string, unknown>> {
  const ra = spec.resourceAttributes;
  const na = spec.nonResourceAttributes;
  const res = await authorizer.authorize({
    user,
    verb: ra ? (ra.verb ?? "") : (na?.verb ?? ""),
    isResourceRequest: Boolean(ra),
    path: na?.path ?? "",
    namespace: ra?.namespace ?? "",
    apiGroup: ra?.group ?? "",
    apiVersion: ra?.version ?? "",
    resource: ra?.resource ?? "",
    subresource: ra?.subresource ?? "",
    name: ra?.name ?? "",
  });
  const status: Record<string, unknown> = { allowed: res.decision === "allow" };
  if (res.decision === "deny" && res.reason) status.denied = true;
  if (res.reason) status.reason = res.reason;
  return status;
}

export function reviewHandlers(authorizer: Authorizer, authenticate: (req: AuthnRequest) => Promise<AuthnOutcome>): Map<string, Partial<Record<string, ResourceHandler>>> {
  const m = new Map<string, Partial<Record<string, ResourceHandler>>>();
  m.set("authentication.k8s.io/selfsubjectreviews/", {
    async create(r) {
      const body = await readObject(r);
      answer(r, body, { userInfo: userInfoJson(r.user) });
    },
  });
  // TokenReview as upstream's REST storage: a request carrying nothing but the token goes through
  // the server's authenticator (so only the bearer-token methods can answer it; a token nobody
  // recognises is "invalid bearer token", never anonymous), audience-bound to spec.audiences
  // (or, without them, the server's --api-audiences, applied by the union).
  m.set("authentication.k8s.io/tokenreviews/", {
    async create(r) {
      const body = await readObject(r);
      const spec = (body.spec ?? {}) as { token?: unknown; audiences?: unknown };
      if (typeof spec.token !== "string" || spec.token.length === 0) throw badRequest("token is required for TokenReview in authentication");
      const wanted = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === "string") : [];
      const out = await authenticate({ path: "/", headers: { authorization: `Bearer ${spec.token}` }, ...(wanted.length > 0 ? { audiences: wanted } : {}) });
      if ("user" in out && wanted.length > 0 && !(out.audiences ?? []).some((a) => wanted.includes(a))) {
        // Upstream answers a fresh TokenReview carrying only the error.
        answer(r, { metadata: {}, spec: {} } as KObject, { user: {}, error: "error validating audiences" });
        return;
      }
      const status: Record<string, unknown> =
        "user" in out ? { authenticated: true, user: userInfoJson(out.user), ...(out.audiences && out.audiences.length > 0 ? { audiences: out.audiences } : {}) } : { user: {}, error: out.error };
      answer(r, body, status);
    },
  });
  const sar = (kind: string, self: boolean, local: boolean): Partial<Record<string, ResourceHandler>> => ({
    async create(r) {
      const body = await readObject(r);
      const spec = (body.spec ?? {}) as AccessSpec;
      validateAccessSpec(kind, spec, !self);
      if (local) {
        const ns = spec.resourceAttributes?.namespace ?? "";
        if (ns !== r.info.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${r.info.namespace}`);
      }
      const subject: UserInfo = self ? r.user : { name: spec.user ?? "", uid: spec.uid, groups: spec.groups ?? spec.group ?? [], extra: spec.extra };
      answer(r, body, await decide(authorizer, subject, spec));
    },
  });
  m.set("authorization.k8s.io/selfsubjectaccessreviews/", sar("SelfSubjectAccessReview", true, false));
  m.set("authorization.k8s.io/subjectaccessreviews/", sar("SubjectAccessReview", false, false));
  m.set("authorization.k8s.io/localsubjectaccessreviews/", sar("LocalSubjectAccessReview", false, true));
  m.set("authorization.k8s.io/selfsubjectrulesreviews/", {
    async create(r) {
      const body = await readObject(r);
      const ns = (body.spec as { namespace?: string } | undefined)?.namespace ?? "";
      const rules = authorizer.rulesFor ? await authorizer.rulesFor(r.user, ns) : { resourceRules: [], nonResourceRules: [], incomplete: true };
      answer(r, body, rules as unknown as Record<string, unknown>);
    },
  });
  return m;
}
