// `npx tsx bench/startup-readyz.ts [--storage memory|sqlite] [--runs N] [--entry dist/bundle/kapi.cjs] [--node PATH] [--trace]`
// The start-up figure of issue 22 on its own: spawn `node <entry> serve` on a data dir that does
// not exist yet (certificates generated, every bootstrap object written), poll https /readyz every
// 2 ms (unverified, anonymous), and time spawn → first 200. Prints each run and the median; with
// --trace each run's KAPI_STARTUP_TRACE phase breakdown too. The bench case startup-first measures
// the same path (sqlite) against its anchor; this script is the quick, reproducible figure.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./core/free-port.js";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

function args(argv: string[]) {
  const o = { storage: "memory", runs: 7, entry: "dist/bundle/kapi.cjs", node: process.execPath, trace: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--storage") o.storage = value();
    else if (flag === "--runs") o.runs = Math.max(1, Number(value()));
    else if (flag === "--entry") o.entry = value();
    else if (flag === "--node") o.node = value();
    else if (flag === "--trace") o.trace = true;
    else throw new Error(`unknown flag ${argv[i]}`);
  }
  return o;
}


function readyz(port: number): Promise<number> {
  return new Promise((done) => {
    const r = request({ host: "127.0.0.1", port, path: "/readyz", rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0));
    });
    r.on("error", () => done(0));
    r.end();
  });
}

/**
 * CPU time the process has used, in ms, from /proc (Linux): its main thread (the start-up's
 * critical path) and all its threads (V8's compiler and GC helpers too). Steadier than wall time
 * on a loaded machine. Undefined where /proc has no schedstat.
 */
function cpuOf(pid: number): { main: number; all: number } | undefined {
  try {
    const ns = (task: string) => Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    const all = readdirSync(`/proc/${pid}/task`).reduce((sum, t) => sum + ns(t), 0);
    return { main: ns(String(pid)) / 1e6, all: all / 1e6 };
  } catch {
    return undefined;
  }
}

async function once(o: ReturnType<typeof args>): Promise<{ ms: number; cpu?: { main: number; all: number }; servingAt: number; trace: string }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "kapi-startup-"));
  const dataDir = join(dir, "data"); // does not exist yet: a first start
  const t0 = performance.now();
  const proc = spawn(o.node, [resolve(repoRoot, o.entry), "serve", `--storage-backend=${o.storage}`, `--data-dir=${dataDir}`, `--secure-port=${port}`, "--bind-address=127.0.0.1"], {
    cwd: repoRoot,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...(o.trace ? { KAPI_STARTUP_TRACE: "1" } : {}) },
  });
  let stderr = "";
  let servingAt = 0;
  proc.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
    if (!servingAt && stderr.includes("kapi: serving on")) servingAt = performance.now() - t0;
  });
  let dead = false;
  const exited = new Promise<void>((r) => proc.once("exit", () => ((dead = true), r())));
  try {
    for (;;) {
      if (dead) throw new Error(`kapi exited before /readyz answered 200:\n${stderr}`);
      if ((await readyz(port)) === 200) return { ms: performance.now() - t0, cpu: cpuOf(proc.pid!), servingAt, trace: stderr.split("\n").filter((l) => l.includes("startup:")).join("\n") };
      if (performance.now() - t0 > 30_000) throw new Error("no /readyz 200 within 30 s");
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    proc.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each phase's median wall and CPU ms over the runs' traces (lines "kapi: startup: W ms (cpu C ms)  name"). */
function phaseMedians(traces: string[]): string {
  const phases = new Map<string, { wall: number[]; cpu: number[] }>();
  for (const t of traces) {
    for (const m of t.matchAll(/startup: +([\d.]+) ms \(cpu +([\d.]+) ms\)  (.*)/g)) {
      const p = phases.get(m[3]) ?? { wall: [], cpu: [] };
      p.wall.push(Number(m[1]));
      p.cpu.push(Number(m[2]));
      phases.set(m[3], p);
    }
  }
  return [...phases].map(([name, p]) => `  ${median(p.wall).toFixed(1).padStart(7)} / ${median(p.cpu).toFixed(1).padStart(6)}  ${name}`).join("\n");
}

async function main() {
  const o = args(process.argv.slice(2));
  const xs: number[] = [];
  const traces: string[] = [];
  const cpuMain: number[] = [];
  const cpuAll: number[] = [];
  const load = loadavg()[0].toFixed(2);
  for (let i = 0; i < o.runs; i++) {
    const { ms, cpu, servingAt, trace } = await once(o);
    xs.push(ms);
    traces.push(trace);
    if (cpu) (cpuMain.push(cpu.main), cpuAll.push(cpu.all));
    const cpuText = cpu ? `, CPU ${cpu.main.toFixed(1)} ms main thread, ${cpu.all.toFixed(1)} ms all threads` : "";
    process.stdout.write(`run ${i + 1}: ${ms.toFixed(1)} ms${cpuText} (its "serving on" line read at ${servingAt.toFixed(1)} ms)\n${o.trace && trace ? trace + "\n" : ""}`);
  }
  const sorted = [...xs].sort((a, b) => a - b);
  if (o.trace) process.stdout.write(`phases, median wall / CPU ms:\n${phaseMedians(traces)}\n`);
  process.stdout.write(
    `node ${o.entry} serve --storage-backend=${o.storage} (new data dir): median ${median(xs).toFixed(1)} ms, min ${sorted[0].toFixed(1)}, max ${sorted[sorted.length - 1].toFixed(1)} over ${o.runs} runs${cpuMain.length ? `; CPU to the first 200: median ${median(cpuMain).toFixed(1)} ms main thread, ${median(cpuAll).toFixed(1)} ms all threads` : ""}; node ${o.node === process.execPath ? process.version : o.node}; load ${load} → ${loadavg()[0].toFixed(2)}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`startup-readyz: ${(e as Error).message}\n`);
  process.exit(1);
});
