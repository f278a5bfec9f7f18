import { describe, expect, it } from "vitest";
import { goDuration, rfc3339Nano } from "./dump.js";

describe("the dumps' time formats (Go's)", () => {
  it("writes RFC 3339 with nanoseconds, trailing zeros dropped, and Go's zero time", () => {
    expect(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 120) + 0.25)).toBe("2026-01-02T03:04:05.12025Z");
    expect(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("2026-01-02T03:04:05Z");
    expect(rfc3339Nano(0)).toBe("0001-01-01T00:00:00Z");
  });

  it("writes durations as time.Duration does", () => {
    expect(goDuration(0)).toBe("0s");
    expect(goDuration(5)).toBe("5ms");
    expect(goDuration(0.0025)).toBe("2.5µs");
    expect(goDuration(1500)).toBe("1.5s");
    expect(goDuration(120_000)).toBe("2m0s");
    expect(goDuration(3_723_000)).toBe("1h2m3s");
  });
});
