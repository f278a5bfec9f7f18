import { startApiServer } from "../src/server/start.js";
import { defaultOptions } from "../src/server/options.js";
const t0 = performance.now();
const s = await startApiServer({ ...defaultOptions(), bindAddress: "127.0.0.1", securePort: 0, storageBackend: "memory", dataDir: "", writeKubeconfig: false, log: () => {} });
console.log("start", performance.now() - t0);
await new Promise((r) => setTimeout(r, 1000));
const r = await s.storage.range("");
const prefixes = new Map<string, number>();
for (const kv of r.items) { const p = kv.key.split("/").slice(0, 3).join("/"); prefixes.set(p, (prefixes.get(p) ?? 0) + 1); }
console.log(r.items.length, r.revision, [...prefixes].join(" "));
console.log(JSON.stringify(r.items.map(k=>k.value).join("")).length);
await s.stop();
