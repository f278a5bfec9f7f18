import { describe, expect, it } from "vitest";
import { expiringCache } from "./expiring-cache.js";

describe("expiringCache", () => {
  it("keeps an entry for its TTL on the injected clock, even one starting at 0", () => {
    let now = 0;
    const c = expiringCache<string>({ max: 10, now: () => now });
    c.set("a", "x", { ttl: 100 });
    now = 100;
    expect(c.get("a")).toBe("x");
    now = 101;
    expect(c.get("a")).toBeUndefined();
  });
  it("keeps at most max entries, dropping the least recently used", () => {
    const c = expiringCache<number>({ max: 2 });
    c.set("a", 1, { ttl: 1000 });
    c.set("b", 2, { ttl: 1000 });
    c.get("a");
    c.set("c", 3, { ttl: 1000 });
    expect([...c.keys()].sort()).toEqual(["a", "c"]);
  });
});
