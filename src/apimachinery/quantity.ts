// resource.Quantity: one parser (upstream's ParseQuantity, precision limited to nano units),
// the canonical string form Quantity.String() prints, and comparison as Quantity.Cmp.

const BINARY_SUFFIXES: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_BY_EXPONENT = new Map<number, string>(Object.entries(DECIMAL_SUFFIXES).map(([k, v]) => [v, k]));
const BINARY_NAMES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

type Format = "BinarySI" | "DecimalSI" | "DecimalExponent";

interface Parsed {
  negative: boolean;
  /** |value| = mantissa * 10^scale */
  mantissa: bigint;
  scale: number;
  format: Format;
}

const QUANTITY_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]))?$/;

// Quantities are read on every write of a pod (defaulting, validation, admission: requests,
// limits, quota) and are few distinct strings: each is parsed and rendered once, not with BigInt
// arithmetic per read. Bounded: the strings are the clients'. Results are never changed by readers.
const maxRemembered = 1024;
const parsedStrings = new Map<string, Parsed | null>();
const formattedStrings = new Map<string, string>();

function remember<V>(m: Map<string, V>, key: string, v: V): V {
  if (m.size >= maxRemembered) m.clear();
  m.set(key, v);
  return v;
}

function parse(input: unknown): Parsed | undefined {
  if (typeof input !== "string") return parseUncached(input);
  const known = parsedStrings.get(input);
  if (known !== undefined) return known ?? undefined;
  return remember(parsedStrings, input, parseUncached(input) ?? null) ?? undefined;
}

function parseUncached(input: unknown): Parsed | undefined {
  const s = typeof input === "number" ? String(input) : typeof input === "string" ? input.trim() : undefined;
  if (s === undefined || s === "") return undefined;
  const m = QUANTITY_RE.exec(s);
  if (!m) return undefined;
  // No digits at all ("-", ".", "+.k") reads as zero, as ParseQuantity reads it.
  const [, sign, whole = "", frac = "", exp, bin, dec] = m;
  let mantissa = BigInt((whole + frac) || "0");
  let scale = -frac.length;
  let format: Format = "DecimalSI";
  if (exp !== undefined) {
    scale += Number.parseInt(exp.slice(1), 10);
    format = "DecimalExponent";
  } else if (bin !== undefined) {
    mantissa *= 1024n ** BigInt(BINARY_SUFFIXES[bin]!);
    format = "BinarySI";
  } else if (dec !== undefined) {
    scale += DECIMAL_SUFFIXES[dec]!;
  }
  // Precision is limited to nano units; anything finer rounds up (away from zero).
  if (scale < -9) {
    const div = 10n ** BigInt(-9 - scale);
    const q = mantissa / div;
    mantissa = mantissa % div === 0n ? q : q + 1n;
    scale = -9;
  }
  return { negative: sign === "-" && mantissa !== 0n, mantissa, scale, format };
}

function normalize(mantissa: bigint, scale: number): [bigint, number] {
  if (mantissa === 0n) return [0n, 0];
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  return [mantissa, scale];
}

/** Integer value if the quantity has no fractional part. */
function asInteger(mantissa: bigint, scale: number): bigint | undefined {
  if (scale >= 0) return mantissa * 10n ** BigInt(scale);
  const div = 10n ** BigInt(-scale);
  return mantissa % div === 0n ? mantissa / div : undefined;
}

/** Canonical rendering of a quantity string; unparseable input is returned unchanged. */
export function formatQuantity(input: unknown): string {
  if (typeof input !== "string") return formatUncached(input);
  return formattedStrings.get(input) ?? remember(formattedStrings, input, formatUncached(input));
}

function formatUncached(input: unknown): string {
  if (typeof input !== "number" && typeof input !== "string") return "0";
  const p = parse(input);
  if (!p) return String(input);
  const sign = p.negative ? "-" : "";
  let format = p.format;
  const [mant, sc] = normalize(p.mantissa, p.scale);
  if (mant === 0n) return "0";

  if (format === "BinarySI") {
    const int = asInteger(mant, sc);
    if (int === undefined || int < 1024n) {
      format = "DecimalSI";
    } else {
      let v = int;
      let e = 0;
      while (e < 6 && v % 1024n === 0n) {
        v /= 1024n;
        e++;
      }
      return `${sign}${v}${BINARY_NAMES[e]}`;
    }
  }

  // Largest exponent that is a multiple of three and keeps the mantissa integral.
  let exponent = Math.floor(sc / 3) * 3;
  if (format === "DecimalSI") exponent = Math.min(exponent, 18);
  const digits = mant * 10n ** BigInt(sc - exponent);
  if (format === "DecimalExponent") {
    return exponent === 0 ? `${sign}${digits}` : `${sign}${digits}e${exponent}`;
  }
  return `${sign}${digits}${DECIMAL_BY_EXPONENT.get(exponent) ?? ""}`;
}

/** Like Quantity.String() on a pointer: "<nil>" when absent. */
export function formatQuantityPtr(input: unknown): string {
  return input === undefined || input === null ? "<nil>" : formatQuantity(input);
}

/** An exact value n/d. */
export interface Fraction {
  n: bigint;
  d: bigint;
}

/** The quantity's value as an exact fraction; undefined when it does not parse. */
export function parseQuantity(input: unknown): Fraction | undefined {
  const p = parse(input);
  if (!p) return undefined;
  const n = p.negative ? -p.mantissa : p.mantissa;
  return p.scale >= 0 ? { n: n * 10n ** BigInt(p.scale), d: 1n } : { n, d: 10n ** BigInt(-p.scale) };
}

/** -1, 0, 1 like Quantity.Cmp; unparseable values compare as 0. */
export function compareQuantity(a: unknown, b: unknown): number {
  const x = parseQuantity(a) ?? { n: 0n, d: 1n };
  const y = parseQuantity(b) ?? { n: 0n, d: 1n };
  const l = x.n * y.d;
  const r = y.n * x.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function isZeroQuantity(a: unknown): boolean {
  return (parseQuantity(a)?.n ?? 0n) === 0n;
}

const errFormatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const errSuffix = "unable to parse quantity's suffix";
const suffixLetters = "eEinumkKMGTP";
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/**
 * Why Quantity's JSON decoding refuses a value (ParseQuantity's error), or undefined when it takes
 * it: a number, or a string that (spaces trimmed) is a sign, digits, a fraction and a suffix
 * the suffix tables or a decimal exponent know. Any other JSON value is parsed as its text, which
 * never matches.
 */
export function quantityError(input: unknown): string | undefined {
  if (typeof input === "number") return undefined;
  if (typeof input !== "string") return errFormatWrong;
  // What the (remembered) parse takes, the grammar below takes: only a refusal is worded.
  if (parse(input) !== undefined) return undefined;
  const s = input.trim();
  if (s === "") return errFormatWrong;
  let i = s[0] === "-" || s[0] === "+" ? 1 : 0;
  while (isDigit(s[i])) i++;
  if (s[i] === ".") for (i++; isDigit(s[i]); i++);
  const suffixStart = i;
  while (i < s.length && suffixLetters.includes(s[i]!)) i++;
  if (s[i] === "-" || s[i] === "+") i++;
  while (isDigit(s[i])) i++;
  if (i < s.length) return errFormatWrong;
  const suffix = s.slice(suffixStart);
  if (suffix in DECIMAL_SUFFIXES || suffix in BINARY_SUFFIXES) return undefined;
  return (suffix[0] === "e" || suffix[0] === "E") && suffix.length > 1 && /^[+-]?[0-9]+$/.test(suffix.slice(1)) ? undefined : errSuffix;
}
