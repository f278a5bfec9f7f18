// What a Pod Security check is and the helpers every check shares (upstream:
// pod-security-admission/policy/checks.go, helpers.go, visitor.go). A check looks at a pod's
// metadata and spec (of a pod or of a workload's pod template) and says whether the pod is
// allowed; when not, a short reason ("host namespaces") and a detail naming what offended
// ("hostNetwork, hostPID"). Checks read the objects as JSON, as clients sent them.
import type { Level, Version } from "./api.js";

/** The JSON shapes the checks read: only the fields they look at. */
export interface SecurityContextJson {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: string;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seLinuxOptions?: { type?: string; user?: string; role?: string; level?: string };
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  windowsOptions?: { hostProcess?: boolean };
  sysctls?: { name: string; value?: string }[];
}

export interface HandlerJson {
  httpGet?: { host?: string };
  tcpSocket?: { host?: string };
}

export interface ContainerJson {
  name: string;
  image?: string;
  ports?: { hostPort?: number }[];
  securityContext?: SecurityContextJson;
  livenessProbe?: HandlerJson;
  readinessProbe?: HandlerJson;
  startupProbe?: HandlerJson;
  lifecycle?: { postStart?: HandlerJson; preStop?: HandlerJson };
}

export interface PodSpecJson {
  containers?: ContainerJson[];
  initContainers?: ContainerJson[];
  ephemeralContainers?: ContainerJson[];
  volumes?: ({ name: string } & Record<string, unknown>)[];
  securityContext?: SecurityContextJson;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  os?: { name?: string };
  runtimeClassName?: string;
}

export interface PodMetaJson {
  name?: string;
  annotations?: Record<string, string>;
}

export interface CheckResult {
  allowed: boolean;
  /** Set when not allowed: the short name of what was wrong ("privileged"). */
  reason?: string;
  /** Optional when not allowed: what exactly (`container "c" must not set ...`). */
  detail?: string;
}

/** What a check needs beyond the pod: options of the server (feature gates). */
export interface CheckOptions {
  /** UserNamespacesPodSecurityStandards: pods with hostUsers=false pass runAsNonRoot, runAsUser and procMount. */
  relaxForUserNamespacePods: boolean;
}

export type CheckFn = (meta: PodMetaJson, spec: PodSpecJson, opts: CheckOptions) => CheckResult;

export interface VersionedCheck {
  /** The first policy version this implementation applies to (never latest). */
  minimumVersion: Version;
  check: CheckFn;
  /** Baseline checks this restricted check supersedes at its versions (hostPathVolumes under restrictedVolumes, ...). */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, "privileged">;
  /** Strictly increasing minimum versions. */
  versions: readonly VersionedCheck[];
}

export const allowed: CheckResult = { allowed: true };
export const denied = (reason: string, detail?: string): CheckResult => ({ allowed: false, reason, detail });

/** `"a", "b"`: Go's quoted join (empty list → ""). */
export const joinQuote = (items: readonly string[]) => (items.length === 0 ? "" : `"${items.join('", "')}"`);

export const pluralize = (singular: string, plural: string, count: number) => (count === 1 ? singular : plural);

/** Distinct values in byte order (upstream's sets.List). */
export const sortedSet = (items: Iterable<string>) => [...new Set(items)].sort(byteOrder);
export const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `container "a"` / `containers "a", "b"`. */
export const containersPhrase = (names: readonly string[]) => `${pluralize("container", "containers", names.length)} ${joinQuote(names)}`;

/** Every container of the spec: init containers, containers, then ephemeral containers. */
export function* allContainers(spec: PodSpecJson): Iterable<ContainerJson> {
  for (const c of spec.initContainers ?? []) yield c;
  for (const c of spec.containers ?? []) yield c;
  for (const c of spec.ephemeralContainers ?? []) yield c;
}

/** The Windows exemption of restricted checks from policy v1.25: a pod declaring spec.os.name=windows. */
export const isWindowsPod = (spec: PodSpecJson) => spec.os?.name === "windows";

/** A user-namespaced pod (hostUsers=false) when the server relaxes the policy for them. */
export const relaxedForUserNamespace = (spec: PodSpecJson, opts: CheckOptions) => opts.relaxForUserNamespacePods && spec.hostUsers === false;
