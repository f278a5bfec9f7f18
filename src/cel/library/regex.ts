// The Kubernetes regex library (k8s.io/apiserver/pkg/cel/library/regex.go, `kubernetes.regex`):
// <string>.find(regex) → the leftmost match or "", <string>.findAll(regex[, limit]) → the
// successive non-overlapping matches as Go's regexp.FindAllString gives them (an empty match
// right after a previous match is skipped; a limit below zero means all, zero means none).
// Patterns are RE2 (re2js via compileRegex); a bad pattern is "Illegal regex: <RE2's message>".
//
// Upstream also compiles a constant pattern once when the program is built and fails program
// creation on a bad one (cel.OptimizeRegex); kapi's compileRegex cache gives the same speed, and
// the checker finds a bad constant pattern (CheckedExpr.programError, thrown by plan() as
// CelProgramError; see checker/validators.ts).
//
// Cost (library/cost.go): ceil((1 + len(input)) × 0.1) × ceil(len(pattern) × 0.25); the estimate
// multiplies the same factors over the size bounds, and the result list has at most len(input)
// items.
import type { RE2JS } from "re2js";
import type { ArgEstimate, CelLibrary, OverloadCost } from "../library.js";
import { memberOverload } from "../library.js";
import { regexStringLengthCostFactor, stringTraversalCostFactor } from "../cost/constants.js";
import { compileRegex } from "../regex.js";
import { IntType, StringType, listOf } from "../types.js";
import { CelEvalError, type CelValue } from "../value.js";
import { actualSize } from "./compare.js";
import { add, fixed, multiply, scale } from "./compare-cost.js";

function compile(pattern: string): RE2JS {
  try {
    return compileRegex(pattern);
  } catch (e) {
    throw new CelEvalError(`Illegal regex: ${(e as Error).message}`);
  }
}

export function find(input: string, pattern: string): string {
  const m = compile(pattern).matcher(input);
  return m.find() ? (m.group() ?? "") : "";
}

/** Go's FindAllString(input, n) over an RE2 pattern. */
export function findAll(input: string, pattern: string, limit: bigint = -1n): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  const m = compile(pattern).matcher(input);
  const end = input.length;
  let pos = 0;
  let prevMatchEnd = -1;
  while ((limit < 0n || BigInt(out.length) < limit) && pos <= end) {
    if (!m.find(pos)) break;
    const s = m.start();
    const e = m.end();
    let accept = true;
    if (e === pos) {
      // An empty match at pos: skip it when it abuts the previous match, and step over one character.
      if (s === prevMatchEnd) accept = false;
      pos += pos < end && isHighSurrogateAt(input, pos) ? 2 : 1;
    } else {
      pos = e;
    }
    prevMatchEnd = e;
    if (accept) out.push(input.slice(s, e));
  }
  return out;
}

function isHighSurrogateAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
}

const regexCost: OverloadCost = {
  estimate(args: readonly ArgEstimate[]) {
    const input = args[0]!.size;
    const strCost = scale(add(input, fixed(1)), stringTraversalCostFactor);
    const regexCost = scale(args[1]!.size, regexStringLengthCostFactor);
    return { cost: multiply(strCost, regexCost), resultSize: { min: 0, max: input.max } };
  },
  actual(args: readonly CelValue[]) {
    const strCost = Math.ceil((1 + actualSize(args[0]!)) * stringTraversalCostFactor);
    const regexCost = Math.ceil(actualSize(args[1]!) * regexStringLengthCostFactor);
    return strCost * regexCost;
  },
};

export const regexLibrary: CelLibrary = {
  name: "kubernetes.regex",
  functions: [
    {
      name: "find",
      overloads: [
        memberOverload("string_find_string", [StringType, StringType], StringType, (a) => find(a[0] as string, a[1] as string), {
          cost: regexCost,
        }),
      ],
    },
    {
      name: "findAll",
      overloads: [
        memberOverload("string_find_all_string", [StringType, StringType], listOf(StringType), (a) => findAll(a[0] as string, a[1] as string), {
          cost: regexCost,
        }),
        memberOverload(
          "string_find_all_string_int",
          [StringType, StringType, IntType],
          listOf(StringType),
          (a) => findAll(a[0] as string, a[1] as string, a[2] as bigint),
          { cost: regexCost },
        ),
      ],
    },
  ],
};
