// The flags of the authentication methods, each list declared by the feature module of its
// method (features/authentication.ts); kube-apiserver's names, defaults and help.
import { goQuote } from "../../apimachinery/go-quote.js";
import { boolFlag, durationFlag, listFlag, type FlagSpec } from "../flag-spec.js";

/** Client certificates, the authenticating proxy and the token webhook (authentication-methods). */
export const clientAuthenticationFlags: readonly FlagSpec[] = [
  { name: "client-ca-file", kind: "string", default: "", help: "Client certificates signed by one of these authorities authenticate (CN is the user name, O the groups). The generated client CA is always trusted too.", apply: (o, v) => (o.clientCAFile = v || undefined) },
  { name: "authentication-token-webhook-config-file", kind: "string", default: "", help: "File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.", apply: (o, v) => (o.authenticationTokenWebhookConfigFile = v || undefined) },
  { name: "authentication-token-webhook-cache-ttl", kind: "duration", default: "2m0s", help: "The duration to cache responses from the webhook token authenticator.", apply: (o, v) => (o.authenticationTokenWebhookCacheTtlMs = durationFlag("authentication-token-webhook-cache-ttl", v)) },
  { name: "authentication-token-webhook-version", kind: "string", default: "v1beta1", help: "The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.", apply: (o, v) => (o.authenticationTokenWebhookVersion = v) },
  { name: "requestheader-client-ca-file", kind: "string", default: "", help: "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.", apply: (o, v) => (o.requestheaderClientCAFile = v || undefined) },
  { name: "requestheader-allowed-names", kind: "list", default: "", help: "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.", apply: (o, v) => (o.requestheaderAllowedNames = [...(o.requestheaderAllowedNames ?? []), ...listFlag(v)]) },
  { name: "requestheader-username-headers", kind: "list", default: "", help: "List of request headers to inspect for usernames. X-Remote-User is common.", apply: (o, v) => (o.requestheaderUsernameHeaders = [...(o.requestheaderUsernameHeaders ?? []), ...listFlag(v)]) },
  { name: "requestheader-uid-headers", kind: "list", default: "", help: "List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.", apply: (o, v) => (o.requestheaderUIDHeaders = [...(o.requestheaderUIDHeaders ?? []), ...listFlag(v)]) },
  { name: "requestheader-group-headers", kind: "list", default: "", help: "List of request headers to inspect for groups. X-Remote-Group is suggested.", apply: (o, v) => (o.requestheaderGroupHeaders = [...(o.requestheaderGroupHeaders ?? []), ...listFlag(v)]) },
  { name: "requestheader-extra-headers-prefix", kind: "list", default: "", help: "List of request header prefixes to inspect. X-Remote-Extra- is suggested.", apply: (o, v) => (o.requestheaderExtraHeadersPrefix = [...(o.requestheaderExtraHeadersPrefix ?? []), ...listFlag(v)]) },
];

/** --token-auth-file (token-file). */
export const tokenFileFlags: readonly FlagSpec[] = [
  { name: "token-auth-file", kind: "string", default: "", help: "CSV of static bearer tokens: token,user,uid,\"group1,group2\".", apply: (o, v) => (o.tokenAuthFile = v || undefined) },
];

/** Bootstrap tokens (bootstrap-tokens); their controllers are chosen with the generic --controllers. */
export const bootstrapTokenFlags: readonly FlagSpec[] = [
  { name: "enable-bootstrap-token-auth", kind: "bool", default: "false", help: "Enable to allow secrets of type 'bootstrap.kubernetes.io/token' in the 'kube-system' namespace to be used for TLS bootstrapping authentication.", apply: (o, v) => (o.enableBootstrapTokenAuth = boolFlag("enable-bootstrap-token-auth", v)) },
];

/** --authentication-config, the OIDC flags and --anonymous-auth (authentication-config). */
export const authenticationConfigFlags: readonly FlagSpec[] = [
  { name: "anonymous-auth", kind: "bool", default: "true", help: "Requests with no credential are served as system:anonymous in group system:unauthenticated.", apply: (o, v) => (o.anonymousAuth = boolFlag("anonymous-auth", v)) },
  { name: "authentication-config", kind: "string", default: "", help: "AuthenticationConfiguration file (apiserver.config.k8s.io/v1 or v1beta1): jwt authenticators and anonymous with path conditions; reloaded when it changes. Mutually exclusive with the --oidc-* flags.", apply: (o, v) => (o.authenticationConfig = v || undefined) },
  { name: "oidc-issuer-url", kind: "string", default: "", help: "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).", apply: (o, v) => ((o.oidcIssuerURL = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-client-id", kind: "string", default: "", help: "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.", apply: (o, v) => ((o.oidcClientID = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-ca-file", kind: "string", default: "", help: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.", apply: (o, v) => ((o.oidcCAFile = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-username-claim", kind: "string", default: "sub", help: "The OpenID claim to use as the user name. Claims other than the default ('sub') are not guaranteed to be unique and immutable.", apply: (o, v) => ((o.oidcUsernameClaim = v), (o.oidcFlagsSet = true)) },
  { name: "oidc-username-prefix", kind: "string", default: "", help: "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.", apply: (o, v) => ((o.oidcUsernamePrefix = v), (o.oidcFlagsSet = true)) },
  { name: "oidc-groups-claim", kind: "string", default: "", help: "If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.", apply: (o, v) => ((o.oidcGroupsClaim = v || undefined), (o.oidcFlagsSet = true)) },
  { name: "oidc-groups-prefix", kind: "string", default: "", help: "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.", apply: (o, v) => ((o.oidcGroupsPrefix = v), (o.oidcFlagsSet = true)) },
  { name: "oidc-signing-algs", kind: "list", default: "RS256", help: "Comma-separated list of allowed JOSE asymmetric signing algorithms: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512.", apply: (o, v) => ((o.oidcSigningAlgs = [...(o.oidcSigningAlgs ?? []), ...listFlag(v)]), (o.oidcFlagsSet = true)) },
  { name: "oidc-required-claim", kind: "string", default: "", help: "A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.", apply: (o, v) => ((o.oidcRequiredClaims = { ...o.oidcRequiredClaims, ...requiredClaimFlag(v) }), (o.oidcFlagsSet = true)) },
];

/** Service-account tokens: keys, issuers, audiences, lifetimes (service-accounts). */
export const serviceAccountFlags: readonly FlagSpec[] = [
  { name: "service-account-key-file", kind: "string", default: "", help: "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The file can contain multiple keys, and the flag can be repeated. If unspecified, --tls-private-key-file is used; kapi, when it generated its own serving key, generates a signing key kept as <cert-dir>/sa.key (public half sa.pub) instead.", apply: (o, v) => o.serviceAccountKeyFiles.push(v) },
  { name: "service-account-signing-key-file", kind: "string", default: "", help: "Path to the file that contains the current private key of the service account token issuer. If unspecified, the first private key of --service-account-key-file (or --tls-private-key-file) signs, else kapi's generated <cert-dir>/sa.key.", apply: (o, v) => (o.serviceAccountSigningKeyFile = v || undefined) },
  { name: "service-account-issuer", kind: "string", default: "https://kubernetes.default.svc.cluster.local", help: "Identifier of the service account token issuer (the \"iss\" claim of issued tokens). Repeatable: the first one signs, all are accepted. kapi serves its OpenID discovery at /.well-known/openid-configuration and /openid/v1/jwks when it is an https URL.", apply: (o, v) => o.serviceAccountIssuers.push(v) },
  { name: "service-account-lookup", kind: "bool", default: "true", help: "If true, validate ServiceAccount tokens exist in etcd as part of authentication.", apply: (o, v) => (o.serviceAccountLookup = boolFlag("service-account-lookup", v)) },
  { name: "api-audiences", kind: "list", default: "", help: "Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the --service-account-issuer values.", apply: (o, v) => o.apiAudiences.push(...v.split(",").map((s) => s.trim()).filter(Boolean)) },
  { name: "service-account-max-token-expiration", kind: "duration", default: "0s", help: "The maximum validity duration of a token created by the service account token issuer. A longer TokenRequest is issued with this duration. 0: no limit.", apply: (o, v) => (o.serviceAccountMaxTokenExpirationSeconds = Math.floor(durationFlag("service-account-max-token-expiration", v) / 1000)) },
  { name: "service-account-extend-token-expiration", kind: "bool", default: "true", help: "Turns on projected service account expiration extension during token generation: a pod-bound request for 3607 seconds gets a one-year token that records when it should have expired (warnafter).", apply: (o, v) => (o.serviceAccountExtendTokenExpiration = boolFlag("service-account-extend-token-expiration", v)) },
];

/** --oidc-required-claim: key=value (pflag's MapStringStringNoSplit). */
function requiredClaimFlag(v: string): Record<string, string> {
  const i = v.indexOf("=");
  if (i < 0) throw new Error(`invalid argument ${goQuote(v)} for "--oidc-required-claim" flag: malformed pair, expect string=string`);
  return { [v.slice(0, i).trim()]: v.slice(i + 1) };
}
