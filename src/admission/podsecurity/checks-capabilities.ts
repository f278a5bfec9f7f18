// Capability checks: baseline allows adding only the container runtime's default set;
// restricted requires dropping ALL and adding at most NET_BIND_SERVICE (superseding baseline).
import { v1 } from "./api.js";
import { allContainers, allowed, containersPhrase, denied, isWindowsPod, joinQuote, sortedSet, type Check, type CheckFn } from "./check.js";

const defaultCapabilities = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/** containers[*].securityContext.capabilities.add: only the default set. */
export const capabilitiesBaseline: Check = {
  id: "capabilities_baseline",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec) => {
        const bad: string[] = [];
        const caps: string[] = [];
        for (const c of allContainers(spec)) {
          const extra = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !defaultCapabilities.has(cap));
          if (extra.length === 0) continue;
          bad.push(c.name);
          caps.push(...extra);
        }
        if (bad.length === 0) return allowed;
        return denied("non-default capabilities", `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
      },
    },
  ],
};

const capabilitiesRestricted1_22: CheckFn = (_meta, spec) => {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const capabilities = c.securityContext?.capabilities;
    if (!capabilities) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!(capabilities.drop ?? []).includes("ALL")) missingDropAll.push(c.name);
    const extra = (capabilities.add ?? []).filter((cap) => cap !== "NET_BIND_SERVICE");
    if (extra.length > 0) {
      adding.push(c.name);
      caps.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length > 0) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
  return details.length > 0 ? denied("unrestricted capabilities", details.join("; ")) : allowed;
};

/** Drop ALL, add at most NET_BIND_SERVICE (Windows pods exempt from v1.25). */
export const capabilitiesRestricted: Check = {
  id: "capabilities_restricted",
  level: "restricted",
  versions: [
    { minimumVersion: v1(22), check: capabilitiesRestricted1_22, overrides: ["capabilities_baseline"] },
    {
      minimumVersion: v1(25),
      check: (meta, spec, opts) => (isWindowsPod(spec) ? allowed : capabilitiesRestricted1_22(meta, spec, opts)),
      overrides: ["capabilities_baseline"],
    },
  ],
};
