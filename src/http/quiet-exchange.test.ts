import { describe, expect, it } from "vitest";
import { QuietableExchange } from "./quiet-exchange.js";
import { recordingExchange } from "./recording-exchange.testkit.js";

describe("quietable exchange", () => {
  it("passes everything through until told to go quiet", () => {
    const rec = recordingExchange({ path: "/api/v1/pods", query: "limit=1" });
    const q = new QuietableExchange(rec.ex);
    expect(q.path).toBe("/api/v1/pods");
    expect(q.query.get("limit")).toBe("1");
    q.head(200, { "content-type": "text/plain" });
    q.end("hello");
    expect(rec.status).toBe(200);
    expect(rec.body()).toBe("hello");
    expect(q.headersSent).toBe(true);
  });

  it("drops writes once quiet and reads as closed", () => {
    const rec = recordingExchange();
    const q = new QuietableExchange(rec.ex);
    q.quiet();
    expect(q.closed).toBe(true);
    q.head(200, {});
    expect(q.write("late")).toBe(true);
    q.end("late");
    q.abort();
    expect(rec.status).toBe(0);
    expect(rec.body()).toBe("");
    expect(rec.aborted).toBe(false);
  });
});
