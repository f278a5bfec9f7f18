import { describe, expect, it } from "vitest";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { goawayFilter } from "./goaway.js";

/** A random source that returns the given values in turn. */
const sequence = (...values: number[]) => () => values.shift() ?? 1;

describe("goaway filter", () => {
  it("closes an HTTP/2 connection when the draw falls under the chance, and always hands the request on", async () => {
    const filter = goawayFilter(0.02, sequence(0.019, 0.02, 0.5));
    const outcomes: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const { ctx, rec } = recordingContext({ path: "/api/v1/pods", httpVersion: "2" });
      let handled = false;
      await filter(ctx, async () => {
        handled = true;
      });
      expect(handled).toBe(true);
      outcomes.push(rec.connectionClosed);
    }
    expect(outcomes).toEqual([true, false, false]);
  });

  it("leaves HTTP/1.1 connections alone (they are not multiplexed)", async () => {
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods", httpVersion: "1.1" });
    await goawayFilter(0.02, () => 0)(ctx, async () => undefined);
    expect(rec.connectionClosed).toBe(false);
  });

  it("sends a GOAWAY to about `chance` of the requests", async () => {
    const filter = goawayFilter(0.02);
    let closed = 0;
    for (let i = 0; i < 20_000; i++) {
      const { ctx, rec } = recordingContext({ path: "/api/v1/pods" });
      await filter(ctx, async () => undefined);
      if (rec.connectionClosed) closed++;
    }
    // Binomial(20000, 0.02): mean 400, standard deviation 19.8; ±5 deviations.
    expect(closed).toBeGreaterThan(300);
    expect(closed).toBeLessThan(500);
  });
});
