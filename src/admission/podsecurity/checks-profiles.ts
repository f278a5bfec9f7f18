// Security-profile checks: AppArmor and SELinux (baseline), seccomp (baseline forbids
// Unconfined; restricted requires RuntimeDefault or Localhost and supersedes baseline).
import { goQuote } from "../../apimachinery/go-quote.js";
import { v1 } from "./api.js";
import {
  allContainers,
  allowed,
  byteOrder,
  containersPhrase,
  denied,
  isWindowsPod,
  joinQuote,
  pluralize,
  sortedSet,
  type Check,
  type CheckFn,
} from "./check.js";

const appArmorAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/";
const allowedAppArmorAnnotation = (v: string) => v === "" || v === "runtime/default" || v.startsWith("localhost/");
const allowedProfileType = (t: string | undefined) => t === "RuntimeDefault" || t === "Localhost";

/** AppArmor: pod and container appArmorProfile.type RuntimeDefault or Localhost; the beta annotations runtime/default or localhost/*. */
export const appArmorProfile: Check = {
  id: "appArmorProfile",
  level: "baseline",
  versions: [
    {
      minimumVersion: v1(0),
      check: (meta, spec) => {
        const setters: string[] = [];
        const badTypes: string[] = [];
        const podProfile = spec.securityContext?.appArmorProfile;
        if (podProfile && !allowedProfileType(podProfile.type)) {
          setters.push("pod");
          badTypes.push(podProfile.type ?? "");
        }
        const bad: string[] = [];
        for (const c of allContainers(spec)) {
          const p = c.securityContext?.appArmorProfile;
          if (!p || allowedProfileType(p.type)) continue;
          bad.push(c.name);
          badTypes.push(p.type ?? "");
        }
        if (bad.length > 0) setters.push(containersPhrase(bad));
        const annotations = Object.entries(meta.annotations ?? {})
          .filter(([k, v]) => k.startsWith(appArmorAnnotationPrefix) && !allowedAppArmorAnnotation(v))
          .map(([k, v]) => `${k}=${goQuote(v)}`)
          .sort(byteOrder);
        const values = [...sortedSet(badTypes), ...annotations];
        if (annotations.length > 0) setters.push(pluralize("annotation", "annotations", annotations.length));
        if (setters.length === 0) return allowed;
        return denied(
          pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", values.length),
          `${setters.join(" and ")} must not set AppArmor profile type to ${joinQuote(values)}`,
        );
      },
    },
  ],
};

const seLinuxTypes1_0 = ["", "container_t", "container_init_t", "container_kvm_t"];
const seLinuxTypes1_31 = [...seLinuxTypes1_0, "container_engine_t"];

const seLinuxOptionsAllowing = (types: readonly string[]): CheckFn => {
  const allowedTypes = new Set(types);
  return (_meta, spec) => {
    const badTypes: string[] = [];
    let setUser = false;
    let setRole = false;
    const valid = (o: { type?: string; user?: string; role?: string }) => {
      let ok = true;
      if (!allowedTypes.has(o.type ?? "")) {
        ok = false;
        badTypes.push(o.type ?? "");
      }
      if (o.user) {
        ok = false;
        setUser = true;
      }
      if (o.role) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const setters: string[] = [];
    const podOptions = spec.securityContext?.seLinuxOptions;
    if (podOptions && !valid(podOptions)) setters.push("pod");
    const bad: string[] = [];
    for (const c of allContainers(spec)) {
      const o = c.securityContext?.seLinuxOptions;
      if (o && !valid(o)) bad.push(c.name);
    }
    if (bad.length > 0) setters.push(containersPhrase(bad));
    if (setters.length === 0) return allowed;
    const what: string[] = [];
    const distinct = sortedSet(badTypes);
    if (distinct.length > 0) what.push(`${pluralize("type", "types", distinct.length)} ${joinQuote(distinct)}`);
    if (setUser) what.push("user may not be set");
    if (setRole) what.push("role may not be set");
    return denied("seLinuxOptions", `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${what.join("; ")}`);
  };
};

/** SELinux: only the container types; user and role never set. container_engine_t allowed from v1.31. */
export const seLinuxOptions: Check = {
  id: "seLinuxOptions",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), check: seLinuxOptionsAllowing(seLinuxTypes1_0) },
    { minimumVersion: v1(31), check: seLinuxOptionsAllowing(seLinuxTypes1_31) },
  ],
};

const seccompPodAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
const seccompContainerAnnotationPrefix = "container.seccomp.security.alpha.kubernetes.io/";
const validSeccompAnnotation = (v: string) => v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");
const validSeccompType = (t: string | undefined) => t === "Localhost" || t === "RuntimeDefault";

/** Policy versions before 1.19 read the alpha seccomp annotations. */
const seccompBaseline1_0: CheckFn = (meta, spec) => {
  const annotations = meta.annotations ?? {};
  const forbidden: string[] = [];
  const podValue = annotations[seccompPodAnnotation];
  if (podValue !== undefined && !validSeccompAnnotation(podValue)) forbidden.push(`${seccompPodAnnotation}=${goQuote(podValue)}`);
  for (const c of allContainers(spec)) {
    const key = seccompContainerAnnotationPrefix + c.name;
    const value = annotations[key];
    if (value !== undefined && !validSeccompAnnotation(value)) forbidden.push(`${key}=${goQuote(value)}`);
  }
  const distinct = sortedSet(forbidden);
  return distinct.length > 0 ? denied("seccompProfile", `forbidden ${pluralize("annotation", "annotations", distinct.length)} ${distinct.join(", ")}`) : allowed;
};

/** Explicit bad seccompProfile.type values on the pod and containers, and the containers that set none. */
function seccompFields(spec: Parameters<CheckFn>[1]) {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  let podSet = false;
  if (podProfile) {
    if (validSeccompType(podProfile.type)) podSet = true;
    else {
      setters.push("pod");
      badValues.push(podProfile.type ?? "");
    }
  }
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of allContainers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p) {
      if (!validSeccompType(p.type)) {
        explicitlyBad.push(c.name);
        badValues.push(p.type ?? "");
      }
    } else if (!podSet) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  return { setters, badValues: sortedSet(badValues), implicitlyBad };
}

const seccompBaseline1_19: CheckFn = (_meta, spec) => {
  const { setters, badValues } = seccompFields(spec);
  return setters.length > 0 ? denied("seccompProfile", `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(badValues)}`) : allowed;
};

/** seccompProfile.type, when set, must be RuntimeDefault or Localhost. */
export const seccompProfileBaseline: Check = {
  id: "seccompProfile_baseline",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), check: seccompBaseline1_0 },
    { minimumVersion: v1(19), check: seccompBaseline1_19 },
  ],
};

const seccompRestricted1_19: CheckFn = (_meta, spec) => {
  const { setters, badValues, implicitlyBad } = seccompFields(spec);
  if (setters.length > 0) return denied("seccompProfile", `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(badValues)}`);
  if (implicitlyBad.length > 0) {
    return denied("seccompProfile", `pod or ${containersPhrase(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return allowed;
};

/** seccompProfile.type must be RuntimeDefault or Localhost, on the pod or every container (Windows pods exempt from v1.25). */
export const seccompProfileRestricted: Check = {
  id: "seccompProfile_restricted",
  level: "restricted",
  versions: [
    { minimumVersion: v1(19), check: seccompRestricted1_19, overrides: ["seccompProfile_baseline"] },
    {
      minimumVersion: v1(25),
      check: (meta, spec, opts) => (isWindowsPod(spec) ? allowed : seccompRestricted1_19(meta, spec, opts)),
      overrides: ["seccompProfile_baseline"],
    },
  ],
};
