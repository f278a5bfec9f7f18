// Virtual resources answered from the request alone: SelfSubjectReview, TokenReview and the
// access reviews, decided by the configured authenticator and authorizer. Nothing is stored.
import type { StorageRegistration } from "./rest/storage-table.js";
import { badRequest, invalid } from "../apimachinery/errors.js";
import { invalid as invalidField, type FieldError } from "../apimachinery/validation.js";
import type { AuthnRequest } from "../authn/authenticator.js";
import type { AuthnOutcome } from "../authn/union.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { Attributes, Authorizer, ResourceRule, RulesResult } from "../authz/authorizer.js";
import { reviewSelectors, type ReviewSelector } from "../authz/attributes.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceRequest } from "./context.js";
import type { Creater } from "./rest/capabilities.js";
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
  // The request's own metadata, decoded and encoded again: since 1.33 a zero creationTimestamp is
  // left out (omitzero), not written as null.
  const metadata: Record<string, unknown> = { ...(body.metadata ?? {}) };
  if (metadata.creationTimestamp === null) delete metadata.creationTimestamp;
  writeResult(r, n, 201, { kind: r.type.kind, apiVersion: r.type.apiVersion, metadata, ...(body.spec !== undefined ? { spec: body.spec } : {}), status });
}

interface AccessSpec {
  resourceAttributes?: (Record<string, string | undefined> & { fieldSelector?: ReviewSelector; labelSelector?: ReviewSelector }) | null;
  nonResourceAttributes?: { path?: string; verb?: string } | null;
  user?: string;
  groups?: string[];
  group?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

type ReviewKind = "SubjectAccessReview" | "SelfSubjectAccessReview" | "LocalSubjectAccessReview";

/** Upstream pkg/apis/authorization/validation: one message per rule, every one an Invalid. */
function validateAccessReview(kind: ReviewKind, body: KObject, spec: AccessSpec): void {
  const errs: FieldError[] = [];
  const hasRes = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonRes = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasRes && hasNonRes) errs.push(invalidField("spec.nonResourceAttributes", spec.nonResourceAttributes, "cannot be specified in combination with resourceAttributes"));
  if (!hasRes && !hasNonRes) errs.push(invalidField("spec.resourceAttributes", spec.nonResourceAttributes ?? null, "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (kind !== "SelfSubjectAccessReview" && !spec.user && !(spec.groups ?? spec.group ?? []).length) errs.push(invalidField("spec.user", spec.user ?? "", "at least one of user or group must be specified"));
  // metadata must be empty (a LocalSubjectAccessReview's namespace aside); managedFields and a
  // null creationTimestamp (what clients send for an empty ObjectMeta) do not count.
  const meta = { ...((body.metadata ?? {}) as Record<string, unknown>) };
  delete meta.managedFields;
  if (meta.creationTimestamp === null) delete meta.creationTimestamp;
  if (kind === "LocalSubjectAccessReview") delete meta.namespace;
  if (Object.values(meta).some((v) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0) && !(typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0))) {
    errs.push(invalidField("metadata", body.metadata, kind === "LocalSubjectAccessReview" ? "must be empty except for namespace" : "must be empty"));
  }
  if (kind === "LocalSubjectAccessReview") {
    const ns = body.metadata?.namespace ?? "";
    if (hasRes && (spec.resourceAttributes!.namespace ?? "") !== ns) errs.push(invalidField("spec.resourceAttributes.namespace", spec.resourceAttributes!.namespace ?? "", "must match metadata.namespace"));
    if (hasNonRes) errs.push(invalidField("spec.nonResourceAttributes", spec.nonResourceAttributes, "disallowed on this kind of request"));
  }
  if (errs.length > 0) throw invalid({ group: "authorization.k8s.io", kind }, "", errs);
}

/** The attributes a review asks about (upstream authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom). */
export function reviewAttributes(user: UserInfo, spec: AccessSpec): Attributes {
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      user,
      verb: ra.verb ?? "",
      isResourceRequest: true,
      path: "",
      namespace: ra.namespace ?? "",
      apiGroup: ra.group ?? "",
      apiVersion: ra.version || "*",
      resource: ra.resource ?? "",
      subresource: ra.subresource ?? "",
      name: ra.name ?? "",
      // AuthorizeWithSelectors is GA and locked on in 1.34.
      ...reviewSelectors(ra.fieldSelector, ra.labelSelector),
    };
  }
  const na = spec.nonResourceAttributes ?? {};
  return { user, verb: na.verb ?? "", isResourceRequest: false, path: na.path ?? "", namespace: "", apiGroup: "", apiVersion: "", resource: "", subresource: "", name: "" };
}

/**
 * The review's status from the server's authorizer chain: allowed, denied (an authorizer's
 * explicit Deny only — when every authorizer had no opinion upstream's union answers
 * NoOpinion, so `denied` stays absent), reason and evaluationError.
 */
async function decide(authorizer: Authorizer, a: Attributes): Promise<Record<string, unknown>> {
  const res = await authorizer.authorize(a);
  const status: Record<string, unknown> = { allowed: res.decision === "allow" };
  if (res.decision === "deny" && !res.defaultDeny) status.denied = true;
  if (res.reason) status.reason = res.reason;
  if (res.error) status.evaluationError = res.error;
  return status;
}

/** authorization/v1 ResourceRule as Go writes it: verbs always, the other lists when not empty. */
function resourceRuleJson(x: ResourceRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: x.verbs ?? [] };
  if (x.apiGroups?.length) out.apiGroups = x.apiGroups;
  if (x.resources?.length) out.resources = x.resources;
  if (x.resourceNames?.length) out.resourceNames = x.resourceNames;
  return out;
}

/** The storages of the review types, each for its group/resource: created only (answered, never stored). */
export function reviewStorages(authorizer: Authorizer, authenticate: (req: AuthnRequest) => AuthnOutcome | Promise<AuthnOutcome>): StorageRegistration[] {
  const m: StorageRegistration[] = [];
  const set = (group: string, resource: string, storage: Creater) => m.push({ group, resource, subresource: "", storage });
  set("authentication.k8s.io", "selfsubjectreviews", {
    async create(r) {
      const body = await readObject(r);
      answer(r, body, { userInfo: userInfoJson(r.user) });
    },
  });
  // TokenReview as upstream's REST storage: a request carrying nothing but the token goes through
  // the server's authenticator (so only the bearer-token methods can answer it; a token nobody
  // recognises is "invalid bearer token", never anonymous), audience-bound to spec.audiences
  // (or, without them, the server's --api-audiences, applied by the union).
  set("authentication.k8s.io", "tokenreviews", {
    async create(r) {
      const body = await readObject(r);
      const spec = (body.spec ?? {}) as { token?: unknown; audiences?: unknown };
      if (typeof spec.token !== "string" || spec.token.length === 0) throw badRequest("token is required for TokenReview in authentication");
      const wanted = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === "string") : [];
      const out = await authenticate({ path: "/", headers: { authorization: `Bearer ${spec.token}` }, ...(wanted.length > 0 ? { audiences: wanted } : {}) });
      // What the authenticator has to say about the reviewed token is said to the reviewer.
      if ("warnings" in out && out.warnings) r.warnings.push(...out.warnings);
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
  const sar = (kind: ReviewKind): Creater => ({
    async create(r) {
      const body = await readObject(r);
      body.metadata ??= {};
      if (kind === "LocalSubjectAccessReview") {
        // As every namespaced create: the object's namespace is the path's (filled when absent).
        const ns = r.info.namespace ?? "";
        if (!ns) throw badRequest(`namespace is required on this type: ${ns}`);
        if (body.metadata.namespace && body.metadata.namespace !== ns) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
        body.metadata.namespace = ns;
      } else if (body.metadata.namespace) {
        delete body.metadata.namespace; // cluster-scoped: the namespace is cleared
      }
      const spec = (body.spec ?? {}) as AccessSpec;
      validateAccessReview(kind, body, spec);
      const subject: UserInfo =
        kind === "SelfSubjectAccessReview" ? r.user : { name: spec.user ?? "", uid: spec.uid, groups: spec.groups ?? spec.group ?? [], extra: spec.extra };
      answer(r, body, await decide(authorizer, reviewAttributes(subject, spec)));
    },
  });
  set("authorization.k8s.io", "selfsubjectaccessreviews", sar("SelfSubjectAccessReview"));
  set("authorization.k8s.io", "subjectaccessreviews", sar("SubjectAccessReview"));
  set("authorization.k8s.io", "localsubjectaccessreviews", sar("LocalSubjectAccessReview"));
  // SelfSubjectRulesReview (upstream pkg/registry/authorization/selfsubjectrulesreview): the
  // chain's rules for the requesting user in spec.namespace; `incomplete` when an authorizer
  // cannot list its rules; the answer carries only the status.
  set("authorization.k8s.io", "selfsubjectrulesreviews", {
    async create(r) {
      const body = await readObject(r);
      const ns = (body.spec as { namespace?: unknown } | undefined)?.namespace;
      if (typeof ns !== "string" || ns === "") throw badRequest("no namespace on request");
      const rules: RulesResult = authorizer.rulesFor ? await authorizer.rulesFor(r.user, ns) : { resourceRules: [], nonResourceRules: [], incomplete: true };
      const status: Record<string, unknown> = {
        resourceRules: rules.resourceRules.map(resourceRuleJson),
        nonResourceRules: rules.nonResourceRules.map((x) => ({ verbs: x.verbs ?? [], ...(x.nonResourceURLs?.length ? { nonResourceURLs: x.nonResourceURLs } : {}) })),
        incomplete: rules.incomplete,
      };
      if (rules.evaluationError) status.evaluationError = rules.evaluationError;
      answer(r, { metadata: {}, spec: {} } as KObject, status);
    },
  });
  return m;
}
