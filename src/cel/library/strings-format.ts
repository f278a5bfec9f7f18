// `<string>.format(<list>)` as cel-go's ext strings library has it below version 4 (Kubernetes
// 1.34 enables version 2): clauses %s %d %f %e %b %x %X %o, `%%`, an optional precision `.N` for
// %f (%e ignores it: cel-go builds its verb as a width, so %e always has 6 digits), the en_US
// locale for %f and %e (thousands grouped with ",", scientific written `1.052033 × 10⁰³`),
// and cel-go's error texts ("error during formatting: …", "could not parse formatting clause:
// …", "index N out of range", "unexpected end of string").
//
// `validateFormatArgs` is cel-go's compile-time check of a constant format string applied to a
// list literal (the string-format AST validator); the checker runs it (checker/validators.ts)
// wherever `format` resolves to `string_format`. `validateFormatCall` is the same over types alone.
import { runtimeTypeName } from "../stdlib/values.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import type { CelType } from "../types.js";
import { CelDuration, CelEvalError, CelMap, CelTimestamp, CelTypeValue, CelUint, type CelValue } from "../value.js";
import { celTypeName, compareStrings } from "./compare.js";

class FormatError extends Error {}

// ---------------------------------------------------------------------------------------------
// Values as strings (cel-go's conversions to string)

/** Go's `%g` of a float64: shortest digits, exponent form below 1e-4 and from 1e6 (`1e+06`). */
export function goFormatG(d: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (d === Infinity) return "+Inf";
  if (d === -Infinity) return "-Inf";
  if (d === 0) return Object.is(d, -0) ? "-0" : "0";
  const [mant, expStr] = d.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
  }
  return plainDecimal(d);
}

/** The shortest digits of `d` written without an exponent (Go FormatFloat 'f', -1). */
export function plainDecimal(d: number): string {
  const s = String(d);
  if (!/e/i.test(s)) return s;
  const neg = d < 0;
  const [mant, expStr] = Math.abs(d).toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  const digits = mant.replace(".", "");
  let out: string;
  if (exp < 0) out = "0." + "0".repeat(-exp - 1) + digits;
  else out = digits.length > exp + 1 ? digits.slice(0, exp + 1) + "." + digits.slice(exp + 1) : digits + "0".repeat(exp + 1 - digits.length);
  return (neg ? "-" : "") + out;
}

export function timestampString(t: CelTimestamp): string {
  const secs = t.nanos >= 0n ? t.nanos / 1_000_000_000n : -((-t.nanos + 999_999_999n) / 1_000_000_000n);
  const frac = t.nanos - secs * 1_000_000_000n;
  const iso = new Date(Number(secs) * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z for years 0–9999
  let s = iso.slice(0, 19);
  if (frac !== 0n) s += "." + frac.toString().padStart(9, "0").replace(/0+$/, "");
  return s + "Z";
}

export function durationString(d: CelDuration): string {
  const sec = d.nanos / 1_000_000_000n; // truncates toward zero, as Go's integer division
  const nsec = d.nanos % 1_000_000_000n;
  return plainDecimal(Number(sec) + Number(nsec) / 1e9) + "s";
}


const utf8 = new TextDecoder("utf-8", { fatal: true });

/** cel-go FormatString: what %s makes of a value. */
function formatString(v: CelValue): string {
  if (Array.isArray(v)) return formatList(v);
  if (v instanceof CelMap) return formatMap(v);
  switch (typeof v) {
    case "bigint":
      return v.toString();
    case "number":
      return goFormatG(v);
    case "boolean":
      return v ? "true" : "false";
    case "string":
      return v;
  }
  if (v === null) return "null";
  if (v instanceof CelUint) return v.value.toString();
  if (v instanceof CelTimestamp) return timestampString(v);
  if (v instanceof CelDuration) return durationString(v);
  if (v instanceof CelTypeValue) return runtimeTypeName(v.type);
  if (v instanceof Uint8Array) {
    try {
      return utf8.decode(v);
    } catch {
      throw new FormatError('could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string');
    }
  }
  throw new FormatError(stringClauseError(celTypeName(v)));
}

/** A list member or map value as cel-go writes it inside a list or map (clauseForType + quoteForCEL). */
function formatMember(v: CelValue): string {
  switch (typeof v) {
    case "bigint":
      return v.toString();
    case "number": {
      const s = goFixed(v, 6);
      return Number.isFinite(v) ? s : goQuote(s);
    }
    case "string":
      return goQuote(v);
    case "boolean":
      return v ? "true" : "false";
  }
  if (v === null) return "null";
  if (v instanceof CelUint) return v.value.toString();
  if (v instanceof Uint8Array) return "b" + goQuote(formatString(v));
  if (v instanceof CelTypeValue) return runtimeTypeName(v.type);
  if (v instanceof CelTimestamp) return `timestamp(${goQuote(timestampString(v))})`;
  if (v instanceof CelDuration) return `duration(${goQuote(durationString(v))})`;
  if (Array.isArray(v)) return formatList(v);
  if (v instanceof CelMap) return formatMap(v);
  throw new FormatError(`no formatting function for ${celTypeName(v)}`);
}

function formatList(list: readonly CelValue[]): string {
  return "[" + list.map(formatMember).join(", ") + "]";
}

function formatMap(m: CelMap): string {
  const pairs: [string, string][] = [];
  for (const [k, v] of m.entries()) {
    const key = typeof k === "string" ? goQuote(k) : typeof k === "boolean" ? String(k) : k instanceof CelUint ? k.value.toString() : k.toString();
    pairs.push([key, formatMember(v)]);
  }
  pairs.sort((a, b) => compareStrings(a[0], b[0]));
  return "{" + pairs.map(([k, v]) => `${k}:${v}`).join(", ") + "}";
}

// ---------------------------------------------------------------------------------------------
// Numbers: exact decimal expansion of a double, rounded half to even (Go's strconv)

/** |d| exactly as decimal digits with `scale` digits after the point. */
function exactDecimal(d: number): { digits: string; scale: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(d));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (expBits === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = expBits - 1075;
  }
  if (exp >= 0) return { digits: (mant << BigInt(exp)).toString(), scale: 0 };
  return { digits: (mant * 5n ** BigInt(-exp)).toString(), scale: -exp };
}

/** Keeps the first `keep` digits of `digits`, rounding half to even on the rest; may carry into a new digit. */
function roundDigits(digits: string, keep: number): string {
  if (keep >= digits.length) return digits + "0".repeat(keep - digits.length);
  if (keep < 0) return "";
  const head = keep === 0 ? 0n : BigInt(digits.slice(0, keep));
  const rest = digits.slice(keep);
  const first = rest.charCodeAt(0) - 48;
  let up = first > 5 || (first === 5 && /[1-9]/.test(rest.slice(1)));
  if (first === 5 && !up && !/[1-9]/.test(rest.slice(1))) up = head % 2n === 1n;
  const r = up ? head + 1n : head;
  return keep === 0 ? (r === 0n ? "" : r.toString()) : r.toString().padStart(keep, "0");
}

/** Go's `%.<prec>f` (finite: exact, half to even; NaN, +Inf, -Inf as Go writes them). */
export function goFixed(d: number, prec: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (!Number.isFinite(d)) return d > 0 ? "+Inf" : "-Inf";
  const { digits, scale } = exactDecimal(d);
  // the number is digits × 10^-scale; keep (len - scale + prec) digits
  const intLen = digits.length - scale;
  let padded = digits;
  let n = intLen;
  if (intLen <= 0) {
    padded = "0".repeat(1 - intLen) + digits;
    n = 1;
  }
  let kept = roundDigits(padded, n + prec);
  if (kept.length > n + prec) n += 1; // carried into a new leading digit
  kept = kept.padStart(n + prec, "0");
  const intPart = kept.slice(0, n).replace(/^0+(?=\d)/, "");
  const fracPart = kept.slice(n);
  const sign = d < 0 || Object.is(d, -0) ? "-" : "";
  return sign + intPart + (prec > 0 ? "." + fracPart : "");
}

function groupThousands(s: string): string {
  const m = /^(-?)(\d+)(.*)$/.exec(s);
  if (!m) return s;
  return m[1] + m[2]!.replace(/\B(?=(\d{3})+$)/g, ",") + m[3];
}

const superscripts = "⁰¹²³⁴⁵⁶⁷⁸⁹";

/** `%e` as golang.org/x/text prints it for en_US: `1.052033 × 10⁰³`, 6 digits after the point. */
function localizedScientific(d: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (!Number.isFinite(d)) return d > 0 ? "∞" : "-∞";
  const sign = d < 0 || Object.is(d, -0) ? "-" : "";
  let mant = "0000000";
  let exp = 0;
  if (d !== 0) {
    const { digits, scale } = exactDecimal(d);
    const lead = digits.search(/[1-9]/);
    const sig = digits.slice(lead);
    exp = digits.length - lead - 1 - scale;
    mant = roundDigits(sig, 7);
    if (mant.length > 7) {
      mant = mant.slice(0, 7);
      exp += 1;
    }
  }
  const e = Math.abs(exp).toString().padStart(2, "0");
  const sup = (exp < 0 ? "⁻" : "") + [...e].map((c) => superscripts[Number(c)]).join("");
  return `${sign}${mant[0]}.${mant.slice(1)}\u202f×\u202f10${sup}`;
}

function localizedFixed(d: number, prec: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (!Number.isFinite(d)) return d > 0 ? "∞" : "-∞";
  return groupThousands(goFixed(d, prec));
}

// ---------------------------------------------------------------------------------------------
// Clauses

const stringClauseError = (t: string) =>
  `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${t}`;
const decimalError = (t: string) => `decimal clause can only be used on integers, was given ${t}`;
const fixedError = (t: string) => `fixed-point clause can only be used on doubles, was given ${t}`;
const scientificError = (t: string) => `scientific clause can only be used on doubles, was given ${t}`;
const binaryError = (t: string) => `only integers and bools can be formatted as binary, was given ${t}`;
const hexError = (t: string) => `only integers, byte buffers, and strings can be formatted as hex, was given ${t}`;
const octalError = (t: string) => `octal clause can only be used on integers, was given ${t}`;

/** A double, or one of the strings cel-go lets %f and %e take as a double. */
function floatArg(v: CelValue, error: (t: string) => string): number {
  if (typeof v === "number") return v;
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  throw new FormatError(error(celTypeName(v)));
}

function integer(v: CelValue): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (v instanceof CelUint) return v.value;
  return undefined;
}

function radix(n: bigint, base: number, upper = false): string {
  const s = n < 0n ? "-" + (-n).toString(base) : n.toString(base);
  return upper ? s.toUpperCase() : s;
}

function hexOfBytes(b: Uint8Array, upper: boolean): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return upper ? s.toUpperCase() : s;
}

type Clause = (v: CelValue) => string;

function clauseFor(verb: string, precision: number | undefined): Clause | undefined {
  switch (verb) {
    case "s":
      return formatString;
    case "d":
      return (v) => {
        const n = integer(v);
        if (n === undefined) throw new FormatError(decimalError(celTypeName(v)));
        return n.toString();
      };
    case "f":
      return (v) => localizedFixed(floatArg(v, fixedError), precision ?? 6);
    case "e":
      // cel-go writes the precision as a width (`%6e`): the digits stay 6, short results are padded.
      return (v) => localizedScientific(floatArg(v, scientificError)).padStart(precision ?? 6, " ");
    case "b":
      return (v) => {
        if (typeof v === "boolean") return v ? "1" : "0";
        const n = integer(v);
        if (n === undefined) throw new FormatError(binaryError(celTypeName(v)));
        return radix(n, 2);
      };
    case "x":
    case "X":
      return (v) => {
        const upper = verb === "X";
        if (typeof v === "string") return hexOfBytes(new TextEncoder().encode(v), upper);
        if (v instanceof Uint8Array) return hexOfBytes(v, upper);
        const n = integer(v);
        if (n === undefined) throw new FormatError(hexError(celTypeName(v)));
        return radix(n, 16, upper);
      };
    case "o":
      return (v) => {
        const n = integer(v);
        if (n === undefined) throw new FormatError(octalError(celTypeName(v)));
        return radix(n, 8);
      };
  }
  return undefined;
}

/** How Go's `%c` shows the byte after `%` (the first UTF-8 byte of the character, as a rune). */
function verbForMessage(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return ch;
  return String.fromCharCode(new TextEncoder().encode(ch)[0]!);
}

interface Parsed {
  /** Characters consumed after the `%`. */
  read: number;
  verb: string;
  precision: number | undefined;
}

/** Parses `[.N]verb` at `i` (just after a `%`); throws FormatError with cel-go's text. */
function parseClause(s: string, i: number): Parsed {
  let j = i;
  let precision: number | undefined;
  if (s[j] === ".") {
    j++;
    let digits = "";
    for (;;) {
      if (j >= s.length) throw new FormatError("could not parse formatting clause: error while parsing precision: could not find end of precision specifier");
      const c = s[j]!;
      if (c < "0" || c > "9") break;
      digits += c;
      j++;
    }
    if (digits === "") {
      throw new FormatError(
        'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
      );
    }
    if (BigInt(digits) > 9223372036854775807n) {
      throw new FormatError(
        `could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing ${goQuote(digits)}: value out of range`,
      );
    }
    precision = Number(digits);
  }
  const ch = String.fromCodePoint(s.codePointAt(j)!);
  const verb = ch;
  if (!clauseFor(verb, precision)) throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verbForMessage(ch)}"`);
  return { read: j + 1 - i, verb, precision };
}

/** `format.format(args)`: throws CelEvalError with cel-go's message. */
export function formatStringWith(format: string, args: readonly CelValue[]): string {
  try {
    let out = "";
    let argIndex = 0;
    let i = 0;
    while (i < format.length) {
      const c = format[i]!;
      if (c !== "%") {
        out += c;
        i++;
        continue;
      }
      if (format[i + 1] === "%") {
        out += "%";
        i += 2;
        continue;
      }
      if (argIndex >= args.length) throw new FormatError(`index ${argIndex} out of range`);
      if (i + 1 >= format.length) throw new FormatError("unexpected end of string");
      const p = parseClause(format, i + 1);
      const clause = clauseFor(p.verb, p.precision)!;
      let text: string;
      try {
        text = clause(args[argIndex]!);
      } catch (e) {
        if (e instanceof FormatError) throw new FormatError(`error during formatting: ${e.message}`);
        throw e;
      }
      out += text;
      i += 1 + p.read;
      argIndex++;
    }
    return out;
  } catch (e) {
    if (e instanceof FormatError) throw new CelEvalError(e.message);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Compile-time validation (cel-go stringFormatValidator)

/** cel-go's verifyTypeOneOf: exactly dyn, or the same kind (parameters not looked into). */
function kindOneOf(t: CelType, kinds: readonly string[]): boolean {
  return t.kind === "dyn" || kinds.includes(t.kind);
}

const stringKinds = ["list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes", "duration", "type", "null"];

/** How the validator sees one argument of the list literal. */
export interface FormatArgView<A> {
  /** The checked type of an argument (or of an element nested in a list/map literal argument). */
  typeOf(a: A): CelType;
  /** cel-go's Type.TypeName() of a type, as its messages print it. */
  typeName(t: CelType): string;
  /**
   * The elements of a list literal, or the keys and values (key first) of a map literal, which
   * %s checks one by one (cel-go looks into literals, not into the types of other expressions).
   */
  literalChildren?(a: A): readonly A[] | undefined;
}

/**
 * cel-go's compile-time check of `'<constant>'.format([<list literal>])` (ext strings below
 * version 4, stringFormatValidator), given the list literal's elements. Returns the message and,
 * when the problem is one argument's type, that argument (or the element inside a literal
 * argument %s refused); the caller reports it there, or at the call otherwise.
 */
export function validateFormatArgs<A>(
  format: string,
  args: readonly A[],
  view: FormatArgView<A>,
): { message: string; arg?: A } | undefined {
  const badString = (a: A): A | undefined => {
    if (!kindOneOf(view.typeOf(a), stringKinds)) return a;
    for (const c of view.literalChildren?.(a) ?? []) {
      const bad = badString(c);
      if (bad !== undefined) return bad;
    }
    return undefined;
  };
  let argIndex = 0;
  let i = 0;
  try {
    while (i < format.length) {
      if (format[i] !== "%") {
        i++;
        continue;
      }
      if (format[i + 1] === "%") {
        i += 2;
        continue;
      }
      if (i + 1 >= format.length) throw new FormatError("unexpected end of string");
      if (argIndex >= args.length) throw new FormatError(`index ${argIndex} out of range`);
      const p = parseClause(format, i + 1);
      const a = args[argIndex]!;
      const t = view.typeOf(a);
      const fail = (msg: (n: string) => string, bad: A = a): never => {
        throw Object.assign(new FormatError(`error during formatting: ${msg(view.typeName(view.typeOf(bad)))}`), { arg: bad });
      };
      switch (p.verb) {
        case "s": {
          const bad = badString(a);
          if (bad !== undefined) fail(stringClauseError, bad);
          break;
        }
        case "d":
          if (!kindOneOf(t, ["int", "uint"])) fail(decimalError);
          break;
        case "f":
          if (!kindOneOf(t, ["double", "string"])) fail(fixedError);
          break;
        case "e":
          if (!kindOneOf(t, ["double", "string"])) fail(scientificError);
          break;
        case "b":
          if (!kindOneOf(t, ["int", "uint", "bool"])) fail(binaryError);
          break;
        case "x":
        case "X":
          if (!kindOneOf(t, ["int", "uint", "string", "bytes"])) fail(hexError);
          break;
        case "o":
          if (!kindOneOf(t, ["int", "uint"])) fail(octalError);
          break;
      }
      i += 1 + p.read;
      argIndex++;
    }
  } catch (e) {
    if (e instanceof FormatError) {
      const { arg } = e as FormatError & { arg?: A };
      return "arg" in e ? { message: e.message, arg: arg as A } : { message: e.message };
    }
    throw e;
  }
  if (args.length > argIndex) {
    return { message: `too many arguments supplied to string.format (expected ${argIndex}, got ${args.length})` };
  }
  return undefined;
}

/**
 * validateFormatArgs over the argument types alone (no literal elements to look into): the
 * message, and the index of the offending argument when it is about one.
 */
export function validateFormatCall(
  format: string,
  argTypes: readonly CelType[],
  typeName: (t: CelType) => string,
): { message: string; argIndex?: number } | undefined {
  const indexed = argTypes.map((type, index) => ({ type, index }));
  const r = validateFormatArgs(format, indexed, { typeOf: (a) => a.type, typeName });
  if (!r) return undefined;
  return r.arg === undefined ? { message: r.message } : { message: r.message, argIndex: r.arg.index };
}
