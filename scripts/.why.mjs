// why: static import chains from the CLI's serve path to modules matching a pattern
import { build } from "esbuild";
const r = await build({ absWorkingDir: process.cwd(), entryPoints: { index: "src/index.ts", kapi: "src/cli/kapi.ts" }, outdir: "/tmp/metabundle", bundle: true, splitting: true, format: "esm", platform: "node", target: "node20", packages: "external", metafile: true, write: false, logLevel: "error" });
const inputs = r.metafile.inputs;
const start = process.argv[3] ?? "src/cli/serve.ts";
const pat = new RegExp(process.argv[2]);
// BFS over static imports from start
const prev = new Map([[start, null]]);
const q = [start];
while (q.length) {
  const f = q.shift();
  for (const i of inputs[f]?.imports ?? []) {
    if (i.kind !== "import-statement" || i.external) continue;
    if (prev.has(i.path)) continue;
    prev.set(i.path, f); q.push(i.path);
  }
}
const hits = [...prev.keys()].filter((f) => pat.test(f));
let bytes = 0; for (const f of prev.keys()) bytes += inputs[f]?.bytes ?? 0;
console.log(`static closure of ${start}: ${prev.size} modules, ${bytes} bytes (source)`);
const shown = new Set();
for (const h of hits) {
  const chain = []; for (let c = h; c; c = prev.get(c)) chain.push(c);
  const key = chain.slice(1).join("<");
  if (shown.has(chain[1])) continue; shown.add(chain[1]);
  console.log(chain.reverse().join(" -> "));
}
console.log(hits.length, "hits");
if (process.argv[4] === "dirs") {
  const byDir = {};
  for (const f of prev.keys()) { const d = f.split("/").slice(0, Number(process.argv[5] ?? 3)).join("/"); byDir[d] = (byDir[d] ?? 0) + (r.metafile.outputs ? 0 : 0) + (inputs[f]?.bytes ?? 0); }
  for (const [d, b] of Object.entries(byDir).sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(String(b).padStart(8), d);
}
