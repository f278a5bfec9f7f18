// The plugin's configuration: a PodSecurityConfiguration (pod-security.admission.config.k8s.io
// v1, v1beta1, v1alpha1) given through --admission-control-config-file. Defaults give the policy
// of namespaces without labels; exemptions name the users, runtime classes and namespaces the
// plugin never checks. Invalid configuration stops the server at start, as upstream.
import {
  aggregateMessage,
  duplicate,
  invalid,
  isDNS1123Label,
  isDNS1123Subdomain,
  type FieldError,
} from "../../apimachinery/validation.js";
import { latest, parseLevel, parseVersion, privilegedPolicy, type Policy } from "./api.js";

export interface PodSecurityConfiguration {
  defaults: Policy;
  exemptions: { usernames: string[]; runtimeClasses: string[]; namespaces: string[] };
}

const apiVersions = new Set([
  "pod-security.admission.config.k8s.io/v1",
  "pod-security.admission.config.k8s.io/v1beta1",
  "pod-security.admission.config.k8s.io/v1alpha1",
]);

/** No configuration: everything privileged, nobody exempt. */
export const defaultConfiguration: PodSecurityConfiguration = {
  defaults: privilegedPolicy,
  exemptions: { usernames: [], runtimeClasses: [], namespaces: [] },
};

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/** The configuration from the admission configuration file's PodSecurity entry; throws the start-up error. */
export function loadPodSecurityConfiguration(raw: unknown): PodSecurityConfiguration {
  if (raw === undefined || raw === null) return defaultConfiguration;
  const doc = raw as { apiVersion?: string; kind?: string; defaults?: Record<string, unknown>; exemptions?: Record<string, unknown> };
  if (typeof raw !== "object" || doc.kind !== "PodSecurityConfiguration" || !apiVersions.has(doc.apiVersion ?? "")) {
    throw new Error(
      `PodSecurity: expected a PodSecurityConfiguration of pod-security.admission.config.k8s.io/v1, got ${doc?.apiVersion ?? ""}, Kind=${doc?.kind ?? ""}`,
    );
  }
  const errs: FieldError[] = [];
  const defaults = doc.defaults ?? {};
  const policy: Policy = { enforce: { level: "privileged", version: latest }, audit: { level: "privileged", version: latest }, warn: { level: "privileged", version: latest } };
  for (const mode of ["enforce", "audit", "warn"] as const) {
    const level = defaults[mode];
    if (level !== undefined && level !== "") {
      const r = parseLevel(String(level));
      if (r.error) errs.push(invalid(`defaults.${mode}`, String(level), r.error));
      else policy[mode].level = r.level;
    }
    const version = defaults[`${mode}-version`];
    if (version !== undefined && version !== "") {
      const r = parseVersion(String(version));
      if (r.error) errs.push(invalid(`defaults.${mode}-version`, String(version), r.error));
      else policy[mode].version = r.version;
    }
  }
  const ex = doc.exemptions ?? {};
  const exemptions = { usernames: strings(ex.usernames), runtimeClasses: strings(ex.runtimeClasses), namespaces: strings(ex.namespaces) };
  const unique = (path: string, values: string[], check: (v: string, at: string) => void) => {
    const seen = new Set<string>();
    values.forEach((v, i) => {
      const at = `${path}[${i}]`;
      check(v, at);
      if (seen.has(v)) errs.push(duplicate(at, v));
      seen.add(v);
    });
  };
  unique("exemptions.namespaces", exemptions.namespaces, (v, at) => {
    for (const m of isDNS1123Label(v)) errs.push(invalid(at, v, m));
  });
  unique("exemptions.runtimeClasses", exemptions.runtimeClasses, (v, at) => {
    for (const m of isDNS1123Subdomain(v)) errs.push(invalid(at, v, m));
  });
  unique("exemptions.usernames", exemptions.usernames, (v, at) => {
    if (v === "") errs.push(invalid(at, v, "must be non-empty"));
  });
  if (errs.length > 0) throw new Error(`PodSecurity invalid: ${aggregateMessage(errs)}`);
  return { defaults: policy, exemptions };
}
