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
