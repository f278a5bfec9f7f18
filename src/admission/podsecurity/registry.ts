// The evaluator: which checks a level and version run, in which order (upstream:
// policy/registry.go). Checks run baseline first then restricted, each group by check ID; at the
// restricted level a restricted check's overrides hide the baseline checks it supersedes at that
// version. Versions newer than the newest check version (and "latest") evaluate as the newest.
import { lvString, older, v1, type LevelVersion, type Version } from "./api.js";
import { byteOrder, type Check, type CheckFn, type CheckOptions, type CheckResult, type PodMetaJson, type PodSpecJson, type VersionedCheck } from "./check.js";
import { capabilitiesBaseline, capabilitiesRestricted } from "./checks-capabilities.js";
import { hostNamespaces, hostPorts, hostProbesAndHostLifecycle, windowsHostProcess } from "./checks-host.js";
import { allowPrivilegeEscalation, privileged, procMount } from "./checks-privilege.js";
import { appArmorProfile, seccompProfileBaseline, seccompProfileRestricted, seLinuxOptions } from "./checks-profiles.js";
import { sysctls } from "./checks-sysctls.js";
import { runAsNonRoot, runAsUser } from "./checks-users.js";
import { hostPathVolumes, restrictedVolumes } from "./checks-volumes.js";

/** The checks of Kubernetes 1.34. */
export const defaultChecks: readonly Check[] = [
  allowPrivilegeEscalation,
  appArmorProfile,
  capabilitiesBaseline,
  capabilitiesRestricted,
  hostNamespaces,
  hostPathVolumes,
  hostPorts,
  hostProbesAndHostLifecycle,
  privileged,
  procMount,
  restrictedVolumes,
  runAsNonRoot,
  runAsUser,
  seLinuxOptions,
  seccompProfileBaseline,
  seccompProfileRestricted,
  sysctls,
  windowsHostProcess,
];

/** The aggregate of a level's checks on one pod. */
export interface AggregateResult {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

export function aggregate(results: readonly CheckResult[]): AggregateResult {
  const reasons: string[] = [];
  const details: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    reasons.push(r.reason || "unknown forbidden reason");
    details.push(r.detail ?? "");
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** "host ports, privileged": the reasons alone (namespace warnings). */
export const forbiddenReason = (a: AggregateResult) => a.reasons.join(", ");

/** "host ports (8080), privileged (container "c" must ...)": reasons with their details (pod messages). */
export const forbiddenDetail = (a: AggregateResult) => a.reasons.map((r, i) => (a.details[i] ? `${r} (${a.details[i]})` : r)).join(", ");

export interface Evaluator {
  /** The newest policy version any check has; newer versions and "latest" evaluate as this one. */
  readonly maxVersion: Version;
  evaluate(lv: LevelVersion, meta: PodMetaJson, spec: PodSpecJson): CheckResult[];
}

/** The implementation of a check that applies at minor version `minor`, if any. */
function versionAt(c: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const v of c.versions) if (!v.minimumVersion.latest && v.minimumVersion.minor <= minor) found = v;
  return found;
}

function validate(checks: readonly Check[]): void {
  const ids = new Set<string>();
  for (const c of checks) {
    if (ids.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    ids.add(c.id);
    if (c.versions.length === 0) throw new Error(`check ${c.id}: empty`);
    let previous = -1;
    for (const v of c.versions) {
      if (v.minimumVersion.latest) throw new Error(`check ${c.id}: version cannot be 'latest'`);
      if (v.minimumVersion.minor <= previous) throw new Error(`check ${c.id}: versions must be strictly increasing`);
      previous = v.minimumVersion.minor;
    }
  }
}

export function newEvaluator(checks: readonly Check[], opts: CheckOptions): Evaluator {
  validate(checks);
  const maxMinor = Math.max(...checks.map((c) => (c.versions.at(-1)!.minimumVersion as { minor: number }).minor));
  // Per minor version, the check functions of each level, precomputed (as upstream inflates them)
  // when the first pod is evaluated: every start builds the plugin, few evaluate a pod soon
  // (~2.7 ms of a start's cold code).
  let tables: { baselineAt: CheckFn[][]; restrictedAt: CheckFn[][] } | undefined;
  const inflate = () => {
    const byId = (a: Check, b: Check) => byteOrder(a.id, b.id);
    const baseline = checks.filter((c) => c.level === "baseline").sort(byId);
    const restricted = checks.filter((c) => c.level === "restricted").sort(byId);
    const baselineAt: CheckFn[][] = [];
    const restrictedAt: CheckFn[][] = [];
    for (let minor = 0; minor <= maxMinor; minor++) {
      const b = baseline.map((c) => [c, versionAt(c, minor)] as const).filter(([, v]) => v);
      const r = restricted.map((c) => [c, versionAt(c, minor)] as const).filter(([, v]) => v);
      const overridden = new Set(r.flatMap(([, v]) => v!.overrides ?? []));
      baselineAt[minor] = b.map(([, v]) => v!.check);
      restrictedAt[minor] = [...b.filter(([c]) => !overridden.has(c.id)), ...r].map(([, v]) => v!.check);
    }
    return { baselineAt, restrictedAt };
  };
  const maxVersion = v1(maxMinor);
  return {
    maxVersion,
    evaluate(lv, meta, spec) {
      if (lv.level === "privileged") return [];
      const minor = older(maxVersion, lv.version) ? maxMinor : (lv.version as { minor: number }).minor;
      tables ??= inflate();
      const fns = (lv.level === "baseline" ? tables.baselineAt : tables.restrictedAt)[minor];
      if (!fns) throw new Error(`no checks for ${lvString(lv)}`);
      return fns.map((f) => f(meta, spec, opts));
    },
  };
}
