// Schema-aware operations on JSON objects, as structured-merge-diff defines
// them: the field set an object sets, the comparison of two objects, the
// merge of an applied configuration into a live object, and the removal of a
// set of fields from an object.

import { FieldSet, fieldElement, keyElement, pathElementString, pathElementsEqual, pathString, valueElement } from "./fieldpath.js";
import type { Path, PathElement } from "./fieldpath.js";
import { SchemaContext, fieldType } from "./schema.js";
import type { Atom, ListAtom, MapAtom, TypeRef } from "./schema.js";
import { hasNoKeys, isObject } from "./value.js";
import { deepEqual } from "../apimachinery/json-value.js";
import type { JsonObject, JsonValue } from "./value.js";

/** Raised for values that cannot be merged (duplicate keys in an applied list, list items without key fields, …). */
export class TypedValueError extends Error {
  constructor(
    message: string,
    /** Path of the offending value, as upstream prints it. */
    readonly path: string,
  ) {
    super(path === "" ? message : `${path}: ${message}`);
    this.name = "TypedValueError";
  }
}

/** Added, modified and removed fields between two objects (no path is in two of them). */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** The path element of a list item, or an error message. */
export function listItemElement(ctx: SchemaContext, list: ListAtom, item: unknown): PathElement | string {
  if (list.keys.length > 0) {
    if (item === null) return "associative list with keys may not have a null element";
    if (!isObject(item)) return "associative list with keys may not have non-map elements";
    const fields: [string, JsonValue][] = [];
    for (const k of list.keys) {
      if (Object.prototype.hasOwnProperty.call(item, k)) fields.push([k, item[k]!]);
      else if (list.keyDefaults[k] !== undefined) fields.push([k, list.keyDefaults[k]!]);
    }
    if (fields.length === 0) {
      return `associative list with keys has an element that omits all key fields [${list.keys.map((k) => JSON.stringify(k)).join(" ")}] (and doesn't have default values for any key fields)`;
    }
    return keyElement(fields);
  }
  if (isObject(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return "not supported: associative list with lists as elements";
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return valueElement(item as JsonValue);
}

function itemPE(ctx: SchemaContext, list: ListAtom, item: unknown, path: Path, index: number): PathElement {
  const pe = listItemElement(ctx, list, item);
  if (typeof pe === "string") throw new TypedValueError(`element ${index}: ${pe}`, pathString(path));
  return pe;
}

/** A path element as a string, equal for equal elements (the key of maps of elements). */
function elementKey(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return "f" + pe.name;
    case "index":
      return "i" + pe.index;
    case "value":
      return "v" + canonical(pe.value);
    case "key":
      return "k" + pe.fields.map(([k, v]) => JSON.stringify(k) + ":" + canonical(v)).join(",");
  }
}

/** Key/value bucket keyed by path element. */
class PEMap<V> {
  private readonly m = new Map<string, { pe: PathElement; v: V }>();
  private static key(pe: PathElement): string {
    return elementKey(pe);
  }
  get(pe: PathElement): V | undefined {
    return this.m.get(PEMap.key(pe))?.v;
  }
  has(pe: PathElement): boolean {
    return this.m.has(PEMap.key(pe));
  }
  set(pe: PathElement, v: V): void {
    this.m.set(PEMap.key(pe), { pe, v });
  }
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function canonical(v: unknown): string {
  if (isObject(v)) {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  return JSON.stringify(v);
}

// ---------------------------------------------------------------------------
// Field set of an object

/** The set of fields an object sets: leaves, list items and atomic lists/maps (as single leaves), as upstream's ToFieldSet. */
export function toFieldSet(ctx: SchemaContext, value: unknown, type: TypeRef): FieldSet {
  const set = new FieldSet();
  const path: PathElement[] = [];
  const insert = set.sequentialInserter(); // the walk is depth-first
  const walk = (v: unknown, t: TypeRef): void => {
    const a = ctx.atomFor(t, v);
    if (a.kind === "scalar") {
      insert(path);
      return;
    }
    if (a.kind === "list") {
      if (a.atomic) {
        insert(path);
        return;
      }
      if (!Array.isArray(v)) return;
      const seen = new PEMap<true>();
      const dups = new PEMap<true>();
      const pes = v.map((item, i) => itemPE(ctx, a, item, path, i));
      for (const pe of pes) {
        if (seen.has(pe)) {
          if (!dups.has(pe)) {
            insert([...path, pe]);
            dups.set(pe, true);
          }
        } else seen.set(pe, true);
      }
      v.forEach((item, i) => {
        const pe = pes[i]!;
        if (dups.has(pe)) return;
        path.push(pe);
        walk(item, a.elem);
        insert(path);
        path.pop();
      });
      return;
    }
    if (a.atomic) {
      insert(path);
      return;
    }
    if (!isObject(v)) return;
    for (const [k, child] of Object.entries(v)) {
      const ft = fieldType(a, k);
      path.push(fieldElement(k));
      walk(child, ft.type);
      if (child === null || (isObject(child) && hasNoKeys(child)) || !ft.declared) insert(path);
      path.pop();
    }
  };
  walk(value, type);
  return set;
}

// ---------------------------------------------------------------------------
// Comparison

/** Compares `lhs` (old) with `rhs` (new), as upstream's TypedValue.Compare. */
export function compare(ctx: SchemaContext, lhs: unknown, rhs: unknown, type: TypeRef): Comparison {
  const added = new FieldSet();
  const modified = new FieldSet();
  const removed = new FieldSet();
  const path: PathElement[] = [];
  // The walk is depth-first: each set is filled below the previous path, not from its root.
  const add = added.sequentialInserter();
  const modify = modified.sequentialInserter();
  const remove = removed.sequentialInserter();

  const leaf = (l: unknown, r: unknown): void => {
    if (l === undefined) add(path);
    else if (r === undefined) remove(path);
    else if (!deepEqual(l, r)) modify(path);
  };

  const cmp = (l: unknown, r: unknown, t: TypeRef): void => {
    let a: Atom | undefined;
    if (r === undefined) a = ctx.atomFor(t, l);
    else if (l === undefined) a = ctx.atomFor(t, r);
    else {
      const al = ctx.atomFor(t, l);
      const ar = ctx.atomFor(t, r);
      a = al.kind === ar.kind ? ar : undefined;
    }
    let inLeaf = false;
    if (a === undefined || a.kind === "scalar") {
      leaf(l, r);
      inLeaf = true;
    } else if (a.kind === "list") {
      const ll = Array.isArray(l) ? l : undefined;
      const rl = Array.isArray(r) ? r : undefined;
      if (a.atomic || ((ll === undefined || ll.length === 0) && (rl === undefined || rl.length === 0))) {
        leaf(l, r);
        inLeaf = true;
      } else compareList(a, ll ?? [], rl ?? []);
    } else {
      const lm = isObject(l) ? l : undefined;
      const rm = isObject(r) ? r : undefined;
      const lEmpty = lm === undefined || hasNoKeys(lm);
      const rEmpty = rm === undefined || hasNoKeys(rm);
      if (a.atomic || (lEmpty && rEmpty)) {
        leaf(l, r);
        inLeaf = true;
      } else compareMap(a, lm ?? {}, rm ?? {});
    }
    if (!inLeaf) {
      if (l === undefined) add(path);
      else if (r === undefined) remove(path);
    }
  };

  // The keys of l, then those only r has (the order of a Set of both, without building one).
  const compareMap = (a: MapAtom, l: JsonObject, r: JsonObject): void => {
    for (const k in l) {
      if (!hasOwn(l, k)) continue;
      path.push(fieldElement(k));
      cmp(l[k], hasOwn(r, k) ? r[k] : undefined, fieldType(a, k).type);
      path.pop();
    }
    for (const k in r) {
      if (!hasOwn(r, k) || hasOwn(l, k)) continue;
      path.push(fieldElement(k));
      cmp(undefined, r[k], fieldType(a, k).type);
      path.pop();
    }
  };

  // Items grouped by element, each element rendered to its key once (a list of containers is
  // compared on every write of a pod).
  const compareList = (a: ListAtom, l: unknown[], r: unknown[]): void => {
    // At most one item each side (a pod's containers, ports, volumes…; every list a create adds):
    // what the grouping below does, without its maps.
    if (l.length <= 1 && r.length <= 1) {
      const pl = l.length === 1 ? itemPE(ctx, a, l[0], path, 0) : undefined;
      const pr = r.length === 1 ? itemPE(ctx, a, r[0], path, 0) : undefined;
      if (pl !== undefined && pr !== undefined && elementKey(pl) === elementKey(pr)) {
        path.push(pl);
        cmp(l[0], r[0], a.elem);
        path.pop();
        return;
      }
      if (pl !== undefined) {
        path.push(pl);
        cmp(l[0], undefined, a.elem);
        path.pop();
      }
      if (pr !== undefined) {
        path.push(pr);
        cmp(undefined, r[0], a.elem);
        path.pop();
      }
      return;
    }
    const order: string[] = [];
    const elements = new Map<string, PathElement>();
    const lv = new Map<string, unknown[]>();
    const rv = new Map<string, unknown[]>();
    for (let i = 0; i < l.length; i++) {
      const pe = itemPE(ctx, a, l[i], path, i);
      const k = elementKey(pe);
      const prev = lv.get(k);
      if (prev) prev.push(l[i]);
      else {
        lv.set(k, [l[i]]);
        elements.set(k, pe);
        order.push(k);
      }
    }
    for (let i = 0; i < r.length; i++) {
      const pe = itemPE(ctx, a, r[i], path, i);
      const k = elementKey(pe);
      const prev = rv.get(k);
      if (prev) prev.push(r[i]);
      else {
        rv.set(k, [r[i]]);
        if (!lv.has(k)) {
          elements.set(k, pe);
          order.push(k);
        }
      }
    }
    for (const k of order) {
      const ll = lv.get(k) ?? [];
      const rl = rv.get(k) ?? [];
      path.push(elements.get(k)!);
      if (ll.length <= 1 && rl.length <= 1) cmp(ll[0], rl[0], a.elem);
      else if (ll.length >= 2 && rl.length >= 2) {
        if (!deepEqual(ll, rl)) modify(path);
      } else if (ll.length >= 2) {
        if (rl.length !== 0) cmp(undefined, rl[0], a.elem);
        remove(path);
      } else {
        if (ll.length !== 0) cmp(ll[0], undefined, a.elem);
        add(path);
      }
      path.pop();
    }
  };

  if (lhs === undefined && rhs === undefined) return { added, modified, removed };
  cmp(lhs, rhs, type);
  return { added, modified, removed };
}

// ---------------------------------------------------------------------------
// Merge

/**
 * Merges `rhs` (an applied configuration) into `lhs` (the live object):
 * leaves and atomic lists/maps of rhs win, granular maps merge by key, sets
 * by value and list-maps by key fields (upstream's TypedValue.Merge with
 * "keep rhs"). Throws TypedValueError for duplicate keys in rhs.
 */
export function merge(ctx: SchemaContext, lhs: unknown, rhs: unknown, type: TypeRef): unknown {
  const path: PathElement[] = [];

  const mergeValue = (l: unknown, r: unknown, t: TypeRef): unknown => {
    const al = ctx.atomFor(t, l);
    const ar = ctx.atomFor(t, r);
    const a = r === undefined ? al : l === undefined ? ar : al.kind === ar.kind ? ar : undefined;
    const keepRhs = (): unknown => (r !== undefined ? r : l);
    if (a === undefined || a.kind === "scalar") return keepRhs();
    if (a.kind === "list") {
      const ll = Array.isArray(l) ? l : undefined;
      const rl = Array.isArray(r) ? r : undefined;
      if (a.atomic || ((ll === undefined || ll.length === 0) && (rl === undefined || rl.length === 0))) return keepRhs();
      return mergeList(a, ll ?? [], rl ?? []);
    }
    const lm = isObject(l) ? l : undefined;
    const rm = isObject(r) ? r : undefined;
    const lEmpty = lm === undefined || Object.keys(lm).length === 0;
    const rEmpty = rm === undefined || Object.keys(rm).length === 0;
    if (a.atomic || (lEmpty && rEmpty)) return keepRhs();
    const out: JsonObject = {};
    const lo = lm ?? {};
    const ro = rm ?? {};
    for (const k of new Set([...Object.keys(lo), ...Object.keys(ro)])) {
      path.push(fieldElement(k));
      const v = mergeValue(
        Object.prototype.hasOwnProperty.call(lo, k) ? lo[k] : undefined,
        Object.prototype.hasOwnProperty.call(ro, k) ? ro[k] : undefined,
        fieldType(a, k).type,
      );
      path.pop();
      if (v !== undefined) out[k] = v as JsonValue;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };

  const mergeList = (a: ListAtom, l: unknown[], r: unknown[]): unknown => {
    // Index rhs (no duplicates allowed) and lhs (duplicates kept, but not merged).
    const rPEs: PathElement[] = [];
    const rObs = new PEMap<unknown>();
    r.forEach((item, i) => {
      const pe = itemPE(ctx, a, item, path, i);
      if (rObs.has(pe)) throw new TypedValueError(`duplicate entries for key ${pathElementString(pe)}`, pathString(path));
      rObs.set(pe, item);
      rPEs.push(pe);
    });
    const lPEs: PathElement[] = [];
    const lObs = new PEMap<unknown>();
    l.forEach((item, i) => {
      const pe = itemPE(ctx, a, item, path, i);
      lObs.set(pe, lObs.has(pe) ? null : item);
      lPEs.push(pe);
    });
    const shared: PathElement[] = rPEs.filter((pe) => lObs.has(pe));
    let nextShared: PathElement | undefined = shared.shift();
    const mergedR = new PEMap<true>();
    const out: unknown[] = [];
    const mergeItem = (pe: PathElement, lc: unknown, rc: unknown): void => {
      path.push(pe);
      const v = mergeValue(lc, rc, a.elem);
      path.pop();
      if (v !== undefined) out.push(v);
    };
    const same = pathElementsEqual;
    let li = 0;
    let ri = 0;
    while (li < lPEs.length || ri < rPEs.length) {
      if (li < lPEs.length && ri < rPEs.length) {
        const pe = lPEs[li]!;
        if (same(pe, rPEs[ri]!)) {
          mergedR.set(pe, true);
          mergeItem(pe, lObs.get(pe), rObs.get(pe));
          li++;
          ri++;
          nextShared = shared.shift();
          continue;
        }
        if (rObs.has(pe) && nextShared !== undefined && !same(nextShared, pe)) {
          li++;
          continue;
        }
      }
      if (li < lPEs.length) {
        const pe = lPEs[li]!;
        if (!rObs.has(pe)) {
          mergeItem(pe, l[li], undefined);
          li++;
          continue;
        } else if (mergedR.has(pe)) {
          li++;
        }
      }
      if (ri < rPEs.length) {
        const pe = rPEs[ri]!;
        mergedR.set(pe, true);
        mergeItem(pe, lObs.get(pe), rObs.get(pe));
        ri++;
        if (nextShared !== undefined && same(nextShared, pe)) nextShared = shared.shift();
      }
    }
    return out.length > 0 ? out : undefined;
  };

  return mergeValue(lhs, rhs, type);
}

// ---------------------------------------------------------------------------
// Removal

/**
 * The object without the fields in `toRemove` (a member removes the whole
 * value below it; list items and map entries are dropped). Maps and lists
 * left empty by removal become null, as upstream's RemoveItems.
 */
export function removeItems(ctx: SchemaContext, value: unknown, toRemove: FieldSet, type: TypeRef): unknown {
  const rm = (v: unknown, set: FieldSet, t: TypeRef): unknown => {
    const a = ctx.atomFor(t, v);
    if (a.kind === "scalar") return v;
    if (a.kind === "list") {
      if (!Array.isArray(v) || v.length === 0 || a.atomic) return null;
      const out: unknown[] = [];
      for (const item of v) {
        const pe = listItemElement(ctx, a, item);
        if (typeof pe === "string") {
          out.push(item);
          continue;
        }
        if (set.hasMember(pe)) continue;
        const sub = set.withPrefix(pe);
        out.push(sub.isEmpty() ? item : rm(item, sub, a.elem));
      }
      return out.length > 0 ? out : null;
    }
    if (!isObject(v) || Object.keys(v).length === 0 || a.atomic) return null;
    const out: JsonObject = {};
    for (const [k, child] of Object.entries(v)) {
      const pe = fieldElement(k);
      if (set.hasMember(pe)) continue;
      const sub = set.withPrefix(pe);
      out[k] = (sub.isEmpty() ? child : rm(child, sub, fieldType(a, k).type)) as JsonValue;
    }
    return Object.keys(out).length > 0 ? out : null;
  };
  if (value === undefined) return undefined;
  return rm(value, toRemove, type);
}

// ---------------------------------------------------------------------------
// Schema-driven set adjustments

/** Adds, as members, every child field of the set that is a declared struct field (upstream's EnsureNamedFieldsAreMembers). */
export function ensureNamedFieldsAreMembers(ctx: SchemaContext, set: FieldSet, type: TypeRef): FieldSet {
  const walk = (s: FieldSet, t: TypeRef): FieldSet => {
    const a = ctx.atomNoValue(t);
    const out = new FieldSet();
    for (const m of s.memberElements()) out.insert([m]);
    for (const { pe, set: sub } of s.childEntries()) {
      let ct: TypeRef = undefined;
      if (pe.kind === "field" && a.kind === "map") {
        const ft = fieldType(a, pe.name);
        if (ft.declared) out.insert([pe]);
        ct = ft.type;
      } else if (pe.kind === "key" && a.kind === "list") {
        ct = a.elem;
      }
      const childOut = walk(sub, ct);
      if (!childOut.isEmpty()) out.insertSubset(pe, childOut);
    }
    return out;
  };
  return walk(set, type);
}

/**
 * Adjusts a manager's set to the current schema: where it owns parts of a
 * list or map that is now atomic, it owns the whole value instead (upstream's
 * ReconcileFieldSetWithSchema). Returns undefined when nothing changes.
 */
export function reconcileFieldSetWithSchema(ctx: SchemaContext, set: FieldSet, type: TypeRef): FieldSet | undefined {
  const r = new Reconciler(ctx);
  r.visit(set, type, false, true);
  if (r.toRemove === undefined && r.toAdd === undefined) return undefined;
  let out = set;
  if (r.toRemove !== undefined) out = out.recursiveDifference(r.toRemove);
  if (r.toAdd !== undefined) out = out.union(r.toAdd);
  return out;
}

// The walk of reconcileFieldSetWithSchema. It runs over every manager's set on every write, so
// it is a class: no closure is made per node of the set.
class Reconciler {
  toRemove: FieldSet | undefined;
  toAdd: FieldSet | undefined;
  private readonly path: PathElement[] = [];

  constructor(private readonly ctx: SchemaContext) {}

  private replace(): void {
    this.toRemove = (this.toRemove ?? new FieldSet()).union(FieldSet.of([...this.path]));
    this.toAdd = (this.toAdd ?? new FieldSet()).union(FieldSet.of([...this.path]));
  }

  visit(s: FieldSet | undefined, t: TypeRef, isAtomic: boolean, root: boolean): void {
    const a = this.ctx.atom(t);
    if (a === undefined || a.kind === "scalar") return;
    if (a.kind === "list") {
      if (!root && !isAtomic && a.atomic) {
        this.replace();
        return;
      }
      if (s !== undefined) this.visitItems(s, undefined, a.elem);
      return;
    }
    if (a.deduced) return;
    if (!root && !isAtomic && a.atomic) {
      if (s !== undefined && s.size() > 0) this.replace();
      return;
    }
    if (s !== undefined) this.visitItems(s, a, a.elem);
  }

  /** The items below `s`: typed by the map's fields (`map`), else by `elem`. */
  private visitItems(s: FieldSet, map: MapAtom | undefined, elem: TypeRef): void {
    for (const c of s.childEntries()) if (!s.hasMember(c.pe)) this.handle(s, c.pe, false, map, elem);
    for (const m of s.memberElements()) this.handle(s, m, true, map, elem);
  }

  private handle(s: FieldSet, pe: PathElement, isMember: boolean, map: MapAtom | undefined, elem: TypeRef): void {
    const t = map !== undefined && pe.kind === "field" ? fieldType(map, pe.name).type : elem;
    if (t === undefined) return;
    const sub = s.hasChild(pe) ? s.withPrefix(pe) : undefined;
    this.path.push(pe);
    this.visit(sub, t, isMember && sub === undefined, false);
    this.path.pop();
  }
}
