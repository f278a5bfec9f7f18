// Pod Security levels, policy versions and the namespace labels that choose them (upstream:
// k8s.io/pod-security-admission/api). A namespace's policy is three level:version pairs —
// enforce, audit, warn — read from its pod-security.kubernetes.io/* labels, each falling back
// to the configured default.
import { invalid, type FieldError } from "../../apimachinery/validation.js";

export type Level = "privileged" | "baseline" | "restricted";
export const levels: readonly Level[] = ["privileged", "baseline", "restricted"];

/** A policy version: "latest" or v1.<minor>. Versions newer than the newest check behave as the newest. */
export type Version = { latest: true } | { latest: false; minor: number };
export const latest: Version = { latest: true };
export const v1 = (minor: number): Version => ({ latest: false, minor });

export const versionString = (v: Version) => (v.latest ? "latest" : `v1.${v.minor}`);

/** Whether `a` comes before `b` ("latest" comes after every numbered version). */
export function older(a: Version, b: Version): boolean {
  if (a.latest) return false;
  if (b.latest) return true;
  return a.minor < b.minor;
}

export const sameVersion = (a: Version, b: Version) => versionString(a) === versionString(b);

export interface LevelVersion {
  level: Level;
  version: Version;
}

/** "restricted:latest", "baseline:v1.30": how messages and annotations name a level and version. */
export const lvString = (lv: LevelVersion) => `${lv.level}:${versionString(lv.version)}`;
export const sameLevelVersion = (a: LevelVersion, b: LevelVersion) => lvString(a) === lvString(b);

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const privilegedPolicy: Policy = {
  enforce: { level: "privileged", version: latest },
  audit: { level: "privileged", version: latest },
  warn: { level: "privileged", version: latest },
};

export const fullyPrivileged = (p: Policy) => p.enforce.level === "privileged" && p.audit.level === "privileged" && p.warn.level === "privileged";

/** Same evaluation: equal where a level is not privileged (a privileged level's version does not matter). */
export function equivalentPolicies(a: Policy, b: Policy): boolean {
  const eq = (x: LevelVersion, y: LevelVersion) => x.level === y.level && (x.level === "privileged" || sameVersion(x.version, y.version));
  return eq(a.enforce, b.enforce) && eq(a.audit, b.audit) && eq(a.warn, b.warn);
}

/** +1 when `a` is stricter than `b`, -1 when looser, 0 when the same. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(levels.indexOf(a) - levels.indexOf(b));
}

export const labelPrefix = "pod-security.kubernetes.io/";
export const enforceLevelLabel = `${labelPrefix}enforce`;
export const enforceVersionLabel = `${labelPrefix}enforce-version`;
export const auditLevelLabel = `${labelPrefix}audit`;
export const auditVersionLabel = `${labelPrefix}audit-version`;
export const warnLevelLabel = `${labelPrefix}warn`;
export const warnVersionLabel = `${labelPrefix}warn-version`;

/** Audit annotation keys, as the audit log records them (the plugin prefixes them with labelPrefix). */
export const enforcedPolicyAnnotation = "enforce-policy";
export const auditViolationsAnnotation = "audit-violations";
export const exemptionAnnotation = "exempt";
export const errorAnnotation = "error";

const levelError = `must be one of ${levels.join(", ")}`;
const versionError = 'must be "latest" or "v1.x"';

/** The level a label value names; an unknown value reads as restricted, with an error. */
export function parseLevel(value: string): { level: Level; error?: string } {
  return (levels as readonly string[]).includes(value) ? { level: value as Level } : { level: "restricted", error: levelError };
}

/** The version a label value names; anything but "latest" or v1.<n> reads as latest, with an error. */
export function parseVersion(value: string): { version: Version; error?: string } {
  if (value === "latest") return { version: latest };
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(value);
  if (!m) return { version: latest, error: versionError };
  const minor = Number(m[1]);
  if (!Number.isSafeInteger(minor)) return { version: latest, error: versionError };
  return { version: v1(minor) };
}

/**
 * The policy a namespace's labels give, over `defaults`, with one field error per bad label.
 * A bad enforce level fails closed (restricted); bad audit and warn levels fail open (privileged).
 * An enforce label stricter than the warn level, with no warn label, raises warn to it: enforce
 * is never applied to workloads (their pods are checked when made), so without this a namespace
 * labelled for enforce alone would accept a Deployment whose pods will all be refused, silently.
 */
export function policyFromLabels(labels: Record<string, string> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels) return { policy: p, errors };
  const field = (label: string) => `metadata.labels[${label}]`;
  const modes: [keyof Policy, string, string, Level][] = [
    ["enforce", enforceLevelLabel, enforceVersionLabel, "restricted"],
    ["audit", auditLevelLabel, auditVersionLabel, "privileged"],
    ["warn", warnLevelLabel, warnVersionLabel, "privileged"],
  ];
  let enforceLevelLabelled = false;
  for (const [mode, levelLabel, versionLabel, onError] of modes) {
    const level = labels[levelLabel];
    if (level !== undefined) {
      const r = parseLevel(level);
      p[mode].level = r.error ? onError : r.level;
      if (r.error) errors.push(invalid(field(levelLabel), level, r.error));
      // A level that failed to parse is not a choice to warn by.
      else if (mode === "enforce") enforceLevelLabelled = true;
    }
    const version = labels[versionLabel];
    if (version !== undefined) {
      const r = parseVersion(version);
      p[mode].version = r.version;
      if (r.error) errors.push(invalid(field(versionLabel), version, r.error));
    }
  }
  if (enforceLevelLabelled && labels[warnLevelLabel] === undefined && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (labels[warnVersionLabel] === undefined) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
