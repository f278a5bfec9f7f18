import { describe, expect, it } from "vitest";
import { parseServeFlags } from "./flags.js";

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
});
