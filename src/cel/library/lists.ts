// The Kubernetes list library (upstream k8s.io/apiserver/pkg/cel/library, lists): isSorted,
// sum, min, max, indexOf, lastIndexOf, with upstream's semantics and error texts.
import { CelScalar, celMethod, listType, type CelFunc, type CelList } from "@bufbuild/cel";
import { celCompare, celEquals } from "./compare.js";

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

export const listsLibrary: CelFunc[] = [
  celMethod("isSorted", list, [], BOOL, isSorted),
  celMethod("sum", list, [], DYN, sum as never),
  celMethod("min", list, [], DYN, extreme("min", 1) as never),
  celMethod("max", list, [], DYN, extreme("max", -1) as never),
  celMethod("indexOf", list, [DYN], INT, indexOf as never),
  celMethod("lastIndexOf", list, [DYN], INT, lastIndexOf as never),
];
