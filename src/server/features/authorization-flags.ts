// The flags of the authorizer chain (features/authorization.ts): the modes, ABAC's policy file,
// the webhook's connection and caches, or the structured configuration file.
import { durationFlag, listFlag, type FlagSpec } from "../flag-spec.js";

/** --authorization-mode, --authorization-config and the mode's own flags. */
export const authorizationFlags: readonly FlagSpec[] = [
  { name: "authorization-mode", kind: "list", default: "AlwaysAllow", help: "Ordered list of plug-ins to do authorization on secure port. Defaults to AlwaysAllow if --authorization-config is not used. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node.", apply: (o, v) => (o.authorizationMode = [...(o.authorizationMode ?? []), ...listFlag(v).map((s) => s.trim())]) },
  { name: "authorization-policy-file", kind: "string", default: "", help: "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.", apply: (o, v) => (o.authorizationPolicyFile = v || undefined) },
  { name: "authorization-webhook-config-file", kind: "string", default: "", help: "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port.", apply: (o, v) => (o.authorizationWebhookConfigFile = v) },
  { name: "authorization-webhook-version", kind: "string", default: "v1beta1", help: "The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.", apply: (o, v) => (o.authorizationWebhookVersion = v) },
  { name: "authorization-webhook-cache-authorized-ttl", kind: "duration", default: "5m0s", help: "The duration to cache 'authorized' responses from the webhook authorizer.", apply: (o, v) => (o.authorizationWebhookCacheAuthorizedTtlMs = durationFlag("authorization-webhook-cache-authorized-ttl", v)) },
  { name: "authorization-webhook-cache-unauthorized-ttl", kind: "duration", default: "30s", help: "The duration to cache 'unauthorized' responses from the webhook authorizer.", apply: (o, v) => (o.authorizationWebhookCacheUnauthorizedTtlMs = durationFlag("authorization-webhook-cache-unauthorized-ttl", v)) },
  { name: "authorization-config", kind: "string", default: "", help: "File with Authorization Configuration to configure the authorizer chain. Requires feature gate StructuredAuthorizationConfiguration. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.", apply: (o, v) => (o.authorizationConfig = v || undefined) },
];
