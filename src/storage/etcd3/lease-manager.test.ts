import { describe, expect, it } from "vitest";
import { LeaseManager } from "./lease-manager.js";

/** A granter that numbers its leases and records the TTLs asked for, on a clock the test moves. */
function setup() {
  let now = 1_000_000;
  const granted: number[] = [];
  const m = new LeaseManager({ leaseGrant: async (ttl) => (granted.push(ttl), String(granted.length)) }, () => now);
  return { m, granted, advance: (ms: number) => (now += ms) };
}

describe("LeaseManager", () => {
  it("grants a TTL plus its reuse window (5%, at most 60 s) and shares the lease within that window", async () => {
    const { m, granted, advance } = setup();
    expect(await m.lease(3600)).toBe("1");
    expect(granted).toEqual([3660]);
    advance(59_000);
    expect(await m.lease(3600)).toBe("1"); // still outlives 3600 s from now
    advance(1_000);
    expect(await m.lease(3600)).toBe("2"); // would expire before 3600 s from now
    expect(granted).toEqual([3660, 3660]);
    expect(await m.lease(100)).toBe("3"); // a lease that would outlive a 100 s TTL by more than its window is not reused
    expect(granted.at(-1)).toBe(105);
  });

  it("gives short TTLs a lease each (no window under 20 s)", async () => {
    const { m, granted } = setup();
    expect([await m.lease(2), await m.lease(2)]).toEqual(["1", "2"]);
    expect(granted).toEqual([2, 2]);
  });

  it("attaches at most 1000 keys to one lease, and concurrent writes share one grant", async () => {
    const { m, granted } = setup();
    const ids = await Promise.all(Array.from({ length: 1001 }, () => m.lease(3600)));
    expect(ids.filter((id) => id === "1")).toHaveLength(1000);
    expect(ids.at(-1)).toBe("2");
    expect(granted).toHaveLength(2);
  });
});
