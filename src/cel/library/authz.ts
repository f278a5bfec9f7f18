// The Kubernetes authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go:
// `kubernetes.authz` and, with AuthorizeWithSelectors, `kubernetes.authzSelectors`):
//
//   authorizer.path('/healthz').check('get').allowed()
//   authorizer.group('apps').resource('deployments').subresource('status').namespace('ns')
//     .name('x').check('update').reason()
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').errored()
//   authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b').check('list')
//
// Values are CelOpaque objects of the types kubernetes.authorization.{Authorizer, PathCheck,
// GroupCheck, ResourceCheck, Decision}. The `authorizer` variable's value is made by
// `authorizerValue(service, user)` (and `authorizer.requestResource` by `requestResourceValue`).
//
// Asynchronous authorizers. CEL evaluation is synchronous, kapi's authorizers may answer with a
// Promise. When `check` gets a Promise, the call throws `CelPendingAuthorization` carrying it.
// Wrap the service with `memoizingAuthorizer(service)`: it records every answer by its
// attributes, so the caller can
//
//   const authz = memoizingAuthorizer(service);          // one per admission request
//   for (;;) {
//     try { return program.eval({ authorizer: authorizerValue(authz, user), ... }); }
//     catch (e) { if (e instanceof CelPendingAuthorization) { await e.pending; continue; } throw e; }
//   }
//
// and the second run answers that check from the memo (each run costs the same; a rule with n
// distinct checks evaluates at most n + 1 times).
//
// Costs (library/cost.go): check 350000; path, group, serviceAccount, resource, subresource,
// namespace, name, allowed, reason, error, errored 1; fieldSelector/labelSelector a parse of the
// selector: 10 + ceil(ceil(len × 0.5) × 50) + ceil(len × 0.1).
import { parseFieldSelector, type FieldRequirement } from "../../apimachinery/fields.js";
import { parseLabelSelector, type LabelRequirement } from "../../apimachinery/labels.js";
import { isDNS1123Label, isDNS1123Subdomain } from "../../apimachinery/validation.js";
import type { ArgEstimate, CelLibrary, OverloadCost } from "../library.js";
import { memberOverload } from "../library.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import { BoolType, StringType, opaque, type OpaqueType } from "../types.js";
import { CelEvalError, type CelOpaque, type CelValue } from "../value.js";
import { actualSize, noSuchOverload } from "./compare.js";
import { add, celGoListCreateBaseCost, celGoStructCreateBaseCost, fixed, scale } from "./compare-cost.js";

// ---------------------------------------------------------------------------------------------
// The service

export interface AuthorizationUser {
  username: string;
  uid?: string;
  groups: readonly string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** A selector sent with a check: as written, and parsed (or the parse error's message). */
export interface SelectorAttribute<R> {
  raw: string;
  requirements?: R[];
  error?: string;
}

/** upstream authorizer.AttributesRecord, as the CEL library fills it. */
export interface AuthorizationAttributes {
  user?: AuthorizationUser;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  /** "*" for resource checks, "" for path checks (as upstream). */
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector?: SelectorAttribute<FieldRequirement>;
  labelSelector?: SelectorAttribute<LabelRequirement>;
}

export interface AuthorizationResult {
  decision: "allow" | "deny" | "no-opinion";
  reason: string;
  /** The authorizer's error; the decision's `errored()` is true and `error()` returns it. */
  error?: string;
}

export interface CelAuthorizer {
  check(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** Thrown by `check()` when the authorizer answers asynchronously; await `pending`, then evaluate again. */
export class CelPendingAuthorization extends Error {
  override readonly name = "CelPendingAuthorization";
  constructor(readonly pending: Promise<unknown>) {
    super("authorization check pending");
  }
}

export interface MemoizingAuthorizer extends CelAuthorizer {
  /** Settles when every check started so far has answered. */
  settled(): Promise<void>;
}

/**
 * Records each answer of `service` by its attributes; a check that is still pending returns its
 * Promise again (so the library throws CelPendingAuthorization), one that has answered returns the
 * answer synchronously. A rejected check is recorded as an errored decision.
 */
export function memoizingAuthorizer(service: CelAuthorizer): MemoizingAuthorizer {
  const answers = new Map<string, AuthorizationResult>();
  const pending = new Map<string, Promise<AuthorizationResult>>();
  return {
    check(attrs) {
      const key = JSON.stringify(attrs);
      const known = answers.get(key);
      if (known) return known;
      const inFlight = pending.get(key);
      if (inFlight) return inFlight;
      const r = safeCheck(service, attrs);
      if (!(r instanceof Promise)) {
        answers.set(key, r);
        return r;
      }
      const p = r.then(
        (res) => res,
        (e: unknown) => ({ decision: "no-opinion" as const, reason: "", error: errorMessage(e) }),
      );
      const recorded = p.then((res) => {
        answers.set(key, res);
        pending.delete(key);
        return res;
      });
      pending.set(key, recorded);
      return recorded;
    },
    async settled() {
      while (pending.size) await Promise.all([...pending.values()]);
    },
  };
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function safeCheck(service: CelAuthorizer, attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
  try {
    return service.check(attrs);
  } catch (e) {
    return { decision: "no-opinion", reason: "", error: errorMessage(e) };
  }
}

// ---------------------------------------------------------------------------------------------
// Values

export const AuthorizerType = opaque("kubernetes.authorization.Authorizer");
export const PathCheckType = opaque("kubernetes.authorization.PathCheck");
export const GroupCheckType = opaque("kubernetes.authorization.GroupCheck");
export const ResourceCheckType = opaque("kubernetes.authorization.ResourceCheck");
export const DecisionType = opaque("kubernetes.authorization.Decision");

/** Upstream's values only compare by identity of their Go struct; CEL `==` between them fails. */
abstract class AuthzValue implements CelOpaque {
  abstract readonly celType: OpaqueType;
  equals(_other: CelOpaque): boolean {
    throw noSuchOverload();
  }
}

class AuthorizerVal extends AuthzValue {
  readonly celType = AuthorizerType;
  constructor(
    readonly service: CelAuthorizer,
    readonly user: AuthorizationUser | undefined,
  ) {
    super();
  }
}

class PathCheckVal extends AuthzValue {
  readonly celType = PathCheckType;
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly path: string,
  ) {
    super();
  }
}

class GroupCheckVal extends AuthzValue {
  readonly celType = GroupCheckType;
  constructor(
    readonly authorizer: AuthorizerVal,
    readonly group: string,
  ) {
    super();
  }
}

interface ResourceFields {
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

class ResourceCheckVal extends AuthzValue {
  readonly celType = ResourceCheckType;
  constructor(
    readonly groupCheck: GroupCheckVal,
    readonly fields: Readonly<ResourceFields>,
  ) {
    super();
  }
  with(change: Partial<ResourceFields>): ResourceCheckVal {
    return new ResourceCheckVal(this.groupCheck, { ...this.fields, ...change });
  }
}

class DecisionVal extends AuthzValue {
  readonly celType = DecisionType;
  constructor(readonly result: AuthorizationResult) {
    super();
  }
}

/** The value of the CEL variable `authorizer`: checks run as `user` against `service`. */
export function authorizerValue(service: CelAuthorizer, user: AuthorizationUser | undefined): CelOpaque {
  return new AuthorizerVal(service, user);
}

/** The value of `authorizer.requestResource`: a ResourceCheck for the request's own resource. */
export function requestResourceValue(
  service: CelAuthorizer,
  user: AuthorizationUser | undefined,
  request: { group: string; resource: string; subresource?: string; namespace?: string; name?: string },
): CelOpaque {
  const g = new GroupCheckVal(new AuthorizerVal(service, user), request.group);
  return new ResourceCheckVal(g, {
    resource: request.resource,
    subresource: request.subresource ?? "",
    namespace: request.namespace ?? "",
    name: request.name ?? "",
    fieldSelector: "",
    labelSelector: "",
  });
}

/** upstream ServiceAccountInfo.UserInfo(): the SA's username and its two groups. */
export function serviceAccountUser(namespace: string, name: string): AuthorizationUser {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
  };
}

// ---------------------------------------------------------------------------------------------
// Functions

function as<T>(v: CelValue, cls: abstract new (...args: never[]) => T): T {
  if (!(v instanceof cls)) throw noSuchOverload();
  return v;
}

const isBlank = (s: string) => s.trim() === "";

function decide(service: CelAuthorizer, attrs: AuthorizationAttributes): DecisionVal {
  const r = safeCheck(service, attrs);
  if (r instanceof Promise) throw new CelPendingAuthorization(r);
  return new DecisionVal(r);
}

function pathCheck(check: PathCheckVal, verb: string): DecisionVal {
  const a = check.authorizer;
  return decide(a.service, {
    ...(a.user ? { user: a.user } : {}),
    verb,
    isResourceRequest: false,
    path: check.path,
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    namespace: "",
    name: "",
  });
}

function resourceCheck(check: ResourceCheckVal, verb: string): DecisionVal {
  const a = check.groupCheck.authorizer;
  const f = check.fields;
  const attrs: AuthorizationAttributes = {
    ...(a.user ? { user: a.user } : {}),
    verb,
    isResourceRequest: true,
    path: "",
    apiGroup: check.groupCheck.group,
    apiVersion: "*",
    resource: f.resource,
    subresource: f.subresource,
    namespace: f.namespace,
    name: f.name,
  };
  // As upstream: the parsed requirements, or the parse error, go to the authorizer, which decides
  // what a bad selector means (a webhook may error; RBAC ignores selectors).
  if (f.fieldSelector) {
    try {
      attrs.fieldSelector = { raw: f.fieldSelector, requirements: parseFieldSelector(f.fieldSelector).requirements() };
    } catch (e) {
      attrs.fieldSelector = { raw: f.fieldSelector, error: errorMessage(e) };
    }
  }
  if (f.labelSelector) {
    try {
      attrs.labelSelector = { raw: f.labelSelector, requirements: parseLabelSelector(f.labelSelector).requirements() };
    } catch (e) {
      attrs.labelSelector = { raw: f.labelSelector, error: errorMessage(e) };
    }
  }
  return decide(a.service, attrs);
}

const nominal: OverloadCost = { estimate: () => ({ cost: fixed(1) }), actual: () => 1 };
const checkCost: OverloadCost = { estimate: () => ({ cost: fixed(350000) }), actual: () => 350000 };

// A selector is a list of requirements; each costs a struct and a values list, and the shortest
// repeatable requirement (`k,`) takes 2 characters.
const costPerRequirement = celGoListCreateBaseCost + celGoStructCreateBaseCost;
function selectorEstimate(length: { min: number; max: number }) {
  const parse = scale(length, stringTraversalCostFactor);
  const requirements = scale(scale(length, 0.5), costPerRequirement);
  return add(add(fixed(celGoListCreateBaseCost), parse), requirements);
}
const selectorCost: OverloadCost = {
  estimate: (args: readonly ArgEstimate[]) => ({ cost: selectorEstimate(args[1]!.size) }),
  actual: (args: readonly CelValue[]) => {
    const n = actualSize(args[1]!);
    return selectorEstimate({ min: n, max: n }).max;
  },
};

const str = (v: CelValue): string => {
  if (typeof v !== "string") throw noSuchOverload();
  return v;
};

export const authzLibrary: CelLibrary = {
  name: "kubernetes.authz",
  functions: [
    {
      name: "path",
      overloads: [
        memberOverload("authorizer_path", [AuthorizerType, StringType], PathCheckType, (a) => {
          const authz = as(a[0]!, AuthorizerVal);
          const path = str(a[1]!);
          if (isBlank(path)) throw new CelEvalError("path must not be empty");
          return new PathCheckVal(authz, path);
        }, { cost: nominal }),
      ],
    },
    {
      name: "group",
      overloads: [
        memberOverload("authorizer_group", [AuthorizerType, StringType], GroupCheckType, (a) => new GroupCheckVal(as(a[0]!, AuthorizerVal), str(a[1]!)), {
          cost: nominal,
        }),
      ],
    },
    {
      name: "serviceAccount",
      overloads: [
        memberOverload("authorizer_serviceaccount", [AuthorizerType, StringType, StringType], AuthorizerType, (a) => {
          const authz = as(a[0]!, AuthorizerVal);
          const namespace = str(a[1]!);
          const name = str(a[2]!);
          if (isDNS1123Subdomain(name).length > 0) throw new CelEvalError("Invalid service account name");
          if (isDNS1123Label(namespace).length > 0) throw new CelEvalError("Invalid service account namespace");
          return new AuthorizerVal(authz.service, serviceAccountUser(namespace, name));
        }, { cost: nominal }),
      ],
    },
    {
      name: "resource",
      overloads: [
        memberOverload("groupcheck_resource", [GroupCheckType, StringType], ResourceCheckType, (a) => {
          const g = as(a[0]!, GroupCheckVal);
          const resource = str(a[1]!);
          if (isBlank(resource)) throw new CelEvalError("resource must not be empty");
          return new ResourceCheckVal(g, { resource, subresource: "", namespace: "", name: "", fieldSelector: "", labelSelector: "" });
        }, { cost: nominal }),
      ],
    },
    {
      name: "subresource",
      overloads: [
        memberOverload("resourcecheck_subresource", [ResourceCheckType, StringType], ResourceCheckType, (a) =>
          as(a[0]!, ResourceCheckVal).with({ subresource: str(a[1]!) }), { cost: nominal }),
      ],
    },
    {
      name: "namespace",
      overloads: [
        memberOverload("resourcecheck_namespace", [ResourceCheckType, StringType], ResourceCheckType, (a) =>
          as(a[0]!, ResourceCheckVal).with({ namespace: str(a[1]!) }), { cost: nominal }),
      ],
    },
    {
      name: "name",
      overloads: [
        memberOverload("resourcecheck_name", [ResourceCheckType, StringType], ResourceCheckType, (a) =>
          as(a[0]!, ResourceCheckVal).with({ name: str(a[1]!) }), { cost: nominal }),
      ],
    },
    {
      name: "check",
      overloads: [
        memberOverload("pathcheck_check", [PathCheckType, StringType], DecisionType, (a) => pathCheck(as(a[0]!, PathCheckVal), str(a[1]!)), {
          cost: checkCost,
        }),
        memberOverload("resourcecheck_check", [ResourceCheckType, StringType], DecisionType, (a) =>
          resourceCheck(as(a[0]!, ResourceCheckVal), str(a[1]!)), { cost: checkCost }),
      ],
    },
    {
      name: "errored",
      overloads: [
        memberOverload("decision_errored", [DecisionType], BoolType, (a) => as(a[0]!, DecisionVal).result.error !== undefined, { cost: nominal }),
      ],
    },
    {
      name: "error",
      overloads: [
        memberOverload("decision_error", [DecisionType], StringType, (a) => as(a[0]!, DecisionVal).result.error ?? "", { cost: nominal }),
      ],
    },
    {
      name: "allowed",
      overloads: [
        memberOverload("decision_allowed", [DecisionType], BoolType, (a) => as(a[0]!, DecisionVal).result.decision === "allow", { cost: nominal }),
      ],
    },
    {
      name: "reason",
      overloads: [
        memberOverload("decision_reason", [DecisionType], StringType, (a) => as(a[0]!, DecisionVal).result.reason, { cost: nominal }),
      ],
    },
  ],
};

/** `kubernetes.authzSelectors` (AuthorizeWithSelectors, on by default in 1.34). */
export const authzSelectorsLibrary: CelLibrary = {
  name: "kubernetes.authzSelectors",
  functions: [
    {
      name: "fieldSelector",
      overloads: [
        memberOverload("authorizer_fieldselector", [ResourceCheckType, StringType], ResourceCheckType, (a) =>
          as(a[0]!, ResourceCheckVal).with({ fieldSelector: str(a[1]!) }), { cost: selectorCost }),
      ],
    },
    {
      name: "labelSelector",
      overloads: [
        memberOverload("authorizer_labelselector", [ResourceCheckType, StringType], ResourceCheckType, (a) =>
          as(a[0]!, ResourceCheckVal).with({ labelSelector: str(a[1]!) }), { cost: selectorCost }),
      ],
    },
  ],
};
