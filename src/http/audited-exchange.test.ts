import { describe, expect, it } from "vitest";
import { AuditedExchange, type ResponseObserver } from "./audited-exchange.js";
import { recordingExchange } from "./recording-exchange.testkit.js";

function observer(hold: boolean | Promise<unknown>, finishing: () => boolean | Promise<boolean> = () => true): ResponseObserver & { seen: string[] } {
  const seen: string[] = [];
  return { seen, started: (s) => (seen.push(`started ${s}`), hold), body: () => void seen.push("body"), finishing: () => (seen.push("finishing"), finishing()) };
}

describe("the audited exchange", () => {
  it("holds a head the observer asks to hold until the end, which waits for the observer's write", async () => {
    const rec = recordingExchange();
    let written!: (ok: boolean) => void;
    const o = observer(true, () => new Promise<boolean>((r) => (written = r)));
    const ex = new AuditedExchange(rec.ex, o);
    ex.head(201, { "content-type": "application/json" });
    expect([ex.headersSent, ex.status, rec.status]).toEqual([true, 201, 0]);
    ex.end("{}");
    expect(rec.ended).toBe(false);
    written(true);
    await null;
    expect([rec.status, rec.ended, rec.body()]).toEqual([201, true, "{}"]);
    expect(o.seen).toEqual(["started 201", "finishing"]);
  });

  it("lets a held head go as soon as the body is streamed", () => {
    const rec = recordingExchange();
    const ex = new AuditedExchange(rec.ex, observer(true));
    ex.head(200, {});
    ex.write("chunk");
    expect(rec.status).toBe(200);
    ex.end();
    expect(rec.ended).toBe(true);
  });

  it("holds a head the observer gives a promise for, and what is written after it, until the promise settles; then all goes in order", async () => {
    const rec = recordingExchange();
    let took!: () => void;
    const o = observer(new Promise<void>((r) => (took = r)));
    const ex = new AuditedExchange(rec.ex, o);
    ex.head(200, {});
    expect(ex.write("a")).toBe(false);
    ex.write("b");
    const drained = ex.drained();
    ex.end("c");
    expect([ex.headersSent, rec.status, rec.body(), rec.ended, o.seen]).toEqual([true, 0, "", false, ["started 200"]]);
    expect(ex.pending()).toBe(3);
    took();
    await drained;
    expect([rec.status, rec.body(), rec.ended]).toEqual([200, "abc", true]);
    // The end (and its final stage) came only after the head's.
    expect(o.seen).toEqual(["started 200", "finishing"]);
  });

  it("sends nothing of a held response aborted before its head's promise settles", async () => {
    const rec = recordingExchange();
    let took!: () => void;
    const ex = new AuditedExchange(rec.ex, observer(new Promise<void>((r) => (took = r))));
    ex.head(200, {});
    ex.write("a");
    ex.abort();
    took();
    await new Promise((r) => setImmediate(r));
    expect([rec.status, rec.body()]).toEqual([0, ""]);
  });
});
