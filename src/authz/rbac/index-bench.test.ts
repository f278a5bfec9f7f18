import { describe, expect, it } from "vitest";
import { measureDecisions } from "./index-bench.testkit.js";

describe("RBAC index: decisions per second (printed, never asserted)", () => {
  it("1,000 roles and 1,000 bindings", () => {
    const r = measureDecisions({ durationMs: 300 });
    console.log(`RBAC index: ${r.perSecond.toLocaleString("en")} decisions/s (${r.roles} roles, ${r.bindings} bindings, ${r.allowed}/${r.decisions} allowed, index built in ${r.buildMs.toFixed(1)} ms)`);
    expect(r.decisions).toBeGreaterThan(0);
    expect(r.allowed).toBeGreaterThan(0);
    expect(r.allowed).toBeLessThan(r.decisions);
  });
});
