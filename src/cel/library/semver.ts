// The Kubernetes semver library (k8s.io/apiserver/pkg/cel/library, semverlib; version 1 since
// 1.33): semver(string[, normalize]), isSemver(string[, normalize]), major, minor, patch,
// isLessThan, isGreaterThan, compareTo. Parsing, ordering and error texts follow
// github.com/blang/semver/v4 (Parse, Compare); normalization is upstream's normalizeAndParse.
import { memberOverload, overload, type CelLibrary } from "../library.js";
import { BoolType, IntType, opaque, StringType } from "../types.js";
import type { CelOpaque, CelValue } from "../value.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { celError, nominalCost, stringParseCost } from "./k8s-common.js";

export const SemverType = opaque("kubernetes.Semver");

const UINT64_MAX = (1n << 64n) - 1n;
const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;

type PreRelease = { num: bigint } | { str: string };

class SemverError extends Error {}
const fail = (msg: string): never => {
  throw new SemverError(msg);
};

const hasLeadingZeroes = (s: string): boolean => s.length > 1 && s[0] === "0";

/** Go's strconv.ParseUint(s, 10, 64) with its error texts. */
function parseUint(s: string): bigint {
  if (!/^[0-9]+$/.test(s)) return fail(`strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) fail(`strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return v;
}

/** A kubernetes.Semver value (blang semver.Version). */
export class Semver implements CelOpaque {
  readonly celType = SemverType;
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly PreRelease[],
    readonly build: readonly string[],
  ) {}

  /** blang semver Version.Compare (build metadata ignored). */
  compare(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a > b ? 1 : -1;
    }
    if (this.pre.length === 0 && o.pre.length === 0) return 0;
    if (this.pre.length === 0) return 1;
    if (o.pre.length === 0) return -1;
    let i = 0;
    for (; i < this.pre.length && i < o.pre.length; i++) {
      const c = comparePre(this.pre[i]!, o.pre[i]!);
      if (c !== 0) return c;
    }
    if (i === this.pre.length && i === o.pre.length) return 0;
    return i === this.pre.length ? -1 : 1;
  }

  equals(other: CelOpaque): boolean {
    return other instanceof Semver && this.compare(other) === 0;
  }
}

function comparePre(a: PreRelease, b: PreRelease): number {
  if ("num" in a && "num" in b) return a.num === b.num ? 0 : a.num > b.num ? 1 : -1;
  if ("num" in a) return -1;
  if ("num" in b) return 1;
  return a.str === b.str ? 0 : a.str > b.str ? 1 : -1;
}

function parsePre(s: string): PreRelease {
  if (s.length === 0) fail("Prerelease is empty");
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) fail(`Numeric PreRelease version must not contain leading zeroes ${goQuote(s)}`);
    return { num: parseUint(s) };
  }
  if (ALPHANUM.test(s)) return { str: s };
  return fail(`Invalid character(s) found in prerelease ${goQuote(s)}`);
}

function splitN3(s: string): string[] {
  const a = s.indexOf(".");
  if (a < 0) return [s];
  const b = s.indexOf(".", a + 1);
  if (b < 0) return [s.slice(0, a), s.slice(a + 1)];
  return [s.slice(0, a), s.slice(a + 1, b), s.slice(b + 1)];
}

/** blang semver.Parse. */
function parseStrict(s: string): Semver {
  if (s.length === 0) fail("Version string empty");
  const parts = splitN3(s);
  if (parts.length !== 3) fail("No Major.Minor.Patch elements found");
  const num = (part: string, what: "major" | "minor" | "patch", name: string): bigint => {
    if (!NUMBERS.test(part)) fail(`Invalid character(s) found in ${what} number ${goQuote(part)}`);
    if (hasLeadingZeroes(part)) fail(`${name} number must not contain leading zeroes ${goQuote(part)}`);
    return parseUint(part);
  };
  const major = num(parts[0]!, "major", "Major");
  const minor = num(parts[1]!, "minor", "Minor");
  let patchStr = parts[2]!;
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = patchStr.indexOf("+");
  if (plus !== -1) {
    build = patchStr.slice(plus + 1).split(".");
    patchStr = patchStr.slice(0, plus);
  }
  const dash = patchStr.indexOf("-");
  if (dash !== -1) {
    prerelease = patchStr.slice(dash + 1).split(".");
    patchStr = patchStr.slice(0, dash);
  }
  const patch = num(patchStr, "patch", "Patch");
  const pre = prerelease.map(parsePre);
  for (const b of build) {
    if (b.length === 0) fail("Build meta data is empty");
    if (!ALPHANUM.test(b)) fail(`Invalid character(s) found in build meta data ${goQuote(b)}`);
  }
  return new Semver(major, minor, patch, pre, build);
}

/** Upstream's normalizeAndParse: no "v" prefix, missing minor/patch as 0, leading zeros dropped. */
function normalizeAndParse(input: string): Semver {
  const s = input.startsWith("v") ? input.slice(1) : input;
  const parts = splitN3(s).map((p) => {
    if (p.length <= 1) return p;
    let t = p.replace(/^0+/, "");
    if (t.length === 0 || !"0123456789".includes(t[0]!)) t = "0" + t;
    return t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) fail("short version cannot contain PreRelease/Build meta data");
    while (parts.length < 3) parts.push("0");
  }
  return parseStrict(parts.join("."));
}

/** semver(s[, normalize]); throws CelEvalError with upstream's text. */
export function parseSemver(s: string, normalize = false): Semver {
  try {
    return normalize ? normalizeAndParse(s) : parseStrict(s);
  } catch (e) {
    if (e instanceof SemverError) celError(e.message);
    throw e;
  }
}

function isSemver(s: string, normalize: boolean): boolean {
  try {
    parseSemver(s, normalize);
    return true;
  } catch {
    return false;
  }
}

const asSemver = (v: CelValue): Semver => v as unknown as Semver;
/** types.Int(v.Major): a uint64 above 2^63-1 wraps as in Go. */
const toInt = (v: bigint): bigint => BigInt.asIntN(64, v);

export const semverLibrary: CelLibrary = {
  name: "kubernetes.Semver",
  functions: [
    {
      name: "semver",
      overloads: [
        overload("string_to_semver", [StringType], SemverType, ([s]) => parseSemver(s as string), { cost: stringParseCost(0) }),
        overload("string_bool_to_semver", [StringType, BoolType], SemverType, ([s, n]) => parseSemver(s as string, n as boolean), { cost: stringParseCost(0) }),
      ],
    },
    {
      name: "isSemver",
      overloads: [
        overload("is_semver_string", [StringType], BoolType, ([s]) => isSemver(s as string, false), { cost: stringParseCost(0) }),
        overload("is_semver_string_bool", [StringType, BoolType], BoolType, ([s, n]) => isSemver(s as string, n as boolean), { cost: stringParseCost(0) }),
      ],
    },
    {
      name: "isGreaterThan",
      overloads: [memberOverload("semver_is_greater_than", [SemverType, SemverType], BoolType, ([a, b]) => asSemver(a!).compare(asSemver(b!)) === 1, { cost: nominalCost })],
    },
    {
      name: "isLessThan",
      overloads: [memberOverload("semver_is_less_than", [SemverType, SemverType], BoolType, ([a, b]) => asSemver(a!).compare(asSemver(b!)) === -1, { cost: nominalCost })],
    },
    {
      name: "compareTo",
      overloads: [memberOverload("semver_compare_to", [SemverType, SemverType], IntType, ([a, b]) => BigInt(asSemver(a!).compare(asSemver(b!))), { cost: nominalCost })],
    },
    { name: "major", overloads: [memberOverload("semver_major", [SemverType], IntType, ([v]) => toInt(asSemver(v!).major), { cost: nominalCost })] },
    { name: "minor", overloads: [memberOverload("semver_minor", [SemverType], IntType, ([v]) => toInt(asSemver(v!).minor), { cost: nominalCost })] },
    { name: "patch", overloads: [memberOverload("semver_patch", [SemverType], IntType, ([v]) => toInt(asSemver(v!).patch), { cost: nominalCost })] },
  ],
};
