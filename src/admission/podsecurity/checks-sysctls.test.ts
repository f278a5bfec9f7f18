import { describe, expect, it } from "vitest";
import { sysctls } from "./checks-sysctls.js";
import { outcome, runCheck } from "./checks.testkit.js";
import type { PodSpecJson } from "./check.js";

const withSysctls = (...names: string[]): PodSpecJson => ({ securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) } });

describe("sysctls", () => {
  it("allows the safe set", () => {
    expect(outcome(runCheck(sysctls, 0, withSysctls("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start")))).toBe("allowed");
  });
  it("lists forbidden sysctls in the pod's order", () => {
    expect(outcome(runCheck(sysctls, 34, withSysctls("kernel.msgmax", "net.ipv4.tcp_syncookies", "a.b")))).toEqual(["forbidden sysctls", "kernel.msgmax, a.b"]);
  });
  const table: [string, number, boolean][] = [
    ["net.ipv4.ip_local_reserved_ports", 26, false],
    ["net.ipv4.ip_local_reserved_ports", 27, true],
    ["net.ipv4.tcp_keepalive_time", 28, false],
    ["net.ipv4.tcp_keepalive_probes", 29, true],
    ["net.ipv4.tcp_fin_timeout", 29, true],
    ["net.ipv4.tcp_rmem", 31, false],
    ["net.ipv4.tcp_wmem", 32, true],
    ["net.ipv4.tcp_rmem", 34, true],
  ];
  it.each(table)("%s at v1.%d allowed: %s", (name, minor, ok) => {
    expect(runCheck(sysctls, minor, withSysctls(name)).allowed).toBe(ok);
  });
});
