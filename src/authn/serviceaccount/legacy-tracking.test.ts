// The pure rules of legacy-token tracking: which label value marks a token invalid, and when a
// use is worth stamping on its Secret.
import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { invalidatedTokenMessage, invalidSinceLabel, isMarkedInvalid, lastUsedLabel, lastUsedStamp } from "./legacy-tracking.js";

const secret = (labels?: Record<string, string>): KObject => ({ metadata: { name: "s", namespace: "ns", ...(labels ? { labels } : {}) } }) as KObject;
const noon = new Date("2026-03-10T12:00:00Z");

describe("legacy token tracking", () => {
  it("a non-empty invalid-since label marks the token invalid", () => {
    expect(isMarkedInvalid(secret({ [invalidSinceLabel]: "2025-01-01" }))).toBe(true);
    expect(isMarkedInvalid(secret({ [invalidSinceLabel]: "" }))).toBe(false);
    expect(isMarkedInvalid(secret())).toBe(false);
  });

  it("stamps today's UTC date unless the Secret already says today or tomorrow", () => {
    expect(lastUsedStamp(secret(), noon)).toBe("2026-03-10");
    expect(lastUsedStamp(secret({ [lastUsedLabel]: "2026-03-09" }), noon)).toBe("2026-03-10");
    expect(lastUsedStamp(secret({ [lastUsedLabel]: "2026-03-10" }), noon)).toBeUndefined();
    expect(lastUsedStamp(secret({ [lastUsedLabel]: "2026-03-11" }), noon)).toBeUndefined();
    expect(lastUsedStamp(secret({ [lastUsedLabel]: "2026-03-12" }), noon)).toBe("2026-03-10");
    expect(lastUsedStamp(secret(), new Date("2026-03-10T23:59:59-05:00"))).toBe("2026-03-11");
  });

  it("names the Secret, the ServiceAccount and the label to remove", () => {
    expect(invalidatedTokenMessage("ns", "tok", "robot")).toBe(
      "the token in secret ns/tok for service account ns/robot has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
    );
  });
});
