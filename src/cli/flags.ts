// kube-apiserver-style flags: `--name=value` or `--name value`, booleans as `--name` or
// `--name=false`. An unknown flag is an error that names it.
import { parseGoBool } from "../apimachinery/booleans.js";
import { parseGoDuration } from "../apimachinery/duration.js";
import { defaultOptions, type ServerOptions } from "../server/options.js";
import { controllersError, controllersFlagHelp, parseControllersFlag } from "../controller-runtime/controllers-flag.js";
import { goQuote } from "../apimachinery/go-quote.js";

type Apply = (o: ServerOptions, value: string) => void;

interface FlagSpec {
  name: string;
  kind: "string" | "int" | "bool" | "duration" | "list";
  default: string;
  help: string;
  apply: Apply;
}

/** Go duration ("90s", "1m30s", "500ms", "0") → milliseconds. */
export function parseDuration(s: string): number {
  return parseGoDuration(s);
}

function parseFlagBool(name: string, v: string): boolean {
  const b = parseGoBool(v);
  if (b !== undefined) return b;
  throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: strconv.ParseBool: parsing ${goQuote(v)}: invalid syntax`);
}

export const flagSpecs: FlagSpec[] = [
  { name: "bind-address", kind: "string", default: "0.0.0.0", help: "The IP address on which to listen for the --secure-port port.", apply: (o, v) => (o.bindAddress = v) },
  { name: "secure-port", kind: "int", default: "6443", help: "The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.", apply: (o, v) => (o.securePort = intFlag("secure-port", v, 0, 65535)) },
  { name: "tls-cert-file", kind: "string", default: "", help: "File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert).", apply: (o, v) => (o.tlsCertFile = v || undefined) },
  { name: "tls-private-key-file", kind: "string", default: "", help: "File containing the default x509 private key matching --tls-cert-file.", apply: (o, v) => (o.tlsPrivateKeyFile = v || undefined) },
  { name: "cert-dir", kind: "string", default: "<data-dir>/pki", help: "The directory where generated TLS certificates are kept. Ignored for serving when --tls-cert-file and --tls-private-key-file are given.", apply: (o, v) => (o.certDir = v || undefined) },
  { name: "client-ca-file", kind: "string", default: "", help: "Client certificates signed by one of these authorities authenticate (CN is the user name, O the groups). The generated client CA is always trusted too.", apply: (o, v) => (o.clientCAFile = v || undefined) },
  { name: "token-auth-file", kind: "string", default: "", help: "CSV of static bearer tokens: token,user,uid,\"group1,group2\".", apply: (o, v) => (o.tokenAuthFile = v || undefined) },
  // Bootstrap tokens (src/authn/bootstrap, src/controllers/bootstrap).
  { name: "enable-bootstrap-token-auth", kind: "bool", default: "false", help: "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.", apply: (o, v) => (o.enableBootstrapTokenAuth = parseFlagBool("enable-bootstrap-token-auth", v)) },
  { name: "controllers", kind: "list", default: "*", help: controllersFlagHelp, apply: (o, v) => {
    const list = [...(o.controllers ?? []), ...parseControllersFlag(v)];
    const err = controllersError(list);
    if (err) throw new Error(err);
    o.controllers = list;
  } },
  // Token webhook and authenticating proxy (src/authn/webhook, src/authn/requestheader).
  { name: "authentication-token-webhook-config-file", kind: "string", default: "", help: "File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.", apply: (o, v) => (o.authenticationTokenWebhookConfigFile = v || undefined) },
  { name: "authentication-token-webhook-cache-ttl", kind: "duration", default: "2m0s", help: "The duration to cache responses from the webhook token authenticator.", apply: (o, v) => (o.authenticationTokenWebhookCacheTtlMs = durationFlag("authentication-token-webhook-cache-ttl", v)) },
  { name: "authentication-token-webhook-version", kind: "string", default: "v1beta1", help: "The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.", apply: (o, v) => (o.authenticationTokenWebhookVersion = v) },
  { name: "requestheader-client-ca-file", kind: "string", default: "", help: "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.", apply: (o, v) => (o.requestheaderClientCAFile = v || undefined) },
  { name: "requestheader-allowed-names", kind: "list", default: "", help: "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.", apply: (o, v) => (o.requestheaderAllowedNames = [...(o.requestheaderAllowedNames ?? []), ...listFlag(v)]) },
  { name: "requestheader-username-headers", kind: "list", default: "", help: "List of request headers to inspect for usernames. X-Remote-User is common.", apply: (o, v) => (o.requestheaderUsernameHeaders = [...(o.requestheaderUsernameHeaders ?? []), ...listFlag(v)]) },
  { name: "requestheader-uid-headers", kind: "list", default: "", help: "List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.", apply: (o, v) => (o.requestheaderUIDHeaders = [...(o.requestheaderUIDHeaders ?? []), ...listFlag(v)]) },
  { name: "requestheader-group-headers", kind: "list", default: "", help: "List of request headers to inspect for groups. X-Remote-Group is suggested.", apply: (o, v) => (o.requestheaderGroupHeaders = [...(o.requestheaderGroupHeaders ?? []), ...listFlag(v)]) },
  { name: "requestheader-extra-headers-prefix", kind: "list", default: "", help: "List of request header prefixes to inspect. X-Remote-Extra- is suggested.", apply: (o, v) => (o.requestheaderExtraHeadersPrefix = [...(o.requestheaderExtraHeadersPrefix ?? []), ...listFlag(v)]) },
  { name: "anonymous-auth", kind: "bool", default: "true", help: "Requests with no credential are served as system:anonymous in group system:unauthenticated.", apply: (o, v) => (o.anonymousAuth = parseFlagBool("anonymous-auth", v)) },
  { name: "authentication-config", kind: "string", default: "", help: "AuthenticationConfiguration file (apiserver.config.k8s.io/v1 or v1beta1): jwt authenticators and anonymous with path conditions; reloaded when it changes. Mutually exclusive with the --oidc-* flags.", apply: (o, v) => (o.authenticationConfig = v || undefined) },
  // OIDC (src/authn/jwt-authenticator/)
  { name: "oidc-issuer-url", kind: "string", default: "", help: "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).", apply: (o, v) => ((o.oidcIssuerURL = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-client-id", kind: "string", default: "", help: "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.", apply: (o, v) => ((o.oidcClientID = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-ca-file", kind: "string", default: "", help: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.", apply: (o, v) => ((o.oidcCAFile = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-username-claim", kind: "string", default: "sub", help: "The OpenID claim to use as the user name. Claims other than the default ('sub') are not guaranteed to be unique and immutable.", apply: (o, v) => ((o.oidcUsernameClaim = v), (o.oidcFlagsSet = true)) },
  { name: "oidc-username-prefix", kind: "string", default: "", help: "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.", apply: (o, v) => ((o.oidcUsernamePrefix = v), (o.oidcFlagsSet = true)) },
  { name: "oidc-groups-claim", kind: "string", default: "", help: "If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.", apply: (o, v) => ((o.oidcGroupsClaim = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-groups-prefix", kind: "string", default: "", help: "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.", apply: (o, v) => ((o.oidcGroupsPrefix = v), (o.oidcFlagsSet = true)) },
  { name: "oidc-signing-algs", kind: "list", default: "RS256", help: "Comma-separated list of allowed JOSE asymmetric signing algorithms: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512.", apply: (o, v) => ((o.oidcSigningAlgs = [...(o.oidcSigningAlgs ?? []), ...listFlag(v)]), (o.oidcFlagsSet = true)) },
  { name: "oidc-required-claim", kind: "string", default: "", help: "A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.", apply: (o, v) => ((o.oidcRequiredClaims = { ...o.oidcRequiredClaims, ...requiredClaimFlag(v) }), (o.oidcFlagsSet = true)) },
  // Authorization (src/authz/modes.ts).
  { name: "authorization-mode", kind: "list", default: "AlwaysAllow", help: "Ordered list of plug-ins to do authorization on secure port. Defaults to AlwaysAllow if --authorization-config is not used. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node.", apply: (o, v) => (o.authorizationMode = [...(o.authorizationMode ?? []), ...listFlag(v).map((s) => s.trim())]) },
  { name: "authorization-policy-file", kind: "string", default: "", help: "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.", apply: (o, v) => (o.authorizationPolicyFile = v || undefined) },
  { name: "authorization-webhook-config-file", kind: "string", default: "", help: "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.", apply: (o, v) => (o.authorizationWebhookConfigFile = v) },
  { name: "authorization-webhook-version", kind: "string", default: "v1beta1", help: "The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.", apply: (o, v) => (o.authorizationWebhookVersion = v) },
  { name: "authorization-webhook-cache-authorized-ttl", kind: "duration", default: "5m0s", help: "The duration to cache 'authorized' responses from the webhook authorizer.", apply: (o, v) => (o.authorizationWebhookCacheAuthorizedTtlMs = durationFlag("authorization-webhook-cache-authorized-ttl", v)) },
  { name: "authorization-webhook-cache-unauthorized-ttl", kind: "duration", default: "30s", help: "The duration to cache 'unauthorized' responses from the webhook authorizer.", apply: (o, v) => (o.authorizationWebhookCacheUnauthorizedTtlMs = durationFlag("authorization-webhook-cache-unauthorized-ttl", v)) },
  { name: "authorization-config", kind: "string", default: "", help: "File with Authorization Configuration to configure the authorizer chain. Requires feature gate StructuredAuthorizationConfiguration. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.", apply: (o, v) => (o.authorizationConfig = v || undefined) },
  // Admission (src/admission/plugins.ts).
  { name: "enable-admission-plugins", kind: "list", default: "", help: "admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning, ClusterTrustBundleAttest, CertificateSubjectRestriction, DefaultIngressClass, PodTopologyLabels, MutatingAdmissionPolicy, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota). The order of plugins in this flag does not matter.", apply: (o, v) => (o.enableAdmissionPlugins = [...(o.enableAdmissionPlugins ?? []), ...listFlag(v).map((s) => s.trim())]) },
  { name: "disable-admission-plugins", kind: "list", default: "", help: "admission plugins that should be disabled although they are in the default enabled plugins list. The order of plugins in this flag does not matter.", apply: (o, v) => (o.disableAdmissionPlugins = [...(o.disableAdmissionPlugins ?? []), ...listFlag(v).map((s) => s.trim())]) },
  { name: "admission-control-config-file", kind: "string", default: "", help: "File with admission control configuration.", apply: (o, v) => (o.admissionControlConfigFile = v || undefined) },
  { name: "default-not-ready-toleration-seconds", kind: "int", default: "300", help: "Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.", apply: (o, v) => (o.defaultNotReadyTolerationSeconds = intFlag("default-not-ready-toleration-seconds", v)) },
  { name: "default-unreachable-toleration-seconds", kind: "int", default: "300", help: "Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.", apply: (o, v) => (o.defaultUnreachableTolerationSeconds = intFlag("default-unreachable-toleration-seconds", v)) },
  { name: "runtime-config", kind: "list", default: "", help: "Enable or disable API group versions: <group>/<version>=true|false, api/all, api/ga, api/beta, api/alpha.", apply: (o, v) => (o.runtimeConfig = o.runtimeConfig ? `${o.runtimeConfig},${v}` : v) },
  { name: "feature-gates", kind: "list", default: "", help: "Comma-separated Name=true|false feature gates.", apply: (o, v) => (o.featureGates = o.featureGates ? `${o.featureGates},${v}` : v) },
  { name: "livez-grace-period", kind: "duration", default: "0s", help: "Time after start during which unfinished post-start hooks count as live in /livez.", apply: (o, v) => (o.livezGracePeriodMs = nonNegative("livez-grace-period", durationFlag("livez-grace-period", v), "--livez-grace-period can not be a negative value")) },
  { name: "shutdown-delay-duration", kind: "duration", default: "0s", help: "After SIGTERM, /readyz fails for this long before the server stops accepting requests.", apply: (o, v) => (o.shutdownDelayMs = nonNegative("shutdown-delay-duration", durationFlag("shutdown-delay-duration", v))) },
  { name: "request-timeout", kind: "duration", default: "1m0s", help: "How long a request that is not long-running (watch excepted) may take before it is answered 504; a request's `timeout` query parameter can shorten it.", apply: (o, v) => (o.requestTimeoutMs = nonNegative("request-timeout", durationFlag("request-timeout", v))) },
  { name: "min-request-timeout", kind: "int", default: "1800", help: "Seconds a watch without timeoutSeconds lasts at least; the server picks a random time between this and twice it, spreading reconnections.", apply: (o, v) => (o.minRequestTimeoutSeconds = nonNegative("min-request-timeout", intFlag("min-request-timeout", v))) },
  { name: "max-requests-inflight", kind: "int", default: "400", help: "How many read-only requests (get, list) are served at once; more are answered 429. Watches are not counted; 0 means no limit.", apply: (o, v) => (o.maxRequestsInflight = nonNegative("max-requests-inflight", intFlag("max-requests-inflight", v))) },
  { name: "max-mutating-requests-inflight", kind: "int", default: "200", help: "How many mutating requests (create, update, patch, delete) are served at once; more are answered 429. 0 means no limit.", apply: (o, v) => (o.maxMutatingRequestsInflight = nonNegative("max-mutating-requests-inflight", intFlag("max-mutating-requests-inflight", v))) },
  { name: "service-cluster-ip-range", kind: "string", default: "10.0.0.0/24", help: "A CIDR range from which Service cluster IPs are allocated (the first address is the kubernetes Service's).", apply: (o, v) => (o.serviceClusterIPRange = v) },
  { name: "service-node-port-range", kind: "string", default: "30000-32767", help: "A port range reserved for services with NodePort visibility.", apply: (o, v) => (o.serviceNodePortRange = v) },
  // Service accounts (src/authn/serviceaccount)
  { name: "service-account-key-file", kind: "string", default: "", help: "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The file can contain multiple keys, and the flag can be repeated. If unspecified, --tls-private-key-file is used; kapi, when it generated its own serving key, generates a signing key kept as <cert-dir>/sa.key (public half sa.pub) instead.", apply: (o, v) => o.serviceAccountKeyFiles.push(v) },
  { name: "service-account-signing-key-file", kind: "string", default: "", help: "Path to the file that contains the current private key of the service account token issuer. If unspecified, the first private key of --service-account-key-file (or --tls-private-key-file) signs, else kapi's generated <cert-dir>/sa.key.", apply: (o, v) => (o.serviceAccountSigningKeyFile = v || undefined) },
  { name: "service-account-issuer", kind: "string", default: "https://kubernetes.default.svc.cluster.local", help: "Identifier of the service account token issuer (the \"iss\" claim of issued tokens). Repeatable: the first one signs, all are accepted. kapi serves its OpenID discovery at /.well-known/openid-configuration and /openid/v1/jwks when it is an https URL.", apply: (o, v) => o.serviceAccountIssuers.push(v) },
  { name: "service-account-lookup", kind: "bool", default: "true", help: "If true, validate ServiceAccount tokens exist in etcd as part of authentication.", apply: (o, v) => (o.serviceAccountLookup = parseFlagBool("service-account-lookup", v)) },
  { name: "api-audiences", kind: "list", default: "", help: "Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the --service-account-issuer values.", apply: (o, v) => o.apiAudiences.push(...v.split(",").map((s) => s.trim()).filter(Boolean)) },
  { name: "service-account-max-token-expiration", kind: "duration", default: "0s", help: "The maximum validity duration of a token created by the service account token issuer. A longer TokenRequest is issued with this duration. 0: no limit.", apply: (o, v) => (o.serviceAccountMaxTokenExpirationSeconds = Math.floor(durationFlag("service-account-max-token-expiration", v) / 1000)) },
  { name: "service-account-extend-token-expiration", kind: "bool", default: "true", help: "Turns on projected service account expiration extension during token generation: a pod-bound request for 3607 seconds gets a one-year token that records when it should have expired (warnafter).", apply: (o, v) => (o.serviceAccountExtendTokenExpiration = parseFlagBool("service-account-extend-token-expiration", v)) },
  { name: "data-dir", kind: "string", default: "./.kapi", help: "kapi: where the SQLite store, generated certificates and admin.kubeconfig live.", apply: (o, v) => (o.dataDir = v) },
  { name: "storage-backend", kind: "string", default: "sqlite", help: "kapi: sqlite (durable, default) or memory.", apply: (o, v) => (o.storageBackend = storageBackendFlag(v)) },
];

/** pflag's StringSlice: comma-separated values read as one CSV record (quoted fields allowed, no trimming); empty → no values. */
function listFlag(v: string): string[] {
  return v === "" ? [] : v.split(",").map((x) => x.replace(/^"(.*)"$/, "$1"));
}

/** --oidc-required-claim: key=value (pflag's MapStringStringNoSplit). */
function requiredClaimFlag(v: string): Record<string, string> {
  const i = v.indexOf("=");
  if (i < 0) throw new Error(`invalid argument ${goQuote(v)} for "--oidc-required-claim" flag: malformed pair, expect string=string`);
  return { [v.slice(0, i).trim()]: v.slice(i + 1) };
}

function intFlag(name: string, v: string, min = -(2 ** 31), max = 2 ** 31 - 1): number {
  const n = Number(v);
  if (!/^-?\d+$/.test(v) || n < min || n > max) throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: must be an integer from ${min} to ${max}`);
  return n;
}

/** kube-apiserver parses a negative value, then refuses it in validation (with its wording). */
function nonNegative(name: string, n: number, message = `--${name} can not be negative value`): number {
  if (n < 0) throw new Error(message);
  return n;
}

function durationFlag(name: string, v: string): number {
  try {
    return parseDuration(v);
  } catch (e) {
    throw new Error(`invalid argument ${goQuote(v)} for "--${name}" flag: ${(e as Error).message}`);
  }
}

function storageBackendFlag(v: string): "sqlite" | "memory" {
  if (v === "sqlite" || v === "memory") return v;
  if (v === "etcd3") throw new Error(`--storage-backend: etcd3 is not supported yet by kapi (supported: sqlite, memory)`);
  throw new Error(`--storage-backend: unknown storage backend ${goQuote(v)} (supported: sqlite, memory)`);
}

export function parseServeFlags(args: string[]): ServerOptions {
  const o = defaultOptions();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${goQuote(arg)}`);
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const spec = flagSpecs.find((f) => f.name === name);
    if (!spec) throw new Error(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.kind === "bool") value = "true";
    else {
      if (i + 1 >= args.length) throw new Error(`flag needs an argument: --${name}`);
      value = args[++i];
    }
    spec.apply(o, value);
  }
  return o;
}

export function helpText(): string {
  const lines = [
    "kapi — a Kubernetes-compatible API server",
    "",
    "Usage:",
    "  kapi serve [flags]",
    "  kapi --help",
    "",
    "Flags of `kapi serve` (kube-apiserver names and meanings):",
  ];
  for (const f of flagSpecs) {
    const def = f.default === "" ? "" : ` (default ${JSON.stringify(f.default)})`;
    lines.push(`  --${f.name} ${f.kind}${def}`, `      ${f.help}`);
  }
  return lines.join("\n") + "\n";
}
