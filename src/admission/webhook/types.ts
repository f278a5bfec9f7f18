// The admissionregistration.k8s.io/v1 webhook shapes kapi reads from Mutating/Validating
// WebhookConfiguration objects, and the defaults the API gives the fields left out.
import type { LabelSelectorObject } from "../../apimachinery/labels.js";
import type { MatchPolicy, RuleWithOperations } from "../matching/index.js";

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 PEM bundle trusted for the webhook's serving certificate. */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export type FailurePolicy = "Fail" | "Ignore";
export type SideEffectClass = "None" | "NoneOnDryRun" | "Some" | "Unknown";

/** A MutatingWebhook or a ValidatingWebhook (the mutating one adds reinvocationPolicy). */
export interface WebhookSpec {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: FailurePolicy;
  matchPolicy?: MatchPolicy;
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: SideEffectClass;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
  reinvocationPolicy?: "Never" | "IfNeeded";
}

export interface WebhookConfiguration {
  metadata: { name?: string; uid?: string; resourceVersion?: string };
  webhooks?: WebhookSpec[];
}

/** v1 defaults (upstream SetDefaults_*Webhook): what an absent field means. */
export const defaultTimeoutSeconds = 10;
export const maxTimeoutSeconds = 30;
export const defaultServicePort = 443;

export type WebhookKind = "mutating" | "validating";
