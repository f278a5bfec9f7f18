// Runs the cel-spec "simple" conformance tests (google/cel-spec tests/simple/testdata, as shipped
// by @bufbuild/cel-spec) against kapi's engine: parse (the parser is passed in), plan with the
// given libraries, evaluate with the test's bindings, and compare exactly (int, uint and double
// are different kinds; NaN equals NaN here; an expected error matches any error).
import { tests as conformanceData } from "@bufbuild/cel-spec/testdata/conformance.js";
import type { ParsedExpr } from "../ast.js";
import { plan } from "../interpreter/index.js";
import type { CelLibrary } from "../library.js";
import { CelDuration, CelMap, CelOptional, CelTimestamp, CelTypeValue, CelUint, type CelValue, type MapKey } from "../value.js";
import { parseDuration, parseTimestamp } from "../stdlib/time.js";
import { runtimeTypeName, typeNameOf, typeValues } from "../stdlib/values.js";
import { celLiteral } from "../convert.js";

export const sections = [
  "basic",
  "comparisons",
  "conversions",
  "dynamic",
  "fields",
  "fp_math",
  "integer_math",
  "lists",
  "logic",
  "macros",
  "macros2",
  "namespace",
  "parse",
  "plumbing",
  "string",
  "string_ext",
  "timestamps",
  "optionals",
  "unknowns",
] as const;

/** Anything naming a protobuf message type or enum: outside what kapi's CEL supports (Kubernetes has no messages). */
const protoRe = /\b(TestAllTypes|NestedTestAllTypes|NestedMessage|NestedEnum|GlobalEnum|google\.protobuf\.(?!Timestamp\b|Duration\b)|cel\.expr\.conformance)\b/;

interface SpecValue {
  [k: string]: unknown;
}
export interface SpecTest {
  readonly name: string;
  readonly expr: string;
  readonly value?: SpecValue;
  readonly evalError?: unknown;
  readonly bindings?: Record<string, { value?: SpecValue }>;
  readonly container?: string;
  readonly checkOnly?: boolean;
  readonly typedResult?: unknown;
  readonly disableMacros?: boolean;
  readonly unknown?: unknown;
  readonly anyUnknowns?: unknown;
}

export interface ConformanceCase {
  readonly section: string;
  /** `section/suite/test` */
  readonly id: string;
  readonly test: SpecTest;
  /** Why the case is not run for any engine (proto messages, containers, type-check only). */
  readonly unsupported?: string;
}

class Unsupported extends Error {}

function b64(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, "base64"));
}

/** A cel.expr.Value in proto JSON as a CEL value. */
export function fromSpec(v: SpecValue): CelValue {
  if ("int64Value" in v) return BigInt(v.int64Value as string);
  if ("uint64Value" in v) return new CelUint(BigInt(v.uint64Value as string));
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("stringValue" in v) return v.stringValue as string;
  if ("bytesValue" in v) return b64(v.bytesValue as string);
  if ("boolValue" in v) return v.boolValue as boolean;
  if ("nullValue" in v) return null;
  if ("listValue" in v) return (((v.listValue as SpecValue).values ?? []) as SpecValue[]).map(fromSpec);
  if ("mapValue" in v) {
    const entries = (((v.mapValue as SpecValue).entries ?? []) as { key: SpecValue; value: SpecValue }[]).map(
      (e) => [fromSpec(e.key) as MapKey, fromSpec(e.value)] as const,
    );
    return CelMap.fromEntries(entries);
  }
  if ("typeValue" in v) {
    const name = v.typeValue as string;
    const known = Object.values(typeValues).find((t) => runtimeTypeName(t.type) === name);
    if (!known) throw new Unsupported(`type value ${name}`);
    return known;
  }
  if ("objectValue" in v) {
    const o = v.objectValue as { "@type": string; value: string };
    if (o["@type"] === "type.googleapis.com/google.protobuf.Timestamp") {
      const t = parseTimestamp(o.value);
      if (t) return t;
    }
    if (o["@type"] === "type.googleapis.com/google.protobuf.Duration") {
      const d = parseDuration(o.value);
      if (d) return d;
    }
    throw new Unsupported("proto message value");
  }
  throw new Unsupported(`value ${JSON.stringify(v)}`);
}

/** Exact equality for test results: same kinds throughout, NaN equal to NaN. */
export function sameValue(a: CelValue, b: CelValue): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (typeNameOf(a) !== typeNameOf(b)) return false;
  if (Array.isArray(a)) return a.length === (b as CelValue[]).length && a.every((x, i) => sameValue(x, (b as CelValue[])[i]!));
  if (a instanceof CelMap) {
    const m = b as CelMap;
    if (a.size !== m.size) return false;
    for (const [k, v] of a.entries()) {
      const w = m.get(k);
      if (w === undefined || !sameValue(v, w)) return false;
      const mk = [...m.keys()].find((x) => sameValue(x, k));
      if (mk === undefined) return false;
    }
    return true;
  }
  if (a instanceof CelUint) return a.value === (b as CelUint).value;
  if (a instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b as Uint8Array));
  if (a instanceof CelTimestamp || a instanceof CelDuration) return a.nanos === (b as CelTimestamp).nanos;
  if (a instanceof CelOptional) {
    const o = b as CelOptional;
    return a.hasValue === o.hasValue && (!a.hasValue || sameValue(a.value, o.value));
  }
  if (a instanceof CelTypeValue) return runtimeTypeName(a.type) === runtimeTypeName((b as CelTypeValue).type);
  return a === b;
}

function unsupportedReason(t: SpecTest): string | undefined {
  if (t.checkOnly || t.typedResult) return "type-check only";
  if ("unknown" in t || "anyUnknowns" in t) return "unknowns";
  if (t.container) return "proto container";
  if (protoRe.test(t.expr)) return "proto messages";
  try {
    if (t.value) fromSpec(t.value);
    for (const b of Object.values(t.bindings ?? {})) {
      if (!b.value) return "non-value binding";
      fromSpec(b.value);
    }
  } catch (e) {
    if (e instanceof Unsupported) return "proto messages";
    throw e;
  }
  return undefined;
}

interface Suite {
  name: string;
  tests?: { original: SpecTest }[];
  suites?: Suite[];
}

function* walk(suite: Suite, path: string): Generator<{ id: string; test: SpecTest }> {
  for (const t of suite.tests ?? []) yield { id: `${path}/${t.original.name}`, test: t.original };
  for (const s of suite.suites ?? []) yield* walk(s, `${path}/${s.name}`);
}

/** Every simple test of the sections run, with the reason it is unsupported when it is. */
export function loadCases(): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  const root = conformanceData as unknown as Suite;
  for (const section of sections) {
    const suite = root.suites?.find((s) => s.name === section);
    if (!suite) continue;
    for (const { id, test } of walk(suite, section)) out.push({ section, id, test, unsupported: unsupportedReason(test) });
  }
  return out;
}

export type Outcome = { readonly outcome: "pass" } | { readonly outcome: "fail" | "error"; readonly detail: string };

/** Runs one case: parse, plan, evaluate, compare. */
export function runCase(c: ConformanceCase, parse: (text: string) => ParsedExpr, libraries: readonly CelLibrary[]): Outcome {
  const t = c.test;
  const expectError = "evalError" in t;
  let got: CelValue;
  try {
    const bindings: Record<string, CelValue> = {};
    for (const [k, b] of Object.entries(t.bindings ?? {})) bindings[k] = fromSpec(b.value!);
    got = plan(parse(t.expr), libraries).eval(bindings).value;
  } catch (e) {
    if (expectError) return { outcome: "pass" };
    return { outcome: "error", detail: `threw ${String((e as Error)?.message ?? e).split("\n")[0]}` };
  }
  if (expectError) return { outcome: "error", detail: `value ${celLiteral(got)} where an error was expected` };
  const want = t.value ? fromSpec(t.value) : true;
  if (sameValue(got, want)) return { outcome: "pass" };
  return { outcome: "fail", detail: `got ${celLiteral(got)}, want ${celLiteral(want)}` };
}

export interface SectionReport {
  readonly section: string;
  readonly total: number;
  readonly unsupported: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
}

/** Runs every supported case; per-section counts and the failures (`id: expr — detail`). */
export function runConformance(
  parse: (text: string) => ParsedExpr,
  libraries: readonly CelLibrary[],
): { sections: SectionReport[]; failures: string[]; passed: Set<string> } {
  const bySection = new Map<string, { total: number; unsupported: number; pass: number; fail: number; error: number }>();
  const failures: string[] = [];
  const passed = new Set<string>();
  for (const c of loadCases()) {
    let row = bySection.get(c.section);
    if (!row) bySection.set(c.section, (row = { total: 0, unsupported: 0, pass: 0, fail: 0, error: 0 }));
    row.total++;
    if (c.unsupported) {
      row.unsupported++;
      continue;
    }
    const r = runCase(c, parse, libraries);
    row[r.outcome]++;
    if (r.outcome === "pass") passed.add(c.id);
    else failures.push(`${c.id}: ${c.test.expr.replace(/\s+/g, " ")} — ${r.detail}`);
  }
  return { sections: [...bySection].map(([section, r]) => ({ section, ...r })), failures, passed };
}
