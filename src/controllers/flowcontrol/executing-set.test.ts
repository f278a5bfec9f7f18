import { describe, expect, it } from "vitest";
import { ExecutingSet } from "./executing-set.js";

const item = (id: number) => ({ id, executingSlot: -1 });

describe("ExecutingSet", () => {
  it("keeps each member once, takes any one out (the last moved into its slot) and refuses what is not in", () => {
    const set = new ExecutingSet<ReturnType<typeof item>>();
    const [a, b, c, d] = [item(1), item(2), item(3), item(4)];
    for (const x of [a, b, c, d]) set.add(x);
    expect(set.size).toBe(4);
    expect(set.delete(b)).toBe(true);
    expect(set.delete(b)).toBe(false);
    expect([...set].map((x) => x.id).sort()).toEqual([1, 3, 4]);
    expect(d.executingSlot).toBe(1);
    expect(set.delete(d)).toBe(true);
    expect(set.delete(a)).toBe(true);
    expect([...set]).toEqual([c]);
    expect(c.executingSlot).toBe(0);
    // A member of another set is not this one's, even where its slot points.
    const other = new ExecutingSet<ReturnType<typeof item>>();
    const e = item(5);
    other.add(e);
    expect(set.delete(e)).toBe(false);
    expect(set.delete(c)).toBe(true);
    expect(set.size).toBe(0);
  });
});
