import { describe, expect, it } from "vitest";
import { MetricRegistry } from "../../observability/metric-registry.js";
import { TokenCache, type Lookup } from "./cache.js";

describe("token cache metrics", () => {
  it("counts concurrent misses of one key as blocked while their one call is in flight", async () => {
    const cache = new TokenCache<string>({ successTtlMs: 60_000, failureTtlMs: 60_000 });
    const registry = new MetricRegistry({ version: "v1.34.0" });
    registry.register(...cache.metrics.families);
    let answer!: (r: Lookup<string>) => void;
    let calls = 0;
    const fetch = () => {
      calls++;
      return new Promise<Lookup<string>>((r) => (answer = r));
    };
    const lookups = [1, 2, 3].map(() => cache.lookup("t", undefined, fetch));
    let text = await registry.render();
    expect(text).toContain('authentication_token_cache_active_fetch_count{status="blocked"} 3\n');
    expect(text).toContain('authentication_token_cache_active_fetch_count{status="in_flight"} 1\n');
    expect(text).not.toContain("authentication_token_cache_request_total{");
    answer({ ok: true, value: "wanda" });
    expect(await Promise.all(lookups)).toEqual([1, 2, 3].map(() => ({ ok: true, value: "wanda" })));
    await cache.lookup("t", undefined, fetch);
    expect(calls).toBe(1);
    text = await registry.render();
    expect(text).toContain('authentication_token_cache_active_fetch_count{status="blocked"} 0\n');
    expect(text).toContain('authentication_token_cache_active_fetch_count{status="in_flight"} 0\n');
    expect(text).toContain('authentication_token_cache_request_total{status="miss"} 3\n');
    expect(text).toContain('authentication_token_cache_request_total{status="hit"} 1\n');
    expect(text).toContain('authentication_token_cache_fetch_total{status="ok"} 1\n');
    expect(text).not.toContain('authentication_token_cache_fetch_total{status="error"}');
  });
});
