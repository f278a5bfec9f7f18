// Privilege checks: privileged containers and unmasked /proc (baseline), privilege escalation
// (restricted).
import { v1 } from "./api.js";
import {
  allContainers,
  allowed,
  containersPhrase,
  denied,
  isWindowsPod,
  joinQuote,
  relaxedForUserNamespace,
  sortedSet,
  type Check,
  type CheckFn,
} from "./check.js";

/** containers[*].securityContext.privileged must be unset or false. */
export const privileged: Check = {
  id: "privileged",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec) => {
        const bad = [...allContainers(spec)].filter((c) => c.securityContext?.privileged === true).map((c) => c.name);
        return bad.length > 0 ? denied("privileged", `${containersPhrase(bad)} must not set securityContext.privileged=true`) : allowed;
      },
    },
  ],
};

/** containers[*].securityContext.procMount must be unset or Default (any value for relaxed user-namespace pods). */
export const procMount: Check = {
  id: "procMount",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec, opts) => {
        // Pod validation already refuses malformed values: a relaxed pod may set any.
        if (relaxedForUserNamespace(spec, opts)) return allowed;
        const bad: string[] = [];
        const types: string[] = [];
        for (const c of allContainers(spec)) {
          const pm = c.securityContext?.procMount;
          if (pm == null || pm === "Default") continue;
          bad.push(c.name);
          types.push(pm);
        }
        if (bad.length === 0) return allowed;
        return denied("procMount", `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
      },
    },
  ],
};

const allowPrivilegeEscalation1_8: CheckFn = (_meta, spec) => {
  const bad = [...allContainers(spec)].filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map((c) => c.name);
  return bad.length > 0 ? denied("allowPrivilegeEscalation != false", `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`) : allowed;
};

/** containers[*].securityContext.allowPrivilegeEscalation must be false (Windows pods exempt from v1.25). */
export const allowPrivilegeEscalation: Check = {
  id: "allowPrivilegeEscalation",
  level: "restricted",
  versions: [
    { minimumVersion: v1(8), check: allowPrivilegeEscalation1_8 },
    // Pod validation refuses the field on Windows pods, so they need not set it.
    { minimumVersion: v1(25), check: (meta, spec, opts) => (isWindowsPod(spec) ? allowed : allowPrivilegeEscalation1_8(meta, spec, opts)) },
  ],
};
