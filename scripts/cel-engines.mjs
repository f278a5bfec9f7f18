#!/usr/bin/env node
// Measures the candidate CEL engines for kapi (issue 11, "Engine choice, measured"):
//   1. the cel-spec conformance data shipped by @bufbuild/cel-spec (simple tests),
//   2. evaluations/s of five Kubernetes-style rules over a 30-field object.
// Not part of `npm test`: it is a measurement. Run: npx tsx scripts/cel-engines.mjs [--json] [--quick]
// (tsx, because kapi's own engine is measured from its TypeScript sources beside the candidates).
// The candidates are devDependencies. kapi's own conformance figures come from the same data
// through src/cel/conformance (run in `npm test`), printed here beside the candidates'.

import os from "node:os";
import { performance } from "node:perf_hooks";
import { tests as conformanceData } from "@bufbuild/cel-spec/testdata/conformance.js";
import * as buf from "@bufbuild/cel";
import { strings as bufStrings } from "@bufbuild/cel/ext";
import * as marc from "@marcbachmann/cel-js";
import { UnsignedInt as MarcUint, Duration as MarcDuration } from "@marcbachmann/cel-js/evaluator";
import * as chrome from "cel-js";
import { compileCel } from "../src/cel/program.ts";
import { toCel } from "../src/cel/convert.ts";
import { DynType } from "../src/cel/types.ts";
import { kubernetesLibraries } from "../src/cel/libraries.ts";
import { parse as kapiParse } from "../src/cel/parser/index.ts";
import { runConformance as kapiConformance, sections as kapiSections } from "../src/cel/conformance/runner.testkit.ts";

const args = new Set(process.argv.slice(2));
const QUICK = args.has("--quick");

// ---------------------------------------------------------------------------
// Canonical values: { k: kind, v } so int, uint and double never mix.
// kinds: int uint double string bytes bool null list map type timestamp duration optional
// ---------------------------------------------------------------------------

class Skip extends Error {}

function b64(s) {
  return new Uint8Array(Buffer.from(s, "base64"));
}

function parseDurationJson(s) {
  // protobuf JSON duration: "1.5s", "-0.000000001s"
  const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(s);
  if (!m) throw new Skip(`duration ${s}`);
  const n = BigInt(m[2]) * 1_000_000_000n + BigInt((m[3] ?? "").padEnd(9, "0") || "0");
  return m[1] ? -n : n;
}

function parseTimestampJson(s) {
  const m = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s);
  if (!m) throw new Skip(`timestamp ${s}`);
  const ms = Date.parse(m[1] + m[3]);
  return BigInt(ms / 1000) * 1_000_000_000n + BigInt((m[2] ?? "").padEnd(9, "0") || "0");
}

/** cel.expr.Value (proto JSON) → canonical. Throws Skip for proto messages and enums. */
function fromSpec(v) {
  if ("int64Value" in v) return { k: "int", v: BigInt(v.int64Value) };
  if ("uint64Value" in v) return { k: "uint", v: BigInt(v.uint64Value) };
  if ("doubleValue" in v) return { k: "double", v: Number(v.doubleValue) };
  if ("stringValue" in v) return { k: "string", v: v.stringValue };
  if ("bytesValue" in v) return { k: "bytes", v: b64(v.bytesValue) };
  if ("boolValue" in v) return { k: "bool", v: v.boolValue };
  if ("nullValue" in v) return { k: "null", v: null };
  if ("listValue" in v) return { k: "list", v: (v.listValue.values ?? []).map(fromSpec) };
  if ("mapValue" in v)
    return { k: "map", v: (v.mapValue.entries ?? []).map((e) => [fromSpec(e.key), fromSpec(e.value)]) };
  if ("typeValue" in v) return { k: "type", v: v.typeValue };
  if ("objectValue" in v) {
    const t = v.objectValue["@type"];
    if (t === "type.googleapis.com/google.protobuf.Timestamp")
      return { k: "timestamp", v: parseTimestampJson(v.objectValue.value) };
    if (t === "type.googleapis.com/google.protobuf.Duration")
      return { k: "duration", v: parseDurationJson(v.objectValue.value) };
    throw new Skip("proto message value");
  }
  if ("enumValue" in v) throw new Skip("enum value");
  throw new Skip(`value ${JSON.stringify(v)}`);
}

function celEquals(a, b) {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case "double":
      return a.v === b.v || (Number.isNaN(a.v) && Number.isNaN(b.v));
    case "bytes":
      return a.v.length === b.v.length && a.v.every((x, i) => x === b.v[i]);
    case "list":
      return a.v.length === b.v.length && a.v.every((x, i) => celEquals(x, b.v[i]));
    case "map":
      return (
        a.v.length === b.v.length && a.v.every(([k, v]) => b.v.some(([k2, v2]) => celEquals(k, k2) && celEquals(v, v2)))
      );
    case "optional":
      return a.v === b.v || (a.v !== null && b.v !== null && celEquals(a.v, b.v));
    default:
      return a.v === b.v;
  }
}

function show(c) {
  switch (c.k) {
    case "int":
      return String(c.v);
    case "uint":
      return `${c.v}u`;
    case "double":
      return Number.isInteger(c.v) ? `${c.v}.0` : String(c.v);
    case "string":
      return JSON.stringify(c.v);
    case "bytes":
      return `b"${Buffer.from(c.v).toString("hex")}"`;
    case "list":
      return `[${c.v.map(show).join(", ")}]`;
    case "map":
      return `{${c.v.map(([k, v]) => `${show(k)}: ${show(v)}`).join(", ")}}`;
    default:
      return `${c.k}(${c.v === null ? "null" : typeof c.v === "object" ? show(c.v) : c.v})`;
  }
}

// ---------------------------------------------------------------------------
// Candidates. Each: compile(expr, opts) → program (throws on parse/compile error);
// run(program, bindings: Record<string, canonical>) → canonical (throws on eval error).
// ---------------------------------------------------------------------------

const NS = 1_000_000_000n;

/** The tagged form of what every engine returns alike (null, int as bigint, double, string, bool, bytes). */
function primitiveOf(v) {
  if (v === null || v === undefined) return { k: "null", v: null };
  switch (typeof v) {
    case "bigint":
      return { k: "int", v };
    case "number":
      return { k: "double", v };
    case "string":
      return { k: "string", v };
    case "boolean":
      return { k: "bool", v };
  }
  if (v instanceof Uint8Array) return { k: "bytes", v };
  return undefined;
}

/** Runs a compiled program with the test's bindings converted in and the result converted out. */
function runWith(adapter, program, bindings) {
  const ctx = {};
  for (const [k, c] of Object.entries(bindings)) ctx[k] = adapter.toInput(c);
  return adapter.fromOutput(program(ctx));
}

const bufbuild = {
  name: "@bufbuild/cel 0.6.1",
  short: "bufbuild",
  compile(expr, { container, vars } = {}) {
    const env = buf.celEnv({ namespace: container, funcs: bufStrings });
    return buf.plan(env, buf.parse(expr));
  },
  toInput(c) {
    switch (c.k) {
      case "uint":
        return buf.celUint(c.v);
      case "list":
        return c.v.map((x) => bufbuild.toInput(x));
      case "map":
        return new Map(c.v.map(([k, v]) => [bufbuild.toInput(k), bufbuild.toInput(v)]));
      case "type":
      case "timestamp":
      case "duration":
      case "optional":
        throw new Skip(`${c.k} binding`);
      default:
        return c.v;
    }
  },
  fromOutput(v) {
    if (buf.isCelError(v)) throw v;
    const primitive = primitiveOf(v);
    if (primitive) return primitive;
    if (buf.isCelUint(v)) return { k: "uint", v: v.value };
    if (buf.isCelList(v)) return { k: "list", v: [...v].map((x) => bufbuild.fromOutput(x)) };
    if (buf.isCelMap(v)) return { k: "map", v: [...v].map(([k, x]) => [bufbuild.fromOutput(k), bufbuild.fromOutput(x)]) };
    if (buf.isCelType(v)) return { k: "type", v: v.name };
    const tn = v?.desc?.typeName;
    if (tn === "google.protobuf.Timestamp")
      return { k: "timestamp", v: BigInt(v.get(v.desc.field.seconds)) * NS + BigInt(v.get(v.desc.field.nanos)) };
    if (tn === "google.protobuf.Duration")
      return { k: "duration", v: BigInt(v.get(v.desc.field.seconds)) * NS + BigInt(v.get(v.desc.field.nanos)) };
    if (tn === "cel.expr.conformance.Optional" || v?.constructor?.name?.includes("Optional")) return { k: "other", v: String(v) };
    return { k: "other", v: tn ?? String(v) };
  },
  run(program, bindings) {
    return runWith(bufbuild, program, bindings);
  },
  // Benchmark: plain JS object in; integers as bigint.
  bench(expr) {
    const p = buf.plan(buf.celEnv({ funcs: bufStrings }), buf.parse(expr));
    return (self) => {
      const r = p({ self });
      if (buf.isCelError(r)) throw r;
      return r;
    };
  },
};

const marcEnv = new marc.Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
  enableOptionalTypes: true,
});

const marcbachmann = {
  name: "@marcbachmann/cel-js 8.0.0",
  short: "marcbachmann",
  compile(expr) {
    return marcEnv.parse(expr);
  },
  toInput(c) {
    switch (c.k) {
      case "uint":
        return new MarcUint(c.v);
      case "list":
        return c.v.map((x) => marcbachmann.toInput(x));
      case "map":
        return new Map(c.v.map(([k, v]) => [marcbachmann.toInput(k), marcbachmann.toInput(v)]));
      case "type":
      case "timestamp":
      case "duration":
      case "optional":
        throw new Skip(`${c.k} binding`);
      default:
        return c.v;
    }
  },
  fromOutput(v) {
    const primitive = primitiveOf(v);
    if (primitive) return primitive;
    if (v instanceof MarcUint) return { k: "uint", v: v.value };
    if (Array.isArray(v)) return { k: "list", v: v.map((x) => marcbachmann.fromOutput(x)) };
    if (v instanceof Map) return { k: "map", v: [...v].map(([k, x]) => [marcbachmann.fromOutput(k), marcbachmann.fromOutput(x)]) };
    // Timestamps are JS Dates: millisecond precision only.
    if (v instanceof Date) return { k: "timestamp", v: BigInt(v.getTime()) * 1_000_000n };
    if (v instanceof MarcDuration) return { k: "duration", v: BigInt(v.seconds) * NS + BigInt(v.nanos) };
    if (v instanceof marc.Optional) return { k: "optional", v: v.hasValue() ? marcbachmann.fromOutput(v.value()) : null };
    if (v?.constructor?.name === "Type") return { k: "type", v: v.name ?? String(v) };
    if (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
      return { k: "map", v: Object.entries(v).map(([k, x]) => [{ k: "string", v: k }, marcbachmann.fromOutput(x)]) };
    return { k: "other", v: String(v) };
  },
  run(program, bindings) {
    return runWith(marcbachmann, program, bindings);
  },
  bench(expr) {
    const p = marcEnv.parse(expr);
    return (self) => p({ self });
  },
};

// cel-js (ChromeGG): numbers are JS numbers, so int/uint/double cannot be told apart.
// A JS number is read back as a double (that is what it is); tests expecting int or uint fail.
const celjs = {
  name: "cel-js 0.8.2",
  short: "cel-js",
  compile(expr) {
    const r = chrome.parse(expr);
    if (!r.isSuccess) throw new Error(r.errors.join("; "));
    return r.cst;
  },
  toInput(c) {
    switch (c.k) {
      case "int":
      case "uint":
        return Number(c.v);
      case "list":
        return c.v.map((x) => celjs.toInput(x));
      case "map": {
        const o = {};
        for (const [k, v] of c.v) {
          if (k.k !== "string") throw new Skip("non-string map key binding");
          o[k.v] = celjs.toInput(v);
        }
        return o;
      }
      case "type":
      case "timestamp":
      case "duration":
      case "optional":
      case "bytes":
        throw new Skip(`${c.k} binding`);
      default:
        return c.v;
    }
  },
  fromOutput(v) {
    const primitive = primitiveOf(v);
    if (primitive) return primitive;
    if (Array.isArray(v)) return { k: "list", v: v.map((x) => celjs.fromOutput(x)) };
    if (v instanceof Date) return { k: "timestamp", v: BigInt(v.getTime()) * 1_000_000n };
    if (typeof v === "object")
      return { k: "map", v: Object.entries(v).map(([k, x]) => [{ k: "string", v: k }, celjs.fromOutput(x)]) };
    return { k: "other", v: String(v) };
  },
  run(cst, bindings) {
    return runWith(celjs, (ctx) => chrome.evaluate(cst, ctx), bindings);
  },
  bench(expr) {
    const r = chrome.parse(expr);
    if (!r.isSuccess) throw new Error(r.errors.join("; "));
    return (self) => chrome.evaluate(r.cst, { self });
  },
};

const CANDIDATES = [bufbuild, marcbachmann, celjs];

// ---------------------------------------------------------------------------
// Conformance
// ---------------------------------------------------------------------------

// Sections run (google/cel-spec tests/simple/testdata, v0.25.1 as shipped by @bufbuild/cel-spec):
// the same list kapi's own conformance run uses.
const SECTIONS = kapiSections;

// Anything naming a protobuf message type or needing a proto container cannot be expressed by the
// two JS-object engines; such tests are skipped for everyone.
const PROTO_RE = /\b(TestAllTypes|NestedTestAllTypes|NestedMessage|NestedEnum|GlobalEnum|google\.protobuf\.|cel\.expr\.conformance)\b/;

/** Why a test is skipped for every candidate, or undefined. */
function skipReason(o) {
  if (o.checkOnly) return "type-check only";
  if (o.typedResult) return "type-check only";
  if ("unknown" in o || "anyUnknowns" in o) return "unknowns";
  if (o.container) return "proto container";
  if (PROTO_RE.test(o.expr)) return "proto messages";
  try {
    if (o.value) fromSpec(o.value);
    for (const b of Object.values(o.bindings ?? {})) {
      if (!b.value) return "non-value binding";
      const c = fromSpec(b.value);
      if (c.k === "timestamp" || c.k === "duration" || c.k === "type") return "proto messages";
    }
  } catch (e) {
    if (e instanceof Skip) return "proto messages";
    throw e;
  }
  return undefined;
}

function* walk(suite, path) {
  for (const t of suite.tests ?? []) yield { path, t: t.original };
  for (const s of suite.suites ?? []) yield* walk(s, `${path}/${s.name}`);
}

function runConformance() {
  const rows = [];
  const skipped = {};
  const failures = Object.fromEntries(CANDIDATES.map((c) => [c.short, []]));
  const totals = Object.fromEntries(
    CANDIDATES.map((c) => [c.short, { pass: 0, fail: 0, error: 0, skip: 0, total: 0 }]),
  );
  for (const section of SECTIONS) {
    const suite = conformanceData.suites.find((s) => s.name === section);
    const row = { section, total: 0, skip: 0, per: {} };
    for (const c of CANDIDATES) row.per[c.short] = { pass: 0, fail: 0, error: 0 };
    if (suite) {
      for (const { path, t } of walk(suite, section)) {
        row.total++;
        const why = skipReason(t);
        if (why) {
          row.skip++;
          skipped[why] = (skipped[why] ?? 0) + 1;
          continue;
        }
        const expectError = "evalError" in t;
        const expected = expectError ? undefined : t.value ? fromSpec(t.value) : { k: "bool", v: true };
        const bindings = {};
        for (const [k, b] of Object.entries(t.bindings ?? {})) bindings[k] = fromSpec(b.value);
        for (const c of CANDIDATES) {
          let outcome;
          let detail;
          try {
            const prog = c.compile(t.expr, { container: t.container });
            const got = c.run(prog, bindings);
            if (expectError) {
              outcome = "error";
              detail = `value ${show(got)} where an error was expected`;
            } else if (celEquals(got, expected)) {
              outcome = "pass";
            } else {
              outcome = "fail";
              detail = `got ${show(got)}, want ${show(expected)}`;
            }
          } catch (e) {
            if (e instanceof Skip) {
              // A candidate cannot even take the binding: counted as an error for it.
              outcome = "error";
              detail = `cannot take binding: ${e.message}`;
            } else if (expectError) outcome = "pass";
            else {
              outcome = "error";
              detail = `threw ${String(e?.message ?? e).split("\n")[0].slice(0, 120)}`;
            }
          }
          row.per[c.short][outcome]++;
          if (outcome !== "pass") failures[c.short].push(`${path}/${t.name}: ${t.expr.replace(/\s+/g, " ").slice(0, 80)} — ${detail}`);
        }
      }
    }
    for (const c of CANDIDATES) {
      const tt = totals[c.short];
      const p = row.per[c.short];
      tt.pass += p.pass;
      tt.fail += p.fail;
      tt.error += p.error;
      tt.skip += row.skip;
      tt.total += row.total;
    }
    rows.push(row);
  }
  return { rows, totals, skipped, failures };
}

// ---------------------------------------------------------------------------
// Speed: 5 typical rules over a 30-field object, compiled once.
// ---------------------------------------------------------------------------

const RULES = [
  "self.replicas <= self.maxReplicas",
  "self.name.startsWith('app-') && size(self.name) < 64",
  "self.items.all(i, i.port > 0 && i.port < 65536)",
  "has(self.tls) ? self.tls.secretName != '' : true",
  "self.labels.exists(k, k == 'tier')",
];

function makeObject(int) {
  const o = {
    name: "app-frontend",
    namespace: "default",
    replicas: int(3),
    maxReplicas: int(10),
    minReplicas: int(1),
    image: "registry.example.com/app:1.2.3",
    imagePullPolicy: "IfNotPresent",
    serviceAccountName: "app",
    paused: false,
    progressDeadlineSeconds: int(600),
    revisionHistoryLimit: int(10),
    strategy: "RollingUpdate",
    maxSurge: "25%",
    maxUnavailable: "25%",
    priorityClassName: "high",
    schedulerName: "default-scheduler",
    hostNetwork: false,
    dnsPolicy: "ClusterFirst",
    restartPolicy: "Always",
    terminationGracePeriodSeconds: int(30),
    cpu: "500m",
    memory: "256Mi",
    owner: "team-a",
    description: "the frontend",
    generation: int(7),
    ratio: 0.5,
    tls: { secretName: "app-tls", hosts: ["app.example.com"] },
    labels: { app: "frontend", tier: "web", env: "prod", version: "v1" },
    annotations: { "example.com/owner": "team-a" },
    items: Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, port: int(8000 + i), protocol: "TCP" })),
  };
  if (Object.keys(o).length !== 30) throw new Error(`object has ${Object.keys(o).length} fields`);
  return o;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// Nested plain objects → nested Maps: @bufbuild/cel's native map input. A plain object is accepted
// too but is converted on every access, which costs it a factor of up to 15 on field-access rules.
function toMaps(v) {
  if (Array.isArray(v)) return v.map(toMaps);
  if (v && typeof v === "object") return new Map(Object.entries(v).map(([k, x]) => [k, toMaps(x)]));
  return v;
}

// kapi's own engine, as the API server uses it: compiled once (parse, check, plan), the object
// converted to CEL values once (toCel), evaluated with the default per-call cost limit.
const kapiBenchEnv = { name: "bench", variables: { self: DynType } };
const kapi = {
  bench(expr) {
    const program = compileCel(expr, kapiBenchEnv);
    return (self) => program.eval({ self }).value;
  },
};

// What is timed: each candidate with the input kapi would hand it. cel-js has no bigint, so it gets
// plain numbers; the others get CEL ints as bigint.
const SPEED_VARIANTS = [
  { label: "bufbuild (Map input)", c: bufbuild, self: () => toMaps(makeObject(BigInt)) },
  { label: "bufbuild (plain object)", c: bufbuild, self: () => makeObject(BigInt) },
  { label: "marcbachmann", c: marcbachmann, self: () => makeObject(BigInt) },
  { label: "cel-js", c: celjs, self: () => makeObject(Number) },
  { label: "kapi (own engine)", c: kapi, self: () => toCel(makeObject(Number)) },
];

function timeIt(fns, self, N, RUNS) {
  for (let i = 0; i < N / 5; i++) for (const fn of fns) fn(self); // warm-up
  const rates = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) for (const fn of fns) fn(self);
    rates.push(((N * fns.length) / (performance.now() - t0)) * 1000);
  }
  return median(rates);
}

function runSpeed() {
  const N = QUICK ? 2_000 : 50_000;
  const RUNS = 5;
  const results = {};
  for (const { label, c, self: mk } of SPEED_VARIANTS) {
    const self = mk();
    results[label] = {};
    const fns = [];
    for (const rule of RULES) {
      let fn;
      try {
        fn = c.bench(rule);
        const v = fn(self);
        if (v !== true) throw new Error(`evaluated to ${String(v)}`);
      } catch (e) {
        results[label][rule] = { error: String(e?.message ?? e).split("\n")[0].slice(0, 100) };
        continue;
      }
      fns.push(fn);
      results[label][rule] = { rate: timeIt([fn], self, N, RUNS) };
    }
    // All five rules in turn, as a CRD with five rules would be validated.
    results[label].all =
      fns.length === RULES.length
        ? { rate: timeIt(fns, self, N, RUNS) }
        : { error: `${RULES.length - fns.length} rule(s) do not evaluate` };
  }
  return { N, RUNS, results };
}

// ---------------------------------------------------------------------------

function fmtRate(r) {
  if (!r) return "–";
  if (r.error) return `error: ${r.error}`;
  return Math.round(r.rate).toLocaleString("en-US");
}

function main() {
  const cores = os.cpus();
  console.log(`node ${process.version}, ${cores.length} cores (${cores[0]?.model ?? "?"}), ${os.platform()} ${os.arch()}`);
  console.log();
  const conf = runConformance();
  const names = CANDIDATES.map((c) => c.short);
  console.log("## Conformance (cel-spec simple tests as shipped by @bufbuild/cel-spec 0.6.1, cel-spec v0.25.1)");
  console.log("pass/fail/error per candidate; skipped tests are skipped for everyone");
  console.log();
  console.log(`| section | tests | skipped | ${names.join(" | ")} |`);
  console.log(`|---|---:|---:|${names.map(() => "---").join("|")}|`);
  for (const r of conf.rows) {
    const cells = names.map((n) => {
      const p = r.per[n];
      return `${p.pass}/${p.fail}/${p.error}`;
    });
    console.log(`| ${r.section} | ${r.total} | ${r.skip} | ${cells.join(" | ")} |`);
  }
  const t0 = conf.totals[names[0]];
  console.log(
    `| **total** | ${t0.total} | ${t0.skip} | ${names.map((n) => { const t = conf.totals[n]; return `**${t.pass}**/${t.fail}/${t.error}`; }).join(" | ")} |`,
  );
  console.log();
  const run = t0.total - t0.skip;
  for (const n of names) {
    const t = conf.totals[n];
    console.log(`${n}: passed ${t.pass}, failed ${t.fail}, errored ${t.error}, skipped ${t.skip} (${((100 * t.pass) / run).toFixed(1)}% of ${run} run)`);
  }
  console.log(`skipped for all, by reason: ${Object.entries(conf.skipped).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  console.log();
  const own = kapiConformance(kapiParse, kubernetesLibraries);
  console.log("## kapi's own engine on the same data (src/cel/conformance, Kubernetes 1.34 library set)");
  console.log();
  console.log("| section | tests | unsupported | pass/fail/error |");
  console.log("|---|---:|---:|---|");
  const sum = { total: 0, unsupported: 0, pass: 0, fail: 0, error: 0 };
  for (const r of own.sections) {
    console.log(`| ${r.section} | ${r.total} | ${r.unsupported} | ${r.pass}/${r.fail}/${r.error} |`);
    for (const k of Object.keys(sum)) sum[k] += r[k];
  }
  console.log(`| **total** | ${sum.total} | ${sum.unsupported} | **${sum.pass}**/${sum.fail}/${sum.error} |`);
  console.log(`kapi: passed ${sum.pass} of ${sum.total - sum.unsupported} run`);
  if (args.has("--failures")) for (const f of own.failures) console.log(`- ${f}`);
  console.log();

  const speed = runSpeed();
  console.log(`## Speed (evaluations/s, compiled once, median of ${speed.RUNS} runs of ${speed.N.toLocaleString("en-US")} evaluations after warm-up)`);
  console.log();
  const labels = SPEED_VARIANTS.map((v) => v.label);
  console.log(`| rule | ${labels.join(" | ")} |`);
  console.log(`|---|${labels.map(() => "---:").join("|")}|`);
  for (const rule of RULES) console.log(`| \`${rule}\` | ${labels.map((n) => fmtRate(speed.results[n][rule])).join(" | ")} |`);
  console.log(`| all five in turn | ${labels.map((n) => fmtRate(speed.results[n].all)).join(" | ")} |`);

  if (args.has("--failures")) {
    for (const n of names) {
      console.log(`\n## ${n}: ${conf.failures[n].length} not passed`);
      for (const f of conf.failures[n]) console.log(`- ${f}`);
    }
  }
  if (args.has("--json")) console.log(JSON.stringify({ conformance: { rows: conf.rows, totals: conf.totals, skipped: conf.skipped }, speed }, null, 1));
}

main();
