// The generic flags of `kapi serve`: serving, TLS, storage, request limits, API enablement, and
// the controllers to run. The flags of a capability are declared by its feature module.
import { goQuote } from "../apimachinery/go-quote.js";
import { controllersError, controllersFlagHelp, parseControllersFlag } from "../controller-runtime/controllers-flag.js";
import { boolFlag, durationFlag, floatFlag, intFlag, nonNegative, type FlagSpec } from "./flag-spec.js";

export const coreFlags: readonly FlagSpec[] = [
  { name: "bind-address", kind: "string", default: "0.0.0.0", help: "The IP address on which to listen for the --secure-port port.", apply: (o, v) => (o.bindAddress = v) },
  { name: "secure-port", kind: "int", default: "6443", help: "The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.", apply: (o, v) => (o.securePort = intFlag("secure-port", v, 0, 65535)) },
  { name: "tls-cert-file", kind: "string", default: "", help: "File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert).", apply: (o, v) => (o.tlsCertFile = v || undefined) },
  { name: "tls-private-key-file", kind: "string", default: "", help: "File containing the default x509 private key matching --tls-cert-file.", apply: (o, v) => (o.tlsPrivateKeyFile = v || undefined) },
  { name: "cert-dir", kind: "string", default: "<data-dir>/pki", help: "The directory where generated TLS certificates are kept. Ignored for serving when --tls-cert-file and --tls-private-key-file are given.", apply: (o, v) => (o.certDir = v || undefined) },
  // Every feature with controllers reads it (controller-runtime/controllers-flag.ts names them all).
  { name: "controllers", kind: "list", default: "*", help: controllersFlagHelp, apply: (o, v) => {
    const list = [...(o.controllers ?? []), ...parseControllersFlag(v)];
    const err = controllersError(list);
    if (err) throw new Error(err);
    o.controllers = list;
  } },
  { name: "runtime-config", kind: "list", default: "", help: "Enable or disable API group versions: <group>/<version>=true|false, api/all, api/ga, api/beta, api/alpha.", apply: (o, v) => (o.runtimeConfig = o.runtimeConfig ? `${o.runtimeConfig},${v}` : v) },
  { name: "feature-gates", kind: "list", default: "", help: "Comma-separated Name=true|false feature gates.", apply: (o, v) => (o.featureGates = o.featureGates ? `${o.featureGates},${v}` : v) },
  { name: "livez-grace-period", kind: "duration", default: "0s", help: "Time after start during which unfinished post-start hooks count as live in /livez.", apply: (o, v) => (o.livezGracePeriodMs = nonNegative("livez-grace-period", durationFlag("livez-grace-period", v), "--livez-grace-period can not be a negative value")) },
  { name: "shutdown-delay-duration", kind: "duration", default: "0s", help: "After SIGTERM, /readyz fails for this long while requests are still served, so that load balancers stop sending traffic before the server stops taking it.", apply: (o, v) => (o.shutdownDelayMs = nonNegative("shutdown-delay-duration", durationFlag("shutdown-delay-duration", v))) },
  { name: "shutdown-send-retry-after", kind: "bool", default: "false", help: "After the shutdown delay, keep listening until the requests in flight (watches excepted) have finished, answering new ones 429 with a Retry-After and a Connection: close header; otherwise stop listening at once and answer requests still arriving on open connections 503.", apply: (o, v) => (o.shutdownSendRetryAfter = boolFlag("shutdown-send-retry-after", v)) },
  { name: "shutdown-watch-termination-grace-period", kind: "duration", default: "0s", help: "The most time a graceful shutdown spends ending the open watches, spread over it (at least 200 a second) so that their clients do not all reconnect at once; 0 ends them all at once when the drain begins.", apply: (o, v) => (o.shutdownWatchTerminationGraceMs = nonNegative("shutdown-watch-termination-grace-period", durationFlag("shutdown-watch-termination-grace-period", v), "shutdown-watch-termination-grace-period, if provided, can not be a negative value")) },
  { name: "goaway-chance", kind: "float", default: "0", help: "The fraction of HTTP/2 requests whose connection is sent a GOAWAY, so that clients behind a load balancer reconnect and spread over the servers; requests in flight are not affected. 0 (off) to 0.02; 0.001 is a starting point. Not for a single server.", apply: (o, v) => (o.goawayChance = goawayChance(floatFlag("goaway-chance", v))) },
  { name: "event-ttl", kind: "duration", default: "1h0m0s", help: "How long an Event is kept after it was last written; then it is deleted (whole seconds; 0s keeps events).", apply: (o, v) => (o.eventTtlSeconds = Math.floor(nonNegative("event-ttl", durationFlag("event-ttl", v)) / 1000)) },
  { name: "request-timeout", kind: "duration", default: "1m0s", help: "How long a request that is not long-running (watch excepted) may take before it is answered 504; a request's `timeout` query parameter can shorten it.", apply: (o, v) => (o.requestTimeoutMs = nonNegative("request-timeout", durationFlag("request-timeout", v))) },
  { name: "min-request-timeout", kind: "int", default: "1800", help: "Seconds a watch without timeoutSeconds lasts at least; the server picks a random time between this and twice it, spreading reconnections.", apply: (o, v) => (o.minRequestTimeoutSeconds = nonNegative("min-request-timeout", intFlag("min-request-timeout", v))) },
  { name: "max-requests-inflight", kind: "int", default: "400", help: "How many read-only requests (get, list) are served at once; more are answered 429. Watches are not counted; 0 means no limit. With priority and fairness, the two in-flight limits together are the seats its priority levels share.", apply: (o, v) => (o.maxRequestsInflight = nonNegative("max-requests-inflight", intFlag("max-requests-inflight", v))) },
  { name: "max-mutating-requests-inflight", kind: "int", default: "200", help: "How many mutating requests (create, update, patch, delete) are served at once; more are answered 429. 0 means no limit.", apply: (o, v) => (o.maxMutatingRequestsInflight = nonNegative("max-mutating-requests-inflight", intFlag("max-mutating-requests-inflight", v))) },
  { name: "service-cluster-ip-range", kind: "string", default: "10.0.0.0/24", help: "A CIDR range from which Service cluster IPs are allocated (the first address is the kubernetes Service's).", apply: (o, v) => (o.serviceClusterIPRange = v) },
  { name: "service-node-port-range", kind: "string", default: "30000-32767", help: "A port range reserved for services with NodePort visibility.", apply: (o, v) => (o.serviceNodePortRange = v) },
  { name: "data-dir", kind: "string", default: "./.kapi", help: "kapi: where the SQLite store, generated certificates and admin.kubeconfig live.", apply: (o, v) => (o.dataDir = v) },
  { name: "encryption-provider-config", kind: "string", default: "", help: "The file with the EncryptionConfiguration (apiserver.config.k8s.io/v1) for storing resources encrypted: aescbc, aesgcm, secretbox and identity providers (kms is refused).", apply: (o, v) => (o.encryptionProviderConfig = v || undefined) },
  { name: "encryption-provider-config-automatic-reload", kind: "bool", default: "false", help: "Reload the --encryption-provider-config file when its content changes (checked every minute); an invalid file keeps the current providers.", apply: (o, v) => (o.encryptionProviderConfigAutomaticReload = boolFlag("encryption-provider-config-automatic-reload", v)) },
  { name: "storage-backend", kind: "string", default: "sqlite", help: "kapi: sqlite (durable, default), memory, or etcd3 (with --etcd-servers).", apply: (o, v) => (o.storageBackend = storageBackendFlag(v)) },
  { name: "load", kind: "string", default: "", help: "kapi: a snapshot file (written by the library's server.save()) whose objects become the stored state at start, before /readyz reports ready: what is stored and not in it is deleted.", apply: (o, v) => (o.load = v || undefined) },
];

/** kube-apiserver's bounds: a GOAWAY for more than 1 request in 50 would churn connections. */
function goawayChance(n: number): number {
  if (n < 0 || n > 0.02) throw new Error("--goaway-chance can not be less than 0 or greater than 0.02");
  return n;
}

function storageBackendFlag(v: string): "sqlite" | "memory" | "etcd3" {
  if (v === "sqlite" || v === "memory" || v === "etcd3") return v;
  throw new Error(`--storage-backend: unknown storage backend ${goQuote(v)} (supported: sqlite, memory, etcd3)`);
}
