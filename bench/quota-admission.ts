// What the ResourceQuota plugin costs a create: ConfigMap creates over HTTPS in a namespace
// without a quota, beside one under a count/configmaps quota (each admitted create then also
// writes the quota's status), in the same run, sequential and 8 at a time.
// `npx tsx bench/quota-admission.ts [creates per case]`
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "../src/index.js";
import { req, withCredentials } from "../test/support/client.js";

const n = Number(process.argv[2] ?? 300);
const s = withCredentials((await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-bench-quota-")) })));
try {
  for (const ns of ["free", "counted"]) {
    if ((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status !== 201) throw new Error("namespace");
  }
  await req(s, "POST", "/api/v1/namespaces/counted/resourcequotas", { body: { metadata: { name: "q" }, spec: { hard: { "count/configmaps": "1000000" } } } });
  for (;;) {
    const q = await req(s, "GET", "/api/v1/namespaces/counted/resourcequotas/q");
    if (q.json.status?.used) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const create = async (ns: string, name: string) => {
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name }, data: { k: "v" } } });
    if (r.status !== 201) throw new Error(`${ns}/${name}: ${r.status} ${r.text}`);
  };
  const run = async (ns: string, label: string, concurrency: number) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < n) await create(ns, `${label}-${next++}`);
    }));
    return n / ((performance.now() - t0) / 1000);
  };
  await run("free", "warm", 4);
  for (const concurrency of [1, 8]) {
    const free = await run("free", `c${concurrency}`, concurrency);
    const counted = await run("counted", `c${concurrency}`, concurrency);
    console.log(`concurrency ${concurrency}: no quota ${Math.round(free)} creates/s, under a count quota ${Math.round(counted)} creates/s`);
  }
  const used = (await req(s, "GET", "/api/v1/namespaces/counted/resourcequotas/q")).json.status.used;
  console.log(`quota used after the run: ${JSON.stringify(used)} (expected ${2 * n})`);
} finally {
  await s.stop();
}
