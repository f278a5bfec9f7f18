// Keeps `npm run bench` working: every benchmark runs once, for a fraction of a second, at toy
// sizes, and its result must have the right shape with finite positive figures. Speed is never
// asserted here: benchmarks must not fail a build on a number. The cases are split over two test
// files (serving requests; storage and start-up) so that vitest runs the halves in parallel.
import { beforeAll, describe, expect, it } from "vitest";
import { allCases } from "../../bench/cases/index.js";
import { repoRoot } from "../../bench/core/child.js";
import { defaultOptions, quickSizes } from "../../bench/core/context.js";
import { runBenchmarks, type RunReport } from "../../bench/core/run.js";
import type { BenchCase } from "../../bench/core/types.js";
import { etcdSkipReason } from "./etcd.js";
import { html } from "../../bench/report/html.js";
import { isThroughput } from "../../bench/core/cpu-per-op.js";
import { markdown } from "../../bench/report/markdown.js";

/** Requests to a running server: GET, LIST, watch fan-out (p99 reuses get-h2's rate: both here). */
export const servingCaseNames = ["get-h2", "get-h1", "get-audit", "list", "watch", "p99"];
/** The cases that start an etcd (left out, as the etcd tests skip, where no etcd is installed). */
export const etcdCaseNames = ["create-etcd", "get-etcd", "watch-replicas-etcd"];
/** Durable writes, start-up with stored pods, memory per pod (update's goal is relative to create's). */
export const storageCaseNames = allCases.map((c) => c.name).filter((n) => !servingCaseNames.includes(n) && !(etcdSkipReason && etcdCaseNames.includes(n)));

const positive = (x: unknown) => typeof x === "number" && Number.isFinite(x) && x > 0;
const finite = (x: unknown) => typeof x === "number" && Number.isFinite(x);
// At toy sizes the RSS growth of a few pods is within the garbage collector's noise and can be
// negative; its figures must still be numbers.
const noisySign = new Set(["memory"]);

/** Runs the named benchmarks once (in beforeAll) and checks each result and the reports. */
export function benchSmoke(names: readonly string[]): void {
  const cases: BenchCase[] = allCases.filter((c) => names.includes(c.name));
  let report: RunReport;
  const lines: string[] = [];

  beforeAll(async () => {
    report = await runBenchmarks(
      [...names],
      {
        ...defaultOptions,
        ...quickSizes,
        durationMs: 200,
        // KAPI_BENCH_ROOT smoke-tests the harness against another checkout (e.g. a clean worktree).
        kapiRoot: process.env.KAPI_BENCH_ROOT ?? repoRoot,
        log: (l) => lines.push(l),
      },
      "vitest bench-smoke",
    );
  }, 170_000);

  describe("bench smoke", () => {
    it("ran every benchmark asked for", () => {
      expect(cases).toHaveLength(names.length);
      expect(report.results.map((r) => r.name)).toEqual(cases.map((c) => c.name));
      expect(report.machine.cores).toBeGreaterThan(0);
    });

    for (const c of cases) {
      it(`${c.name}: one pair with finite positive figures`, () => {
        const r = report.results.find((x) => x.name === c.name)!;
        expect(r.error, `${c.name} failed:\n${r.error}\n${lines.join("\n")}`).toBeUndefined();
        expect(r.pairs).toHaveLength(1);
        const [p] = r.pairs;
        const ok = noisySign.has(c.name) ? finite : positive;
        expect(ok(p.api.value), `api ${p.api.value}`).toBe(true);
        expect(positive(p.anchor.value), `anchor ${p.anchor.value}`).toBe(true);
        expect(ok(p.ratio)).toBe(true);
        for (const s of [r.api!, r.anchor!, r.ratio!]) {
          expect(ok(s.median) && ok(s.min) && ok(s.max)).toBe(true);
          expect(s.min).toBeLessThanOrEqual(s.max);
        }
        expect(typeof r.pass === "boolean" || r.goal.relativeTo).toBeTruthy();
        if (p.api.clientCpuPct !== undefined) expect(Number.isFinite(p.api.clientCpuPct)).toBe(true);
        // Throughput cases whose sides both report server CPU carry it per operation, and its ratio.
        if (isThroughput(c) && p.api.serverCpuPct && p.anchor.serverCpuPct) {
          expect(positive(p.api.serverCpuUsPerOp) && positive(p.anchor.serverCpuUsPerOp) && positive(p.cpuRatio)).toBe(true);
          expect(r.cpuRatio?.median).toBe(p.cpuRatio);
        }
        expect(r.judgedBy).toBe(r.cpuRatio && (r.clientCpuPctMax ?? 0) >= 90 ? "cpu" : "ratio");
      });
    }

    it("renders the reports", () => {
      const md = markdown(report, "LATEST.svg");
      for (const c of cases) expect(md).toContain(c.title);
      expect(md).toContain(`Node ${process.version}`);
      const page = html(report);
      expect(page.match(/<svg /g)?.length).toBe(cases.length);
    });
  });
}
