// `npm run bench [-- name...] [--pairs N] [--duration MS] [--storage sqlite|memory] [--out DIR] [--kapi-root DIR] [--kapi-options JSON] [--profile DIR]`
// Runs the benchmarks (all, or the named ones), prints every pair and the summary, and writes
// the JSON and HTML reports; a full run also refreshes bench/results/LATEST.md and LATEST.svg.
// Never fails on a number: the exit code is non-zero only when a benchmark could not run.
import { join, resolve } from "node:path";
import { benchDir } from "./core/child.js";
import { defaultOptions, quickSizes, type BenchOptions } from "./core/context.js";
import { runBenchmarks, selectCases, fmt } from "./core/run.js";
import { judgedText, mark } from "./core/stats.js";
import { allCases } from "./cases/index.js";
import { machineLine } from "./report/machine.js";
import { writeReports } from "./report/write.js";

function parseArgs(argv: string[]): { names: string[]; opts: BenchOptions; out: string } {
  const opts: BenchOptions = { ...defaultOptions };
  const names: string[] = [];
  let out = join(benchDir, "results");
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--quick") Object.assign(opts, quickSizes);
    else if (flag === "--pairs") opts.pairs = Math.max(1, Number(value()));
    else if (flag === "--duration") opts.durationMs = Math.max(50, Number(value()));
    else if (flag === "--storage") opts.storage = value() === "memory" ? "memory" : "sqlite";
    else if (flag === "--out") out = value();
    else if (flag === "--kapi-root") opts.kapiRoot = resolve(value());
    else if (flag === "--kapi-options") opts.kapiOptions = JSON.parse(value()!) as BenchOptions["kapiOptions"];
    else if (flag === "--profile") opts.profileDir = resolve(value()!);
    else if (flag === "--help" || flag === "-h") {
      process.stdout.write(`usage: npm run bench -- [name...] [--quick] [--pairs N] [--duration MS] [--storage sqlite|memory] [--out DIR] [--kapi-root DIR] [--kapi-options JSON] [--profile DIR]\nbenchmarks: ${allCases.map((c) => c.name).join(", ")}\n`);
      process.exit(0);
    } else if (a.startsWith("-")) throw new Error(`unknown flag ${a}`);
    else names.push(a);
  }
  return { names, opts, out };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const { names, opts, out } = parseArgs(argv);
  selectCases(names); // unknown names fail before anything starts
  const command = ["npm run bench", ...(argv.length ? ["--", ...argv] : [])].join(" ");
  const rep = await runBenchmarks(names, opts, command);
  process.stdout.write(`\n${machineLine(rep.machine)}\n`);
  for (const r of rep.results) process.stdout.write(`  ${mark(r.pass)} ${r.name.padEnd(14)} ${judgedText(r, fmt)}\n`);
  const full = names.length === 0;
  const files = writeReports(rep, out, full);
  process.stdout.write(`\nwrote ${files.join(", ")}${full ? "" : "\n(LATEST.md is refreshed by full runs only)"}\n`);
  return rep.results.some((r) => r.error) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`bench: ${(e as Error).message}\n`);
    process.exit(2);
  },
);
