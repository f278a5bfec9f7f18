// Baseline sysctls: only the namespaced sysctls upstream deems safe, a list that grew with the
// policy versions (v1.27, v1.29, v1.32).
import { v1 } from "./api.js";
import { allowed, denied, type Check, type CheckFn } from "./check.js";

const safe1_0 = ["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"];
const safe1_27 = [...safe1_0, "net.ipv4.ip_local_reserved_ports"];
const safe1_29 = [...safe1_27, "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"];
const safe1_32 = [...safe1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"];

const sysctlsAllowing = (safe: readonly string[]): CheckFn => {
  const allowedNames = new Set(safe);
  return (_meta, spec) => {
    // In the pod's order, repeats kept: upstream lists them as found.
    const bad = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !allowedNames.has(n));
    return bad.length > 0 ? denied("forbidden sysctls", bad.join(", ")) : allowed;
  };
};

export const sysctls: Check = {
  id: "sysctls",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), check: sysctlsAllowing(safe1_0) },
    { minimumVersion: v1(27), check: sysctlsAllowing(safe1_27) },
    { minimumVersion: v1(29), check: sysctlsAllowing(safe1_29) },
    { minimumVersion: v1(32), check: sysctlsAllowing(safe1_32) },
  ],
};
