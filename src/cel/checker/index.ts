// kapi's CEL type checker, behaving as cel-go's (checker/checker.go, checker/env.go): resolves
// identifiers (also qualified names read through select chains), types every node, resolves
// overloads with type-parameter unification, types comprehensions (also two-variable ones),
// list/map literals and the optional syntax, and reports cel-go's messages. Kubernetes' AST
// validators (homogeneous aggregate literals, duration/timestamp/regex literals, ext strings'
// format validation) run after a clean check, as cel-go runs them after checking; a constant
// find/findAll pattern that does not compile is kept as the checked expression's programError.
import type {
  CallExpr,
  CheckedExpr,
  ComprehensionExpr,
  Expr,
  ListExpr,
  MapExpr,
  ParsedExpr,
  SelectExpr,
  StructExpr,
} from "../ast.js";
import type { CelLibrary, FunctionDecl, OverloadDecl } from "../library.js";
import { CelCompileError, type CelIssue } from "../source.js";
import {
  BoolType,
  BytesType,
  DoubleType,
  DynType,
  ErrorType,
  IntType,
  NullType,
  StringType,
  UintType,
  optionalOf,
  listOf,
  mapOf,
  typeParam,
  type CelType,
  type ObjectType,
} from "../types.js";
import { CelUint } from "../value.js";
import { escapePropertyName, unescapePropertyName } from "../escaping.js";
import {
  assignable,
  assignableList,
  formatCallSignature,
  formatCheckerType,
  instantiate,
  isDyn,
  isDynOrError,
  isExactType,
  mostGeneral,
  substitute,
  type Mapping,
} from "./types.js";
import { regexProgramError, runValidators } from "./validators.js";

export { formatCheckerType } from "./types.js";

export interface CheckerEnvOptions {
  readonly variables: Readonly<Record<string, CelType>>;
  readonly libraries: readonly CelLibrary[];
  /** Object types constructible with `Name{...}` besides those reachable from the variables. */
  readonly objectTypes?: readonly ObjectType[];
  /** Object types constructible by a name no variable reaches (`Object.spec.template` of MutatingAdmissionPolicy). */
  readonly structTypes?: (name: string) => ObjectType | undefined;
  /**
   * Kubernetes' `cel.HomogeneousAggregateLiterals()` validator: list and map literals whose
   * elements differ in type are refused. Default true (every Kubernetes environment has it).
   */
  readonly homogeneousAggregateLiterals?: boolean;
  /** Functions whose arguments are exempt from the homogeneity check; default `["format"]` (ext.Strings v2). */
  readonly homogeneousExemptFunctions?: readonly string[];
  /** cel-go's duration/timestamp/regex literal validators (Kubernetes ≥ 1.29). Default true. */
  readonly validateLiterals?: boolean;
}

/** What the checker needs of an environment, built once (createCheckerEnv) and shared by every check. */
export interface CheckerEnv {
  /** Declared variables and library constants by name. */
  readonly idents: ReadonlyMap<string, CelType>;
  /** Functions by name, overloads of every library merged (first declaration of an id wins). */
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  /** Object types by name, for `Name{field: value}`. */
  readonly objectTypes: ReadonlyMap<string, ObjectType>;
  readonly structTypes?: (name: string) => ObjectType | undefined;
  readonly homogeneousAggregateLiterals: boolean;
  readonly homogeneousExemptFunctions: readonly string[];
  readonly validateLiterals: boolean;
}

export function createCheckerEnv(options: CheckerEnvOptions): CheckerEnv {
  const idents = new Map<string, CelType>();
  const functions = new Map<string, { name: string; overloads: OverloadDecl[]; ids: Set<string> }>();
  const objectTypes = new Map<string, ObjectType>();
  for (const lib of options.libraries) {
    for (const c of lib.constants ?? []) if (!idents.has(c.name)) idents.set(c.name, c.type);
    for (const fn of lib.functions) {
      let merged = functions.get(fn.name);
      if (!merged) functions.set(fn.name, (merged = { name: fn.name, overloads: [], ids: new Set() }));
      for (const o of fn.overloads) {
        if (merged.ids.has(o.id)) continue;
        merged.ids.add(o.id);
        merged.overloads.push(o);
      }
    }
  }
  for (const [name, type] of Object.entries(options.variables)) {
    idents.set(name, type);
    collectObjectTypes(type, objectTypes);
  }
  for (const t of options.objectTypes ?? []) collectObjectTypes(t, objectTypes);
  for (const t of idents.values()) if (t.kind === "type" && t.of) collectObjectTypes(t.of, objectTypes);
  return {
    idents,
    functions: new Map([...functions].map(([k, v]) => [k, { name: v.name, overloads: v.overloads }])),
    objectTypes,
    structTypes: options.structTypes,
    homogeneousAggregateLiterals: options.homogeneousAggregateLiterals ?? true,
    homogeneousExemptFunctions: options.homogeneousExemptFunctions ?? ["format"],
    validateLiterals: options.validateLiterals ?? true,
  };
}

function collectObjectTypes(t: CelType, into: Map<string, ObjectType>, seen = new Set<CelType>()): void {
  if (seen.has(t)) return;
  seen.add(t);
  switch (t.kind) {
    case "object":
      if (!into.has(t.name)) into.set(t.name, t);
      for (const f of t.fields.values()) collectObjectTypes(f.type, into, seen);
      return;
    case "list":
      return collectObjectTypes(t.elem, into, seen);
    case "map":
      collectObjectTypes(t.key, into, seen);
      return collectObjectTypes(t.value, into, seen);
    case "optional":
      return collectObjectTypes(t.of, into, seen);
  }
}

/** CEL name of each field → the schema's property name, per object type (escaping resolved once). */
const fieldNameCache = new WeakMap<ObjectType, Map<string, string>>();

/** The schema property a CEL field name reaches on an object type, honouring Kubernetes' escaping. */
/** The type of a field resolveFieldName found. */
export function objectFieldType(t: ObjectType, prop: string): CelType {
  return t.fields.get(prop)?.type ?? t.openFields ?? DynType;
}

export function resolveFieldName(t: ObjectType, celName: string): string | undefined {
  if (t.openFields && !t.fields.has(celName)) return celName;
  if (!t.escapedFieldNames) return t.fields.has(celName) ? celName : undefined;
  let names = fieldNameCache.get(t);
  if (!names) {
    names = new Map();
    for (const prop of t.fields.keys()) {
      const escaped = escapePropertyName(prop);
      if (escaped !== undefined) names.set(escaped, prop);
    }
    fieldNameCache.set(t, names);
  }
  return names.get(celName);
}

const logicalOperators = new Set(["_&&_", "_||_"]);
const maxIssues = 100;

/** Type-checks a parsed expression; throws CelCompileError with every issue, sorted by position. */
export function check(parsed: ParsedExpr, env: CheckerEnv): CheckedExpr {
  const c = new Checker(parsed, env);
  const expr = c.check(parsed.expr);
  const types = new Map<number, CelType>();
  for (const [id, t] of c.types) types.set(id, substitute(c.mapping, t, true));
  if (c.issues.length === 0) runValidators(expr, types, c.overloads, parsed, env, c.issues);
  if (c.issues.length > 0) {
    const issues = c.issues
      .map((issue, i) => ({ issue, i }))
      .sort((a, b) => a.issue.offset - b.issue.offset || a.i - b.i)
      .slice(0, maxIssues)
      .map((x) => x.issue);
    throw new CelCompileError(parsed.source, issues);
  }
  const programError = regexProgramError(expr, c.overloads);
  return {
    parsed,
    expr,
    types,
    overloads: c.overloads,
    references: c.references,
    resultType: types.get(expr.id) ?? DynType,
    ...(programError !== undefined ? { programError } : {}),
  };
}

class Checker {
  readonly types = new Map<number, CelType>();
  readonly overloads = new Map<number, readonly string[]>();
  readonly references = new Map<number, string>();
  readonly issues: CelIssue[] = [];
  mapping: Mapping = new Map();
  private freeTypeVars = 0;
  private readonly scopes: Map<string, CelType>[] = [];

  constructor(
    private readonly parsed: ParsedExpr,
    private readonly env: CheckerEnv,
  ) {}

  private error(id: number, message: string): void {
    this.issues.push({ offset: this.parsed.positions.get(id) ?? 0, message });
  }

  private undeclared(id: number, name: string): void {
    this.error(id, `undeclared reference to '${name}' (in container '')`);
  }

  private typeMismatch(id: number, expected: CelType, actual: CelType): void {
    this.error(id, `expected type '${formatCheckerType(expected)}' but found '${formatCheckerType(actual)}'`);
  }

  private setType(id: number, t: CelType): void {
    this.types.set(id, t);
  }

  private typeOf(e: Expr): CelType {
    return this.types.get(e.id) ?? ErrorType;
  }

  private newTypeVar(): CelType {
    return typeParam(`_var${this.freeTypeVars++}`);
  }

  private isAssignable(t1: CelType, t2: CelType): boolean {
    const m = assignable(this.mapping, t1, t2);
    if (m) this.mapping = m;
    return m !== undefined;
  }

  private lookupLocal(name: string): CelType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(name);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  /** cel-go resolveSimpleIdent: the resolved name (dot-prefixed when a local shadows it) and type. */
  private resolveSimple(name: string): { name: string; type: CelType } | undefined {
    const local = this.lookupLocal(name);
    if (local !== undefined && !name.startsWith(".")) return { name, type: local };
    const candidate = name.startsWith(".") ? name.slice(1) : name;
    const global = this.globalIdent(candidate);
    if (global === undefined) return undefined;
    const shadowed = this.lookupLocal(candidate) !== undefined || local !== undefined;
    return { name: shadowed ? "." + candidate : candidate, type: global };
  }

  private resolveQualified(qualifiers: readonly string[]): { name: string; type: CelType } | undefined {
    if (qualifiers.length === 1) return this.resolveSimple(qualifiers[0]!);
    const first = qualifiers[0]!;
    if (!first.startsWith(".") && this.lookupLocal(first) !== undefined) return undefined;
    const joined = qualifiers.join(".");
    const candidate = joined.startsWith(".") ? joined.slice(1) : joined;
    const global = this.globalIdent(candidate);
    if (global === undefined) return undefined;
    const shadowed = this.lookupLocal(candidate.split(".")[0]!) !== undefined;
    return { name: shadowed ? "." + candidate : candidate, type: global };
  }

  private globalIdent(name: string): CelType | undefined {
    const t = this.env.idents.get(name);
    if (t !== undefined) return t;
    const obj = this.env.objectTypes.get(name);
    return obj ? { kind: "type", of: obj } : undefined;
  }

  check(e: Expr): Expr {
    switch (e.kind) {
      case "const":
        this.setType(e.id, constType(e.value));
        return e;
      case "ident": {
        const r = this.resolveSimple(e.name);
        if (r) {
          this.setType(e.id, r.type);
          this.references.set(e.id, r.name);
          return r.name === e.name ? e : { id: e.id, kind: "ident", name: r.name };
        }
        this.setType(e.id, ErrorType);
        this.undeclared(e.id, e.name);
        return e;
      }
      case "select":
        return this.checkSelect(e);
      case "call":
        return this.checkCall(e);
      case "list":
        return this.checkList(e);
      case "map":
        return this.checkMap(e);
      case "struct":
        return this.checkStruct(e);
      case "comprehension":
        return this.checkComprehension(e);
    }
  }

  private checkSelect(e: SelectExpr): Expr {
    const qualifiers = qualifiedName(e);
    if (qualifiers) {
      const r = this.resolveQualified(qualifiers);
      if (r) {
        this.setType(e.id, r.type);
        this.references.set(e.id, r.name);
        return { id: e.id, kind: "ident", name: r.name };
      }
    }
    const { operand, type, field } = this.checkSelectField(e.id, e.operand, e.field, false);
    this.setType(e.id, e.testOnly ? BoolType : substitute(this.mapping, type, false));
    return operand === e.operand && field === e.field
      ? e
      : { id: e.id, kind: "select", operand, field, testOnly: e.testOnly };
  }

  /** Field selection on the operand's type; `field` in the result is the schema's property name. */
  private checkSelectField(
    id: number,
    operandExpr: Expr,
    fieldName: string,
    optional: boolean,
  ): { operand: Expr; type: CelType; field: string } {
    const operand = this.check(operandExpr);
    const operandType = substitute(this.mapping, this.typeOf(operand), false);
    const isOpt = operandType.kind === "optional";
    const target = isOpt ? operandType.of : operandType;
    let result: CelType = ErrorType;
    let field = fieldName;
    switch (target.kind) {
      case "map":
        result = target.value;
        break;
      case "object": {
        const prop = resolveFieldName(target, fieldName);
        if (prop !== undefined) {
          result = objectFieldType(target, prop);
          field = prop;
        } else this.error(id, `undefined field '${fieldName}'`);
        break;
      }
      case "typeParam":
        this.isAssignable(DynType, target);
        result = DynType;
        break;
      default:
        if (!isDynOrError(target)) this.error(id, `type '${formatCheckerType(target)}' does not support field selection`);
        result = DynType;
    }
    return { operand, type: isOpt || optional ? optionalOf(result) : result, field };
  }

  private checkOptSelect(e: CallExpr): Expr {
    if (e.args.length !== 2 || e.target) {
      const how = e.target ? " member call with" : "";
      this.error(e.id, `unsupported optional field selection: incorrect signature.${how} argument count: ${e.args.length}`);
      this.setType(e.id, ErrorType);
      return e;
    }
    const fieldArg = e.args[1]!;
    if (fieldArg.kind !== "const" || typeof fieldArg.value !== "string") {
      this.error(fieldArg.id, `unsupported optional field selection: ${describeExpr(fieldArg)}`);
      this.setType(e.id, ErrorType);
      return e;
    }
    const { operand, type, field } = this.checkSelectField(e.id, e.args[0]!, fieldArg.value, true);
    this.setType(e.id, substitute(this.mapping, type, false));
    this.setType(fieldArg.id, StringType);
    this.overloads.set(e.id, ["select_optional_field"]);
    const newField = field === fieldArg.value ? fieldArg : { ...fieldArg, value: field };
    return operand === e.args[0] && newField === fieldArg ? e : { ...e, args: [operand, newField] };
  }

  private checkCall(e: CallExpr): Expr {
    if (e.fn === "_?._") return this.checkOptSelect(e);
    const args = e.args.map((a) => this.check(a));
    const changedArgs = args.some((a, i) => a !== e.args[i]);
    if (!e.target) {
      const fn = this.env.functions.get(e.fn);
      if (!fn) {
        this.undeclared(e.id, e.fn);
        this.setType(e.id, ErrorType);
        return changedArgs ? { ...e, args } : e;
      }
      this.resolveOverloadOrError(e.id, fn, undefined, args);
      return changedArgs ? { ...e, args } : e;
    }
    // `a.b.f(x)`: a namespaced function `a.b.f` wins over a member call on `a.b`.
    const prefix = qualifiedNameOf(e.target);
    if (prefix !== undefined) {
      const fn = this.env.functions.get(`${prefix}.${e.fn}`);
      if (fn) {
        this.resolveOverloadOrError(e.id, fn, undefined, args);
        return { id: e.id, kind: "call", fn: fn.name, args };
      }
    }
    const target = this.check(e.target);
    const fn = this.env.functions.get(e.fn);
    if (fn) this.resolveOverloadOrError(e.id, fn, target, args);
    else {
      this.setType(e.id, ErrorType);
      this.undeclared(e.id, e.fn);
    }
    return changedArgs || target !== e.target ? { ...e, target, args } : e;
  }

  private resolveOverloadOrError(id: number, fn: FunctionDecl, target: Expr | undefined, args: readonly Expr[]): void {
    const argTypes: CelType[] = [];
    if (target) argTypes.push(this.typeOf(target));
    for (const a of args) argTypes.push(this.typeOf(a));
    let resultType: CelType | undefined;
    const ids: string[] = [];
    for (const o of fn.overloads) {
      if ((target === undefined) === o.member) continue;
      if (logicalOperators.has(fn.name)) {
        let failed = false;
        argTypes.forEach((t, i) => {
          if (!this.isAssignable(t, BoolType)) {
            this.typeMismatch(args[i]!.id, BoolType, t);
            failed = true;
          }
        });
        if (failed) {
          this.setType(id, ErrorType);
          return;
        }
        this.setType(id, BoolType);
        this.overloads.set(id, [o.id]);
        return;
      }
      let params = o.params;
      let result = o.result;
      if (o.typeParams?.length) {
        const fresh = new Map<string, CelType>();
        for (const p of o.typeParams) fresh.set(p, this.newTypeVar());
        params = params.map((p) => instantiate(p, fresh));
        result = instantiate(result, fresh);
      }
      const m = assignableList(this.mapping, argTypes, params);
      if (!m) continue;
      this.mapping = m;
      ids.push(o.id);
      const fnResult = substitute(this.mapping, result, false);
      if (resultType === undefined) resultType = fnResult;
      else if (!isDyn(resultType) && !isExactType(fnResult, resultType)) resultType = DynType;
    }
    if (resultType === undefined) {
      const shown = argTypes.map((t) => substitute(this.mapping, t, true));
      this.error(id, `found no matching overload for '${fn.name}' applied to '${formatCallSignature(shown, target !== undefined)}'`);
      this.setType(id, ErrorType);
      return;
    }
    this.setType(id, resultType);
    this.overloads.set(id, ids);
  }

  private joinTypes(e: Expr, previous: CelType | undefined, current: CelType): CelType {
    if (previous === undefined) return current;
    if (this.isAssignable(previous, current)) return mostGeneral(previous, current);
    return DynType;
  }

  private checkList(e: ListExpr): Expr {
    const optional = new Set(e.optionalIndices);
    let elemsType: CelType | undefined;
    const elements = e.elements.map((el, i) => {
      const checked = this.check(el);
      let t = this.typeOf(checked);
      if (optional.has(i)) {
        if (t.kind === "optional") t = t.of;
        else if (!isDyn(t)) this.typeMismatch(el.id, optionalOf(t), t);
      }
      elemsType = this.joinTypes(checked, elemsType, t);
      return checked;
    });
    this.setType(e.id, listOf(elemsType ?? this.newTypeVar()));
    return elements.some((x, i) => x !== e.elements[i]) ? { ...e, elements } : e;
  }

  private checkMap(e: MapExpr): Expr {
    let keyType: CelType | undefined;
    let valueType: CelType | undefined;
    let changed = false;
    const entries = e.entries.map((entry) => {
      const key = this.check(entry.key);
      keyType = this.joinTypes(key, keyType, this.typeOf(key));
      const value = this.check(entry.value);
      let vt = this.typeOf(value);
      if (entry.optional) {
        if (vt.kind === "optional") vt = vt.of;
        else if (!isDyn(vt)) this.typeMismatch(value.id, optionalOf(vt), vt);
      }
      valueType = this.joinTypes(value, valueType, vt);
      if (key === entry.key && value === entry.value) return entry;
      changed = true;
      return { ...entry, key, value };
    });
    if (keyType === undefined) {
      keyType = this.newTypeVar();
      valueType = this.newTypeVar();
    }
    this.setType(e.id, mapOf(keyType, valueType!));
    return changed ? { ...e, entries } : e;
  }

  private checkStruct(e: StructExpr): Expr {
    const name = e.typeName.startsWith(".") ? e.typeName.slice(1) : e.typeName;
    const objType = this.env.objectTypes.get(name) ?? this.env.structTypes?.(name);
    let declared: CelType | undefined = objType;
    if (!declared) {
      const t = this.env.idents.get(name);
      if (t !== undefined) declared = t.kind === "type" && t.of ? t.of : undefined;
      if (t !== undefined && t.kind !== "type") {
        this.error(e.id, `'${formatCheckerType(t)}' is not a type`);
        declared = ErrorType;
      }
    }
    if (!declared) {
      this.undeclared(e.id, e.typeName);
      this.setType(e.id, ErrorType);
      return e;
    }
    this.references.set(e.id, name);
    let resultType: CelType = declared;
    if (declared.kind !== "object" && declared.kind !== "error") {
      this.error(e.id, `'${formatCheckerType(declared)}' is not a message type`);
      resultType = ErrorType;
    }
    this.setType(e.id, resultType);
    let changed = false;
    const fields = e.fields.map((f) => {
      const value = this.check(f.value);
      let fieldType: CelType = ErrorType;
      let fieldName = f.name;
      if (resultType.kind === "object") {
        const prop = resolveFieldName(resultType, f.name);
        if (prop !== undefined) {
          fieldType = objectFieldType(resultType, prop);
          fieldName = prop;
        } else this.error(f.id, `undefined field '${f.name}'`);
      }
      let vt = this.typeOf(value);
      if (f.optional) {
        if (vt.kind === "optional") vt = vt.of;
        else if (!isDyn(vt)) this.typeMismatch(value.id, optionalOf(vt), vt);
      }
      if (!this.isAssignable(fieldType, vt)) {
        this.error(
          f.id,
          `expected type of field '${f.name}' is '${formatCheckerType(fieldType)}' but provided type is '${formatCheckerType(vt)}'`,
        );
      }
      if (value === f.value && fieldName === f.name) return f;
      changed = true;
      return { ...f, name: fieldName, value };
    });
    return changed ? { ...e, fields } : e;
  }

  private checkComprehension(e: ComprehensionExpr): Expr {
    const iterRange = this.check(e.iterRange);
    const accuInit = this.check(e.accuInit);
    const rangeType = substitute(this.mapping, this.typeOf(iterRange), false);
    const accuType = this.typeOf(accuInit);
    this.scopes.push(new Map([[e.accuVar, accuType]]));
    const two = e.iterVar2 !== undefined;
    let varType: CelType;
    let var2Type: CelType | undefined;
    switch (rangeType.kind) {
      case "list":
        varType = two ? IntType : rangeType.elem;
        if (two) var2Type = rangeType.elem;
        break;
      case "map":
        varType = rangeType.key;
        if (two) var2Type = rangeType.value;
        break;
      case "dyn":
      case "error":
      case "typeParam":
        this.isAssignable(DynType, rangeType);
        varType = DynType;
        if (two) var2Type = DynType;
        break;
      default:
        this.error(
          iterRange.id,
          `expression of type '${formatCheckerType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
        varType = ErrorType;
        if (two) var2Type = ErrorType;
    }
    const loopScope = new Map<string, CelType>([[e.iterVar, varType]]);
    if (two) loopScope.set(e.iterVar2!, var2Type!);
    this.scopes.push(loopScope);
    const loopCondition = this.check(e.loopCondition);
    this.assertType(loopCondition, BoolType);
    const loopStep = this.check(e.loopStep);
    this.assertType(loopStep, accuType);
    this.scopes.pop();
    const result = this.check(e.result);
    this.scopes.pop();
    this.setType(e.id, substitute(this.mapping, this.typeOf(result), false));
    return iterRange === e.iterRange &&
      accuInit === e.accuInit &&
      loopCondition === e.loopCondition &&
      loopStep === e.loopStep &&
      result === e.result
      ? e
      : { ...e, iterRange, accuInit, loopCondition, loopStep, result };
  }

  private assertType(e: Expr, t: CelType): void {
    const actual = this.typeOf(e);
    if (!this.isAssignable(t, actual)) this.typeMismatch(e.id, t, actual);
  }
}

function constType(v: unknown): CelType {
  switch (typeof v) {
    case "boolean":
      return BoolType;
    case "bigint":
      return IntType;
    case "number":
      return DoubleType;
    case "string":
      return StringType;
  }
  if (v === null) return NullType;
  if (v instanceof Uint8Array) return BytesType;
  if (v instanceof CelUint) return UintType;
  return DynType;
}

/** `a.b.c` as [a, b, c] when the chain is idents and non-test selects only (cel-go computeQualifiers). */
function qualifiedName(e: SelectExpr): string[] | undefined {
  const parts: string[] = [];
  let cur: Expr = e;
  while (cur.kind === "select") {
    if (cur.testOnly) return undefined;
    parts.push(cur.field);
    cur = cur.operand;
  }
  if (cur.kind !== "ident") return undefined;
  parts.push(cur.name);
  return parts.reverse();
}

/** cel-go containers.ToQualifiedName: `a.b.c` as a dotted string, or undefined. */
function qualifiedNameOf(e: Expr): string | undefined {
  if (e.kind === "ident") return e.name;
  if (e.kind === "select" && !e.testOnly) {
    const prefix = qualifiedNameOf(e.operand);
    return prefix === undefined ? undefined : `${prefix}.${e.field}`;
  }
  return undefined;
}

/** How cel-go prints an expression in "unsupported optional field selection" (%v of the node; approximate). */
function describeExpr(e: Expr): string {
  return `${e.kind}(${e.id})`;
}
