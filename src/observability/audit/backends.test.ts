import { describe, expect, it } from "vitest";
import { ignoringErrors, unionBackend, type AuditBackend } from "./backend.js";
import { BufferedBackend, type BatchConfig } from "./buffered.js";
import { eventRecord, type AuditEventRecord } from "./event-record.js";
import { LogBackend, type LineSink } from "./log-backend.js";
import { memoryBackend } from "./memory-backend.testkit.js";
import type { Stage } from "./types.js";

const ev = (id: string, stage: Stage = "ResponseComplete") =>
  eventRecord({ level: "Metadata", auditID: id, stage, requestURI: "/x", verb: "get", user: {}, sourceIPs: [], userAgent: "", requestReceived: 1, stageTime: 1 });
const ids = (b: { records: AuditEventRecord[] }) => b.records.map((r) => JSON.parse(r.json).auditID);
const lost: { plugin: string; message: string; n: number }[] = [];
const errors = (plugin: string, err: Error, events: readonly unknown[]) => void lost.push({ plugin, message: err.message, n: events.length });
const turn = () => new Promise((r) => setImmediate(r));

function sink(): LineSink & { writes: string[] } {
  const writes: string[] = [];
  return { writes, write: (t) => void writes.push(t), close: () => undefined };
}

describe("the log backend", () => {
  it("blocking: writes a turn's events together at its end; ResponseComplete's caller waits for that write", async () => {
    const out = sink();
    const log = new LogBackend(out, { format: "json", groupCommit: true, errors });
    expect(log.processEvents([ev("a", "RequestReceived")])).toBe(true);
    expect(log.processEvents([ev("b", "RequestReceived")])).toBe(true);
    const doneA = log.processEvents([ev("a")]);
    const doneB = log.processEvents([ev("b")]);
    expect(doneA).toBeInstanceOf(Promise);
    expect(out.writes).toEqual([]);
    expect(await doneA).toBe(true);
    expect(await doneB).toBe(true);
    expect(out.writes).toHaveLength(1);
    expect(out.writes[0]!.split("\n").filter(Boolean).map((l) => [JSON.parse(l).auditID, JSON.parse(l).stage])).toEqual([["a", "RequestReceived"], ["b", "RequestReceived"], ["a", "ResponseComplete"], ["b", "ResponseComplete"]]);
    // A watch's head (ResponseStarted) goes out right after: written at once, with what waited.
    log.processEvents([ev("c", "RequestReceived")]);
    expect(log.processEvents([ev("c", "ResponseStarted")])).toBe(true);
    expect(out.writes).toHaveLength(2);
  });

  it("blocking-strict writes through and says when it could not, reported as the log plugin's; blocking does not fail its waiters", async () => {
    lost.length = 0;
    const failing: LineSink = { write: () => { throw new Error("disk full"); }, close: () => undefined };
    const log = new LogBackend(failing, { format: "legacy", groupCommit: false, errors });
    expect(log.processEvents([ev("a", "RequestReceived")])).toBe(false);
    expect(lost).toEqual([{ plugin: "log", message: "disk full", n: 1 }]);
    expect(await new LogBackend(failing, { format: "json", groupCommit: true, errors }).processEvents([ev("b")])).toBe(true);
    expect(lost).toHaveLength(2);
    expect(ignoringErrors(log).processEvents([ev("c")])).toBe(true);
  });
});

describe("batch mode", () => {
  const config = (o: Partial<BatchConfig> = {}): BatchConfig => ({ bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 30, throttleEnable: false, throttleQPS: 0, throttleBurst: 0, asyncDelegate: true, ...o });
  function batches(o: Partial<BatchConfig> = {}) {
    const seen: string[][] = [];
    const delegate: AuditBackend = { name: "d", processEvents: (evs) => (seen.push(evs.map((e) => JSON.parse(e.json).auditID)), true), shutdown: async () => undefined };
    return { seen, b: new BufferedBackend(delegate, config(o), errors) };
  }

  it("sends full batches off the request's path, and a partial one after the wait", async () => {
    const { seen, b } = batches();
    for (const id of "abcd") expect(b.processEvents([ev(id)])).toBe(true);
    expect(seen).toEqual([]);
    await turn();
    expect(seen).toEqual([["a", "b", "c"]]);
    await new Promise((r) => setTimeout(r, 60));
    expect(seen).toEqual([["a", "b", "c"], ["d"]]);
  });

  it("drops what a full queue cannot take (counted), and sends the rest at shutdown", async () => {
    lost.length = 0;
    const { seen, b } = batches({ bufferSize: 2, maxBatchSize: 10, maxBatchWaitMs: 60_000 });
    b.processEvents([ev("a"), ev("b"), ev("c")]);
    expect(lost).toEqual([{ plugin: "buffered", message: "audit buffer queue blocked", n: 1 }]);
    await b.shutdown();
    expect(seen).toEqual([["a", "b"]]);
    b.processEvents([ev("late")]);
    expect(lost.at(-1)).toEqual({ plugin: "buffered", message: "audit backend shut down", n: 1 });
  });

  it("throttles batches to the rate asked for", async () => {
    const { seen, b } = batches({ maxBatchSize: 1, throttleEnable: true, throttleQPS: 20, throttleBurst: 1 });
    const t0 = performance.now();
    for (const id of "abc") b.processEvents([ev(id)]);
    for (let i = 0; i < 100 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([["a"], ["b"], ["c"]]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(90); // two waits of 50 ms
  });
});

describe("several backends", () => {
  it("each gets every event; stored only when all stored it; waited for when one must be", async () => {
    const a = memoryBackend();
    const b = memoryBackend();
    expect(unionBackend([a, b]).processEvents([ev("x")])).toBe(true);
    expect([ids(a), ids(b)]).toEqual([["x"], ["x"]]);
    const slow: AuditBackend = { name: "slow", processEvents: async () => false, shutdown: async () => undefined };
    const r = unionBackend([a, slow]).processEvents([ev("y")]);
    expect(r).toBeInstanceOf(Promise);
    expect(await r).toBe(false);
  });
});
