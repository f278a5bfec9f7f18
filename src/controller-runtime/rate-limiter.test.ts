import { describe, expect, it } from "vitest";
import { bucketRateLimiter, defaultControllerRateLimiter, fixedDelayRateLimiter, itemExponentialRateLimiter, maxOfRateLimiters } from "./rate-limiter.js";

describe("rate limiters (client-go's default_rate_limiters.go)", () => {
  it("per key: doubles from the base up to the cap, and starts over once forgotten", () => {
    const l = itemExponentialRateLimiter(5, 1000 * 1000);
    expect([1, 2, 3, 4, 5].map(() => l.when("a"))).toEqual([5, 10, 20, 40, 80]);
    expect(l.when("b")).toBe(5); // keys back off independently
    expect(l.retries("a")).toBe(5);
    for (let i = 0; i < 40; i++) l.when("a");
    expect(l.when("a")).toBe(1000 * 1000);
    l.forget("a");
    expect(l.retries("a")).toBe(0);
    expect(l.when("a")).toBe(5);
  });

  it("overall: a burst goes at once, then retries are spaced at the rate", () => {
    let now = 0;
    const l = bucketRateLimiter(10, 100, () => now);
    for (let i = 0; i < 100; i++) expect(l.when(`k${i}`)).toBe(0);
    expect(l.when("x")).toBeCloseTo(100);
    expect(l.when("y")).toBeCloseTo(200);
    now += 1000; // ten tokens back: the debt of two is paid, eight remain
    for (let i = 0; i < 8; i++) expect(l.when(`z${i}`)).toBe(0);
    expect(l.when("w")).toBeCloseTo(100);
  });

  it("the default is the longer of the two waits", () => {
    const l = defaultControllerRateLimiter();
    expect(l.when("a")).toBe(5);
    expect(l.when("a")).toBe(10);
    const both = maxOfRateLimiters(itemExponentialRateLimiter(5, 1000), fixedDelayRateLimiter(7));
    expect(both.when("k")).toBe(7);
    expect(both.when("k")).toBe(10);
    expect(both.retries("k")).toBe(2);
    both.forget("k");
    expect(both.retries("k")).toBe(0);
  });
});
