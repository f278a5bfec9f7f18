// The server's own non-resource endpoints: /livez, /readyz and /healthz (with per-check paths),
// /version and /metrics (server/endpoints.ts), and component-base's metrics flags.
import { showHiddenMetricsVersionError } from "../../observability/metric-registry.js";
import { kubernetesVersion } from "../../observability/version.js";
import { healthEndpoints, metricsEndpoint, versionEndpoint } from "../endpoints.js";
import { listFlag, type FlagSpec } from "../flag-spec.js";
import type { FeatureModule } from "./feature-module.js";

const flags: FlagSpec[] = [
  {
    name: "show-hidden-metrics-for-version",
    kind: "string",
    default: "",
    help: "The previous minor version for which to show hidden metrics (e.g. 1.33): metrics deprecated before this release are hidden, and shown again for one more release with this flag. Only the previous minor version is allowed.",
    apply: (o, v) => (o.showHiddenMetricsForVersion = v),
  },
  {
    name: "disabled-metrics",
    kind: "list",
    default: "",
    help: "Fully qualified metric names never to export: an escape hatch for a misbehaving metric. Takes precedence over --show-hidden-metrics-for-version.",
    apply: (o, v) => o.disabledMetrics.push(...listFlag(v)),
  },
];

export function observabilityFeature(): FeatureModule {
  return {
    name: "health-version-metrics",
    flags,
    checkFlags(o) {
      const err = showHiddenMetricsVersionError(kubernetesVersion, o.showHiddenMetricsForVersion ?? "");
      if (err) throw new Error(err);
    },
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
          bootSequence: lifecycle.bootSequence,
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
