import { describe, expect, it } from "vitest";
import { exposureWarnings, isLoopback, type Exposure } from "./exposure-warning.js";

const open: Exposure = { bindAddress: "0.0.0.0", authorizers: ["AlwaysAllow"], anonymous: "any path" };

describe("isLoopback", () => {
  it("knows loopback addresses in their spellings, and every-interface addresses as not", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) expect(isLoopback(a), a).toBe(true);
    for (const a of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "fe80::1", "::2"]) expect(isLoopback(a), a).toBe(false);
  });
});

describe("exposureWarnings", () => {
  it("warns about AlwaysAllow off loopback, naming anonymous access when it reaches every path", () => {
    const [w] = exposureWarnings(open);
    expect(w).toMatch(/^kapi serves on 0\.0\.0\.0, which is reachable from other machines, with the AlwaysAllow authorizer: every request is allowed, including requests with no credential/);
    expect(w).toContain("--authorization-mode=Node,RBAC");
    const [authenticated] = exposureWarnings({ ...open, anonymous: "some paths" });
    expect(authenticated).toContain("every authenticated request is allowed");
    expect(exposureWarnings({ ...open, anonymous: "off" })[0]).toContain("every authenticated request is allowed");
  });

  it("says what an earlier denying authorizer leaves, and stays quiet on loopback or without AlwaysAllow", () => {
    expect(exposureWarnings({ ...open, authorizers: ["Webhook", "AlwaysAllow"] })[0]).toContain("every request not denied by an authorizer before it is allowed");
    expect(exposureWarnings({ ...open, authorizers: ["RBAC", "AlwaysAllow"] })[0]).toContain("every request is allowed");
    expect(exposureWarnings({ ...open, bindAddress: "127.0.0.1" })).toEqual([]);
    expect(exposureWarnings({ ...open, bindAddress: "::1" })).toEqual([]);
    expect(exposureWarnings({ ...open, authorizers: ["Node", "RBAC"] })).toEqual([]);
  });
});
