import { describe, expect, it } from "vitest";
import { computeConcurrencyAllocation } from "./conc-alloc.js";

describe("computeConcurrencyAllocation", () => {
  it("scales targets by one fair proportion when no bound binds", () => {
    const r = computeConcurrencyAllocation(30, [
      { target: 10, lowerBound: 0, upperBound: 100 },
      { target: 20, lowerBound: 0, upperBound: 100 },
    ]);
    expect(r.allocs).toEqual([10, 20]);
    expect(r.fairProp).toBe(1);
  });

  it("clamps to bounds and shares the rest among the classes that can take it", () => {
    const r = computeConcurrencyAllocation(30, [
      { target: 10, lowerBound: 0, upperBound: 5 },
      { target: 10, lowerBound: 0, upperBound: 100 },
    ]);
    expect(r.allocs[0]).toBe(5);
    expect(r.allocs[1]).toBeCloseTo(25);
  });

  it("gives the lower bounds when they already add up to the seats", () => {
    expect(computeConcurrencyAllocation(6, [{ target: 3, lowerBound: 2, upperBound: 9 }, { target: 4, lowerBound: 4, upperBound: 9 }]).allocs).toEqual([2, 4]);
  });

  it("refuses an impossible problem", () => {
    expect(() => computeConcurrencyAllocation(100, [{ target: 1, lowerBound: 0, upperBound: 10 }])).toThrow("upper bounds sum to 10, which is lower than the required sum of 100");
  });
});
