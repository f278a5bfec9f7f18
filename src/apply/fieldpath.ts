// Field paths and sets of field paths, and their FieldsV1 JSON form (the
// `metadata.managedFields[].fieldsV1` format of server-side apply).
//
// A path is a sequence of elements: a field name (`f:name`), a list-map item
// identified by its key fields (`k:{"name":"c"}`), a set item identified by
// its value (`v:"x"`), or a list index (`i:0`). A set is a tree: each node has
// "members" (paths ending at the node's children that are themselves in the
// set) and "children" (sub-trees). In FieldsV1, `{}` marks a member with
// nothing below it and `".": {}` marks a node that is both a member and has
// members of its own below it. Elements are kept in upstream's total order
// (field names < keys < values < indexes), which is the order FieldsV1 is
// written in.

import { compareValues, hasNoKeys, isObject, smdValueString } from "./value.js";
import { compareStrings, goJSON, goJSONString } from "../apimachinery/go-json.js";
import { deepEqual } from "../apimachinery/json-value.js";
import type { JsonObject, JsonValue } from "./value.js";
import { goQuote } from "../apimachinery/go-quote.js";

/** One element of a field path. */
export type PathElement =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "key"; readonly fields: readonly (readonly [string, JsonValue])[] }
  | { readonly kind: "value"; readonly value: JsonValue }
  | { readonly kind: "index"; readonly index: number };

/** A path from the object root. */
export type Path = readonly PathElement[];

/** The FieldsV1 JSON form of a field set (`{"f:spec":{"f:replicas":{}}}`). */
export type FieldsV1 = { [key: string]: FieldsV1 };

// Field elements and their FieldsV1 keys are shared by name: every write walks the same few
// hundred field names (its object, its managedFields), and a shared element is neither allocated
// again nor is its key built and hashed again as a property name. Bounded: map keys (labels,
// annotations) are the users' to choose.
const maxSharedFields = 4096;
const sharedFields = new Map<string, { readonly pe: PathElement; readonly key: string }>();

function sharedField(name: string): { readonly pe: PathElement; readonly key: string } {
  let f = sharedFields.get(name);
  if (f === undefined) {
    if (sharedFields.size >= maxSharedFields) sharedFields.clear();
    f = { pe: { kind: "field", name }, key: "f:" + name };
    sharedFields.set(name, f);
  }
  return f;
}

/** A field-name element. */
export function fieldElement(name: string): PathElement {
  return sharedField(name).pe;
}

/** A list-map item element; key fields are sorted by name. */
export function keyElement(fields: Iterable<readonly [string, JsonValue]>): PathElement {
  const sorted = [...fields].sort((a, b) => compareStrings(a[0], b[0]));
  return { kind: "key", fields: sorted };
}

/** A set item element. */
export function valueElement(value: JsonValue): PathElement {
  return { kind: "value", value };
}

/** A list index element. */
export function indexElement(index: number): PathElement {
  return { kind: "index", index };
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Upstream's total order of path elements. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] < KIND_RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case "field":
      return compareStrings(a.name, (b as typeof a).name);
    case "key": {
      const fa = a.fields;
      const fb = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        if (i >= fa.length && i >= fb.length) return 0;
        if (i >= fa.length) return -1;
        if (i >= fb.length) return 1;
        const c = compareStrings(fa[i]![0], fb[i]![0]);
        if (c !== 0) return c;
        const d = compareValues(fa[i]![1], fb[i]![1]);
        if (d !== 0) return d;
      }
    }
    case "value":
      return compareValues(a.value, (b as typeof a).value);
    case "index": {
      const ib = (b as typeof a).index;
      return a.index < ib ? -1 : a.index > ib ? 1 : 0;
    }
  }
}

/** Element equality. */
export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "field":
      return a.name === (b as typeof a).name;
    case "key": {
      const fb = (b as typeof a).fields;
      return a.fields.length === fb.length && a.fields.every((f, i) => f[0] === fb[i]![0] && deepEqual(f[1], fb[i]![1]));
    }
    case "value":
      return deepEqual(a.value, (b as typeof a).value);
    case "index":
      return a.index === (b as typeof a).index;
  }
}

/** An element as upstream prints it in paths: `.name`, `[name="c"]`, `[="x"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return "." + pe.name;
    case "key":
      return "[" + pe.fields.map(([k, v]) => `${k}=${smdValueString(v)}`).join(",") + "]";
    case "value":
      return `[=${smdValueString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

/** A path as upstream prints it, e.g. `.spec.template.spec.containers[name="c"].image`. */
export function pathString(path: Path): string {
  return path.map(pathElementString).join("");
}

/** The FieldsV1 key of an element: `f:name`, `k:{"name":"c"}`, `v:"x"`, `i:0`. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return sharedField(pe.name).key;
    case "key":
      return "k:{" + pe.fields.map(([k, v]) => goJSONString(k) + ":" + goJSON(v)).join(",") + "}";
    case "value":
      return "v:" + goJSON(pe.value);
    case "index":
      return "i:" + String(pe.index);
  }
}

/** Thrown for FieldsV1 data that cannot be read. */
export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldsV1Error";
  }
}

/**
 * Parses a FieldsV1 key into an element; undefined for an unknown element
 * type (upstream drops those), throws for a malformed one.
 */
export function deserializePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldsV1Error(`key must be 2 characters long: ${s}`);
  if (s[1] !== ":") throw new FieldsV1Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case "f":
      return fieldElement(body);
    case "v": {
      let v: JsonValue;
      try {
        v = JSON.parse(body) as JsonValue;
      } catch (e) {
        throw new FieldsV1Error(`parsing key as path element: ${(e as Error).message}`);
      }
      return valueElement(v);
    }
    case "k": {
      let v: unknown;
      try {
        v = JSON.parse(body);
      } catch (e) {
        throw new FieldsV1Error(`parsing key as path element: ${(e as Error).message}`);
      }
      if (!isObject(v)) throw new FieldsV1Error(`parsing key as path element: expected an object: ${s}`);
      return keyElement(Object.entries(v));
    }
    case "i": {
      if (!/^[+-]?\d+$/.test(body)) throw new FieldsV1Error(`parsing key as path element: invalid index: ${s}`);
      return indexElement(Number.parseInt(body, 10));
    }
    default:
      return undefined;
  }
}

interface ChildNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * Binary search of a sorted level: the index of `pe` when present, else -(insertion point) - 1.
 * A number rather than an object: every insert and lookup of every write's field sets calls it.
 */
function search<T>(arr: readonly T[], pe: PathElement, get: (t: T) => PathElement): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePathElements(get(arr[mid]!), pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -lo - 1;
}

const idPe = (pe: PathElement): PathElement => pe;
const nodePe = (n: ChildNode): PathElement => n.pe;

/**
 * A set of field paths. Operations return new sets and never modify their
 * operands; only `insert` mutates.
 */
export class FieldSet {
  /** Elements that end a path in this set, sorted. */
  private members: PathElement[] = [];
  /** Sub-trees, sorted by element. */
  private children: ChildNode[] = [];

  /** A set holding the given paths. */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (the empty path is ignored). */
  insert(path: Path): this {
    if (path.length === 0) return this;
    readFrom.delete(this);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) s = s.descend(path[i]!);
    s.insertMember(path[path.length - 1]!);
    return this;
  }

  /**
   * An insert for paths that arrive depth-first (a walk of an object): each call descends only
   * below what it shares with the previous path (elements compared by identity, as a walk keeps
   * them on its stack). Valid while the set changes through it alone.
   */
  sequentialInserter(): (path: Path) => void {
    readFrom.delete(this);
    // prefix[0..depth) is the previous path's, nodes[i] the set below prefix[0..i); entries past
    // depth are stale and overwritten (not cut off: that is an array resize per insert).
    const prefix: PathElement[] = [];
    const nodes: FieldSet[] = [this];
    let depth = 0;
    return (path) => {
      if (path.length === 0) return;
      const last = path.length - 1;
      let i = 0;
      while (i < last && i < depth && prefix[i] === path[i]) i++;
      let s = nodes[i]!;
      for (; i < last; i++) {
        s = s.descend(path[i]!);
        prefix[i] = path[i]!;
        nodes[i + 1] = s;
      }
      depth = last;
      s.insertMember(path[last]!);
    };
  }

  private insertMember(pe: PathElement): void {
    const r = search(this.members, pe, idPe);
    if (r < 0) insertAt(this.members, -r - 1, pe);
  }

  private descend(pe: PathElement): FieldSet {
    const r = search(this.children, pe, nodePe);
    if (r >= 0) return this.children[r]!.set;
    const set = new FieldSet();
    insertAt(this.children, -r - 1, { pe, set });
    return set;
  }

  /** Whether the path is in the set. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && s !== undefined; i++) s = s.child(path[i]!);
    return s !== undefined && search(s.members, path[path.length - 1]!, idPe) >= 0;
  }

  /** Whether the element is a member at this level. */
  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, idPe) >= 0;
  }

  /** Whether there is a sub-tree below the element. */
  hasChild(pe: PathElement): boolean {
    return search(this.children, pe, nodePe) >= 0;
  }

  /** Adds every path of `sub`, prefixed with `pe`. */
  insertSubset(pe: PathElement, sub: FieldSet): this {
    readFrom.delete(this);
    const r = search(this.children, pe, nodePe);
    if (r >= 0) this.children[r] = { pe, set: this.children[r]!.set.union(sub) };
    else insertAt(this.children, -r - 1, { pe, set: sub });
    return this;
  }

  private child(pe: PathElement): FieldSet | undefined {
    const r = search(this.children, pe, nodePe);
    return r >= 0 ? this.children[r]!.set : undefined;
  }

  /** The sub-set below an element (paths relative to it); empty if none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  /** Member elements at this level, in order. */
  memberElements(): readonly PathElement[] {
    return this.members;
  }

  /** Child elements (with their sub-sets) at this level, in order. */
  childEntries(): readonly { readonly pe: PathElement; readonly set: FieldSet }[] {
    return this.children;
  }

  /** True when the set holds no path. */
  isEmpty(): boolean {
    if (this.members.length > 0) return false;
    return this.children.every((c) => c.set.isEmpty());
  }

  /** Number of paths in the set. */
  size(): number {
    let n = this.members.length;
    for (const c of this.children) n += c.set.size();
    return n;
  }

  /** Set union. */
  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = mergeSorted(this.members, other.members);
    const a = this.children;
    const b = other.children;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = comparePathElements(a[i]!.pe, b[j]!.pe);
      if (c < 0) out.children.push(a[i++]!);
      else if (c > 0) out.children.push(b[j++]!);
      else {
        out.children.push({ pe: a[i]!.pe, set: a[i]!.set.union(b[j]!.set) });
        i++;
        j++;
      }
    }
    while (i < a.length) out.children.push(a[i++]!);
    while (j < b.length) out.children.push(b[j++]!);
    return out;
  }

  /** Set intersection. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = this.members.filter((pe) => other.hasMember(pe));
    for (const n of this.children) {
      const o = other.child(n.pe);
      if (o === undefined) continue;
      const r = n.set.intersection(o);
      if (!r.isEmpty()) out.children.push({ pe: n.pe, set: r });
    }
    return out;
  }

  /** Paths of this set that are not in `other` (exact path difference). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = this.members.filter((pe) => !other.hasMember(pe));
    for (const n of this.children) {
      const o = other.child(n.pe);
      if (o === undefined) {
        out.children.push(n);
        continue;
      }
      const r = n.set.difference(o);
      if (!r.isEmpty()) out.children.push({ pe: n.pe, set: r });
    }
    return out;
  }

  /**
   * Like difference, but a member of `other` also removes every path below
   * it (upstream's RecursiveDifference).
   */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = this.members.filter((pe) => !other.hasMember(pe));
    for (const n of this.children) {
      if (other.hasMember(n.pe)) continue;
      const o = other.child(n.pe);
      if (o === undefined) {
        out.children.push(n);
        continue;
      }
      const r = n.set.recursiveDifference(o);
      if (!r.isEmpty()) out.children.push({ pe: n.pe, set: r });
    }
    return out;
  }

  /** Set equality. */
  equals(other: FieldSet): boolean {
    if (this.members.length !== other.members.length || this.children.length !== other.children.length) return false;
    for (let i = 0; i < this.members.length; i++) if (!pathElementsEqual(this.members[i]!, other.members[i]!)) return false;
    for (let i = 0; i < this.children.length; i++) {
      if (!pathElementsEqual(this.children[i]!.pe, other.children[i]!.pe)) return false;
      if (!this.children[i]!.set.equals(other.children[i]!.set)) return false;
    }
    return true;
  }

  /** Every path, in upstream's iteration order (members of a level before its sub-trees). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]): void => {
      for (const m of s.members) out.push([...prefix, m]);
      for (const c of s.children) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** Human-readable listing, one path per line. */
  toString(): string {
    return this.paths().map(pathString).join("\n");
  }

  /** The FieldsV1 JSON object (key order is upstream's serialization order). */
  toFieldsV1(): FieldsV1 {
    return readFrom.get(this) ?? this.emit(false);
  }

  private emit(includeSelf: boolean): FieldsV1 {
    const out: FieldsV1 = {};
    if (includeSelf && (this.members.length > 0 || this.children.length > 0)) out["."] = {};
    let mi = 0;
    let ci = 0;
    const m = this.members;
    const ch = this.children;
    while (mi < m.length || ci < ch.length) {
      const c = mi >= m.length ? 1 : ci >= ch.length ? -1 : comparePathElements(m[mi]!, ch[ci]!.pe);
      if (c < 0) {
        out[serializePathElement(m[mi]!)] = {};
        mi++;
      } else if (c > 0) {
        out[serializePathElement(ch[ci]!.pe)] = ch[ci]!.set.emit(false);
        ci++;
      } else {
        out[serializePathElement(ch[ci]!.pe)] = ch[ci]!.set.emit(true);
        mi++;
        ci++;
      }
    }
    return out;
  }

  /** Reads a FieldsV1 JSON object (throws FieldsV1Error when malformed). */
  static fromFieldsV1(json: unknown): FieldSet {
    if (!isObject(json)) throw new FieldsV1Error("FieldsV1 must be a JSON object");
    const level = readLevel(json);
    const set = level.children ?? new FieldSet();
    // Exactly what toFieldsV1 would write (no "." at the top): it is the set's FieldsV1 as long
    // as the set is not changed (sets are changed only while they are built).
    if (level.canonical && !level.dot) readFrom.set(set, json as FieldsV1);
    return set;
  }
}

function mergeSorted(a: readonly PathElement[], b: readonly PathElement[]): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(a[i]!, b[j]!);
    if (c < 0) out.push(a[i++]!);
    else if (c > 0) out.push(b[j++]!);
    else {
      out.push(a[i++]!);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * The FieldsV1 object a set was read from, when it is byte for byte what the set writes: an
 * ordinary write keeps most entries as they were, and writing them again was a third of its
 * ownership bookkeeping. Read-only use only: the object becomes part of the written object.
 */
const readFrom = new WeakMap<FieldSet, FieldsV1>();

// Reads one FieldsV1 level: the set below it (undefined if none), whether the level's own
// element is a member (`"."`, or nothing below it), whether it has a "." key, and whether the
// level is written exactly as emit writes it (elements in order, each key as serialized, "."
// first, empty and only beside elements), so that it can stand for the set unchanged.
function readLevel(obj: JsonObject): { children: FieldSet | undefined; isMember: boolean; dot: boolean; canonical: boolean } {
  let children: FieldSet | undefined;
  let isMember = false;
  let dot = false;
  let canonical = true;
  let prev: PathElement | undefined;
  let first = true;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const val = obj[key];
    if (key === ".") {
      isMember = true;
      dot = true;
      if (!first || !isObject(val) || !hasNoKeys(val)) canonical = false;
      first = false;
      continue;
    }
    first = false;
    const pe = deserializePathElement(key);
    if (pe === undefined) {
      canonical = false;
      continue;
    }
    if (!isObject(val)) throw new FieldsV1Error(`value of ${goQuote(key)} must be a JSON object`);
    if (canonical && ((prev !== undefined && comparePathElements(prev, pe) >= 0) || (pe.kind !== "field" && serializePathElement(pe) !== key))) canonical = false;
    prev = pe;
    const sub = readLevel(val);
    if (!sub.canonical || (sub.dot && sub.children === undefined)) canonical = false;
    if (sub.isMember) {
      children ??= new FieldSet();
      children.insert([pe]);
    }
    if (sub.children !== undefined) {
      children ??= new FieldSet();
      children.insertSubset(pe, sub.children);
    }
  }
  if (children === undefined) isMember = true;
  return { children, isMember, dot, canonical };
}

/**
 * Inserts `x` at `at` of a sorted array. A walk of an object often arrives in order, so the end is
 * the common place: a push there, as splice() makes an array of what it removed on every call (a
 * create's managed fields made ~10 KB of them).
 */
function insertAt<T>(arr: T[], at: number, x: T): void {
  if (at === arr.length) arr.push(x);
  else arr.splice(at, 0, x);
}
