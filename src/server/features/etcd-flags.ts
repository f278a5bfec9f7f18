// kube-apiserver's etcd flags (besides --etcd-servers, which the CLI resolves with
// --storage-backend): TLS to etcd, the key prefix, compaction, the object-count poll, the
// per-resource clusters and the health checks' timeouts. Read when --storage-backend=etcd3.
import { durationFlag, listFlag, nonNegative, type FlagSpec } from "../flag-spec.js";
import type { EtcdServersOverride } from "../options.js";

export const etcdFlags: readonly FlagSpec[] = [
  { name: "etcd-cafile", kind: "string", default: "", help: "SSL Certificate Authority file used to secure etcd communication.", apply: (o, v) => (o.etcd.caFile = v || undefined) },
  { name: "etcd-certfile", kind: "string", default: "", help: "SSL certification file used to secure etcd communication.", apply: (o, v) => (o.etcd.certFile = v || undefined) },
  { name: "etcd-keyfile", kind: "string", default: "", help: "SSL key file used to secure etcd communication.", apply: (o, v) => (o.etcd.keyFile = v || undefined) },
  { name: "etcd-prefix", kind: "string", default: "/registry", help: "The prefix to prepend to all resource paths in etcd.", apply: (o, v) => (o.etcd.prefix = v) },
  { name: "etcd-compaction-interval", kind: "duration", default: "5m0s", help: "The interval of compaction requests. If 0, the compaction request from apiserver is disabled.", apply: (o, v) => (o.etcd.compactionIntervalMs = durationFlag("etcd-compaction-interval", v)) },
  { name: "etcd-count-metric-poll-period", kind: "duration", default: "1m0s", help: "Frequency of polling etcd for number of resources per type. 0 disables the metric collection.", apply: (o, v) => (o.etcd.countMetricPollPeriodMs = durationFlag("etcd-count-metric-poll-period", v)) },
  { name: "etcd-servers-overrides", kind: "list", default: "", help: "Per-resource etcd servers overrides, comma separated. The individual override format: group/resource#servers, where servers are URLs, semicolon separated. Note that this applies only to resources compiled into this server binary. ", apply: (o, v) => (o.etcd.serversOverrides = [...o.etcd.serversOverrides, ...listFlag(v).map(serversOverride)]) },
  { name: "etcd-healthcheck-timeout", kind: "duration", default: "2s", help: "The timeout to use when checking etcd health.", apply: (o, v) => (o.etcd.healthcheckTimeoutMs = positive("etcd-healthcheck-timeout", durationFlag("etcd-healthcheck-timeout", v))) },
  { name: "etcd-readycheck-timeout", kind: "duration", default: "2s", help: "The timeout to use when checking etcd readiness", apply: (o, v) => (o.etcd.readycheckTimeoutMs = positive("etcd-readycheck-timeout", durationFlag("etcd-readycheck-timeout", v))) },
];

/** kube-apiserver's own validation wording for the two health timeouts. */
function positive(name: string, ms: number): number {
  if (ms <= 0) throw new Error(`--${name} must be greater than 0`);
  return nonNegative(name, ms);
}

/** group/resource#url;url, checked as kube-apiserver checks it (the core group is empty: "/events#…"). */
export function serversOverride(v: string): EtcdServersOverride {
  const tokens = v.split("#");
  const gr = tokens[0]!.split("/");
  if (tokens.length !== 2 || gr.length !== 2) throw new Error("--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated");
  return { group: gr[0]!, resource: gr[1]!, servers: tokens[1]!.split(";") };
}
