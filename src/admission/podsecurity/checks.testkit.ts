// Unit-test helpers: run one check at one policy version on a pod given as JSON.
import type { Check, CheckOptions, CheckResult, PodMetaJson, PodSpecJson } from "./check.js";

const strict: CheckOptions = { relaxForUserNamespacePods: false };

/** The check's result at policy v1.<minor> (the newest implementation not newer than it). */
export function runCheck(check: Check, minor: number, spec: PodSpecJson, meta: PodMetaJson = {}, opts: CheckOptions = strict): CheckResult {
  const applicable = check.versions.filter((v) => !v.minimumVersion.latest && v.minimumVersion.minor <= minor);
  const v = applicable.at(-1);
  if (!v) throw new Error(`${check.id} does not apply at v1.${minor}`);
  return v.check(meta, spec, opts);
}

/** [reason, detail] when denied, "allowed" otherwise: what the tables compare. */
export const outcome = (r: CheckResult) => (r.allowed ? "allowed" : [r.reason, r.detail ?? ""]);

/** A container with a name and a security context. */
export const c = (name: string, securityContext?: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ name, image: "busybox", ...(securityContext ? { securityContext } : {}), ...more });
