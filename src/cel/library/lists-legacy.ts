// TEMPORARY: the list library as the old @bufbuild/cel wrapper (src/cel/program.ts) consumes it.
// It keeps program.ts compiling and working until integration replaces that wrapper with kapi's
// own engine; then delete this file and the iterator on `listsLibrary` in ./lists.ts.
import { CelScalar, celMethod, isCelList, isCelMap, isCelUint, listType, type CelFunc, type CelList } from "@bufbuild/cel";

const list = listType(CelScalar.DYN);
const { DYN, BOOL, INT } = CelScalar;

function noSuchOverload(fn: string): Error {
  return new Error(`no such overload: ${fn}`);
}

function isSorted(this: CelList): boolean {
  let prev: unknown;
  let first = true;
  for (const next of this) {
    if (!first) {
      const c = celCompare(prev, next);
      if (c === undefined) throw noSuchOverload("isSorted");
      if (c === 1) return false;
    }
    prev = next;
    first = false;
  }
  return true;
}

function sum(this: CelList): unknown {
  let acc: unknown;
  for (const next of this) acc = acc === undefined ? next : add(acc, next);
  return acc ?? 0n; // an empty list sums to its element type's zero; untyped here, so int 0
}

function add(a: unknown, b: unknown): unknown {
  if (typeof a === "bigint" && typeof b === "bigint") {
    const s = a + b;
    if (s > 9223372036854775807n || s < -9223372036854775808n) throw new Error("int overflow during sum");
    return s;
  }
  if (typeof a === "number" && typeof b === "number") return a + b;
  throw noSuchOverload("sum");
}

function extreme(name: "min" | "max", prefer: 1 | -1) {
  return function (this: CelList): unknown {
    let result: unknown;
    let empty = true;
    for (const next of this) {
      if (empty) {
        result = next;
        empty = false;
        continue;
      }
      const c = celCompare(result, next);
      if (c === undefined) throw noSuchOverload(name);
      if (c === prefer) result = next;
    }
    if (empty) throw new Error(`${name} called on empty list`);
    return result;
  };
}

function indexOf(this: CelList, item: unknown): bigint {
  let i = 0n;
  for (const x of this) {
    if (celEquals(x, item)) return i;
    i++;
  }
  return -1n;
}

function lastIndexOf(this: CelList, item: unknown): bigint {
  const items = [...this];
  for (let i = items.length - 1; i >= 0; i--) if (celEquals(items[i], item)) return BigInt(i);
  return -1n;
}

export const legacyListsFunctions: CelFunc[] = [
  celMethod("isSorted", list, [], BOOL, isSorted),
  celMethod("sum", list, [], DYN, sum as never),
  celMethod("min", list, [], DYN, extreme("min", 1) as never),
  celMethod("max", list, [], DYN, extreme("max", -1) as never),
  celMethod("indexOf", list, [DYN], INT, indexOf as never),
  celMethod("lastIndexOf", list, [DYN], INT, lastIndexOf as never),
];

type Numeric = { kind: "number"; value: number | bigint };

function numeric(v: unknown): Numeric | undefined {
  if (typeof v === "bigint" || typeof v === "number") return { kind: "number", value: v };
  if (isCelUint(v)) return { kind: "number", value: v.value };
  return undefined;
}

/** -1, 0, 1; undefined when the two are not comparable (a "no such overload" in CEL). */
function celCompare(a: unknown, b: unknown): -1 | 0 | 1 | undefined {
  const na = numeric(a);
  const nb = numeric(b);
  if (na && nb) return compareNumbers(na.value, nb.value);
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  const ta = instant(a);
  const tb = instant(b);
  if (ta !== undefined && tb !== undefined && ta.type === tb.type) return compareNumbers(ta.nanos, tb.nanos);
  return undefined;
}

/** CEL equality: numbers across types, lists and maps element-wise. */
function celEquals(a: unknown, b: unknown): boolean {
  if (isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    const ia = [...a];
    const ib = [...b];
    return ia.every((x, i) => celEquals(x, ib[i]));
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      if (!b.has(k as never)) return false;
      if (!celEquals(v, b.get(k as never))) return false;
    }
    return true;
  }
  if (a === null || b === null) return a === b;
  return celCompare(a, b) === 0;
}

function compareNumbers(a: number | bigint, b: number | bigint): -1 | 0 | 1 | undefined {
  if (typeof a === "number" && Number.isNaN(a)) return undefined;
  if (typeof b === "number" && Number.isNaN(b)) return undefined;
  // Mixed int/double: compare exactly (a bigint beyond 2^53 must not round).
  if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
  const [x, y] = [a, b].map((n) => (typeof n === "number" && Number.isInteger(n) ? BigInt(n) : n)) as [number | bigint, number | bigint];
  if (typeof x === typeof y) return x < y ? -1 : x > y ? 1 : 0;
  const xf = Number(x);
  const yf = Number(y);
  return xf < yf ? -1 : xf > yf ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Timestamps and durations as nanoseconds, with their type. */
function instant(v: unknown): { type: string; nanos: bigint } | undefined {
  const m = v as { desc?: { typeName?: string; field?: Record<string, unknown> }; get?(f: unknown): unknown };
  const type = m?.desc?.typeName;
  if (type !== "google.protobuf.Timestamp" && type !== "google.protobuf.Duration") return undefined;
  const seconds = BigInt(m.get!(m.desc!.field!.seconds) as bigint | number);
  const nanos = BigInt(Number(m.get!(m.desc!.field!.nanos)));
  return { type, nanos: seconds * 1_000_000_000n + nanos };
}
