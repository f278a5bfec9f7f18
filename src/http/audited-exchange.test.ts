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

  it("streams a held response's body but for its last chunk, which goes with the end once the final stage is written", async () => {
    const rec = recordingExchange();
    let written!: (ok: boolean) => void;
    const ex = new AuditedExchange(rec.ex, observer(true, () => new Promise<boolean>((r) => (written = r))));
    ex.head(200, {});
    expect(ex.write("a")).toBe(true);
    expect([rec.status, rec.body()]).toEqual([0, ""]);
    ex.write("b");
    expect([rec.status, rec.body()]).toEqual([200, "a"]);
    ex.write("c");
    expect([rec.body(), ex.pending()]).toEqual(["ab", 1]);
    ex.end();
    // With a Content-Length the client would have the whole response with "c": not before the event.
    expect([rec.body(), rec.ended]).toEqual(["ab", false]);
    written(true);
    await null;
    expect([rec.body(), rec.ended]).toEqual(["abc", true]);
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
