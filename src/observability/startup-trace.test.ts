import { describe, expect, it } from "vitest";
import { formatStartupPhases, markStartup, startupTrace } from "./startup-trace.js";

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
    const t = startupTrace(true, (s) => out.push(s), true);
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

  it("counts a later start in the process from its own start", () => {
    const out: string[] = [];
    const t = startupTrace(true, (s) => out.push(s), false);
    t.mark("only");
    t.done();
    const names = out.join("").trimEnd().split("\n").map((l) => l.replace(/^kapi: startup: +[\d.]+ ms \(cpu +[\d.]+ ms\)  /, ""));
    expect(names).toEqual(["only", "total since startApiServer was called"]);
  });

  it("counts a start after the process's first traced one from its own start", () => {
    const later: string[] = [];
    startupTrace(true, () => undefined).done();
    startupTrace(true, (s) => later.push(s)).done();
    expect(later.join("")).toContain("total since startApiServer was called");
    expect(later.join("")).not.toContain("process start to startApiServer");
  });

  it("splits the time before the start at the command line's marks", () => {
    markStartup("node (test)");
    markStartup("code loaded (test)");
    const out: string[] = [];
    const t = startupTrace(true, (s) => out.push(s), true);
    t.mark("first");
    t.done();
    const names = out.join("").trimEnd().split("\n").map((l) => l.replace(/^kapi: startup: +[\d.]+ ms \(cpu +[\d.]+ ms\)  /, ""));
    expect(names).toEqual(["node (test)", "code loaded (test)", "to startApiServer (the command: flags, files)", "first", "total since process start"]);
    performance.clearMarks();
  });

  it("sums the phases into the total", () => {
    expect(formatStartupPhases([["a", 1.5, 1], ["b", 2, 0.5]])).toBe(
      "kapi: startup:     1.5 ms (cpu    1.0 ms)  a\nkapi: startup:     2.0 ms (cpu    0.5 ms)  b\nkapi: startup:     3.5 ms (cpu    1.5 ms)  total since process start\n",
    );
  });
});
