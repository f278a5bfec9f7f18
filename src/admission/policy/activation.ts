// The values a policy's expressions read (upstream: plugin/cel activation.go, composition.go):
// object, oldObject, request, params, namespaceObject, authorizer, and `variables`, a map whose
// entries are evaluated on first use, once per evaluation context, their cost charged to the
// expression that used them. Errors stay lazy too: an unused variable that fails harms nobody.
import { admissionRequestType, namespaceType } from "../../cel/environments.js";
import { toCel } from "../../cel/convert.js";
import { perCallLimit, runtimeCelCostBudget } from "../../cel/cost/constants.js";
import { authorizerValue, memoizingAuthorizer, requestResourceValue, CelPendingAuthorization, type AuthorizationUser, type CelAuthorizer } from "../../cel/library/authz.js";
import { CelEvalError, CelMap, type CelValue } from "../../cel/value.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { kindFor, type MatchedResource } from "../matching/index.js";
import type { CompiledExpression, CompiledVariable } from "./compile.js";

/** The request as CEL sees it (AdmissionRequest without uid, object, oldObject). */
export function admissionRequestValue(a: AdmissionAttributes, matched: MatchedResource): CelValue {
  const user = a.user;
  const request = {
    kind: matched.kind,
    resource: { group: matched.type.group, version: matched.type.version, resource: matched.type.resource },
    subResource: a.subresource,
    requestKind: kindFor(a.type, a.subresource),
    requestResource: { group: a.type.group, version: a.type.version, resource: a.type.resource },
    requestSubResource: a.subresource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: user ? { username: user.name, uid: user.uid ?? "", groups: user.groups, extra: user.extra ?? {} } : { username: "", uid: "", groups: [], extra: {} },
    dryRun: a.dryRun,
    options: a.options,
  };
  return toCel(request, admissionRequestType);
}

// Informer objects are shared and never changed in place: one CEL value per namespace object.
const namespaceValues = new WeakMap<KObject, CelValue>();

/** The parts of a Namespace `namespaceObject` shows (upstream: CreateNamespaceObject). */
export function namespaceValue(ns: KObject | undefined): CelValue {
  if (!ns) return null;
  let v = namespaceValues.get(ns);
  if (v === undefined) namespaceValues.set(ns, (v = namespaceObjectValue(ns)));
  return v;
}

function namespaceObjectValue(ns: KObject): CelValue {
  const m = ns.metadata;
  const meta: Record<string, unknown> = {};
  for (const k of ["name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers"] as const) {
    if ((m as Record<string, unknown>)[k] !== undefined) meta[k === "uid" ? "UID" : k] = (m as Record<string, unknown>)[k];
  }
  return toCel({ metadata: meta, spec: (ns as Record<string, unknown>).spec ?? {}, status: (ns as Record<string, unknown>).status ?? {} }, namespaceType);
}

export function authorizationUser(a: AdmissionAttributes): AuthorizationUser | undefined {
  const u = a.user;
  return u ? { username: u.name, uid: u.uid, groups: u.groups, extra: u.extra } : undefined;
}

/** Evaluation errors as upstream's cel.Error details. */
export const outOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run";

export class OutOfBudget extends Error {
  constructor() {
    super(outOfBudget);
  }
}

export interface Inputs {
  object: CelValue;
  oldObject: CelValue;
  request: CelValue;
  params: CelValue;
  namespaceObject: CelValue;
  authorizer?: CelAuthorizer;
  attributes: AdmissionAttributes;
}

export interface EvalResult {
  value?: CelValue;
  /** upstream: "expression '<expr>' resulted in error: <err>" or "compilation error: ..." */
  error?: string;
}

/** One evaluation context: the inputs of one (request, binding, param) and the budget they share. */
export class Evaluation {
  private remaining = runtimeCelCostBudget;
  private variableCost = 0;
  private readonly activation: Record<string, CelValue>;
  private readonly withoutAuthz: Record<string, CelValue>;

  constructor(inputs: Inputs, variables: readonly CompiledVariable[]) {
    const base: Record<string, CelValue> = {
      object: inputs.object,
      oldObject: inputs.oldObject,
      request: inputs.request,
      params: inputs.params,
      namespaceObject: inputs.namespaceObject,
    };
    this.activation = { ...base };
    if (inputs.authorizer) {
      const service = memoizingAuthorizer(inputs.authorizer);
      const user = authorizationUser(inputs.attributes);
      const a = inputs.attributes;
      this.activation.authorizer = authorizerValue(service, user);
      this.activation["authorizer.requestResource"] = requestResourceValue(service, user, { group: a.type.group, resource: a.type.resource, subresource: a.subresource, namespace: a.namespace, name: a.name });
    }
    this.withoutAuthz = { ...base };
    if (variables.length === 0) {
      this.activation.variables = this.withoutAuthz.variables = noVariables;
    } else {
      this.activation.variables = new LazyVariables(variables, (v) => this.evalVariable(v, this.activation));
      this.withoutAuthz.variables = new LazyVariables(variables, (v) => this.evalVariable(v, this.withoutAuthz));
    }
  }

  get budgetLeft(): number {
    return this.remaining;
  }

  private evalVariable(v: CompiledVariable, act: Record<string, CelValue>): CelValue {
    if (!v.program) throw new CelEvalError(`composited variable "${v.name}" fails to compile: ${v.error!.replace(/^compilation error: /, "")}`);
    try {
      const r = v.program.eval(act, { costLimit: Math.min(perCallLimit, Math.max(0, this.remaining)) });
      this.variableCost += r.cost;
      return r.value;
    } catch (e) {
      if (e instanceof CelPendingAuthorization) throw e;
      this.variableCost += (e as CelEvalError).cost ?? 0;
      throw new CelEvalError(`composited variable "${v.name}" fails to evaluate: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Evaluates one compiled expression; throws OutOfBudget when the shared budget is spent. */
  async eval(c: CompiledExpression, withAuthorizer = true): Promise<EvalResult> {
    if (!c.program) return { error: c.error };
    const act = withAuthorizer ? this.activation : this.withoutAuthz;
    let value: CelValue | undefined;
    let error: string | undefined;
    let cost = 0;
    this.variableCost = 0;
    try {
      const r = await c.program.evalAsync(act, { costLimit: Math.min(perCallLimit, Math.max(0, this.remaining)) });
      value = r.value;
      cost = r.cost;
    } catch (e) {
      cost = (e as CelEvalError).cost ?? 0;
      error = `expression '${c.expression}' resulted in error: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (this.variableCost > this.remaining) throw new OutOfBudget();
    this.remaining -= this.variableCost;
    if (cost > this.remaining) throw new OutOfBudget();
    this.remaining -= cost;
    return error !== undefined ? { error } : { value };
  }
}

const noVariables = new CelMap();

/** `variables`: each entry evaluated when first read, then remembered. */
class LazyVariables extends CelMap {
  private readonly byName = new Map<string, CompiledVariable>();
  private readonly values = new Map<string, { value?: CelValue; error?: CelEvalError }>();

  constructor(
    variables: readonly CompiledVariable[],
    private readonly evaluate: (v: CompiledVariable) => CelValue,
  ) {
    super();
    for (const v of variables) this.byName.set(v.name, v);
  }

  override get size(): number {
    return this.byName.size;
  }

  override get(key: CelValue): CelValue | undefined {
    if (typeof key !== "string") return undefined;
    const v = this.byName.get(key);
    if (!v) return undefined;
    let known = this.values.get(key);
    if (!known) {
      try {
        known = { value: this.evaluate(v) };
      } catch (e) {
        if (!(e instanceof CelEvalError)) throw e; // a pending authorization: evaluated again later
        known = { error: e };
      }
      this.values.set(key, known);
    }
    if (known.error) throw known.error;
    return known.value!;
  }

  override has(key: CelValue): boolean {
    return typeof key === "string" && this.byName.has(key);
  }

  override *keys(): IterableIterator<string> {
    yield* this.byName.keys();
  }

  override *entries(): IterableIterator<[string, CelValue]> {
    for (const k of this.byName.keys()) yield [k, this.get(k)!];
  }
}
