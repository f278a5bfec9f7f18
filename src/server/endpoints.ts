// The non-resource endpoints of observability: /livez, /readyz, /healthz (with per-check paths),
// /version and /metrics, as non-resource handlers.
import { jsonCodec } from "../encoding/codec.js";
import type { NonResourceHandler } from "../http/context.js";
import { writeBytes, writeObject, writeText } from "../http/respond.js";
import { runChecks, runOneCheck, type HealthCheck } from "../observability/health.js";
import type { ServerMetrics } from "../observability/metrics.js";
import { versionInfo } from "../observability/version.js";

export interface HealthState {
  /** Checks that pass when the store answers. */
  storage: HealthCheck;
  /** A readiness-only storage check with its own timeout (kube-apiserver's etcd-readiness). */
  storageReadiness?: HealthCheck;
  /** The checks of further storage (etcd clusters of --etcd-servers-overrides): health everywhere, readiness in /readyz. */
  storageOverrides?: readonly { health: HealthCheck; readiness: HealthCheck }[];
  /** True once bootstrap objects exist. */
  bootstrapped(): boolean;
  /** The features' boot-sequence checks (post-start hooks and the like), after the bootstrap one. */
  bootSequence?: readonly HealthCheck[];
  /** True once shutdown began (readyz fails). */
  stopping(): boolean;
  startedAt: number;
  livezGracePeriodMs: number;
}

export function healthEndpoints(s: HealthState): NonResourceHandler {
  const ping: HealthCheck = { name: "ping", check: () => undefined };
  const log: HealthCheck = { name: "log", check: () => undefined };
  const bootstrap: HealthCheck = { name: "poststarthook/bootstrap-namespaces", check: () => (s.bootstrapped() ? undefined : "not finished") };
  // During --livez-grace-period unfinished start-up hooks count as live (upstream's meaning).
  const inGrace = () => Date.now() - s.startedAt < s.livezGracePeriodMs;
  const overrides = s.storageOverrides ?? [];
  const storage = [s.storage, ...overrides.map((o) => o.health)];
  const boot = [bootstrap, ...(s.bootSequence ?? [])];
  const livez: HealthCheck[] = [ping, log, ...storage, ...boot.map((c) => ({ name: c.name, check: () => (inGrace() ? undefined : c.check()) }))];
  const readyz: HealthCheck[] = [
    ping,
    log,
    s.storage,
    ...(s.storageReadiness ? [s.storageReadiness] : []),
    ...overrides.flatMap((o) => [o.health, o.readiness]),
    ...boot,
    { name: "shutdown", check: () => (s.stopping() ? "process is shutting down" : undefined) },
  ];
  const healthz: HealthCheck[] = [ping, log, ...storage, ...boot];
  return async (ex) => {
    const m = /^\/(livez|readyz|healthz)(?:\/([^/]+(?:\/[^/]+)?))?$/.exec(ex.path);
    if (!m) return false;
    const checks = m[1] === "livez" ? livez : m[1] === "readyz" ? readyz : healthz;
    const res = m[2] ? await runOneCheck(checks, m[2]) : await runChecks(m[1], checks, ex.query);
    if (!res) return false;
    writeText(ex, res.status, res.body);
    return true;
  };
}

export const versionEndpoint: NonResourceHandler = (ex) => {
  if (ex.path !== "/version" && ex.path !== "/version/") return false;
  writeObject(ex, 200, versionInfo(), jsonCodec, { pretty: true });
  return true;
};

export function metricsEndpoint(metrics: ServerMetrics): NonResourceHandler {
  return async (ex) => {
    if (ex.path !== "/metrics") return false;
    const { body, contentType } = await metrics.text();
    writeBytes(ex, 200, Buffer.from(body), contentType);
    return true;
  };
}
