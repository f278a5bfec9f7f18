// User checks of the restricted level: containers must run as non-root, and never as UID 0
// (both waived for user-namespaced pods when the server relaxes the policy for them).
import { v1 } from "./api.js";
import { allContainers, allowed, containersPhrase, denied, relaxedForUserNamespace, type Check } from "./check.js";

/** runAsNonRoot=true on the pod, or on every container that does not inherit it. */
export const runAsNonRoot: Check = {
  id: "runAsNonRoot",
  level: "restricted",
  versions: [
    {
      minimumVersion: v1(0),
      check: (_meta, spec, opts) => {
        if (relaxedForUserNamespace(spec, opts)) return allowed;
        const setters: string[] = [];
        const podValue = spec.securityContext?.runAsNonRoot;
        if (podValue === false) setters.push("pod");
        const podNonRoot = podValue === true;
        const explicitlyBad: string[] = [];
        const implicitlyBad: string[] = [];
        for (const c of allContainers(spec)) {
          const value = c.securityContext?.runAsNonRoot;
          if (value != null) {
            if (!value) explicitlyBad.push(c.name);
          } else if (!podNonRoot) implicitlyBad.push(c.name);
        }
        if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
        if (setters.length > 0) return denied("runAsNonRoot != true", `${setters.join(" and ")} must not set securityContext.runAsNonRoot=false`);
        if (implicitlyBad.length > 0) return denied("runAsNonRoot != true", `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true`);
        return allowed;
      },
    },
  ],
};

/** runAsUser must not be 0 (pod or containers). Policy v1.23 and later. */
export const runAsUser: Check = {
  id: "runAsUser",
  level: "restricted",
  versions: [
    {
      minimumVersion: v1(23),
      check: (_meta, spec, opts) => {
        if (relaxedForUserNamespace(spec, opts)) return allowed;
        const setters: string[] = [];
        if (spec.securityContext?.runAsUser === 0) setters.push("pod");
        const bad = [...allContainers(spec)].filter((c) => c.securityContext?.runAsUser === 0).map((c) => c.name);
        if (bad.length > 0) setters.push(containersPhrase(bad));
        return setters.length > 0 ? denied("runAsUser=0", `${setters.join(" and ")} must not set runAsUser=0`) : allowed;
      },
    },
  ],
};
