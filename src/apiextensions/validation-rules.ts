// x-kubernetes-validations of a CRD version's schema: compiled (and cost-estimated) once at write
// time with kapi's CEL engine, then evaluated on every write of a custom object — as
// apiextensions-apiserver 1.34 does it (pkg/apis/apiextensions/validation for the write-time
// checks and their texts, pkg/apiserver/schema/cel for compilation and the runtime walk, and
// k8s.io/apiserver/pkg/cel/common for the old-value correlation ratcheting relies on).
import {
  duplicate,
  forbidden,
  formatFieldError,
  invalid,
  notSupported,
  required,
  type FieldError,
} from "../apimachinery/validation.js";
import { CelBudgetExhausted, RuntimeCostBudget } from "../cel/budget.js";
import { toCel } from "../cel/convert.js";
import { runtimeCelCostBudget, staticEstimatedCostLimit } from "../cel/cost/constants.js";
import {
  TotalCost,
  actualCostLimitExceeded,
  contributedToTotalCost,
  expressionCost,
  maxCardinality,
  messageExpressionBudgetExhausted,
  messageExpressionCallCostExceeded,
  messageExpressionCostExceeded,
  ruleCallCostExceeded,
  ruleCostExceeded,
  ruleErrorString,
  runtimeBudgetExhausted,
  schemaTotalCostExceeded,
} from "../cel/cost/messages.js";
import { crdRuleEnvironment } from "../cel/environments.js";
import type { CelTimings } from "../cel/timings.js";
import { CelCompileError, CelEvalError, CelProgramError, compileCel, type CelEnvironment, type CelProgram } from "../cel/program.js";
import { selfTypeOf, type StructuralSchema } from "../cel/schema/index.js";
import type { CelType } from "../cel/types.js";
import { CelOptional, type CelValue } from "../cel/value.js";
import { goStringOfRule, validFieldPath } from "./validation-rules-paths.js";

export { validFieldPath } from "./validation-rules-paths.js";

/** One entry of `x-kubernetes-validations` (apiextensions/v1 ValidationRule). */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/** A schema node as these rules read it (a CRD version's openAPIV3Schema or part of it). */
export type RulesSchema = StructuralSchema & {
  readonly "x-kubernetes-validations"?: readonly ValidationRule[];
  readonly allOf?: readonly RulesSchema[];
  readonly "x-kubernetes-list-type"?: string;
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-map-type"?: string;
};

export interface ValidateOptions {
  /** Path of the value validated; default upstream's nil root (`<nil>` for rules on the root). */
  readonly path?: string;
  /** Ratcheted failures (unchanged values on update) are added here as upstream's warnings. */
  readonly warnings?: string[];
  /** Runtime budget shared by all rules of the object (default RuntimeCELCostBudget, 10,000,000). */
  readonly budget?: RuntimeCostBudget;
  /** Told how long each node's evaluation took. */
  readonly timings?: CelTimings;
}

export interface RulesValidator {
  /** True when some node of the schema has x-kubernetes-validations. */
  readonly hasRules: boolean;
  /** Every rule failure of `obj` (`old`: the stored object on update, undefined on create). */
  validate(obj: unknown, old: unknown | undefined, options?: ValidateOptions): FieldError[];
}

/** upstream supportedValidationReason, sorted as sets.List returns it. */
export const supportedValidationReasons = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/** Largest messageExpression result kept (MaxEvaluatedMessageExpressionSizeBytes). */
const maxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

// ------------------------------------------------------------------------------------------------
// Compiled form

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: CelProgram;
  /** Why the rule does not compile (upstream's detail, e.g. `compilation failed: ERROR: …`). */
  readonly error?: string;
  readonly usesOldSelf: boolean;
  readonly maxCost: number;
  readonly messageExpression?: CelProgram;
  readonly messageExpressionError?: string;
  readonly messageExpressionMaxCost: number;
  /** The rule's fieldPath as a field path relative to the node (`spec.x[k]`), when valid. */
  readonly normalizedFieldPath?: string;
}

interface Node {
  readonly schema: RulesSchema;
  readonly isResourceRoot: boolean;
  readonly rules: readonly CompiledRule[];
  /** An internal problem building the node's CEL type (no type for a node with rules). */
  readonly typeError?: string;
  readonly selfType?: CelType;
  readonly properties?: ReadonlyMap<string, Node>;
  readonly items?: Node;
  readonly additionalProperties?: Node;
  readonly allOf?: readonly Node[];
}

// ------------------------------------------------------------------------------------------------
// Field paths (upstream field.Path: Child `a.b`, Key/Index `a[b]`, nil root prints `<nil>`)

const child = (p: string | undefined, name: string): string => (p === undefined || p === "" ? name : `${p}.${name}`);
const key = (p: string | undefined, k: string | number): string => `${p ?? ""}[${k}]`;
const show = (p: string | undefined): string => p ?? "<nil>";

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

// ------------------------------------------------------------------------------------------------
// Compilation

/** A schema's type as CEL sees it, or undefined when no rule could be declared on it. */
function nodeSelfType(schema: RulesSchema, isResourceRoot: boolean): CelType | undefined {
  return selfTypeOf(schema, { isRoot: isResourceRoot });
}

/** The smallest JSON serialization of a value of `s` (upstream DeclType.MinSerializedSize). */
export function minSerializedSize(s: RulesSchema): number | undefined {
  if (s["x-kubernetes-int-or-string"] === true) return 1;
  switch (s.type) {
    case "array":
      return s.items && minSerializedSize(s.items as RulesSchema) !== undefined ? 2 : undefined;
    case "object": {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === "object" && ap !== null) return minSerializedSize(ap as RulesSchema) !== undefined ? 2 : undefined;
      const req = new Set(s.required ?? []);
      let size = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const m = minSerializedSize(prop as RulesSchema);
        if (m === undefined) continue;
        if (req.has(name) && prop.default === undefined) size += Buffer.byteLength(name, "utf8") + m + 4;
      }
      return size;
    }
    case "string":
      switch (s.format) {
        case "duration":
          return 3;
        case "date":
          return 12;
        case "date-time":
          return 21;
      }
      return 2;
    case "boolean":
      return 4;
    case "number":
    case "integer":
      return 1;
  }
  return undefined;
}

interface Environments {
  plain?: CelEnvironment;
  optional?: CelEnvironment;
}

function compileRule(
  rule: ValidationRule,
  schema: RulesSchema,
  selfType: CelType,
  envs: Environments,
): CompiledRule {
  const base = { rule, usesOldSelf: false, maxCost: 0, messageExpressionMaxCost: 0 };
  if ((rule.rule ?? "").trim() === "") return base;
  const optional = rule.optionalOldSelf === true;
  const env = optional
    ? (envs.optional ??= crdRuleEnvironment(selfType, { optionalOldSelf: true }))
    : (envs.plain ??= crdRuleEnvironment(selfType));
  let program: CelProgram;
  try {
    program = compileCel(rule.rule, env);
  } catch (e) {
    if (e instanceof CelCompileError) return { ...base, error: `compilation failed: ${e.message}` };
    if (e instanceof CelProgramError) return { ...base, error: `program instantiation failed: ${e.message}` };
    return { ...base, error: `unexpected compilation error: ${(e as Error).message}` };
  }
  if (program.resultType.kind !== "bool") return { ...base, error: "cel expression must evaluate to a bool" };
  const usesOldSelf = [...program.checked.references.values()].includes("oldSelf");
  let result: CompiledRule = { ...base, program, usesOldSelf, maxCost: program.estimatedCost.max };
  if (rule.messageExpression !== undefined && rule.messageExpression !== "") {
    try {
      const m = compileCel(rule.messageExpression, env);
      if (m.resultType.kind !== "string") result = { ...result, messageExpressionError: "messageExpression must evaluate to a string" };
      else result = { ...result, messageExpression: m, messageExpressionMaxCost: m.estimatedCost.max };
    } catch (e) {
      if (e instanceof CelCompileError) result = { ...result, messageExpressionError: `messageExpression compilation failed: ${e.message}` };
      else if (e instanceof CelProgramError) result = { ...result, messageExpressionError: `messageExpression instantiation failed: ${e.message}` };
      else result = { ...result, messageExpressionError: `unexpected messageExpression compilation error: ${(e as Error).message}` };
    }
  }
  if (rule.fieldPath) {
    const p = validFieldPath(rule.fieldPath, schema);
    if (p.path !== undefined) result = { ...result, normalizedFieldPath: p.path };
  }
  return result;
}

/** Write-time context of one schema node (upstream CELSchemaContext). */
interface Context {
  readonly path: string;
  /** How often the node can occur in one object when bounded (product of maxItems/maxProperties above it); undefined: unbounded. */
  readonly cardinality: number | undefined;
  /** `…items` of the nearest list above that is not a list-type map: oldSelf cannot be correlated below it. */
  readonly uncorrelatablePath?: string;
  readonly isResourceRoot: boolean;
}

interface CompileState {
  readonly errors: FieldError[];
  readonly total: TotalCost<string>;
  /** Leave out the per-rule and per-messageExpression cost errors (the schema total still counts). */
  readonly suppressPerExpressionCost: boolean;
  readonly timings: CelTimings | undefined;
}

/** Bound on the number of children of a node (upstream extractMaxElements). */
function maxElements(s: RulesSchema): number | undefined {
  if (s.type === "array") return s.maxItems;
  if (s.type === "object" && s.additionalProperties !== undefined && typeof s.additionalProperties === "object") return s.maxProperties;
  return 1;
}

function childContext(parent: Context, parentSchema: RulesSchema, path: string, isResourceRoot: boolean, uncorrelatablePath?: string): Context {
  let cardinality: number | undefined;
  if (parent.cardinality !== undefined) {
    const m = maxElements(parentSchema);
    cardinality = m === undefined ? undefined : Math.min(parent.cardinality * Math.max(0, m), Number.MAX_SAFE_INTEGER);
  }
  return { path, cardinality, uncorrelatablePath: uncorrelatablePath ?? parent.uncorrelatablePath, isResourceRoot };
}

/** Builds the node and appends write-time errors; returns the node and whether it (or below) had a schema error. */
function compileNode(schema: RulesSchema, ctx: Context, state: CompileState): { node?: Node; schemaErrors: boolean } {
  let schemaErrors = false;
  let properties: Map<string, Node> | undefined;
  let items: Node | undefined;
  let additionalProperties: Node | undefined;
  let allOf: Node[] | undefined;

  // Children first, as upstream's recursion reports them before the node's own rules.
  if (Array.isArray(schema.allOf)) {
    schema.allOf.forEach((sub, i) => {
      if (!sub || typeof sub !== "object") return;
      // Rules in allOf apply to the node itself: typed from the node, same cardinality.
      const merged: RulesSchema = { ...schema, "x-kubernetes-validations": sub["x-kubernetes-validations"], allOf: undefined };
      const r = compileOwnRules(merged, schema, { ...ctx, path: child(ctx.path, `allOf[${i}]`) }, state, false);
      schemaErrors ||= r.schemaErrors;
      if (r.node) (allOf ??= []).push(r.node);
    });
  }
  const ap = schema.additionalProperties;
  if (ap !== undefined && typeof ap === "object" && ap !== null) {
    const sub = ap as RulesSchema;
    const r = compileNode(sub, childContext(ctx, schema, child(ctx.path, "additionalProperties"), sub["x-kubernetes-embedded-resource"] === true), state);
    schemaErrors ||= r.schemaErrors;
    additionalProperties = r.node;
  }
  if (schema.properties) {
    for (const name of Object.keys(schema.properties).sort()) {
      const sub = schema.properties[name] as RulesSchema;
      if (!sub || typeof sub !== "object") continue;
      const r = compileNode(
        sub,
        childContext(ctx, schema, key(child(ctx.path, "properties"), name), sub["x-kubernetes-embedded-resource"] === true),
        state,
      );
      schemaErrors ||= r.schemaErrors;
      if (r.node) (properties ??= new Map()).set(name, r.node);
    }
  }
  if (schema.items && typeof schema.items === "object" && !Array.isArray(schema.items)) {
    const sub = schema.items as RulesSchema;
    const itemsPath = child(ctx.path, "items");
    const uncorrelatable = schema["x-kubernetes-list-type"] !== "map" ? itemsPath : undefined;
    const r = compileNode(sub, childContext(ctx, schema, itemsPath, sub["x-kubernetes-embedded-resource"] === true, uncorrelatable), state);
    schemaErrors ||= r.schemaErrors;
    items = r.node;
  }

  const own = compileOwnRules(schema, schema, ctx, state, schemaErrors);
  schemaErrors ||= own.schemaErrors;
  if (!own.node && !properties && !items && !additionalProperties && !allOf) return { schemaErrors };
  const node: Node = {
    ...(own.node ?? { schema, isResourceRoot: ctx.isResourceRoot, rules: [] }),
    properties,
    items,
    additionalProperties,
    allOf,
  };
  return { node, schemaErrors };
}

/** The node's own x-kubernetes-validations (of `rulesSchema`, typed from `nodeSchema`). */
function compileOwnRules(
  rulesSchema: RulesSchema,
  nodeSchema: RulesSchema,
  ctx: Context,
  state: CompileState,
  deeperSchemaErrors: boolean,
): { node?: Node; schemaErrors: boolean } {
  const rules = rulesSchema["x-kubernetes-validations"];
  if (!Array.isArray(rules) || rules.length === 0) return { schemaErrors: false };
  const at = (i: number, f: string): string => child(key(child(ctx.path, "x-kubernetes-validations"), i), f);
  const errs = state.errors;
  const before = errs.length;
  rules.forEach((rule: ValidationRule, i: number) => {
    const r = (rule?.rule ?? "").trim();
    const message = rule?.message ?? "";
    const msg = message.trim();
    if (r === "") errs.push(required(at(i, "rule"), "rule is not specified"));
    else if (message.length > 0 && msg.length === 0) errs.push(invalid(at(i, "message"), message, "message must be non-empty if specified"));
    else if (message.length > 2048) errs.push(invalid(at(i, "message"), message.slice(0, 10) + "...", "message must have a maximum length of 2048 characters"));
    else if (hasNewlines(msg)) errs.push(invalid(at(i, "message"), message, "message must not contain line breaks"));
    else if (hasNewlines(r) && msg.length === 0) errs.push(required(at(i, "message"), "message must be specified if rule contains line breaks"));
    const me = rule?.messageExpression ?? "";
    if (me.length > 0 && me.trim().length === 0) errs.push(required(at(i, "messageExpression"), "messageExpression must be non-empty if specified"));
    if (rule?.reason !== undefined && rule.reason !== null && !supportedValidationReasons.includes(rule.reason))
      errs.push(notSupported(at(i, "reason"), rule.reason, supportedValidationReasons));
    const fp = rule?.fieldPath ?? "";
    if (fp.length > 0 && fp.trim().length === 0) errs.push(invalid(at(i, "fieldPath"), fp, "fieldPath must be non-empty if specified"));
    if (hasNewlines(fp)) errs.push(invalid(at(i, "fieldPath"), fp, "fieldPath must not contain line breaks"));
    if (fp.length > 0) {
      const p = validFieldPath(fp, nodeSchema);
      if (p.error !== undefined) errs.push(invalid(at(i, "fieldPath"), fp, `fieldPath must be a valid path: ${p.error}`));
    }
  });
  const schemaErrors = errs.length > before;

  const selfType = nodeSelfType(nodeSchema, ctx.isResourceRoot);
  if (!selfType) {
    const typeError = "internal error: failed to retrieve type information for x-kubernetes-validations";
    if (!schemaErrors && !deeperSchemaErrors) errs.push(invalid(child(ctx.path, "x-kubernetes-validations"), undefined, typeError));
    return { node: { schema: nodeSchema, isResourceRoot: ctx.isResourceRoot, rules: [], typeError }, schemaErrors };
  }
  const envs: Environments = {};
  const started = state.timings && performance.now();
  const compiled = rules.map((rule: ValidationRule) => compileRule(rule ?? { rule: "" }, nodeSchema, selfType, envs));
  // Per node with rules, as upstream times each schema node's Compile.
  if (started !== undefined) state.timings!.compiled((performance.now() - started) / 1000);

  // Rules are compiled and costed only where the schema around them is sound.
  if (!schemaErrors && !deeperSchemaErrors) {
    const unbounded = maxCardinality(minSerializedSize(nodeSchema) ?? 1);
    compiled.forEach((cr, i) => {
      const cost = expressionCost(cr.maxCost, ctx.cardinality ?? unbounded);
      if (!state.suppressPerExpressionCost && cost > staticEstimatedCostLimit) errs.push(forbidden(at(i, "rule"), ruleCostExceeded(cost)));
      state.total.observe(at(i, "rule"), cost);
      if (cr.error !== undefined) errs.push(invalid(at(i, "rule"), goStringOfRule(cr.rule), cr.error));
      if (cr.messageExpressionError !== undefined) errs.push(invalid(at(i, "messageExpression"), goStringOfRule(cr.rule), cr.messageExpressionError));
      else if (cr.messageExpression) {
        if (!state.suppressPerExpressionCost && cr.messageExpressionMaxCost > staticEstimatedCostLimit)
          errs.push(forbidden(at(i, "messageExpression"), messageExpressionCostExceeded(cr.messageExpressionMaxCost)));
        state.total.observe(at(i, "messageExpression"), cr.messageExpressionMaxCost);
      }
      if (cr.usesOldSelf && ctx.uncorrelatablePath !== undefined)
        errs.push(
          invalid(at(i, "rule"), cr.rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${ctx.uncorrelatablePath}`),
        );
    });
  }
  return { node: { schema: nodeSchema, isResourceRoot: ctx.isResourceRoot, rules: compiled, selfType }, schemaErrors };
}

export interface CompiledValidationRules {
  readonly errors: FieldError[];
  readonly validator: RulesValidator;
}

const cache = new WeakMap<object, Map<string, CompiledValidationRules>>();

/**
 * Compiles every x-kubernetes-validations rule (and messageExpression) of a CRD version's
 * schema, the root typed as a resource root. `errors` are what CRD validation reports (compile
 * errors, messageExpression type, reason, fieldPath, per-rule and per-schema cost), at
 * `<path>.…x-kubernetes-validations[i].<field>`; `validator` evaluates the rules on objects.
 * Cached by the schema object: compile once per CRD version.
 *
 * `suppressPerExpressionCost`: on a CRD update, for a version whose schema is deep-equal to the
 * old one, the per-rule and per-messageExpression cost limits are not reported (upstream: a
 * definition accepted under older cost estimates stays updatable); the schema total still is.
 */
export function compileValidationRules(schema: RulesSchema, opts: { path: string; suppressPerExpressionCost?: boolean; timings?: CelTimings }): CompiledValidationRules {
  const suppressPerExpressionCost = opts.suppressPerExpressionCost === true;
  const key = suppressPerExpressionCost ? `${opts.path}\u0000suppress-cost` : opts.path;
  let byPath = cache.get(schema);
  const hit = byPath?.get(key);
  if (hit) return hit;
  // A cached result compiles nothing (and times nothing).
  const state: CompileState = { errors: [], total: new TotalCost<string>(), suppressPerExpressionCost, timings: opts.timings };
  const { node } = compileNode(schema, { path: opts.path, cardinality: 1, isResourceRoot: true }, state);
  if (state.total.exceeded) {
    for (const e of state.total.mostExpensive) state.errors.push(forbidden(e.path, contributedToTotalCost));
    state.errors.push(forbidden(opts.path, schemaTotalCostExceeded(state.total.total)));
  }
  const result: CompiledValidationRules = { errors: state.errors, validator: new Validator(node) };
  if (!byPath) cache.set(schema, (byPath = new Map()));
  byPath.set(key, result);
  return result;
}

// ------------------------------------------------------------------------------------------------
// Ratcheting: the old value correlated with each new value (upstream common.CorrelatedObject)

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** Old elements of a list-type map by their key values (upstream MapList). */
class MapList {
  private readonly byKey = new Map<string, Json>();
  constructor(
    private readonly schema: RulesSchema,
    old: readonly Json[],
  ) {
    for (const el of old) {
      const k = this.keyOf(el);
      if (k !== undefined && !this.byKey.has(k)) this.byKey.set(k, el);
    }
  }
  keyOf(el: Json): string | undefined {
    if (!isObject(el)) return undefined;
    const keys = this.schema["x-kubernetes-list-map-keys"] ?? [];
    const itemProps = (this.schema.items as RulesSchema | undefined)?.properties ?? {};
    const values: Json[] = [];
    for (const k of keys) {
      let v = el[k];
      if (v === undefined) v = itemProps[k]?.default;
      if (v === undefined) return undefined;
      values.push(v);
    }
    return JSON.stringify(values);
  }
  get(el: Json): Json {
    const k = this.keyOf(el);
    return k === undefined ? undefined : this.byKey.get(k);
  }
}

function makeMapList(schema: RulesSchema, old: Json): MapList | undefined {
  if (schema["x-kubernetes-list-type"] !== "map" || !Array.isArray(old)) return undefined;
  return new MapList(schema, old);
}

class Correlated {
  private equal?: boolean;
  private mapList?: MapList;
  private readonly children = new Map<string | number, Correlated | null>();

  constructor(
    readonly value: Json,
    readonly old: Json,
    readonly schema: RulesSchema | undefined,
  ) {}

  key(field: string): Correlated | undefined {
    if (!this.schema) return undefined;
    const cached = this.children.get(field);
    if (cached !== undefined) return cached ?? undefined;
    let res: Correlated | null = null;
    if (isObject(this.old) && isObject(this.value) && field in this.old && field in this.value) {
      const prop = this.schema.properties?.[field] as RulesSchema | undefined;
      const ap = this.schema.additionalProperties;
      const sub = prop ?? (typeof ap === "object" && ap !== null ? (ap as RulesSchema) : undefined);
      if (sub) res = new Correlated(this.value[field], this.old[field], sub);
    }
    this.children.set(field, res);
    return res ?? undefined;
  }

  index(i: number): Correlated | undefined {
    if (!this.schema) return undefined;
    const cached = this.children.get(i);
    if (cached !== undefined) return cached ?? undefined;
    let res: Correlated | null = null;
    if (Array.isArray(this.value) && i < this.value.length && Array.isArray(this.old) && this.schema.items) {
      let oldItem: Json;
      switch (this.schema["x-kubernetes-list-type"]) {
        case "map":
          this.mapList ??= new MapList(this.schema, this.old);
          oldItem = this.mapList.get(this.value[i]);
          break;
        case "set":
        case "atomic":
          oldItem = undefined;
          break;
        default:
          oldItem = i < this.old.length ? this.old[i] : undefined;
      }
      if (oldItem !== undefined && oldItem !== null) res = new Correlated(this.value[i], oldItem, this.schema.items as RulesSchema);
    }
    this.children.set(i, res);
    return res ?? undefined;
  }

  deepEqual(): boolean {
    if (this.equal !== undefined) return this.equal;
    return (this.equal = this.computeEqual());
  }

  private computeEqual(): boolean {
    const v = this.value;
    const o = this.old;
    if ((v === null || v === undefined) && (o === null || o === undefined)) return true;
    if (v === null || v === undefined || o === null || o === undefined) return false;
    if (Array.isArray(v) !== Array.isArray(o)) return false;
    if (Array.isArray(v) && Array.isArray(o)) {
      if (v.length !== o.length) return false;
      for (let i = 0; i < v.length; i++) {
        const c = this.index(i);
        if (!c) return this.mapList ? false : jsonEqual(o, v);
        if (!c.deepEqual()) return false;
      }
      return true;
    }
    if (isObject(v) !== isObject(o)) return false;
    if (isObject(v) && isObject(o)) {
      if (Object.keys(v).length !== Object.keys(o).length) return false;
      for (const k of Object.keys(v)) {
        const c = this.key(k);
        if (!c || !c.deepEqual()) return false;
      }
      return true;
    }
    return jsonEqual(o, v);
  }
}

function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Where ratcheting stands at a node: its own correlation, or the nearest correlatable ancestor's. */
interface Ratchet {
  readonly current?: Correlated;
  readonly nearestParent?: Correlated;
}

function ratchetKey(r: Ratchet, field: string): Ratchet {
  if (!r.current) return r;
  // apiVersion and kind cannot be ratcheted (old and new are converted to the same version).
  if (!r.nearestParent && (field === "apiVersion" || field === "kind")) return {};
  return { current: r.current.key(field), nearestParent: r.current };
}

function ratchetIndex(r: Ratchet, i: number): Ratchet {
  if (!r.current) return r;
  return { current: r.current.index(i), nearestParent: r.current };
}

function shouldRatchet(r: Ratchet): boolean {
  if (r.current) return r.current.deepEqual();
  return r.nearestParent?.deepEqual() ?? false;
}

// ------------------------------------------------------------------------------------------------
// Runtime

/** Thrown to stop the walk once upstream returns a negative remaining budget. */
class StopValidation extends Error {}

interface Run {
  readonly errs: FieldError[];
  readonly warnings?: string[];
  readonly budget: RuntimeCostBudget;
  readonly timings?: CelTimings;
}

class Validator implements RulesValidator {
  constructor(private readonly root: Node | undefined) {}

  get hasRules(): boolean {
    return this.root !== undefined;
  }

  validate(obj: unknown, old: unknown | undefined, options: ValidateOptions = {}): FieldError[] {
    if (!this.root || obj === null || obj === undefined) return [];
    const run: Run = { errs: [], warnings: options.warnings, budget: options.budget ?? new RuntimeCostBudget(runtimeCelCostBudget), timings: options.timings };
    const ratchet: Ratchet = old !== undefined && old !== null ? { current: new Correlated(obj, old, this.root.schema) } : {};
    try {
      walk(this.root, options.path, obj, old ?? undefined, ratchet, run);
    } catch (e) {
      if (!(e instanceof StopValidation)) throw e;
    }
    return run.errs;
  }
}

/**
 * Evaluates a node's rules and those below it on one value; timed per node and value, the time
 * of the nodes below included, as upstream times each Validator.validate call.
 */
function walk(node: Node, path: string | undefined, obj: Json, old: Json, ratchet: Ratchet, run: Run): void {
  if (!run.timings) return walkNode(node, path, obj, old, ratchet, run);
  const started = performance.now();
  try {
    walkNode(node, path, obj, old, ratchet, run);
  } finally {
    run.timings.evaluated((performance.now() - started) / 1000);
  }
}

function walkNode(node: Node, path: string | undefined, obj: Json, old: Json, ratchet: Ratchet, run: Run): void {
  if (obj === null || obj === undefined) return;
  if (old === null) old = undefined;
  evaluateRules(node, path, obj, old, ratchet, run);
  for (const sub of node.allOf ?? []) {
    // allOf failures are not ratcheted by the node's own correlation (as schema ratcheting).
    evaluateRules(sub, path, obj, old, { nearestParent: ratchet.nearestParent }, run);
  }
  if (Array.isArray(obj)) {
    if (!node.items) return;
    const oldItems = makeMapList(node.schema, old);
    obj.forEach((item, i) => walk(node.items!, key(path, i), item, oldItems?.get(item), ratchetIndex(ratchet, i), run));
    return;
  }
  if (isObject(obj)) {
    const mapType = node.schema["x-kubernetes-map-type"];
    const correlatable = mapType === undefined || mapType === "granular" || mapType === "atomic";
    const oldMap = correlatable && isObject(old) ? old : undefined;
    if (node.additionalProperties) {
      for (const k of Object.keys(obj)) walk(node.additionalProperties, key(path, k), obj[k], oldMap?.[k], ratchetKey(ratchet, k), run);
    }
    if (node.properties) {
      for (const k of Object.keys(obj)) {
        const sub = node.properties.get(k);
        if (sub) walk(sub, child(path, k), obj[k], oldMap?.[k], ratchetKey(ratchet, k), run);
      }
    }
  }
}

function evaluateRules(node: Node, path: string | undefined, obj: Json, old: Json, ratchet: Ratchet, run: Run): void {
  const type = node.schema.type ?? "";
  if (node.typeError !== undefined) {
    run.errs.push(invalid(show(path), type, `rule compiler initialization error: ${node.typeError}`));
    return;
  }
  if (node.rules.length === 0) return;
  if (run.budget.remaining <= 0) {
    run.errs.push(invalid(show(path), type, runtimeBudgetExhausted));
    throw new StopValidation();
  }
  const selfType = node.selfType!;
  const self = toCel(obj, selfType);
  let oldSelf: CelValue | undefined;
  const hasOld = old !== undefined && node.rules.some((r) => r.usesOldSelf);
  if (hasOld) oldSelf = toCel(old, selfType);

  for (const compiled of node.rules) {
    const rule = compiled.rule;
    if (compiled.error !== undefined) {
      run.errs.push(invalid(show(path), type, `rule compile error: ${compiled.error}`));
      continue;
    }
    if (!compiled.program) continue;
    const optional = rule.optionalOldSelf === true;
    // Transition rules run only against an existing value, unless oldSelf is optional.
    if (compiled.usesOldSelf && !hasOld && !optional) continue;
    const vars: Record<string, CelValue> = { self };
    if (optional) vars.oldSelf = hasOld ? CelOptional.of(oldSelf!) : CelOptional.none;
    else if (hasOld) vars.oldSelf = oldSelf!;

    let result: CelValue;
    try {
      result = run.budget.eval(compiled.program, vars);
    } catch (e) {
      if (e instanceof CelBudgetExhausted) {
        run.errs.push(invalid(show(path), type, runtimeBudgetExhausted));
        throw new StopValidation();
      }
      if (!(e instanceof CelEvalError)) throw e;
      const text = e.message;
      if (text.startsWith("no such overload")) {
        run.errs.push(
          invalid(show(path), type, `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`),
        );
      } else if (text.startsWith(actualCostLimitExceeded)) {
        run.errs.push(invalid(show(path), type, ruleCallCostExceeded(text, rule)));
        throw new StopValidation();
      } else {
        run.errs.push(invalid(show(path), type, `${text} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (result === true) continue;

    const at = compiled.normalizedFieldPath ? child(path, compiled.normalizedFieldPath) : show(path);
    const addErr = (e: FieldError): void => {
      if (!compiled.usesOldSelf && shouldRatchet(ratchet)) run.warnings?.push(formatFieldError(e));
      else run.errs.push(e);
    };

    let detail: string | undefined;
    if (compiled.messageExpression) {
      const m = evalMessageExpression(compiled.messageExpression, rule.messageExpression!, vars, run.budget);
      if (m.stop !== undefined) {
        addErr(invalid(at, type, m.stop));
        throw new StopValidation();
      }
      detail = m.message;
    }
    if (detail === undefined) detail = rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
    const value = type === "object" || type === "array" ? type : obj;
    addErr(fieldErrorForReason(at, value, detail, rule.reason));
  }
}

/** A messageExpression's message, undefined to fall back to the rule's message, or `stop` with the error ending validation. */
function evalMessageExpression(
  program: CelProgram,
  source: string,
  vars: Record<string, CelValue>,
  budget: RuntimeCostBudget,
): { message?: string; stop?: string } {
  let value: CelValue;
  try {
    value = budget.eval(program, vars);
  } catch (e) {
    if (e instanceof CelBudgetExhausted) return { stop: messageExpressionBudgetExhausted };
    if (e instanceof CelEvalError && e.message.startsWith(actualCostLimitExceeded)) return { stop: messageExpressionCallCostExceeded(source) };
    if (e instanceof CelEvalError) return {};
    throw e;
  }
  if (typeof value !== "string") return {};
  const trimmed = value.trim();
  if (Buffer.byteLength(trimmed, "utf8") > maxEvaluatedMessageExpressionSizeBytes || /\n/.test(trimmed) || trimmed.length === 0) return {};
  return { message: trimmed };
}

function fieldErrorForReason(path: string, value: unknown, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return forbidden(path, detail);
    case "FieldValueRequired":
      return required(path, detail);
    case "FieldValueDuplicate":
      return duplicate(path, value);
    default:
      return invalid(path, value, detail);
  }
}
