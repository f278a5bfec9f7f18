import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OpenStreams } from "./open-streams.js";

function streams(n: number): { open: OpenStreams; ended: () => number } {
  const open = new OpenStreams();
  let ended = 0;
  for (let i = 0; i < n; i++) {
    const s = { stop: () => void (ended++, open.delete(s)) };
    open.add(s);
  }
  return { open, ended: () => ended };
}

describe("OpenStreams", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "Date", "queueMicrotask"] }));
  afterEach(() => vi.useRealTimers());

  it("closeAll ends every open stream at once, and each one registered later", async () => {
    const { open, ended } = streams(3);
    open.closeAll();
    expect(ended()).toBe(3);
    let late = false;
    open.add({ stop: () => (late = true) });
    await vi.runAllTimersAsync();
    expect(late).toBe(true);
  });

  it("closeAllOver spreads the ends over the grace period: count / grace a second", async () => {
    const { open, ended } = streams(1000);
    let done = false;
    void open.closeAllOver(2000).then(() => (done = true));
    expect(ended()).toBe(1); // 500 a second: one every 2 ms, the first at once
    await vi.advanceTimersByTimeAsync(1000);
    expect(ended()).toBeGreaterThanOrEqual(495);
    expect(ended()).toBeLessThanOrEqual(505);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ended()).toBe(1000);
    expect(done).toBe(true);
  });

  it("closeAllOver ends at least 200 a second, however long the grace period", async () => {
    const { open, ended } = streams(100);
    const finished = open.closeAllOver(60_000);
    await vi.advanceTimersByTimeAsync(250);
    expect(ended()).toBeGreaterThanOrEqual(50);
    expect(ended()).toBeLessThan(100);
    await vi.advanceTimersByTimeAsync(300);
    await finished;
    expect(ended()).toBe(100);
  });

  it("closeAllOver with nothing open resolves at once, and still ends streams registered later", async () => {
    const { open } = streams(0);
    await open.closeAllOver(1000);
    let late = false;
    open.add({ stop: () => (late = true) });
    await vi.runAllTimersAsync();
    expect(late).toBe(true);
  });
});
