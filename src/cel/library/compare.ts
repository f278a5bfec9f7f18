// CEL ordering and equality over runtime values, as the libraries need them: numbers compare
// across int, uint and double (CEL's cross-type numeric comparison); strings, bytes, booleans,
// timestamps and durations within their own type. Anything else is not comparable.
import { isCelList, isCelMap, isCelUint } from "@bufbuild/cel";

type Numeric = { kind: "number"; value: number | bigint };

function numeric(v: unknown): Numeric | undefined {
  if (typeof v === "bigint" || typeof v === "number") return { kind: "number", value: v };
  if (isCelUint(v)) return { kind: "number", value: v.value };
  return undefined;
}

/** -1, 0, 1; undefined when the two are not comparable (a "no such overload" in CEL). */
export function celCompare(a: unknown, b: unknown): -1 | 0 | 1 | undefined {
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
export function celEquals(a: unknown, b: unknown): boolean {
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
