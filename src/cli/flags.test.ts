import { describe, expect, it } from "vitest";
import { serverFeatures } from "../server/features/index.js";
import { helpText, parseServeFlags, serveFlagSections } from "./flags.js";

describe("request limit flags", () => {
  it("default as kube-apiserver's", () => {
    const o = parseServeFlags([]);
    expect([o.requestTimeoutMs, o.minRequestTimeoutSeconds, o.maxRequestsInflight, o.maxMutatingRequestsInflight]).toEqual([60_000, 1800, 400, 200]);
  });

  it("read Go durations and integers", () => {
    const o = parseServeFlags(["--request-timeout=1m30s", "--min-request-timeout", "300", "--max-requests-inflight=0", "--max-mutating-requests-inflight=7"]);
    expect([o.requestTimeoutMs, o.minRequestTimeoutSeconds, o.maxRequestsInflight, o.maxMutatingRequestsInflight]).toEqual([90_000, 300, 0, 7]);
  });

  it("refuse bad and negative values in kube-apiserver's words", () => {
    expect(() => parseServeFlags(["--request-timeout=60"])).toThrow('invalid argument "60" for "--request-timeout" flag: time: missing unit in duration "60"');
    expect(() => parseServeFlags(["--request-timeout=-1s"])).toThrow("--request-timeout can not be negative value");
    expect(() => parseServeFlags(["--max-requests-inflight=-1"])).toThrow("--max-requests-inflight can not be negative value");
    expect(() => parseServeFlags(["--max-mutating-requests-inflight=x"])).toThrow('invalid argument "x" for "--max-mutating-requests-inflight" flag');
    expect(() => parseServeFlags(["--min-request-timeout=-5"])).toThrow("--min-request-timeout can not be negative value");
    expect(() => parseServeFlags(["--livez-grace-period=-1s"])).toThrow("--livez-grace-period can not be a negative value");
  });

  it("read --shutdown-watch-termination-grace-period (default 0s), refusing a negative one in upstream's words", () => {
    expect(parseServeFlags([]).shutdownWatchTerminationGraceMs).toBe(0);
    expect(parseServeFlags(["--shutdown-watch-termination-grace-period=1m5s"]).shutdownWatchTerminationGraceMs).toBe(65_000);
    expect(() => parseServeFlags(["--shutdown-watch-termination-grace-period=-1s"])).toThrow("shutdown-watch-termination-grace-period, if provided, can not be a negative value");
  });

  it("read --goaway-chance, --shutdown-send-retry-after and --event-ttl, refusing what kube-apiserver refuses", () => {
    const d = parseServeFlags([]);
    expect([d.goawayChance, d.shutdownSendRetryAfter, d.eventTtlSeconds]).toEqual([0, false, 3600]);
    const o = parseServeFlags(["--goaway-chance=0.001", "--shutdown-send-retry-after", "--event-ttl=90s"]);
    expect([o.goawayChance, o.shutdownSendRetryAfter, o.eventTtlSeconds]).toEqual([0.001, true, 90]);
    expect(parseServeFlags(["--goaway-chance=.02", "--event-ttl=1500ms"])).toMatchObject({ goawayChance: 0.02, eventTtlSeconds: 1 });
    expect(() => parseServeFlags(["--goaway-chance=0.5"])).toThrow("--goaway-chance can not be less than 0 or greater than 0.02");
    expect(() => parseServeFlags(["--goaway-chance=-0.01"])).toThrow("--goaway-chance can not be less than 0 or greater than 0.02");
    expect(() => parseServeFlags(["--goaway-chance=often"])).toThrow('invalid argument "often" for "--goaway-chance" flag: strconv.ParseFloat: parsing "often": invalid syntax');
    expect(() => parseServeFlags(["--event-ttl=-1m"])).toThrow("--event-ttl can not be negative value");
    expect(helpText()).toContain("  --goaway-chance float (default \"0\")");
  });

  it("gathers the flags from the core and the feature modules: --help lists each one, once, under its owner", () => {
    const sections = serveFlagSections();
    const owners = new Map(serverFeatures().flatMap((m) => (m.flags ?? []).map((f) => [f.name, m.name] as const)));
    expect(owners.get("oidc-issuer-url")).toBe("authentication-config");
    expect(owners.get("authorization-mode")).toBe("authorization");
    expect(owners.get("enable-admission-plugins")).toBe("admission-plugins");
    expect(owners.get("service-account-issuer")).toBe("service-accounts");
    expect(owners.has("secure-port")).toBe(false); // generic: the core's
    const help = helpText();
    const all = sections.flatMap((s) => s.flags.map((f) => f.name));
    expect(all.length).toBeGreaterThanOrEqual(60);
    for (const name of all) expect(help.split("\n").filter((l) => l.startsWith(`  --${name} `))).toHaveLength(1);
    for (const { section } of sections) expect(help).toContain(`\n${section} flags:\n`);
  });

  it("applies a module's flag as its declaration says, and still names an unknown flag", () => {
    const o = parseServeFlags(["--authorization-mode=Node,RBAC", "--oidc-issuer-url", "https://issuer", "--enable-bootstrap-token-auth", "--token-auth-file="]);
    expect(o.authorizationMode).toEqual(["Node", "RBAC"]);
    expect(o.oidcIssuerURL).toBe("https://issuer");
    expect(o.oidcFlagsSet).toBe(true);
    expect(o.enableBootstrapTokenAuth).toBe(true);
    expect(o.tokenAuthFile).toBeUndefined();
    expect(() => parseServeFlags(["--no-such-flag=1"])).toThrow("unknown flag: --no-such-flag");
    expect(() => parseServeFlags(["--anonymous-auth=maybe"])).toThrow('invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  });
});
