// The server's own non-resource endpoints: /livez, /readyz and /healthz (with per-check paths),
// /version and /metrics (server/endpoints.ts).
import { healthEndpoints, metricsEndpoint, versionEndpoint } from "../endpoints.js";
import type { FeatureModule } from "./feature-module.js";

export function observabilityFeature(): FeatureModule {
  return {
    name: "health-version-metrics",
    setup: ({ options }) => ({
      nonResource: ({ lifecycle, metrics }) => [
        healthEndpoints({
          // Named as kube-apiserver names its storage check, so probes and dashboards match.
          storage: { name: "etcd", check: () => lifecycle.checkStorage() },
          ...(lifecycle.checkStorageReadiness ? { storageReadiness: { name: "etcd-readiness", check: () => lifecycle.checkStorageReadiness!() } } : {}),
          // kube-apiserver 1.34's checks of the --etcd-servers-overrides clusters, excluded with the main ones.
          storageOverrides: lifecycle.storageOverrides.map((c, i) => ({
            health: { name: `etcd-override-${i}`, group: "etcd", check: () => c.check() },
            readiness: { name: `etcd-override-readiness-${i}`, group: "etcd-readiness", check: () => c.checkReadiness() },
          })),
          bootstrapped: lifecycle.bootstrapped,
          stopping: lifecycle.stopping,
          startedAt: lifecycle.startedAt,
          livezGracePeriodMs: options.livezGracePeriodMs,
        }),
        versionEndpoint,
        metricsEndpoint(metrics),
      ],
    }),
  };
}
