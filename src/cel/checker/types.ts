// Type relations of cel-go's checker (checker/types.go, common/types/types.go): assignability
// with type-parameter substitution, "most general" of two unifiable types, the occurs check,
// substitution, and the type names the checker prints in its messages.
import { DynType, type CelType } from "../types.js";

/** Type parameter name → its current substitution. Copied before a tentative unification. */
export type Mapping = Map<string, CelType>;

/** cel-go's kind of a type; optional_type is an opaque type there. */
type Kind = CelType["kind"];
function kindOf(t: CelType): Kind {
  return t.kind === "optional" ? "opaque" : t.kind;
}

/** cel-go's TypeName: the name without parameters. */
function typeName(t: CelType): string {
  switch (t.kind) {
    case "optional":
      return "optional_type";
    case "opaque":
    case "object":
    case "typeParam":
      return t.name;
    default:
      return t.kind;
  }
}

const noParams: readonly CelType[] = [];

export function typeParams(t: CelType): readonly CelType[] {
  switch (t.kind) {
    case "list":
      return [t.elem];
    case "map":
      return [t.key, t.value];
    case "optional":
      return [t.of];
    case "type":
      return t.of ? [t.of] : noParams;
    case "opaque":
      return t.params;
    default:
      return noParams;
  }
}

/** Same type, size bounds aside; type parameter names compared when `checkParamNames`. */
export function isExactType(a: CelType, b: CelType, checkParamNames = true): boolean {
  if (a === b) return true;
  if (kindOf(a) !== kindOf(b)) return false;
  const pa = typeParams(a);
  const pb = typeParams(b);
  if (pa.length !== pb.length) return false;
  if ((checkParamNames || a.kind !== "typeParam") && typeName(a) !== typeName(b)) return false;
  for (let i = 0; i < pa.length; i++) if (!isExactType(pa[i]!, pb[i]!, checkParamNames)) return false;
  return true;
}

export const isDyn = (t: CelType): boolean => t.kind === "dyn" || t.kind === "any";
export const isDynOrError = (t: CelType): boolean => isDyn(t) || t.kind === "error";

/** cel-go Type.IsAssignableType: can a value of `from` be used where `to` is expected (no substitution). */
function isAssignableType(to: CelType, from: CelType): boolean {
  if (to === from || to.kind === "dyn" || to.kind === "any" || to.kind === "typeParam") return true;
  if (kindOf(to) !== kindOf(from) || typeName(to) !== typeName(from)) return false;
  const pt = typeParams(to);
  const pf = typeParams(from);
  if (pt.length !== pf.length) return false;
  for (let i = 0; i < pt.length; i++) if (!isAssignableType(pt[i]!, pf[i]!)) return false;
  return true;
}

function isEqualOrLessSpecific(t1: CelType, t2: CelType): boolean {
  if (isDyn(t1) || t1.kind === "typeParam") return true;
  if (isDyn(t2) || t2.kind === "typeParam") return false;
  const k1 = kindOf(t1);
  if (k1 !== kindOf(t2)) return false;
  switch (k1) {
    case "opaque": {
      const p1 = typeParams(t1);
      const p2 = typeParams(t2);
      if (typeName(t1) !== typeName(t2) || p1.length !== p2.length) return false;
      return p1.every((p, i) => isEqualOrLessSpecific(p, p2[i]!));
    }
    case "list":
    case "map": {
      const p2 = typeParams(t2);
      return typeParams(t1).every((p, i) => isEqualOrLessSpecific(p, p2[i]!));
    }
    case "type":
      return true;
    default:
      return isExactType(t1, t2);
  }
}

export function mostGeneral(t1: CelType, t2: CelType): CelType {
  return isEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

function isLegacyNullable(t: CelType): boolean {
  switch (kindOf(t)) {
    case "opaque":
    case "object":
    case "any":
    case "duration":
    case "timestamp":
      return true;
  }
  return false;
}

/** The occurs check: `t` (a type parameter) does not appear within `within`. */
function notReferencedIn(m: Mapping, t: CelType, within: CelType): boolean {
  if (isExactType(t, within)) return false;
  if (within.kind === "typeParam") {
    const sub = m.get(within.name);
    return sub === undefined ? true : notReferencedIn(m, t, sub);
  }
  for (const p of typeParams(within)) if (!notReferencedIn(m, t, p)) return false;
  return true;
}

function isValidTypeSubstitution(m: Mapping, t1: CelType, t2: CelType & { kind: "typeParam" }): [boolean, boolean] {
  if (kindOf(t1) === kindOf(t2) && isExactType(t1, t2)) return [true, true];
  const t2Sub = m.get(t2.name);
  if (t2Sub !== undefined) {
    if (kindOf(t1) === kindOf(t2Sub) && isExactType(t1, t2Sub)) return [true, true];
    if (internalIsAssignable(m, t1, t2Sub)) {
      const t2New = mostGeneral(t1, t2Sub);
      if (notReferencedIn(m, t2, t2New)) m.set(t2.name, t2New);
      return [true, true];
    }
    return [false, true];
  }
  if (notReferencedIn(m, t2, t1)) {
    m.set(t2.name, t1);
    return [true, false];
  }
  return [false, false];
}

function internalIsAssignable(m: Mapping, t1: CelType, t2: CelType): boolean {
  if (t2.kind === "typeParam") {
    const [valid, hasSub] = isValidTypeSubstitution(m, t1, t2);
    if (valid) return true;
    if (hasSub) return false;
  }
  if (t1.kind === "typeParam") return isValidTypeSubstitution(m, t2, t1)[0];
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (t1.kind === "null") return isLegacyNullable(t2) || isAssignableType(t2, t1);
  if (t2.kind === "null") return isLegacyNullable(t1) || isAssignableType(t1, t2);
  switch (kindOf(t1)) {
    case "type":
      return t2.kind === "type";
    case "opaque":
    case "list":
    case "map":
      return kindOf(t1) === kindOf(t2) && typeName(t1) === typeName(t2) && internalIsAssignableList(m, typeParams(t1), typeParams(t2));
    case "typeParam":
    case "error":
    case "dyn":
      return false;
    default:
      return isAssignableType(t2, t1);
  }
}

function internalIsAssignableList(m: Mapping, l1: readonly CelType[], l2: readonly CelType[]): boolean {
  if (l1.length !== l2.length) return false;
  for (let i = 0; i < l1.length; i++) if (!internalIsAssignable(m, l1[i]!, l2[i]!)) return false;
  return true;
}

/** The mapping extended so that `t1` is assignable to `t2`, or undefined. `m` is left alone. */
export function assignable(m: Mapping, t1: CelType, t2: CelType): Mapping | undefined {
  const copy = new Map(m);
  return internalIsAssignable(copy, t1, t2) ? copy : undefined;
}

export function assignableList(m: Mapping, l1: readonly CelType[], l2: readonly CelType[]): Mapping | undefined {
  const copy = new Map(m);
  return internalIsAssignableList(copy, l1, l2) ? copy : undefined;
}

/** Replaces bound type parameters (transitively); unbound ones become dyn when `toDyn`. */
export function substitute(m: Mapping, t: CelType, toDyn: boolean): CelType {
  switch (t.kind) {
    case "typeParam": {
      const sub = m.get(t.name);
      if (sub !== undefined) return substitute(m, sub, toDyn);
      return toDyn ? DynType : t;
    }
    case "list": {
      const elem = substitute(m, t.elem, toDyn);
      return elem === t.elem ? t : { ...t, elem };
    }
    case "map": {
      const key = substitute(m, t.key, toDyn);
      const value = substitute(m, t.value, toDyn);
      return key === t.key && value === t.value ? t : { ...t, key, value };
    }
    case "optional": {
      const of = substitute(m, t.of, toDyn);
      return of === t.of ? t : { kind: "optional", of };
    }
    case "type": {
      if (!t.of) return t;
      const of = substitute(m, t.of, toDyn);
      return of === t.of ? t : { kind: "type", of };
    }
    case "opaque": {
      if (t.params.length === 0) return t;
      const params = t.params.map((p) => substitute(m, p, toDyn));
      return params.every((p, i) => p === t.params[i]) ? t : { kind: "opaque", name: t.name, params };
    }
    default:
      return t;
  }
}

/** Replaces the named type parameters of a declaration by the given (fresh) types. */
export function instantiate(t: CelType, fresh: ReadonlyMap<string, CelType>): CelType {
  switch (t.kind) {
    case "typeParam":
      return fresh.get(t.name) ?? t;
    case "list":
      return { ...t, elem: instantiate(t.elem, fresh) };
    case "map":
      return { ...t, key: instantiate(t.key, fresh), value: instantiate(t.value, fresh) };
    case "optional":
      return { kind: "optional", of: instantiate(t.of, fresh) };
    case "type":
      return t.of ? { kind: "type", of: instantiate(t.of, fresh) } : t;
    case "opaque":
      return t.params.length ? { kind: "opaque", name: t.name, params: t.params.map((p) => instantiate(p, fresh)) } : t;
    default:
      return t;
  }
}

/** A type as cel-go's checker prints it in messages (FormatCELType): `int`, `null`, `timestamp`, `list(dyn)`, `!error!`. */
export function formatCheckerType(t: CelType): string {
  switch (t.kind) {
    case "error":
      return "!error!";
    case "list":
      return `list(${formatCheckerType(t.elem)})`;
    case "map":
      return `map(${formatCheckerType(t.key)}, ${formatCheckerType(t.value)})`;
    case "optional":
      return `optional_type(${formatCheckerType(t.of)})`;
    case "type":
      return t.of ? `type(${formatCheckerType(t.of)})` : "type";
    case "opaque":
      return t.params.length ? `${t.name}(${t.params.map(formatCheckerType).join(", ")})` : t.name;
    case "object":
    case "typeParam":
      return t.name;
    default:
      return t.kind;
  }
}

/** `(int, string)` or, for a member call, `int.(string)`, as in "found no matching overload". */
export function formatCallSignature(argTypes: readonly CelType[], member: boolean): string {
  let out = "";
  let args = argTypes;
  if (member) {
    out += formatCheckerType(args[0]!) + ".";
    args = args.slice(1);
  }
  return `${out}(${args.map(formatCheckerType).join(", ")})`;
}
