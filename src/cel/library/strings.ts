// cel-go's extended string library (ext.Strings, `cel.lib.ext.strings`) at version 2, as
// Kubernetes enables it from 1.29 (1.34 included): charAt, indexOf, lastIndexOf, lowerAscii,
// upperAscii, replace, split, substring, trim, join, format (./strings-format.ts) and
// strings.quote. Not in version 2, hence absent: <string>.reverse() (v3), the v4 format.
//
// Indexes count code points (Go runes), as cel-go does; JS strings are UTF-16, so strings with
// characters beyond U+FFFF take a slower path.
//
// Costs: Kubernetes' estimator (library/cost.go) keys on function names and covers lowerAscii,
// upperAscii, substring, trim (a traversal), replace and split (two traversals), join (two
// traversals of the result), indexOf and lastIndexOf (one traversal, as for lists); cel-go's
// defaults cover format and strings.quote (a traversal); charAt costs 1.
import type { ArgEstimate, CallEstimate, CelLibrary, OverloadCost } from "../library.js";
import { memberOverload, overload } from "../library.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import { DynType, IntType, StringType, listOf } from "../types.js";
import { CelEvalError, CelUint, type CelValue } from "../value.js";
import { actualSize, celTypeName, hasSurrogates } from "./compare.js";
import { UNBOUNDED, add, fixed, multiply, scale, typeSize } from "./compare-cost.js";
import { traversalCost, traversalEstimate as listTraversalEstimate } from "./lists.js";
import { formatStringWith, goFormatG } from "./strings-format.js";

const outOfRange = (i: bigint | number) => new CelEvalError(`index out of range: ${i}`);

/** Code points of `s`, or undefined when `s` has none beyond U+FFFF (index the string directly). */
function runesOf(s: string): string[] | undefined {
  return hasSurrogates(s) ? Array.from(s) : undefined;
}

function runeLength(s: string, r: string[] | undefined): number {
  return r ? r.length : s.length;
}

function runeSlice(s: string, r: string[] | undefined, start: number, end?: number): string {
  return r ? r.slice(start, end).join("") : s.slice(start, end);
}

export function charAt(s: string, i: bigint): string {
  const r = runesOf(s);
  const n = runeLength(s, r);
  if (i < 0n || i > BigInt(n)) throw outOfRange(i);
  if (i === BigInt(n)) return "";
  return r ? r[Number(i)]! : s[Number(i)]!;
}

export function indexOf(s: string, sub: string, offset = 0n): bigint {
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  const r = runesOf(s);
  const n = runeLength(s, r);
  if (offset >= BigInt(n)) return -1n;
  if (!r && !hasSurrogates(sub)) {
    const i = s.indexOf(sub, Number(offset));
    return BigInt(i);
  }
  const rs = r ?? Array.from(s);
  const subr = Array.from(sub);
  for (let i = Number(offset); i < rs.length - (subr.length - 1); i++) {
    let found = true;
    for (let j = 0; j < subr.length; j++) {
      if (rs[i + j] !== subr[j]) {
        found = false;
        break;
      }
    }
    if (found) return BigInt(i);
  }
  return -1n;
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const r = runesOf(s);
  const n = runeLength(s, r);
  if (offset === undefined) {
    if (sub === "") return BigInt(n);
    // cel-go compares byte lengths here
    if (utf8Len(s) < utf8Len(sub)) return -1n;
    offset = BigInt(n - 1);
  }
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  if (offset >= BigInt(n)) return -1n;
  const rs = r ?? (hasSurrogates(sub) ? Array.from(s) : undefined);
  const subr = rs ? Array.from(sub) : undefined;
  const subLen = subr ? subr.length : sub.length;
  let off = Number(offset);
  if (off > n - subLen) off = n - subLen;
  if (!rs) return off < 0 ? -1n : BigInt(s.lastIndexOf(sub, off));
  for (let i = off; i >= 0; i--) {
    let found = true;
    for (let j = 0; j < subLen; j++) {
      if (rs[i + j] !== subr![j]) {
        found = false;
        break;
      }
    }
    if (found) return BigInt(i);
  }
  return -1n;
}

function utf8Len(s: string): number {
  return new TextEncoder().encode(s).length;
}

export const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
export const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches before every character and at the end. */
export function replace(s: string, old: string, nw: string, n = -1n): string {
  if (old === nw || n === 0n) return s;
  let out = "";
  let done = 0n;
  const more = () => n < 0n || done < n;
  if (old === "") {
    for (const ch of s) {
      if (more()) {
        out += nw;
        done++;
      }
      out += ch;
    }
    if (more()) out += nw;
    return out;
  }
  let start = 0;
  while (more()) {
    const at = s.indexOf(old, start);
    if (at < 0) break;
    out += s.slice(start, at) + nw;
    start = at + old.length;
    done++;
  }
  return out + s.slice(start);
}

/** Go's strings.SplitN: n == 0 gives none, n < 0 all; an empty separator splits into characters. */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  if (sep === "") {
    const chars = Array.from(s);
    if (n < 0n || n >= BigInt(chars.length)) return chars;
    const k = Number(n);
    return [...chars.slice(0, k - 1), chars.slice(k - 1).join("")];
  }
  const out: string[] = [];
  let start = 0;
  while (n < 0n || BigInt(out.length) < n - 1n) {
    const at = s.indexOf(sep, start);
    if (at < 0) break;
    out.push(s.slice(start, at));
    start = at + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

export function substring(s: string, start: bigint, end?: bigint): string {
  const r = runesOf(s);
  const n = BigInt(runeLength(s, r));
  if (end === undefined) {
    if (start < 0n || start > n) throw outOfRange(start);
    return runeSlice(s, r, Number(start));
  }
  if (start > end) throw new CelEvalError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > n) throw outOfRange(start);
  if (end < 0n || end > n) throw outOfRange(end);
  return runeSlice(s, r, Number(start), Number(end));
}

// Go's unicode.IsSpace: ASCII space characters, U+0085, U+00A0 and Unicode's White_Space in Z.
const goSpace = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const trimRe = new RegExp(`^[${goSpace}]+|[${goSpace}]+$`, "g");
export const trim = (s: string): string => s.replace(trimRe, "");

/** `<list(string)>.join([sep])`; a non-string element is cel-go's "join: invalid input: <value>". */
export function join(list: readonly CelValue[], sep = ""): string {
  let out = "";
  for (let i = 0; i < list.length; i++) {
    const v = list[i]!;
    if (typeof v !== "string") throw new CelEvalError(`join: invalid input: ${goValueString(v)}`);
    if (i > 0) out += sep;
    out += v;
  }
  return out;
}

function goValueString(v: CelValue): string {
  if (typeof v === "number") return goFormatG(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v === null) return "NULL_VALUE";
  if (v instanceof CelUint) return v.value.toString();
  return celTypeName(v);
}

/** strings.quote: a double-quoted CEL string literal of `s`. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case "\x07":
        out += "\\a";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\v":
        out += "\\v";
        break;
      case "\\":
        out += "\\\\";
        break;
      case '"':
        out += '\\"';
        break;
      default: {
        const cp = ch.codePointAt(0)!;
        out += cp >= 0xd800 && cp <= 0xdfff ? "\ufffd" : ch;
      }
    }
  }
  return out + '"';
}

// ---------------------------------------------------------------------------------------------
// Costs

/** ceil(size(receiver) × factor): Kubernetes' runtime cost of the string functions. */
function receiverCost(factor: number) {
  return (args: readonly CelValue[]) => Math.ceil(actualSize(args[0]!) * factor);
}

/** lowerAscii, upperAscii, substring, trim: one traversal; the result is no longer than the input. */
const traversal: OverloadCost = {
  estimate: (args) => ({ cost: scale(args[0]!.size, stringTraversalCostFactor), resultSize: args[0]!.size }),
  actual: receiverCost(stringTraversalCostFactor),
};

const indexCost: OverloadCost = {
  estimate: listTraversalEstimate,
  actual: (args) => traversalCost(args[0]!),
};

/** Kubernetes' replace estimate: two traversals; the result size from the longest and shortest replacements. */
function replaceEstimate(args: readonly ArgEstimate[]): CallEstimate {
  const sz = args[0]!.size;
  const toReplace = args[1]!.size;
  const replaceWith = args[2]!.size;
  let countMax: number;
  let countMin: number;
  let retainedMax = 0;
  let retainedMin = 0;
  if (toReplace.min === 0) {
    countMax = sz.max < UNBOUNDED ? sz.max + 1 : sz.max;
    retainedMax = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0;
    retainedMax = sz.max;
  } else {
    countMax = sz.max >= UNBOUNDED ? UNBOUNDED : Math.ceil(sz.max / toReplace.min);
  }
  if (toReplace.max === 0) {
    countMin = sz.min < UNBOUNDED ? sz.min + 1 : sz.min;
    retainedMin = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0;
    retainedMin = sz.min;
  } else {
    countMin = toReplace.max >= UNBOUNDED ? 0 : Math.ceil(sz.min / toReplace.max);
  }
  const size = add(multiply({ min: countMin, max: countMax }, replaceWith), { min: retainedMin, max: retainedMax });
  return { cost: scale(sz, 2 * stringTraversalCostFactor), resultSize: size };
}

function splitEstimate(args: readonly ArgEstimate[]): CallEstimate {
  const sz = args[0]!.size;
  let max = sz.max;
  const n = args[2]?.constant;
  if (typeof n === "bigint") max = n < 0n || n >= BigInt(UNBOUNDED) ? UNBOUNDED : Number(n);
  return { cost: scale(sz, 2 * stringTraversalCostFactor), resultSize: { min: 0, max } };
}

function joinEstimate(args: readonly ArgEstimate[]): CallEstimate {
  const target = args[0]!;
  const listSize = target.size;
  let sz = fixed(0);
  if (target.type.kind === "list") sz = multiply(listSize, typeSize(target.type.elem));
  if (args.length > 1) {
    const separators = { min: listSize.min > 0 ? listSize.min - 1 : 0, max: listSize.max > 0 ? (listSize.max >= UNBOUNDED ? UNBOUNDED : listSize.max - 1) : 0 };
    sz = add(sz, multiply(args[1]!.size, separators));
  }
  return { cost: scale(sz, stringTraversalCostFactor), resultSize: sz };
}

const joinCost: OverloadCost = {
  estimate: joinEstimate,
  actual: (_args, result) => Math.ceil(actualSize(result) * 2 * stringTraversalCostFactor),
};

const twoTraversals = receiverCost(2 * stringTraversalCostFactor);

const s = (v: CelValue) => v as string;
const i = (v: CelValue) => v as bigint;

export const stringsLibrary: CelLibrary = {
  name: "cel.lib.ext.strings",
  functions: [
    {
      name: "charAt",
      overloads: [memberOverload("string_char_at_int", [StringType, IntType], StringType, (a) => charAt(s(a[0]!), i(a[1]!)))],
    },
    {
      name: "indexOf",
      overloads: [
        memberOverload("string_index_of_string", [StringType, StringType], IntType, (a) => indexOf(s(a[0]!), s(a[1]!)), { cost: indexCost }),
        memberOverload("string_index_of_string_int", [StringType, StringType, IntType], IntType, (a) => indexOf(s(a[0]!), s(a[1]!), i(a[2]!)), {
          cost: indexCost,
        }),
      ],
    },
    {
      name: "lastIndexOf",
      overloads: [
        memberOverload("string_last_index_of_string", [StringType, StringType], IntType, (a) => lastIndexOf(s(a[0]!), s(a[1]!)), {
          cost: indexCost,
        }),
        memberOverload(
          "string_last_index_of_string_int",
          [StringType, StringType, IntType],
          IntType,
          (a) => lastIndexOf(s(a[0]!), s(a[1]!), i(a[2]!)),
          { cost: indexCost },
        ),
      ],
    },
    {
      name: "lowerAscii",
      overloads: [memberOverload("string_lower_ascii", [StringType], StringType, (a) => lowerAscii(s(a[0]!)), { cost: traversal })],
    },
    {
      name: "replace",
      overloads: [
        memberOverload(
          "string_replace_string_string",
          [StringType, StringType, StringType],
          StringType,
          (a) => replace(s(a[0]!), s(a[1]!), s(a[2]!)),
          { cost: { estimate: replaceEstimate, actual: twoTraversals } },
        ),
        memberOverload(
          "string_replace_string_string_int",
          [StringType, StringType, StringType, IntType],
          StringType,
          (a) => replace(s(a[0]!), s(a[1]!), s(a[2]!), i(a[3]!)),
          { cost: { estimate: replaceEstimate, actual: twoTraversals } },
        ),
      ],
    },
    {
      name: "split",
      overloads: [
        memberOverload("string_split_string", [StringType, StringType], listOf(StringType), (a) => split(s(a[0]!), s(a[1]!)), {
          cost: { estimate: splitEstimate, actual: twoTraversals },
        }),
        memberOverload(
          "string_split_string_int",
          [StringType, StringType, IntType],
          listOf(StringType),
          (a) => split(s(a[0]!), s(a[1]!), i(a[2]!)),
          { cost: { estimate: splitEstimate, actual: twoTraversals } },
        ),
      ],
    },
    {
      name: "substring",
      overloads: [
        memberOverload("string_substring_int", [StringType, IntType], StringType, (a) => substring(s(a[0]!), i(a[1]!)), { cost: traversal }),
        memberOverload("string_substring_int_int", [StringType, IntType, IntType], StringType, (a) => substring(s(a[0]!), i(a[1]!), i(a[2]!)), {
          cost: traversal,
        }),
      ],
    },
    {
      name: "trim",
      overloads: [memberOverload("string_trim", [StringType], StringType, (a) => trim(s(a[0]!)), { cost: traversal })],
    },
    {
      name: "upperAscii",
      overloads: [memberOverload("string_upper_ascii", [StringType], StringType, (a) => upperAscii(s(a[0]!)), { cost: traversal })],
    },
    {
      name: "format",
      overloads: [
        memberOverload("string_format", [StringType, listOf(DynType)], StringType, (a) => formatStringWith(s(a[0]!), a[1] as CelValue[]), {
          cost: {
            estimate: (args) => ({ cost: scale(args[0]!.size, stringTraversalCostFactor) }),
            actual: receiverCost(stringTraversalCostFactor),
          },
        }),
      ],
    },
    {
      name: "strings.quote",
      overloads: [
        overload("strings_quote", [StringType], StringType, (a) => quote(s(a[0]!)), {
          cost: {
            estimate: (args) => {
              const sz = args[0]!.size;
              return {
                cost: scale(sz, stringTraversalCostFactor),
                // every character may need escaping; the quotes are always added
                resultSize: add(multiply(sz, { min: 1, max: 2 }), fixed(2)),
              };
            },
            actual: receiverCost(stringTraversalCostFactor),
          },
        }),
      ],
    },
    {
      name: "join",
      overloads: [
        memberOverload("list_join", [listOf(StringType)], StringType, (a) => join(a[0] as CelValue[]), { cost: joinCost }),
        memberOverload("list_join_string", [listOf(StringType), StringType], StringType, (a) => join(a[0] as CelValue[], s(a[1]!)), {
          cost: joinCost,
        }),
      ],
    },
  ],
};
