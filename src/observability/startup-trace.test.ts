import { describe, expect, it } from "vitest";
import { formatStartupPhases, startupTrace } from "./startup-trace.js";

describe("startup trace", () => {
  it("prints nothing when off", () => {
    const out: string[] = [];
    const t = startupTrace(false, (s) => out.push(s));
    t.mark("a");
    t.done();
    expect(out).toEqual([]);
  });

  it("prints each phase in order, with the time before start and the total", () => {
    const out: string[] = [];
    const t = startupTrace(true, (s) => out.push(s));
    t.mark("first");
    t.mark("second");
    t.done();
    const lines = out.join("").trimEnd().split("\n");
    expect(lines.map((l) => l.replace(/^kapi: startup: +[\d.]+ ms \(cpu +[\d.]+ ms\)  /, ""))).toEqual([
      "process start to startApiServer (node, module loading)",
      "first",
      "second",
      "total since process start",
    ]);
  });

  it("sums the phases into the total", () => {
    expect(formatStartupPhases([["a", 1.5, 1], ["b", 2, 0.5]])).toBe(
      "kapi: startup:     1.5 ms (cpu    1.0 ms)  a\nkapi: startup:     2.0 ms (cpu    0.5 ms)  b\nkapi: startup:     3.5 ms (cpu    1.5 ms)  total since process start\n",
    );
  });
});
