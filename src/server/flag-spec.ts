// How a flag of `kapi serve` is declared: its kube-apiserver name, kind, default and help, and
// how its value lands in ServerOptions. The core declares the generic flags (server/core-flags.ts)
// and each feature module the flags of its capability (FeatureModule.flags); the CLI parses and
// lists them all. The value parsers below give pflag's error wording.
import { parseGoBool } from "../apimachinery/booleans.js";
import { parseGoDuration } from "../apimachinery/duration.js";
import { goQuote } from "../apimachinery/go-quote.js";
import type { ServerOptions } from "./options.js";

export interface FlagSpec {
  /** Without the leading "--". */
  readonly name: string;
  /** A bool flag may be given without a value (`--name` means true). */
  readonly kind: "string" | "int" | "float" | "bool" | "duration" | "list";
  /** As --help shows it ("" for none). */
  readonly default: string;
  readonly help: string;
  /** Sets the flag's value in the options (a repeated flag is applied once per occurrence); throws pflag's error for a bad value. */
  apply(o: ServerOptions, value: string): void;
}

/** A bool flag's value (strconv.ParseBool's spellings). */
export function boolFlag(name: string, v: string): boolean {
  const b = parseGoBool(v);
  if (b !== undefined) return b;
  throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: strconv.ParseBool: parsing ${goQuote(v)}: invalid syntax`);
}

/** pflag's StringSlice: comma-separated values read as one CSV record (quoted fields allowed, no trimming); empty → no values. */
export function listFlag(v: string): string[] {
  return v === "" ? [] : v.split(",").map((x) => x.replace(/^"(.*)"$/, "$1"));
}

export function intFlag(name: string, v: string, min = -(2 ** 31), max = 2 ** 31 - 1): number {
  const n = Number(v);
  if (!/^-?\d+$/.test(v) || n < min || n > max) throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: must be an integer from ${min} to ${max}`);
  return n;
}

/** A float64 flag (strconv.ParseFloat's spellings, with pflag's error). */
export function floatFlag(name: string, v: string): number {
  const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v.trim()) && v.trim() === v ? Number(v) : Number.NaN;
  if (Number.isNaN(n)) throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: strconv.ParseFloat: parsing ${goQuote(v)}: invalid syntax`);
  return n;
}

/** A Go duration ("90s", "1m30s") in milliseconds. */
export function durationFlag(name: string, v: string): number {
  try {
    return parseGoDuration(v);
  } catch (e) {
    throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: ${(e as Error).message}`);
  }
}

/** kube-apiserver parses a negative value, then refuses it in validation (with its wording). */
export function nonNegative(name: string, n: number, message = `--${name} can not be negative value`): number {
  if (n < 0) throw new Error(message);
  return n;
}
