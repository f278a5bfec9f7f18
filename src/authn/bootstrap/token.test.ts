import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { getExpiration, getGroups, parseRfc3339, parseSecretName, parseToken, validateGroupName } from "./token.js";

const secret = (data: Record<string, string>) => ({ metadata: { name: "x" }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])) }) as unknown as KObject;

describe("bootstrap token helpers", () => {
  it("parses tokens of exactly [a-z0-9]{6}.[a-z0-9]{16}", () => {
    expect(parseToken("abcdef.0123456789abcdef")).toEqual({ id: "abcdef", secret: "0123456789abcdef" });
    for (const t of ["abcdef.0123456789abcdef\n", " abcdef.0123456789abcdef", "abcdeF.0123456789abcdef", "abcdef:0123456789abcdef", "abcde.0123456789abcdefg", "abcdef.0123456789abcdef0", ""]) {
      expect(parseToken(t)).toBeUndefined();
    }
  });
  it("parses Secret names", () => {
    expect(parseSecretName("bootstrap-token-abcdef")).toBe("abcdef");
    expect(parseSecretName("bootstrap-token-abcdefg")).toBeUndefined();
    expect(parseSecretName("bootstrap-token-ABCDEF")).toBeUndefined();
  });
  it("parses RFC 3339 as Go does", () => {
    expect(parseRfc3339("2030-01-01T00:00:00Z")).toBe(Date.UTC(2030, 0, 1));
    expect(parseRfc3339("2030-01-01T01:00:00+01:00")).toBe(Date.UTC(2030, 0, 1));
    expect(parseRfc3339("2030-01-01T00:00:00.5Z")).toBe(Date.UTC(2030, 0, 1) + 500);
    for (const s of ["2030-01-01", "2030-01-01 00:00:00Z", "2030-01-01T00:00:00", "2030-02-30T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01t00:00:00z", "tomorrow"]) {
      expect(parseRfc3339(s)).toBeUndefined();
    }
  });
  it("treats an unparseable expiration as expired and no expiration as never", () => {
    expect(getExpiration(secret({}))).toEqual({ remainingMs: 0, expired: false });
    expect(getExpiration(secret({ expiration: "soon" })).expired).toBe(true);
    expect(getExpiration(secret({ expiration: "2030-01-01T00:00:10Z" }), Date.UTC(2030, 0, 1))).toEqual({ remainingMs: 10_000, expired: false });
  });
  it("validates extra groups with upstream's pattern and message", () => {
    expect(validateGroupName("system:bootstrappers:a")).toBeUndefined();
    expect(validateGroupName("system:bootstrappers:" + "a".repeat(256))).toBeUndefined();
    expect(validateGroupName("system:bootstrappers:" + "a".repeat(257))).toBeDefined();
    expect(validateGroupName("system:bootstrappers:")).toBeDefined();
    expect(validateGroupName(" system:bootstrappers:a")).toBeDefined();
    expect(validateGroupName("system:bootstrappers:A")).toBe(
      String.raw`bootstrap group "system:bootstrappers:A" is invalid (must match \Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z)`,
    );
    expect(getGroups(secret({ "auth-extra-groups": "system:bootstrappers:b,system:bootstrappers:a" }))).toEqual({ groups: ["system:bootstrappers", "system:bootstrappers:a", "system:bootstrappers:b"] });
    expect(getGroups(secret({ "auth-extra-groups": "system:bootstrappers:b, system:bootstrappers:a" }))).toHaveProperty("error");
    expect(getGroups(secret({ "auth-extra-groups": "system:bootstrappers" }))).toHaveProperty("error");
  });
});
