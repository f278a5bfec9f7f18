// Everything a server instance is configured with. The CLI fills it from kube-apiserver-style
// flags; the library fills it from startServer()'s options. No process-global state.
export interface ServerOptions {
  bindAddress: string;
  securePort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Where generated certificates live; default <dataDir>/pki. */
  certDir?: string;
  clientCAFile?: string;
  tokenAuthFile?: string;
  anonymousAuth: boolean;
  authenticationConfig?: string;
  // OIDC (--oidc-* flags; src/authn/jwt-authenticator/): one JWT authenticator from flags.
  oidcIssuerURL?: string;
  oidcClientID?: string;
  oidcCAFile?: string;
  /** Default "sub". */
  oidcUsernameClaim?: string;
  /** "-" = no prefix; unset = "<issuer URL>#" unless the claim is "email". */
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  /** Default ["RS256"]. */
  oidcSigningAlgs?: string[];
  oidcRequiredClaims?: Record<string, string>;
  /** Any --oidc-* flag was given (the CLI sets it). */
  oidcFlagsSet?: boolean;
  authorizationMode: string[];
  runtimeConfig: string;
  featureGates: string;
  livezGracePeriodMs: number;
  shutdownDelayMs: number;
  /** --request-timeout: the deadline of a request that is not long-running (watch excepted). */
  requestTimeoutMs: number;
  /** --min-request-timeout: a watch without timeoutSeconds lasts between this and twice it. */
  minRequestTimeoutSeconds: number;
  /** --max-requests-inflight: read-only requests served at once (0 = no limit). */
  maxRequestsInflight: number;
  /** --max-mutating-requests-inflight: mutating requests served at once (0 = no limit). */
  maxMutatingRequestsInflight: number;
  /** --service-cluster-ip-range: where Service cluster IPs come from. */
  serviceClusterIPRange: string;
  /** --service-node-port-range: where NodePorts come from. */
  serviceNodePortRange: string;
  dataDir: string;
  storageBackend: "sqlite" | "memory";
  /** Write <dataDir>/admin.kubeconfig (the CLI does; memory-only library servers need no file). */
  writeKubeconfig: boolean;
  /** Print a line per start-up step. */
  log: (msg: string) => void;
}

export function defaultOptions(): ServerOptions {
  return {
    bindAddress: "0.0.0.0",
    securePort: 6443,
    anonymousAuth: true,
    authorizationMode: ["AlwaysAllow"],
    runtimeConfig: "",
    featureGates: "",
    livezGracePeriodMs: 0,
    shutdownDelayMs: 0,
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    serviceClusterIPRange: "10.0.0.0/24",
    serviceNodePortRange: "30000-32767",
    dataDir: "./.kapi",
    storageBackend: "sqlite",
    writeKubeconfig: true,
    log: () => undefined,
  };
}
