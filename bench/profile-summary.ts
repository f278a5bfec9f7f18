// `npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N] [--match TEXT] [--skip-ms MS] [--from FUNCTION]`
// What a V8 CPU profile (from `npm run bench -- ... --profile DIR`) says a process spent its time
// on: self time per function, and inclusive time per function (each sample counted once per
// function however deep the recursion) and self time per file, as shares of the busy (non-idle) time. --match keeps the
// functions whose name or file contains TEXT, to follow one suspect; --skip-ms leaves out the
// first MS of the profile, --from everything before the first sample with FUNCTION on its stack
// (e.g. handleCreate: the first request of the load, whatever the start-up took).
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { repoRoot } from "./core/child.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Not work: V8's labels for waiting and bookkeeping. */
const idle = new Set(["(idle)", "(program)"]);

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url ? relative(repoRoot, url.replace(/^file:\/\//, "")) : "";
  return `${functionName || "(anonymous)"}${file ? ` ${file}:${lineNumber + 1}` : ""}`;
}

export function summarize(p: Profile, skipUs = 0, from?: string): { busyUs: number; self: Map<string, number>; total: Map<string, number>; files: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  const under = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (byId.get(at)!.callFrame.functionName === from) return true;
    return false;
  };
  let at = 0;
  let started = from === undefined;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    started ||= under(id);
    if (started && at >= skipUs) selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const files = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    if (idle.has(node.callFrame.functionName)) continue;
    busyUs += us;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const file = label(node).split(" ")[1]?.replace(/:\d+$/, "") ?? node.callFrame.functionName;
    files.set(file, (files.get(file) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const l = label(byId.get(at)!);
      if (seen.has(l)) continue;
      seen.add(l);
      total.set(l, (total.get(l) ?? 0) + us);
    }
  }
  return { busyUs, self, total, files };
}

function main(): void {
  const args = process.argv.slice(2);
  const valued = ["--top", "--match", "--skip-ms", "--from"];
  const file = args.find((a, i) => !a.startsWith("--") && !valued.includes(args[i - 1]!));
  if (!file) throw new Error("usage: profile-summary.ts FILE.cpuprofile [--top N] [--match TEXT] [--skip-ms MS] [--from FUNCTION]");
  const top = Number(args[args.indexOf("--top") + 1]) || 30;
  const match = args.includes("--match") ? args[args.indexOf("--match") + 1]! : undefined;
  const skipMs = args.includes("--skip-ms") ? Number(args[args.indexOf("--skip-ms") + 1]) : 0;
  const from = args.includes("--from") ? args[args.indexOf("--from") + 1] : undefined;
  const { busyUs, self, total, files } = summarize(JSON.parse(readFileSync(file, "utf8")) as Profile, skipMs * 1000, from);
  const print = (title: string, m: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    const rows = [...m].filter(([l]) => !match || l.includes(match)).sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [l, us] of rows) process.stdout.write(`${((us / busyUs) * 100).toFixed(1).padStart(6)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${l}\n`);
  };
  process.stdout.write(`busy ${(busyUs / 1000).toFixed(0)} ms\n`);
  print("self time", self);
  print("inclusive time", total);
  print("self time per file", files);
}

main();
