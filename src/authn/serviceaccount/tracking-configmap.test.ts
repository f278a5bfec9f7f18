// The tracking ConfigMap's `since` must be a calendar date in Go's 2006-01-02 layout; anything
// else is replaced by the server.
import { describe, expect, it } from "vitest";
import { isTrackingDate } from "./tracking-configmap.js";

describe("isTrackingDate", () => {
  it("accepts real YYYY-MM-DD dates only", () => {
    expect(isTrackingDate("2026-03-10")).toBe(true);
    expect(isTrackingDate("2024-02-29")).toBe(true);
    expect(isTrackingDate("2025-02-29")).toBe(false);
    expect(isTrackingDate("2026-13-01")).toBe(false);
    expect(isTrackingDate("2026-3-10")).toBe(false);
    expect(isTrackingDate("2026-03-10T00:00:00Z")).toBe(false);
    expect(isTrackingDate("")).toBe(false);
    expect(isTrackingDate(undefined)).toBe(false);
  });
});
