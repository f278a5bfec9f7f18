// The compile-time cost estimator: a walk over a checked expression that yields the [min, max]
// cost range cel-go's checker/cost.go (v0.26.0, the version Kubernetes 1.34 uses) would give,
// with the size estimator Kubernetes plugs in for CRD validation rules (sizes read from the
// schema along the path from `self`). Arithmetic is cel-go's uint64 with saturation, done in
// bigint; the public result reads any figure from 2^53-1 up as Number.MAX_SAFE_INTEGER.
import { accumulatorName, type CallExpr, type CheckedExpr, type ComprehensionExpr, type Expr } from "../ast.js";
import type { ArgEstimate, CallEstimate, CelLibrary, Estimate, OverloadDecl } from "../library.js";
import type { CelType } from "../types.js";
import { CelUint, type CelValue } from "../value.js";
import {
  listCreateBaseCost,
  mapCreateBaseCost,
  selectAndIdentCost,
  structCreateBaseCost,
} from "./constants.js";
import {
  MAX_U64,
  U64_ONE,
  U64_UNKNOWN,
  U64_ZERO,
  type U64Range,
  estimateToRange,
  rAdd,
  rUnion,
  rangeToEstimate,
  stringSize,
  u64Add,
  u64Fixed,
} from "./arith.js";
import { type ExactArg, type ExactCall, exactEstimate, isExactCost, stdCallCosts } from "./std-costs.js";

/** What a size estimator is asked about (cel-go's AstNode). */
export interface SizeNode {
  /**
   * Field path from a variable: the variable's name, then field names (as the schema spells
   * them), `@items`, `@values`, `@keys`, `@indices`. Empty when the node is not reached that way.
   */
  readonly path: readonly string[];
  readonly type: CelType | undefined;
  readonly expr: Expr | undefined;
}

/** An argument as library cost functions receive it: ArgEstimate plus what cel-go's AstNode offers. */
export interface ArgEstimateEx extends ArgEstimate {
  /** The argument's field path (empty when it has none; paths through the accumulator are omitted). */
  readonly path: readonly string[];
  /**
   * For a list argument: the size estimate of one element as the size estimator gives it (what
   * Kubernetes' `listElementNode` + `sizeEstimate` compute); unknown ({0, MAX_SAFE_INTEGER}) when
   * the estimator has none.
   */
  readonly elementSize?: Estimate;
}

/** Size of one list element as seen by the estimator; unknown when the argument carries none. */
export function elementSizeOf(arg: ArgEstimate): Estimate {
  return (arg as Partial<ArgEstimateEx>).elementSize ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
}

export interface CostEstimateOptions {
  /**
   * Whether `has(x.f)` costs 1 (cel-go's default) or 0. Default false: Kubernetes configures
   * every CEL environment with PresenceTestHasCost(false).
   */
  readonly presenceTestHasCost?: boolean;
  /**
   * The type Kubernetes' CRD size estimator walks paths from (the schema type of `self`): a node
   * reached by a path gets {min 0, max: maxSize of the type at the end of the path}, a type
   * without `maxSize` counting as 0 (DeclType.MaxElements' zero value), exactly as
   * apiextensions' sizeEstimator; the first path element (the variable) is skipped, as there.
   * When absent, paths are walked from the type of the variable they start at, and only types
   * carrying `maxSize` give a size.
   */
  readonly sizeRoot?: CelType;
  /** cel-go CostEstimator.EstimateSize: consulted before the schema walk; undefined = no opinion. */
  readonly estimateSize?: (node: SizeNode) => Estimate | undefined;
  /**
   * cel-go OverloadCostEstimate / CostEstimator.EstimateCallCost: consulted before the
   * declaration's and the standard table's cost; the cost excludes the arguments' own cost.
   */
  readonly estimateCallCost?: (fn: string, overloadId: string, args: readonly ArgEstimateEx[], member: boolean) => CallEstimate | undefined;
  /**
   * Base cost of creating a list. Default: constants.listCreateBaseCost (40, kapi's
   * specification); 10 reproduces cel-go's own figures (used by the tests that mirror them).
   */
  readonly listCreateBaseCost?: number;
}

/** Estimated cost range of a checked expression (cel-go checker.Cost), clamped to safe integers. */
export function estimateCost(
  checked: CheckedExpr,
  libraries: readonly CelLibrary[],
  options: CostEstimateOptions = {},
): Estimate {
  return rangeToEstimate(estimateCostExact(checked, libraries, options));
}

/** The same, with cel-go's exact uint64 figures (bigint, saturating at 2^64-1). */
export function estimateCostExact(
  checked: CheckedExpr,
  libraries: readonly CelLibrary[],
  options: CostEstimateOptions = {},
): U64Range {
  return new Coster(checked, libraries, options).cost(checked.expr);
}

// ---------------------------------------------------------------- internals

type Container = "list" | "map" | "other";

interface EntrySize {
  readonly container: Container;
  readonly key: U64Range;
  readonly val: U64Range;
}

interface LocalVar {
  readonly path: readonly string[];
  readonly size: U64Range | undefined;
  readonly entrySize: EntrySize | undefined;
}

interface Node {
  readonly expr: Expr;
  readonly path: readonly string[];
  readonly type: CelType | undefined;
  readonly size: U64Range | undefined;
}

const hiddenAccumulatorName = "@__result__";
const isAccumulator = (name: string | undefined): boolean => name === accumulatorName || name === hiddenAccumulatorName;

const FIXED_SELECT = u64Fixed(BigInt(selectAndIdentCost));
const LIST_BASE = u64Fixed(BigInt(listCreateBaseCost));
const MAP_BASE = u64Fixed(BigInt(mapCreateBaseCost));
const STRUCT_BASE = u64Fixed(BigInt(structCreateBaseCost));
const EMPTY_UNION_START: U64Range = { min: MAX_U64, max: 0n };

/** Overload id → declaration, per library object (built once). */
const declIndex = new WeakMap<CelLibrary, Map<string, OverloadDecl>>();

function findDecl(libraries: readonly CelLibrary[], id: string): OverloadDecl | undefined {
  for (const lib of libraries) {
    let idx = declIndex.get(lib);
    if (!idx) {
      idx = new Map();
      for (const fn of lib.functions) for (const o of fn.overloads) idx.set(o.id, o);
      declIndex.set(lib, idx);
    }
    const d = idx.get(id);
    if (d) return d;
  }
  return undefined;
}

/** Overload ids of the operators the interpreter evaluates itself, if the checker left them out. */
const operatorIds: Readonly<Record<string, string>> = {
  "_&&_": "logical_and",
  "_||_": "logical_or",
  "_?_:_": "conditional",
  "@not_strictly_false": "not_strictly_false",
};

function literalSize(v: CelValue): U64Range | undefined {
  if (typeof v === "string") return u64Fixed(BigInt(stringSize(v)));
  if (v instanceof Uint8Array) return u64Fixed(BigInt(v.length));
  if (v === null || typeof v === "boolean" || typeof v === "bigint" || typeof v === "number" || v instanceof CelUint) {
    return U64_ONE;
  }
  return undefined;
}

function isScalar(t: CelType | undefined): boolean {
  if (!t) return false;
  switch (t.kind) {
    case "bool":
    case "double":
    case "duration":
    case "int":
    case "timestamp":
    case "uint":
      return true;
    case "optional":
      return isScalar(t.of);
    default:
      return false;
  }
}

class Coster {
  private readonly exprPaths = new Map<number, readonly string[]>();
  private readonly localVars = new Map<string, LocalVar[]>();
  private readonly computedSizes = new Map<number, U64Range>();
  private readonly computedEntrySizes = new Map<number, EntrySize>();
  /** Declared variables met so far → their types (for walking paths without a sizeRoot). */
  private readonly rootTypes = new Map<string, CelType>();
  private readonly presenceTestCost: U64Range;
  private readonly listBase: U64Range;

  constructor(
    private readonly checked: CheckedExpr,
    private readonly libraries: readonly CelLibrary[],
    private readonly options: CostEstimateOptions,
  ) {
    this.presenceTestCost = options.presenceTestHasCost === true ? FIXED_SELECT : U64_ZERO;
    this.listBase = options.listCreateBaseCost === undefined ? LIST_BASE : u64Fixed(BigInt(options.listCreateBaseCost));
  }

  cost(e: Expr): U64Range {
    switch (e.kind) {
      case "const":
        return U64_ZERO;
      case "ident":
        return this.costIdent(e.id, this.checked.references.get(e.id) ?? e.name);
      case "select": {
        const ref = this.checked.references.get(e.id);
        if (ref !== undefined && !e.testOnly) return this.costIdent(e.id, ref);
        return this.costSelect(e);
      }
      case "call":
        return this.costCall(e);
      case "list":
        return this.costCreateList(e);
      case "map":
        return this.costCreateMap(e);
      case "struct": {
        let sum = U64_ZERO;
        for (const f of e.fields) sum = rAdd(sum, this.cost(f.value));
        return rAdd(sum, STRUCT_BASE);
      }
      case "comprehension":
        return this.isBind(e) ? this.costBind(e) : this.costComprehension(e);
    }
  }

  // -------------------------------------------------------------- scopes and paths

  private peekLocal(name: string): LocalVar | undefined {
    const s = this.localVars.get(name);
    return s && s.length ? s[s.length - 1] : undefined;
  }

  private pushLocal(name: string, v: LocalVar): void {
    const s = this.localVars.get(name);
    if (s) s.push(v);
    else this.localVars.set(name, [v]);
  }

  private popLocal(name: string): void {
    this.localVars.get(name)?.pop();
  }

  private getPath(e: Expr): readonly string[] {
    if (e.kind === "ident") {
      const v = this.peekLocal(e.name);
      if (v) return v.path;
    }
    return this.exprPaths.get(e.id) ?? [];
  }

  private typeOf(e: Expr): CelType | undefined {
    return this.checked.types.get(e.id);
  }

  private costIdent(id: number, name: string): U64Range {
    const v = this.peekLocal(name);
    if (v) {
      this.exprPaths.set(id, v.path);
    } else {
      this.exprPaths.set(id, [name]);
      const t = this.checked.types.get(id);
      if (t && !this.rootTypes.has(name)) this.rootTypes.set(name, t);
    }
    return FIXED_SELECT;
  }

  private costSelect(e: Extract<Expr, { kind: "select" }>): U64Range {
    if (e.testOnly) {
      // has(): the presence test (0 or 1) plus the operand; no cost for the field itself.
      return rAdd(this.presenceTestCost, this.cost(e.operand));
    }
    let sum = this.cost(e.operand);
    const t = this.typeOf(e.operand);
    if (t && (t.kind === "map" || t.kind === "object" || t.kind === "typeParam")) sum = rAdd(sum, FIXED_SELECT);
    this.exprPaths.set(e.id, [...this.getPath(e.operand), e.field]);
    return sum;
  }

  // -------------------------------------------------------------- sizes

  private setSize(e: Expr, size: U64Range | undefined): void {
    if (size) this.computedSizes.set(e.id, size);
  }

  private setEntrySize(e: Expr, size: EntrySize | undefined): void {
    if (size) this.computedEntrySizes.set(e.id, size);
  }

  private computeSize(e: Expr): U64Range | undefined {
    const known = this.computedSizes.get(e.id);
    if (known) return known;
    const lit = e.kind === "const" ? literalSize(e.value) : e.kind === "list" ? u64Fixed(BigInt(e.elements.length)) : e.kind === "map" ? u64Fixed(BigInt(e.entries.length)) : undefined;
    if (lit) return lit;
    const t = this.typeOf(e);
    const est = this.estimateSize({ path: this.getPath(e), type: t, expr: e });
    if (est) {
      this.computedSizes.set(e.id, est);
      return est;
    }
    if (isScalar(t)) return U64_ONE;
    if (e.kind === "ident") {
      const v = this.peekLocal(e.name);
      if (v?.size) return v.size;
    }
    return undefined;
  }

  private sizeOrUnknown(e: Expr): U64Range {
    return this.computeSize(e) ?? U64_UNKNOWN;
  }

  /** cel-go's CostEstimator.EstimateSize: the caller's hook, then the schema walk. */
  private estimateSize(node: SizeNode): U64Range | undefined {
    const hook = this.options.estimateSize?.(node);
    if (hook) return estimateToRange(hook);
    return this.schemaSize(node.path);
  }

  private schemaSize(path: readonly string[]): U64Range | undefined {
    if (path.length === 0) return undefined;
    const root = this.options.sizeRoot;
    let t: CelType | undefined = root ?? this.rootTypes.get(path[0]!);
    if (!t) return undefined;
    for (let i = 1; i < path.length && t; i++) t = stepInto(t, path[i]!);
    if (!t) return undefined;
    const maxSize = "maxSize" in t ? t.maxSize : undefined;
    if (maxSize === undefined) return root ? U64_ZERO : undefined;
    return { min: 0n, max: BigInt(Math.max(0, Math.floor(maxSize))) };
  }

  private computeEntrySize(e: Expr): EntrySize | undefined {
    const known = this.computedEntrySizes.get(e.id);
    if (known) return known;
    if (e.kind === "ident") return this.peekLocal(e.name)?.entrySize;
    return undefined;
  }

  private node(e: Expr): Node {
    let path = this.getPath(e);
    if (path.length > 0 && isAccumulator(path[0])) path = []; // only paths from root variables
    return { expr: e, path, type: this.typeOf(e), size: this.computeSize(e) };
  }

  private argEstimate(n: Node): ExactArg & { readonly path: readonly string[]; readonly elementSize?: U64Range } {
    const elementSize = n.type?.kind === "list" ? this.elementSize(n) : undefined;
    return {
      type: n.type ?? { kind: "dyn" },
      size: n.size ?? U64_UNKNOWN,
      constant: n.expr.kind === "const" ? n.expr.value : undefined,
      path: n.path,
      elementSize,
    };
  }

  /** Kubernetes' listElementNode + sizeEstimate: the element reached through `@items`. */
  private elementSize(n: Node): U64Range {
    if (n.type?.kind !== "list") return U64_UNKNOWN;
    const path = n.path.length ? [...n.path, "@items"] : [];
    return this.estimateSize({ path, type: n.type.elem, expr: undefined }) ?? U64_UNKNOWN;
  }

  // -------------------------------------------------------------- calls

  private costCall(e: CallExpr): U64Range {
    if (e.fn === "dyn" && e.args.length === 1 && !e.target) {
      // dyn() only switches type checking off: 1 plus its argument, sizes passed through.
      const argCost = this.cost(e.args[0]!);
      this.setSize(e, this.computeSize(e.args[0]!));
      this.setEntrySize(e, this.computeEntrySize(e.args[0]!));
      return rAdd(U64_ONE, argCost);
    }
    const argCosts: U64Range[] = [];
    const argNodes: Node[] = [];
    for (const a of e.args) {
      argCosts.push(this.cost(a));
      argNodes.push(this.node(a));
    }
    let overloadIds = this.checked.overloads.get(e.id);
    if (!overloadIds || overloadIds.length === 0) {
      const op = operatorIds[e.fn];
      if (!op) return U64_ZERO;
      overloadIds = [op];
    }
    const decls = overloadIds.map((id) => findDecl(this.libraries, id));
    let sum = U64_ZERO;
    let target: Node | undefined;
    // A target that only names a namespace (`optional.none()`, `strings.quote(s)`) is no receiver.
    const namespaced = e.target !== undefined && decls.length > 0 && decls.every((d) => d !== undefined && !d.member);
    if (e.target && !namespaced) {
      sum = rAdd(sum, this.cost(e.target));
      target = this.node(e.target);
    }
    let fnCost: U64Range = { min: MAX_U64, max: 0n };
    let resultSize: U64Range | undefined;
    overloadIds.forEach((id, i) => {
      const call = this.functionCost(e, id, decls[i], target, argNodes, argCosts);
      fnCost = rUnion(fnCost, call.cost);
      if (call.resultSize) resultSize = resultSize ? rUnion(resultSize, call.resultSize) : call.resultSize;
      if (id === "index_list" || id === "index_map") {
        if (e.args.length > 0) {
          resultSize = this.computeEntrySize(e.args[0]!)?.val;
          this.exprPaths.set(e.id, [...this.getPath(e.args[0]!), id === "index_list" ? "@items" : "@values"]);
        }
      }
      if (!resultSize) resultSize = this.computeSize(e);
    });
    this.setSize(e, resultSize);
    return rAdd(sum, fnCost);
  }

  private functionCost(
    e: CallExpr,
    overloadId: string,
    decl: OverloadDecl | undefined,
    target: Node | undefined,
    args: readonly Node[],
    argCosts: readonly U64Range[],
  ): ExactCall {
    let argSum = U64_ZERO;
    for (const c of argCosts) argSum = rAdd(argSum, c);

    // The operators whose cost is built from their operands' costs.
    switch (overloadId) {
      case "logical_and":
      case "logical_or": {
        // min: the left side alone (short circuit); max: both sides.
        const lhs = argCosts[0] ?? U64_ZERO;
        const rhs = argCosts[1] ?? U64_ZERO;
        return { cost: { min: lhs.min, max: u64Add(lhs.max, rhs.max) } };
      }
      case "conditional": {
        if (args.length !== 3) break;
        const size = rUnion(args[1]!.size ?? U64_UNKNOWN, args[2]!.size ?? U64_UNKNOWN);
        this.setEntrySize(e, unionEntry(this.computeEntrySize(args[1]!.expr), this.computeEntrySize(args[2]!.expr)));
        return { cost: rAdd(argCosts[0]!, rUnion(argCosts[1]!, argCosts[2]!)), resultSize: size };
      }
      case "add_string":
      case "add_bytes":
      case "add_list":
        if (args.length === 2) {
          const entry = unionEntry(this.computeEntrySize(args[0]!.expr), this.computeEntrySize(args[1]!.expr));
          this.setEntrySize(e, entry);
        }
        break;
    }

    const all = target ? [target, ...args] : args;
    let exactArgs: ReturnType<Coster["argEstimate"]>[] | undefined;
    const getArgs = () => (exactArgs ??= all.map((n) => this.argEstimate(n)));

    const hook = this.options.estimateCallCost;
    if (hook) {
      const r = hook(e.fn, overloadId, getArgs().map(toPublicArg), target !== undefined);
      if (r) return withArgs(fromCallEstimate(r), argSum);
    }
    for (const c of [decl?.cost, stdCallCosts.get(overloadId)]) {
      if (!c) continue;
      if (isExactCost(c)) {
        const r = c[exactEstimate](getArgs());
        if (r) return withArgs(r, argSum);
      } else if (c.estimate) {
        return withArgs(fromCallEstimate(c.estimate(getArgs().map(toPublicArg))), argSum);
      }
    }
    return { cost: rAdd(U64_ONE, argSum) };
  }

  // -------------------------------------------------------------- literals

  private costCreateList(e: Extract<Expr, { kind: "list" }>): U64Range {
    let sum = U64_ZERO;
    let itemSize: U64Range = e.elements.length === 0 ? U64_ZERO : EMPTY_UNION_START;
    for (const el of e.elements) {
      sum = rAdd(sum, this.cost(el));
      itemSize = rUnion(itemSize, this.sizeOrUnknown(el));
    }
    this.setEntrySize(e, { container: "list", key: U64_ONE, val: itemSize });
    return rAdd(sum, this.listBase);
  }

  private costCreateMap(e: Extract<Expr, { kind: "map" }>): U64Range {
    let sum = U64_ZERO;
    let keySize: U64Range = e.entries.length === 0 ? U64_ZERO : EMPTY_UNION_START;
    let valSize: U64Range = keySize;
    for (const ent of e.entries) {
      sum = rAdd(sum, this.cost(ent.key));
      sum = rAdd(sum, this.cost(ent.value));
      keySize = rUnion(keySize, this.sizeOrUnknown(ent.key));
      valSize = rUnion(valSize, this.sizeOrUnknown(ent.value));
    }
    this.setEntrySize(e, { container: "map", key: keySize, val: valSize });
    return rAdd(sum, MAP_BASE);
  }

  // -------------------------------------------------------------- comprehensions

  private isBind(e: ComprehensionExpr): boolean {
    return (
      e.iterRange.kind === "list" &&
      e.iterRange.elements.length === 0 &&
      e.loopCondition.kind === "const" &&
      e.loopCondition.value === false &&
      e.accuVar !== accumulatorName
    );
  }

  private costBind(e: ComprehensionExpr): U64Range {
    // cel.bind is lazy: the cost of its (empty) range stays, then the binding and the body.
    let sum = this.cost(e.iterRange);
    sum = rAdd(sum, this.cost(e.accuInit));
    this.pushLocalVar(e.accuVar, e.accuInit);
    sum = rAdd(sum, this.cost(e.result));
    this.popLocal(e.accuVar);
    this.setSize(e, this.computeSize(e.result));
    this.setEntrySize(e, this.computeEntrySize(e.result));
    return sum;
  }

  private pushLocalVar(name: string, e: Expr): void {
    this.pushLocal(name, { path: this.getPath(e), size: this.computeSize(e), entrySize: this.computeEntrySize(e) });
  }

  private containerOf(range: Expr, entry: EntrySize | undefined): Container {
    if (entry) return entry.container;
    const k = this.typeOf(range)?.kind;
    return k === "list" ? "list" : k === "map" ? "map" : "other";
  }

  private costComprehension(e: ComprehensionExpr): U64Range {
    let sum = this.cost(e.iterRange);
    sum = rAdd(sum, this.cost(e.accuInit));
    this.pushLocalVar(e.accuVar, e.accuInit);

    const entry = this.computeEntrySize(e.iterRange);
    const container = this.containerOf(e.iterRange, entry);
    const rangePath = this.getPath(e.iterRange);
    if (e.iterVar2 !== undefined) {
      this.pushLocal(e.iterVar, {
        path: [...rangePath, container === "list" ? "@indices" : "@keys"],
        size: entry?.key,
        entrySize: undefined,
      });
      this.pushLocal(e.iterVar2, {
        path: [...rangePath, container === "list" ? "@items" : "@values"],
        size: entry?.val,
        entrySize: undefined,
      });
    } else {
      this.pushLocal(e.iterVar, {
        path: [...rangePath, container === "list" ? "@items" : "@keys"],
        size: container === "list" ? entry?.val : entry?.key,
        entrySize: undefined,
      });
    }

    const loopCost = this.cost(e.loopCondition);
    const stepCost = this.cost(e.loopStep);

    this.popLocal(e.iterVar);
    if (e.iterVar2 !== undefined) this.popLocal(e.iterVar2);

    sum = rAdd(sum, this.cost(e.result));
    this.popLocal(e.accuVar);

    const rangeCnt = this.sizeOrUnknown(e.iterRange);
    const perIteration = rAdd(stepCost, loopCost);
    sum = rAdd(sum, { min: mulU(rangeCnt.min, perIteration.min), max: mulU(rangeCnt.max, perIteration.max) });

    switch (e.accuInit.kind) {
      case "const":
        this.setSize(e, this.computeSize(e.accuInit));
        break;
      case "list":
      case "map": {
        this.setSize(e, rangeCnt);
        this.setEntrySize(e, this.computeEntrySize(e.loopStep));
        break;
      }
    }
    return sum;
  }
}

function mulU(a: bigint, b: bigint): bigint {
  const p = a * b;
  return p > MAX_U64 ? MAX_U64 : p;
}

function stepInto(t: CelType, step: string): CelType | undefined {
  switch (step) {
    case "@items":
    case "@values":
      return t.kind === "list" ? t.elem : t.kind === "map" ? t.value : undefined;
    case "@keys":
      return t.kind === "map" ? t.key : undefined;
    default:
      return t.kind === "object" ? t.fields.get(step)?.type : undefined;
  }
}

function unionEntry(a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined {
  if (!a || !b) return undefined;
  return { container: a.container, key: rUnion(a.key, b.key), val: rUnion(a.val, b.val) };
}

function withArgs(r: ExactCall, argSum: U64Range): ExactCall {
  return r.resultSize ? { cost: rAdd(r.cost, argSum), resultSize: r.resultSize } : { cost: rAdd(r.cost, argSum) };
}

function fromCallEstimate(r: CallEstimate): ExactCall {
  const cost = estimateToRange(r.cost);
  return r.resultSize ? { cost, resultSize: estimateToRange(r.resultSize) } : { cost };
}

function toPublicArg(a: ExactArg & { readonly path: readonly string[]; readonly elementSize?: U64Range }): ArgEstimateEx {
  const base = { type: a.type, size: rangeToEstimate(a.size), path: a.path };
  const withConst = a.constant !== undefined ? { ...base, constant: a.constant } : base;
  return a.elementSize ? { ...withConst, elementSize: rangeToEstimate(a.elementSize) } : withConst;
}
