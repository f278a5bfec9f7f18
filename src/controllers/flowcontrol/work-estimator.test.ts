import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "../../http/request-info.js";
import { WatchTracker } from "./watch-tracker.js";
import { workEstimator } from "./work-estimator.js";

const info = (method: string, path: string, query = "") => parseRequestInfo(method, path, new URLSearchParams(query));
const q = (s = "") => new URLSearchParams(s);

describe("work estimator", () => {
  const watches = new WatchTracker();
  const estimate = workEstimator({ objectCount: (gr) => (gr === "pods" ? 1234 : gr === "deployments.apps" ? 50 : undefined), watches, maxSeats: (pl) => (pl === "narrow" ? 3 : 0), watchList: true });

  it("sizes a list by the objects it goes through, 100 a seat, within the level's maximum", () => {
    expect(estimate(info("GET", "/api/v1/pods"), q(), "wide").initialSeats).toBe(10); // 1234 from the cache, capped at 10
    expect(estimate(info("GET", "/api/v1/pods"), q("limit=100&resourceVersion=5"), "wide").initialSeats).toBe(2); // a page from storage, twice
    expect(estimate(info("GET", "/api/v1/pods"), q(), "narrow").initialSeats).toBe(3);
    expect(estimate(info("GET", "/apis/apps/v1/deployments"), q(), "wide").initialSeats).toBe(1);
    expect(estimate(info("GET", "/api/v1/services"), q(), "wide").initialSeats).toBe(1); // not counted yet
  });

  it("sizes a watch that sends its initial events like a list, other watches and reads at one seat", () => {
    expect(estimate(info("GET", "/api/v1/pods", "watch=true"), q("watch=true&sendInitialEvents=true"), "wide").initialSeats).toBe(10);
    expect(estimate(info("GET", "/api/v1/pods", "watch=true"), q("watch=true"), "wide").initialSeats).toBe(1);
    expect(estimate(info("GET", "/api/v1/namespaces/a/pods/p"), q(), "wide")).toMatchObject({ initialSeats: 1, finalSeats: 0 });
  });

  it("gives a write final seats for the watches its events reach (10 a seat, 5 ms each)", () => {
    const forget = Array.from({ length: 25 }, () => watches.register(info("GET", "/api/v1/namespaces/a/configmaps", "watch=true"), null)!);
    // Narrowed to one node: not counted.
    expect(watches.register(info("GET", "/api/v1/pods", "watch=true"), "spec.nodeName=n1")).toBeUndefined();
    const w = estimate(info("POST", "/api/v1/namespaces/a/configmaps"), q(), "wide");
    expect(w).toMatchObject({ initialSeats: 1, finalSeats: 3, watchCount: 25 });
    expect(w.additionalLatencyMs).toBeCloseTo(5);
    expect(estimate(info("POST", "/api/v1/namespaces/b/configmaps"), q(), "wide")).toMatchObject({ finalSeats: 0, watchCount: 0 });
    for (const f of forget) f();
    expect(estimate(info("POST", "/api/v1/namespaces/a/configmaps"), q(), "wide").finalSeats).toBe(0);
  });
});
