// kapi's CEL interpreter: plan once — the tree becomes a tree of closures, identifiers resolved to
// comprehension slots or activation names, calls to their candidate overloads — then evaluate many
// times with a fresh, small frame. Semantics and runtime cost as cel-go's interpreter
// (interpreter/interpretable.go, runtimecost.go): strict calls, `&&`/`||` absorbing errors in
// either order, `@not_strictly_false`, optional selection/indexing, comprehensions with one or two
// iteration variables, and a cost budget checked as the total grows.
import type { CallExpr, CheckedExpr, ComprehensionExpr, Expr, ListExpr, MapExpr, ParsedExpr, SelectExpr, StructExpr } from "../ast.js";
import type { CallContext, CelLibrary, OverloadDecl } from "../library.js";
import { listCreateBaseCost, mapCreateBaseCost, structCreateBaseCost, regexStringLengthCostFactor, stringTraversalCostFactor } from "../cost/constants.js";
import { stdCallCosts } from "../cost/std-costs.js";
import { CelEvalError, CelMap, CelObject, CelOptional, CelUint, type CelValue, type MapKey } from "../value.js";
import { indexList, indexMap, plainNoSuchOverload } from "../stdlib/standard.js";
import { optIndex } from "../stdlib/optional.js";
import { mapInsert } from "../stdlib/comprehensions.js";
import { sizeOf, typeNameOf, valueHasType } from "../stdlib/values.js";
import { CelProgramError } from "../source.js";

/** The budget ran out: never absorbed by `&&`, `||` or `@not_strictly_false`. */
export class CostLimitExceededError extends CelEvalError {
  constructor() {
    super("operation cancelled: actual cost limit exceeded");
  }
}

export interface EvalOptions {
  /** Stop with "operation cancelled: actual cost limit exceeded" once the running cost exceeds this. */
  readonly costLimit?: number;
  /** Handed to library implementations (the authorizer, …). */
  readonly services?: Readonly<Record<string, unknown>>;
}

export interface EvalResult {
  readonly value: CelValue;
  /** The runtime cost as cel-go's CostTracker counts it. */
  readonly cost: number;
}

export interface Program {
  /** Evaluates; throws CelEvalError (the expression's error, or the cost limit). */
  eval(activation: Readonly<Record<string, CelValue>>, options?: EvalOptions): EvalResult;
}

export interface PlanOptions {
  /**
   * Whether `has(x.f)` costs 1 (cel-go's default) or nothing. Default false: Kubernetes
   * configures every environment with PresenceTestHasCost(false).
   */
  readonly presenceTestHasCost?: boolean;
}

const emptyServices: Readonly<Record<string, unknown>> = Object.freeze({});

class Frame implements CallContext {
  cost = 0;
  readonly locals: CelValue[];
  constructor(
    readonly act: Readonly<Record<string, CelValue>>,
    slots: number,
    readonly limit: number,
    readonly services: Readonly<Record<string, unknown>>,
  ) {
    this.locals = new Array<CelValue>(slots);
  }
  charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceededError();
  }
}

type Ev = (f: Frame) => CelValue;

/**
 * An error held as a comprehension's accumulator: cel-go keeps errors as values, so a later step
 * may still absorb it (`[1, 2, 3].all(e, 6 / (2 - e) == 6)` is false). Reading it throws it.
 */
class Failed {
  constructor(readonly error: CelEvalError) {}
}

function stepOrError(step: Ev, f: Frame): CelValue {
  try {
    return step(f);
  } catch (e) {
    if (!absorbable(e)) throw e;
    return new Failed(e) as unknown as CelValue;
  }
}

/** Whether a thrown value is a CEL error that `&&`, `||` and `@not_strictly_false` may absorb. */
function absorbable(e: unknown): e is CelEvalError {
  return e instanceof CelEvalError && !(e instanceof CostLimitExceededError);
}

/** A variable from the activation, or undefined (own data only; no CEL value is a function). */
function lookup(act: Readonly<Record<string, CelValue>>, name: string): CelValue | undefined {
  const v = act[name];
  return v === undefined || typeof v === "function" ? undefined : v;
}

function actualSize(v: CelValue): number {
  const n = sizeOf(v);
  if (n !== undefined) return n;
  if (v instanceof CelOptional && v.hasValue) return actualSize(v.value);
  return 1;
}

type CostFn = (args: readonly CelValue[], result: CelValue) => number;
const one: CostFn = () => 1;

function costOf(o: OverloadDecl): CostFn {
  return o.cost?.actual ?? stdCallCosts.get(o.id)?.actual ?? one;
}

interface Candidate {
  readonly decl: OverloadDecl;
  readonly cost: CostFn;
  /** Parameters that need a runtime check (dyn and type parameters need none). */
  readonly checks: readonly (readonly [number, OverloadDecl["params"][number]])[];
}

function candidate(decl: OverloadDecl): Candidate {
  const checks: [number, OverloadDecl["params"][number]][] = [];
  if (decl.typeGuards !== false)
    decl.params.forEach((p, i) => {
      if (p.kind !== "dyn" && p.kind !== "typeParam" && p.kind !== "any") checks.push([i, p]);
    });
  return { decl, cost: costOf(decl), checks };
}

function noSuchOverload(fn: string, args: readonly CelValue[]): CelEvalError {
  if (plainNoSuchOverload.has(fn)) return new CelEvalError("no such overload");
  return new CelEvalError(`no such overload: ${fn}(${args.map(typeNameOf).join(", ")})`);
}

interface CompScope {
  readonly accuSlot: number;
  /** accuInit is an empty list/map literal: the step may grow the accumulator in place. */
  readonly growable: "list" | "map" | undefined;
}

class Planner {
  private readonly functions = new Map<string, OverloadDecl[]>();
  private readonly constants = new Map<string, CelValue>();
  private readonly scopes: { name: string; slot: number }[] = [];
  private readonly comps: CompScope[] = [];
  slots = 0;

  constructor(
    libraries: readonly CelLibrary[],
    private readonly checked: CheckedExpr | undefined,
    private readonly presenceTestCost: boolean,
  ) {
    for (const lib of libraries) {
      for (const f of lib.functions) {
        const list = this.functions.get(f.name);
        if (list) list.push(...f.overloads);
        else this.functions.set(f.name, [...f.overloads]);
      }
      for (const c of lib.constants ?? []) this.constants.set(c.name, c.value);
    }
  }

  private local(name: string): number | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i]!.name === name) return this.scopes[i]!.slot;
    return undefined;
  }

  /** `a.b.c` as one dotted name when it is a chain of selects on an identifier that is not a comprehension variable. */
  private qualifiedName(e: Expr): string | undefined {
    if (e.kind === "ident") return this.local(e.name) === undefined ? e.name : undefined;
    if (e.kind === "select" && !e.testOnly) {
      const q = this.qualifiedName(e.operand);
      return q === undefined ? undefined : `${q}.${e.field}`;
    }
    return undefined;
  }

  plan(e: Expr): Ev {
    switch (e.kind) {
      case "const": {
        const v = e.value;
        return () => v;
      }
      case "ident":
        return this.planIdent(e.name, e.id);
      case "select":
        return this.planSelect(e);
      case "call":
        return this.planCall(e);
      case "list":
        return this.planList(e);
      case "map":
        return this.planMap(e);
      case "struct":
        return this.planStruct(e);
      case "comprehension":
        return this.planComprehension(e);
    }
  }

  private planIdent(name: string, id: number): Ev {
    const slot = this.local(name);
    if (slot !== undefined)
      return (f) => {
        f.charge(1);
        const v = f.locals[slot]!;
        if (v instanceof Failed) throw v.error;
        return v;
      };
    const ref = this.checked?.references.get(id) ?? name;
    return this.planGlobal(ref);
  }

  private planGlobal(name: string): Ev {
    const c = this.constants.get(name);
    return (f) => {
      f.charge(1);
      const v = lookup(f.act, name);
      if (v !== undefined) return v;
      if (c !== undefined) return c;
      throw new CelEvalError(`no such attribute(s): ${name}`);
    };
  }

  private planSelect(e: SelectExpr): Ev {
    const ref = this.checked?.references.get(e.id);
    if (ref !== undefined && this.qualifiedName(e) !== undefined) return this.planGlobal(ref);
    const field = e.field;
    const operand = this.plan(e.operand);
    if (e.testOnly)
      return (f) => {
        const v = operand(f);
        if (this.presenceTestCost) f.charge(1);
        return hasField(v, field);
      };
    const q = this.checked ? undefined : this.qualifiedName(e);
    if (q !== undefined) {
      const c = this.constants.get(q);
      return (f) => {
        const v = lookup(f.act, q);
        if (v !== undefined || c !== undefined) {
          f.charge(1);
          return v ?? c!;
        }
        const r = selectField(operand(f), field);
        f.charge(1);
        return r;
      };
    }
    return (f) => {
      const r = selectField(operand(f), field);
      f.charge(1);
      return r;
    };
  }

  private planList(e: ListExpr): Ev {
    const elems = e.elements.map((x) => this.plan(x));
    const optional = new Set(e.optionalIndices);
    if (optional.size === 0)
      return (f) => {
        const out = new Array<CelValue>(elems.length);
        for (let i = 0; i < elems.length; i++) out[i] = elems[i]!(f);
        f.charge(listCreateBaseCost);
        return out;
      };
    return (f) => {
      const out: CelValue[] = [];
      for (let i = 0; i < elems.length; i++) {
        const v = elems[i]!(f);
        if (optional.has(i)) {
          if (!(v instanceof CelOptional))
            throw new CelEvalError(`cannot initialize optional list element from non-optional value ${typeNameOf(v)}`);
          if (v.hasValue) out.push(v.value);
        } else out.push(v);
      }
      f.charge(listCreateBaseCost);
      return out;
    };
  }

  private planMap(e: MapExpr): Ev {
    const entries = e.entries.map((en) => ({ key: this.plan(en.key), value: this.plan(en.value), optional: en.optional }));
    return (f) => {
      const m = new CelMap();
      for (const en of entries) {
        const k = en.key(f);
        let v = en.value(f);
        if (!(typeof k === "string" || typeof k === "bigint" || typeof k === "boolean" || k instanceof CelUint))
          throw new CelEvalError(`unsupported key type: ${typeNameOf(k)}`);
        if (en.optional) {
          if (!(v instanceof CelOptional))
            throw new CelEvalError(`cannot initialize optional entry '${keyText(k)}' from non-optional value ${typeNameOf(v)}`);
          if (!v.hasValue) continue;
          v = v.value;
        }
        if (m.has(k)) throw new CelEvalError("Failed with repeated key");
        m.set(k, v);
      }
      f.charge(mapCreateBaseCost);
      return m;
    };
  }

  /** Message construction: the fields that are set (optional ones only when present), under the checked type name. */
  private planStruct(e: StructExpr): Ev {
    const ref = this.checked?.references.get(e.id);
    const name = ref ?? (e.typeName.startsWith(".") ? e.typeName.slice(1) : e.typeName);
    const fields = e.fields.map((fl) => ({ name: fl.name, value: this.plan(fl.value), optional: fl.optional }));
    return (f) => {
      const o = new CelObject(name);
      for (const fl of fields) {
        let v = fl.value(f);
        if (fl.optional) {
          if (!(v instanceof CelOptional)) throw new CelEvalError(`cannot initialize optional entry '${fl.name}' from non-optional value ${typeNameOf(v)}`);
          if (!v.hasValue) continue;
          v = v.value;
        }
        o.set(fl.name, v);
      }
      f.charge(structCreateBaseCost);
      return o;
    };
  }

  private planComprehension(e: ComprehensionExpr): Ev {
    const range = this.plan(e.iterRange);
    const init = this.plan(e.accuInit);
    const accuSlot = this.slots++;
    const growable =
      e.accuInit.kind === "list" && e.accuInit.elements.length === 0
        ? "list"
        : e.accuInit.kind === "map" && e.accuInit.entries.length === 0
          ? "map"
          : undefined;
    this.scopes.push({ name: e.accuVar, slot: accuSlot });
    const iterSlot = this.slots++;
    const iter2Slot = e.iterVar2 !== undefined ? this.slots++ : -1;
    this.scopes.push({ name: e.iterVar, slot: iterSlot });
    if (e.iterVar2 !== undefined) this.scopes.push({ name: e.iterVar2, slot: iter2Slot });
    this.comps.push({ accuSlot, growable });
    const cond = this.plan(e.loopCondition);
    const step = this.plan(e.loopStep);
    this.comps.pop();
    this.scopes.length -= e.iterVar2 !== undefined ? 2 : 1;
    const result = this.plan(e.result);
    this.scopes.pop();
    const twoVars = e.iterVar2 !== undefined;
    return (f) => {
      const r = range(f);
      const locals = f.locals;
      locals[accuSlot] = init(f);
      if (Array.isArray(r)) {
        for (let i = 0; i < r.length; i++) {
          if (twoVars) {
            locals[iterSlot] = BigInt(i);
            locals[iter2Slot] = r[i]!;
          } else locals[iterSlot] = r[i]!;
          if (cond(f) !== true) break;
          locals[accuSlot] = stepOrError(step, f);
        }
      } else if (r instanceof CelMap) {
        for (const [k, v] of r.entries()) {
          locals[iterSlot] = k;
          if (twoVars) locals[iter2Slot] = v;
          if (cond(f) !== true) break;
          locals[accuSlot] = stepOrError(step, f);
        }
      } else if (twoVars) throw new CelEvalError(`unsupported comprehension range type: ${typeNameOf(r)}`);
      else throw new CelEvalError(`got '${typeNameOf(r)}', expected iterable type`);
      return result(f);
    };
  }

  private planCall(e: CallExpr): Ev {
    switch (e.fn) {
      case "_&&_":
      case "_||_":
        if (!e.target && e.args.length === 2) return this.planLogic(e.fn === "_&&_", e.args[0]!, e.args[1]!);
        break;
      case "_?_:_":
        if (!e.target && e.args.length === 3) return this.planConditional(e.args[0]!, e.args[1]!, e.args[2]!);
        break;
      case "@not_strictly_false":
        if (!e.target && e.args.length === 1) {
          const arg = this.plan(e.args[0]!);
          return (f) => {
            let v: CelValue;
            try {
              v = arg(f);
            } catch (err) {
              if (!absorbable(err)) throw err;
              v = true;
            }
            f.charge(1);
            return typeof v === "boolean" ? v : true;
          };
        }
        break;
      case "_?._":
        if (!e.target && e.args.length === 2 && e.args[1]!.kind === "const" && typeof e.args[1]!.value === "string") {
          const operand = this.plan(e.args[0]!);
          const field = e.args[1]!.value;
          return (f) => {
            const r = optSelect(operand(f), field);
            f.charge(1);
            return r;
          };
        }
        break;
    }
    // A namespaced function written as a member call on a qualified name: `optional.of(x)`.
    let name = e.fn;
    let target = e.target;
    if (target) {
      const q = this.qualifiedName(target);
      if (q !== undefined && this.functions.has(`${q}.${name}`)) {
        name = `${q}.${name}`;
        target = undefined;
      }
    }
    const member = target !== undefined;
    const argExprs = member ? [target!, ...e.args] : e.args;
    let decls = (this.functions.get(name) ?? []).filter((o) => o.member === member && o.params.length === argExprs.length);
    const kept = this.checked?.overloads.get(e.id);
    if (kept?.length) {
      const narrowed = decls.filter((o) => kept.includes(o.id));
      if (narrowed.length) decls = narrowed;
    }
    const cands = decls.map(candidate);
    const args = argExprs.map((x) => this.plan(x));
    const fnName = name;

    // Lazily evaluated optional fallbacks: `opt.or(other)`, `opt.orValue(v)`.
    if (member && (name === "or" || name === "orValue") && args.length === 2) {
      const orValue = name === "orValue";
      const [recv, alt] = args as [Ev, Ev];
      const rest = this.dispatcher(fnName, cands);
      return (f) => {
        const o = recv(f);
        if (o instanceof CelOptional) {
          const r = o.hasValue ? (orValue ? o.value : o) : alt(f);
          if (!o.hasValue && !orValue && !(r instanceof CelOptional)) throw noSuchOverload(fnName, [o, r]);
          f.charge(1);
          return r;
        }
        return rest(f, [o, alt(f)]);
      };
    }
    if (name === "_[_]" && !member && args.length === 2) {
      const [operand, index] = args as [Ev, Ev];
      const rest = this.dispatcher(fnName, cands.filter((c) => !builtinIndexIds.has(c.decl.id)));
      return (f) => {
        const c = operand(f);
        const i = index(f);
        let r: CelValue;
        if (Array.isArray(c)) r = indexList(c, i);
        else if (c instanceof CelMap) r = indexMap(c, i);
        else if (c instanceof CelOptional) {
          // Indexing into an optional is as lenient as `[?]`: optional.none() when absent.
          r = c.hasValue ? optIndex(c.value, i) : CelOptional.none;
        } else return rest(f, [c, i]);
        f.charge(1);
        return r;
      };
    }
    if (name === "_[?_]" && !member && args.length === 2) {
      const [operand, index] = args as [Ev, Ev];
      return (f) => {
        const c = operand(f);
        const i = index(f);
        let r: CelValue;
        if (c instanceof CelOptional) r = c.hasValue ? optIndex(c.value, i) : CelOptional.none;
        else r = optIndex(c, i);
        f.charge(1);
        return r;
      };
    }

    // The accumulator of a comprehension growing in place: `@result + [x]`, `cel.@mapInsert(@result, k, v)`.
    const comp = this.comps[this.comps.length - 1];
    const first = argExprs[0];
    if (comp?.growable && first?.kind === "ident" && this.local(first.name) === comp.accuSlot) {
      if (comp.growable === "list" && name === "_+_" && args.length === 2 && argExprs[1]!.kind === "list") {
        const [accu, rhs] = args as [Ev, Ev];
        const cost = cands.find((c) => c.decl.id === "add_list")?.cost ?? one;
        return (f) => {
          const a = accu(f) as CelValue[];
          const b = rhs(f) as CelValue[];
          if (!Array.isArray(a)) throw noSuchOverload(fnName, [a, b]);
          for (const x of b) a.push(x);
          f.charge(cost([a, b], a));
          return a;
        };
      }
      if (comp.growable === "map" && name === "cel.@mapInsert" && args.length === 3) {
        const [accu, key, value] = args as [Ev, Ev, Ev];
        const cost = cands.find((c) => c.decl.id === "@mapInsert_map_key_value")?.cost ?? one;
        return (f) => {
          const m = accu(f);
          const k = key(f);
          const v = value(f);
          if (!(m instanceof CelMap)) throw noSuchOverload(fnName, [m, k, v]);
          mapInsert(m, k, v, true);
          f.charge(cost([m, k, v], m));
          return m;
        };
      }
    }

    const dispatch = this.dispatcher(fnName, cands);
    switch (args.length) {
      case 0:
        return (f) => dispatch(f, []);
      case 1: {
        const [a0] = args as [Ev];
        return (f) => dispatch(f, [a0(f)]);
      }
      case 2: {
        const [a0, a1] = args as [Ev, Ev];
        return (f) => {
          const x = a0(f);
          return dispatch(f, [x, a1(f)]);
        };
      }
      default:
        return (f) => {
          const vals = new Array<CelValue>(args.length);
          for (let i = 0; i < args.length; i++) vals[i] = args[i]!(f);
          return dispatch(f, vals);
        };
    }
  }

  /** Picks the overload by the arguments' runtime types, calls it and charges its cost. */
  private dispatcher(fn: string, cands: readonly Candidate[]): (f: Frame, args: CelValue[]) => CelValue {
    return (f, args) => {
      for (const c of cands) {
        let ok = true;
        for (const [i, t] of c.checks) {
          if (!valueHasType(args[i]!, t)) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
        const impl = c.decl.impl;
        if (!impl) break;
        const r = impl(args, f);
        f.charge(c.cost(args, r));
        return r;
      }
      throw noSuchOverload(fn, args);
    };
  }

  private planLogic(isAnd: boolean, left: Expr, right: Expr): Ev {
    const l = this.plan(left);
    const r = this.plan(right);
    const stop = !isAnd; // && stops on false, || stops on true
    return (f) => {
      let err: CelEvalError | undefined;
      try {
        const v = l(f);
        if (v === stop) return stop;
        if (typeof v !== "boolean") err = new CelEvalError("no such overload");
      } catch (e) {
        if (!absorbable(e)) throw e;
        err = e;
      }
      let v: CelValue;
      try {
        v = r(f);
      } catch (e) {
        if (!absorbable(e)) throw e;
        throw err ?? e;
      }
      if (v === stop) return stop;
      if (err) throw err;
      if (typeof v !== "boolean") throw new CelEvalError("no such overload");
      return v;
    };
  }

  private planConditional(cond: Expr, a: Expr, b: Expr): Ev {
    const c = this.plan(cond);
    const t = this.plan(a);
    const e = this.plan(b);
    return (f) => {
      const v = c(f);
      if (v === true) return t(f);
      if (v === false) return e(f);
      throw new CelEvalError("no such overload");
    };
  }
}

const builtinIndexIds = new Set(["index_list", "index_map", "optional_list_index_int", "optional_map_index_value"]);

function keyText(k: CelValue): string {
  return k instanceof CelUint ? String(k.value) : String(k);
}

function selectField(v: CelValue, field: string): CelValue {
  if (v instanceof CelMap) {
    const r = v.get(field);
    if (r === undefined) throw new CelEvalError(`no such key: ${field}`);
    return r;
  }
  if (v instanceof CelOptional) return optSelect(v, field);
  throw new CelEvalError(`type '${typeNameOf(v)}' does not support field selection`);
}

function optSelect(v: CelValue, field: string): CelOptional {
  if (v instanceof CelOptional) {
    if (!v.hasValue) return CelOptional.none;
    v = v.value;
  }
  if (v instanceof CelMap) {
    const r = v.get(field);
    return r === undefined ? CelOptional.none : CelOptional.of(r);
  }
  throw new CelEvalError(`type '${typeNameOf(v)}' does not support field selection`);
}

function hasField(v: CelValue, field: string): boolean {
  if (v instanceof CelMap) return v.has(field);
  if (v instanceof CelOptional) return v.hasValue && hasField(v.value, field);
  throw new CelEvalError(`invalid type for field selection.`);
}

/**
 * Turns a parsed or checked expression into a Program for the given libraries. A CheckedExpr's
 * references (qualified names) and kept overload ids narrow the work done at evaluation.
 */
export function plan(ast: ParsedExpr | CheckedExpr, libraries: readonly CelLibrary[], options: PlanOptions = {}): Program {
  const checked = "parsed" in ast ? ast : undefined;
  if (checked?.programError !== undefined) throw new CelProgramError(checked.programError);
  const planner = new Planner(libraries, checked, options.presenceTestHasCost ?? false);
  const root = planner.plan(ast.expr);
  const slots = planner.slots;
  return {
    eval(activation, options) {
      const f = new Frame(activation, slots, options?.costLimit ?? Infinity, options?.services ?? emptyServices);
      try {
        return { value: root(f), cost: f.cost };
      } catch (e) {
        // Not enumerable: the error stays equal to one made from its message alone.
        if (e instanceof CelEvalError) Object.defineProperty(e, "cost", { value: f.cost, enumerable: false, configurable: true, writable: true });
        throw e;
      }
    },
  };
}

export type { MapKey };
