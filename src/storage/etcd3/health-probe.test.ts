import { describe, expect, it } from "vitest";
import { HealthProbe } from "./health-probe.js";

describe("HealthProbe", () => {
  it("probes at most every half timeout, answering the last result in between, with kube-apiserver's wording", async () => {
    let now = 1000;
    let calls = 0;
    let fail = false;
    const p = new HealthProbe(2000, async (ms) => {
      calls++;
      expect(ms).toBe(2000);
      if (fail) throw new Error("context deadline exceeded");
    }, () => now);
    expect(await p.check()).toBeUndefined();
    fail = true;
    now += 999;
    expect(await p.check()).toBeUndefined(); // within half the timeout: the last result
    expect(calls).toBe(1);
    now += 1;
    expect(await p.check()).toBe("error getting data from etcd: context deadline exceeded");
    expect(calls).toBe(2);
  });

  it("checks asked for while a probe runs share it", async () => {
    let release!: () => void;
    let calls = 0;
    const p = new HealthProbe(100, () => (calls++, new Promise<void>((r) => (release = r))));
    const a = p.check();
    const b = p.check();
    release();
    expect(await Promise.all([a, b])).toEqual([undefined, undefined]);
    expect(calls).toBe(1);
  });
});
