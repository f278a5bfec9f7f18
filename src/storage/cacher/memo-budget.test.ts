// The memos of cached entries keep encoded bytes only within their budget: past it a memo declines
// (the reader uses the bytes it made), while nested memos and other values are always kept.
import { describe, expect, it } from "vitest";
import { BudgetedMemo, ByteBudget } from "./memo-budget.js";

describe("BudgetedMemo", () => {
  it("keeps Buffers and strings while they fit, then declines them", () => {
    const budget = new ByteBudget(100);
    const a = new BudgetedMemo(budget);
    const b = new BudgetedMemo(budget);
    a.set("json", Buffer.alloc(60));
    b.set("get", "x".repeat(30));
    expect([a.has("json"), b.has("get"), budget.kept]).toEqual([true, true, 90]);
    b.set("list", Buffer.alloc(20)); // 110 > 100
    expect([b.has("list"), budget.kept]).toEqual([false, 90]);
    b.set("small", "0123456789"); // exactly 100
    expect([b.get("small"), budget.kept]).toEqual(["0123456789", 100]);
  });

  it("always keeps values that are not bytes (nested memos, pending conversions)", () => {
    const budget = new ByteBudget(0);
    const m = new BudgetedMemo(budget);
    const nested = new BudgetedMemo(budget);
    m.set("ADDED", nested);
    m.set("converted", Promise.resolve(1));
    m.set("bytes", Buffer.alloc(1));
    expect([m.get("ADDED"), m.has("converted"), m.has("bytes"), budget.kept]).toEqual([nested, true, false, 0]);
  });
});
