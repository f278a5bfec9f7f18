import { describe, expect, it } from "vitest";
import { AuditedExchange, type ResponseObserver } from "./audited-exchange.js";
import { recordingExchange } from "./recording-exchange.testkit.js";

function observer(hold: boolean, finishing: () => boolean | Promise<boolean> = () => true): ResponseObserver & { seen: string[] } {
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
});
