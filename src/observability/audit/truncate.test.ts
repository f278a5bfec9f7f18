import { describe, expect, it } from "vitest";
import type { AuditBackend } from "./backend.js";
import { eventRecord, type AuditEventRecord } from "./event-record.js";
import { TruncatingBackend, truncateDefaults } from "./truncate.js";
import type { Level } from "./types.js";

const ev = (id: string, level: Level, body = "") =>
  eventRecord({
    level,
    auditID: id,
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces/default/configmaps",
    verb: "create",
    user: { username: "u" },
    sourceIPs: ["127.0.0.1"],
    userAgent: "t",
    requestObject: body ? JSON.stringify({ data: body }) : undefined,
    responseObject: body ? JSON.stringify({ data: body }) : undefined,
    requestReceived: 1,
    stageTime: 2,
    annotations: { "authorization.k8s.io/decision": "allow" },
  });

function setup(maxEventSize: number, maxBatchSize: number, result: boolean | Promise<boolean> = true) {
  const batches: AuditEventRecord[][] = [];
  const lost: { plugin: string; message: string; ids: string[] }[] = [];
  const delegate: AuditBackend = { name: "log", processEvents: (evs) => (batches.push([...evs]), result), shutdown: async () => undefined };
  const b = new TruncatingBackend(delegate, { maxEventSize, maxBatchSize }, (plugin, err, events) => void lost.push({ plugin, message: err.message, ids: events.map((e) => JSON.parse(e.json).auditID) }));
  return { b, batches, lost };
}

describe("the truncating backend", () => {
  it("has upstream's defaults and name", () => {
    expect(truncateDefaults).toEqual({ maxEventSize: 102400, maxBatchSize: 10485760 });
    expect(setup(1, 1).b.name).toBe("truncate<log>");
  });

  it("measures an event as its json log line", () => {
    const e = ev("a", "Request", "x".repeat(10) + "é<");
    expect(e.encodedSize()).toBe(Buffer.byteLength(e.jsonLine()));
  });

  it("drops the bodies of an event too large at Request and above, marking it truncated; others keep everything", () => {
    const small = ev("small", "RequestResponse", "x");
    const big = ev("big", "RequestResponse", "x".repeat(2000));
    const { b, batches, lost } = setup(1000, 100_000);
    expect(b.processEvents([small, big])).toBe(true);
    expect(lost).toEqual([]);
    expect(batches).toHaveLength(1);
    expect(batches[0]![0]).toBe(small);
    const cut = JSON.parse(batches[0]![1]!.json);
    expect(cut.requestObject).toBeUndefined();
    expect(cut.responseObject).toBeUndefined();
    // The rest of the event is as it was, the annotation added in key order.
    const { requestObject: _q, responseObject: _r, annotations, ...rest } = JSON.parse(big.json);
    expect(cut).toEqual({ ...rest, annotations: { ...annotations, "audit.k8s.io/truncated": "true" } });
    expect(Object.keys(cut.annotations)).toEqual(["audit.k8s.io/truncated", "authorization.k8s.io/decision"]);
  });

  it("adds the annotation to an event that had none; escapes survive the cut", () => {
    const plain = eventRecord({ level: "Request", auditID: "p", stage: "ResponseComplete", requestURI: "/x?a=<b>", verb: "create", user: {}, sourceIPs: [], userAgent: "", requestObject: JSON.stringify({ x: "y".repeat(500) }), requestReceived: 1, stageTime: 2 });
    const { b, batches } = setup(400, 100_000);
    b.processEvents([plain]);
    const cut = batches[0]![0]!;
    expect(cut.json).toContain('"requestURI":"/x?a=\\u003cb\\u003e"');
    expect(JSON.parse(cut.json)).toMatchObject({ auditID: "p", annotations: { "audit.k8s.io/truncated": "true" } });
    expect(JSON.parse(cut.json).requestObject).toBeUndefined();
  });

  it("drops an event still too large (and a Metadata one, which has no bodies to cut), reported as the truncate plugin's", () => {
    const meta = ev("meta", "Metadata");
    const { b, batches, lost } = setup(meta.encodedSize() - 1, 100_000);
    expect(b.processEvents([meta, ev("req", "Request", "x".repeat(5000)), ev("meta2", "Metadata")])).toBe(true);
    expect(batches).toEqual([]);
    expect(lost).toEqual([{ plugin: "truncate", message: "event is too large even after truncating", ids: ["meta", "req", "meta2"] }]);
  });

  it("splits the events of one call into batches of at most the batch size", () => {
    const e = (id: string) => ev(id, "Metadata");
    const size = e("a").encodedSize();
    const { b, batches } = setup(size, size * 2 + 1);
    b.processEvents([e("a"), e("b"), e("c"), e("d"), e("e")]);
    expect(batches.map((bt) => bt.map((x) => JSON.parse(x.json).auditID))).toEqual([["a", "b"], ["c", "d"], ["e"]]);
  });

  it("answers what the delegate answered, waiting for it when it must be waited for", async () => {
    expect(setup(100_000, 100_000, false).b.processEvents([ev("a", "Metadata")])).toBe(false);
    const waited = setup(100_000, 100_000, Promise.resolve(true)).b.processEvents([ev("a", "Metadata")]);
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe(true);
  });
});
