// The leader election flags of `kapi serve`: kube-controller-manager's names and defaults, on by
// default with etcd3 only, and the configurations upstream refuses.
import { describe, expect, it } from "vitest";
import { parseServeFlags } from "../../cli/flags.js";
import { defaultOptions } from "../options.js";
import { leaderElectionFeature, leaderElectionFlagsError, leaderElectionOn } from "./leader-election.js";

const check = (args: string[]) => {
  const o = parseServeFlags(args);
  return () => leaderElectionFeature().checkFlags!(o, undefined as never);
};

describe("leader election flags", () => {
  it("default to upstream's timings and kapi's Lease; election only with etcd3", () => {
    const o = parseServeFlags([]);
    expect(o.leaderElection).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceLock: "leases", resourceName: "kapi-controllers", resourceNamespace: "kube-system" });
    expect(leaderElectionOn(o)).toBe(false);
    expect(leaderElectionOn({ ...defaultOptions(), storageBackend: "etcd3" as never })).toBe(true);
    expect(leaderElectionOn({ ...defaultOptions(), storageBackend: "etcd3" as never, leaderElect: false })).toBe(false);
    expect(leaderElectionOn(parseServeFlags(["--leader-elect"]))).toBe(true);
  });

  it("read durations and names", () => {
    const o = parseServeFlags(["--leader-elect=true", "--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=500ms", "--leader-elect-resource-name=mine", "--leader-elect-resource-namespace=ops"]);
    expect(o.leaderElection).toMatchObject({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500, resourceName: "mine", resourceNamespace: "ops" });
    expect(leaderElectionFlagsError(o)).toBeUndefined();
  });

  it("refuse what upstream refuses, only when election is on", () => {
    expect(check(["--leader-elect", "--leader-elect-lease-duration=10s"])).toThrow("leaseDuration must be greater than renewDeadline");
    expect(check(["--leader-elect", "--leader-elect-renew-deadline=2s"])).toThrow("renewDeadline must be greater than retryPeriod*JitterFactor");
    expect(check(["--leader-elect", "--leader-elect-retry-period=0s"])).toThrow("--leader-elect-retry-period: must be greater than zero");
    expect(check(["--leader-elect", "--leader-elect-resource-lock=endpoints"])).toThrow('Invalid lock-type "endpoints"');
    expect(check(["--leader-elect", "--leader-elect-resource-name="])).toThrow("resourceName is required");
    expect(check(["--leader-elect=false", "--leader-elect-lease-duration=10s"])).not.toThrow();
    expect(() => parseServeFlags(["--leader-elect=maybe"])).toThrow('invalid argument "maybe" for "--leader-elect" flag');
  });
});
