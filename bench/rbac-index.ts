// `npx tsx bench/rbac-index.ts [durationMs]`: RBAC authorization decisions per second from the
// index with 1,000 roles and 1,000 bindings (src/authz/rbac/index-bench.ts).
import { measureDecisions } from "../src/authz/rbac/index-bench.testkit.js";

const durationMs = Number(process.argv[2] ?? 3000);
measureDecisions({ durationMs: 200 }); // warm-up
const r = measureDecisions({ durationMs });
process.stdout.write(
  `RBAC index, ${r.roles} roles and ${r.bindings} bindings: ${r.perSecond.toLocaleString("en")} decisions/s ` +
    `(${r.decisions} decisions in ${r.ms.toFixed(0)} ms, ${r.allowed} allowed; index built in ${r.buildMs.toFixed(1)} ms)\n`,
);
