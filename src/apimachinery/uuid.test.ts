import { describe, expect, it } from "vitest";
import { newUUID } from "./uuid.js";

describe("newUUID", () => {
  it("makes version 4, RFC 4122 variant UUIDs in lower-case hex", () => {
    for (let i = 0; i < 1000; i++) expect(newUUID()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("never repeats, across many refills of its random pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(newUUID());
    expect(seen.size).toBe(20_000);
  });

  it("uses every hex digit in every free position (the bytes are random, not a counter)", () => {
    const positions = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...newUUID()].forEach((c, at) => positions[at]!.add(c));
    for (const at of [0, 7, 9, 15, 20, 35]) expect(positions[at]!.size).toBe(16);
    expect([...positions[14]!]).toEqual(["4"]);
    expect([...positions[19]!].sort()).toEqual(["8", "9", "a", "b"]);
  });
});
