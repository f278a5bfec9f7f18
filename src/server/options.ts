// Everything a server instance is configured with. The CLI fills it from kube-apiserver-style
// flags; the library fills it from startServer()'s options. No process-global state. Each
// authentication method declares its own flags beside its code; ServerOptions carries them all.
import type { OidcFlagOptions } from "../authn/jwt-authenticator/index.js";
import type { RequestHeaderFlags } from "../authn/requestheader/index.js";
import type { ServiceAccountFlags } from "../authn/serviceaccount/config.js";
import type { AuthorizationFlags } from "../authz/config.js";
import type { AdmissionFlags } from "../admission/flags.js";
import type { EncryptionFlags } from "./encryption-at-rest.js";
import type { AuditFlags } from "./features/audit-flags.js";
import type { KubeletFlags } from "./features/kubelet-flags.js";
import { defaultElectionTimings, type ElectionTimings } from "../controller-runtime/leader-election.js";

export interface LeaderElectionFlags extends ElectionTimings {
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ServerOptions extends ServiceAccountFlags, RequestHeaderFlags, OidcFlagOptions, AuthorizationFlags, AdmissionFlags, EncryptionFlags, KubeletFlags {
  bindAddress: string;
  securePort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Where generated certificates live; default <dataDir>/pki. */
  certDir?: string;
  clientCAFile?: string;
  tokenAuthFile?: string;
  // The aggregation layer (src/aggregator).
  /** --proxy-client-cert-file / --proxy-client-key-file: the front-proxy client certificate the aggregator calls backends with. */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /** --enable-aggregator-routing: backends are dialed at an endpoint of their Service rather than its cluster IP. */
  enableAggregatorRouting?: boolean;
  // Token webhook (src/authn/webhook).
  /** --authentication-token-webhook-config-file: kubeconfig-format connection to the TokenReview service. */
  authenticationTokenWebhookConfigFile?: string;
  /** --authentication-token-webhook-cache-ttl in ms (default 2m). */
  authenticationTokenWebhookCacheTtlMs?: number;
  /** --authentication-token-webhook-version: v1beta1 (default) or v1. */
  authenticationTokenWebhookVersion?: string;
  anonymousAuth: boolean;
  // Bootstrap tokens: --enable-bootstrap-token-auth (default false) and --controllers (default
  // ["*"]: kapi's token cleaner and bootstrap signer both run; see src/controllers/bootstrap).
  enableBootstrapTokenAuth?: boolean;
  controllers?: string[];
  authenticationConfig?: string;
  /** --authorization-mode (empty: AlwaysAllow, unless --authorization-config); the other authorization flags: AuthorizationFlags. */
  authorizationMode: string[];
  runtimeConfig: string;
  featureGates: string;
  livezGracePeriodMs: number;
  /** --shutdown-delay-duration: after a stop is asked, /readyz fails and requests are still served this long. */
  shutdownDelayMs: number;
  /** --shutdown-watch-termination-grace-period, in ms (0: open watches end at once when the drain begins). */
  shutdownWatchTerminationGraceMs: number;
  /**
   * --shutdown-send-retry-after: after the shutdown delay, keep listening until requests in flight
   * have finished, answering new ones 429 with Retry-After and Connection: close.
   */
  shutdownSendRetryAfter: boolean;
  /** --goaway-chance: the fraction of HTTP/2 requests whose connection is sent a GOAWAY (0 to 0.02). */
  goawayChance: number;
  /** --event-ttl, in seconds: how long an Event is kept after its last write (0: forever). */
  eventTtlSeconds: number;
  /** --request-timeout: the deadline of a request that is not long-running (watch excepted). */
  requestTimeoutMs: number;
  /** --min-request-timeout: a watch without timeoutSeconds lasts between this and twice it. */
  minRequestTimeoutSeconds: number;
  /** --max-requests-inflight: read-only requests served at once (0 = no limit). */
  maxRequestsInflight: number;
  /** --show-hidden-metrics-for-version: "" or the previous minor release ("1.33"), which shows hidden deprecated metrics. */
  showHiddenMetricsForVersion: string;
  /** --disabled-metrics: metric names never exported. */
  disabledMetrics: string[];
  /** --max-mutating-requests-inflight: mutating requests served at once (0 = no limit). */
  maxMutatingRequestsInflight: number;
  /** --enable-priority-and-fairness: flow control by FlowSchemas and priority levels (else max-in-flight). */
  enablePriorityAndFairness: boolean;
  /** --service-cluster-ip-range: where Service cluster IPs come from. */
  serviceClusterIPRange: string;
  /** --service-node-port-range: where NodePorts come from. */
  serviceNodePortRange: string;
  dataDir: string;
  storageBackend: "sqlite" | "memory" | "etcd3";
  /** --etcd-servers, in order (the etcd3 backend's endpoints). */
  etcdServers: string[];
  /** The other etcd flags (server/features/etcd-flags.ts). */
  etcd: EtcdOptions;
  /** --load: a snapshot file restored at start (read by the CLI; the library takes `load`). */
  load?: string;
  /** --leader-elect: the controller manager's controllers run on one replica at a time (undefined: on with the etcd3 backend only). */
  leaderElect?: boolean;
  /** --leader-elect-lease-duration, -renew-deadline, -retry-period (ms); -resource-lock, -resource-name, -resource-namespace. */
  leaderElection: LeaderElectionFlags;
  /** The --audit-* flags given (server/features/audit-flags.ts); the others keep upstream's defaults. */
  audit?: Partial<AuditFlags>;
  /** Write <dataDir>/admin.kubeconfig (the CLI does; memory-only library servers need no file). */
  writeKubeconfig: boolean;
  /** Print a line per start-up step. */
  log: (msg: string) => void;
}

export interface EtcdServersOverride {
  group: string;
  resource: string;
  servers: string[];
}

export interface EtcdOptions {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  prefix: string;
  compactionIntervalMs: number;
  countMetricPollPeriodMs: number;
  /** --etcd-servers-overrides: a resource's objects in another etcd cluster (the last one given for a resource wins). */
  serversOverrides: EtcdServersOverride[];
  healthcheckTimeoutMs: number;
  readycheckTimeoutMs: number;
}

export function defaultOptions(): ServerOptions {
  return {
    bindAddress: "0.0.0.0",
    securePort: 6443,
    anonymousAuth: true,
    authorizationMode: [],
    runtimeConfig: "",
    featureGates: "",
    livezGracePeriodMs: 0,
    shutdownDelayMs: 0,
    shutdownWatchTerminationGraceMs: 0,
    shutdownSendRetryAfter: false,
    goawayChance: 0,
    eventTtlSeconds: 3600,
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    maxRequestsInflight: 400,
    showHiddenMetricsForVersion: "",
    disabledMetrics: [],
    maxMutatingRequestsInflight: 200,
    enablePriorityAndFairness: true,
    serviceClusterIPRange: "10.0.0.0/24",
    serviceNodePortRange: "30000-32767",
    // Service accounts
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: [],
    serviceAccountLookup: true,
    apiAudiences: [],
    serviceAccountMaxTokenExpirationSeconds: 0,
    serviceAccountExtendTokenExpiration: true,
    dataDir: "./.kapi",
    storageBackend: "sqlite",
    etcdServers: [],
    etcd: {
      prefix: "/registry",
      compactionIntervalMs: 5 * 60_000,
      countMetricPollPeriodMs: 60_000,
      serversOverrides: [],
      healthcheckTimeoutMs: 2000,
      readycheckTimeoutMs: 2000,
    },
    leaderElection: { ...defaultElectionTimings, resourceLock: "leases", resourceName: "kapi-controllers", resourceNamespace: "kube-system" },
    writeKubeconfig: true,
    log: () => undefined,
  };
}
