import { afterEach, describe, expect, it, vi } from "vitest";
import { Deadlines } from "./watch-deadlines.js";

describe("Deadlines", () => {
  afterEach(() => void vi.useRealTimers());

  it("fires each deadline at its time, in order, and never a cancelled one", () => {
    vi.useFakeTimers();
    const d = new Deadlines();
    const fired: string[] = [];
    d.after(300, () => fired.push("c"));
    d.after(100, () => fired.push("a"));
    const b = d.after(200, () => fired.push("b"));
    d.after(200, () => fired.push("b2"));
    b.cancel();
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["a"]);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(["a", "b2", "c"]);
    expect(d.size).toBe(0);
  });

  it("drops cancelled entries in bulk so watches that come and go do not accumulate", () => {
    vi.useFakeTimers();
    const d = new Deadlines();
    let fired = 0;
    const keep = d.after(3_600_000, () => fired++);
    for (let i = 0; i < 1000; i++) d.after(1_800_000 + i, () => fired++).cancel();
    expect(d.size).toBe(1);
    expect((d as unknown as { heap: unknown[] }).heap.length).toBeLessThan(200);
    vi.advanceTimersByTime(3_600_000);
    expect(fired).toBe(1);
    keep.cancel();
  });

  it("a deadline cancelled by another firing at the same time does not fire", () => {
    vi.useFakeTimers();
    const d = new Deadlines();
    const fired: string[] = [];
    const second = d.after(50, () => fired.push("second"));
    d.after(10, () => {
      fired.push("first");
      second.cancel();
    });
    vi.advanceTimersByTime(60);
    expect(fired).toEqual(["first"]);
    expect(d.size).toBe(0);
  });

  it("a deadline past Node's longest delay waits instead of firing at once", () => {
    vi.useFakeTimers();
    const d = new Deadlines();
    let fired = false;
    d.after(40 * 24 * 3600 * 1000, () => (fired = true));
    vi.advanceTimersByTime(2 ** 31);
    expect(fired).toBe(false);
    vi.advanceTimersByTime(40 * 24 * 3600 * 1000);
    expect(fired).toBe(true);
  });
});
