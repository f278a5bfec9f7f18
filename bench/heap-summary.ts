// `npx tsx bench/heap-summary.ts FILE.heapsnapshot [--per N] [--top N]`
// A V8 heap snapshot summarised by constructor: self size and count of every node kind (objects by
// constructor name, strings, arrays, code…), largest first; with --per N, also bytes per N (per
// stored pod, when the snapshot holds N of them). bench/memory-100k.ts --heap-snapshot writes one.
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

export interface HeapRow {
  kind: string;
  bytes: number;
  count: number;
}

export function summarise(file: string): HeapRow[] {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const f = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = [f.indexOf("type"), f.indexOf("name"), f.indexOf("self_size")];
  const rows = new Map<string, HeapRow>();
  for (let i = 0; i < s.nodes.length; i += f.length) {
    const type = types[s.nodes[i + iType]!]!;
    const kind = type === "object" || type === "closure" ? `${s.strings[s.nodes[i + iName]!]}${type === "closure" ? " (closure)" : ""}` : `(${type})`;
    let r = rows.get(kind);
    if (!r) rows.set(kind, (r = { kind, bytes: 0, count: 0 }));
    r.bytes += s.nodes[i + iSize]!;
    r.count++;
  }
  return [...rows.values()].sort((a, b) => b.bytes - a.bytes);
}

export function formatSummary(rows: HeapRow[], per: number, top: number): string {
  const total = rows.reduce((n, r) => n + r.bytes, 0);
  const lines = [`heap ${(total / 2 ** 20).toFixed(1)} MiB in snapshot${per > 1 ? `, ${(total / per).toFixed(0)} B per ${per > 1 ? "pod" : ""}` : ""}`];
  for (const r of rows.slice(0, top)) {
    lines.push(`${(r.bytes / 2 ** 20).toFixed(1).padStart(8)} MiB ${String(r.count).padStart(9)}  ${per > 1 ? `${(r.bytes / per).toFixed(0).padStart(6)} B/pod ${(r.count / per).toFixed(1).padStart(6)}/pod  ` : ""}${r.kind}`);
  }
  return lines.join("\n");
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!)) {
  const argv = process.argv.slice(2);
  const num = (flag: string, d: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : d);
  process.stdout.write(formatSummary(summarise(argv[0]!), num("--per", 1), num("--top", 25)) + "\n");
}
