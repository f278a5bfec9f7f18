// The authorization configuration (--authorization-config; apiserver.config.k8s.io v1, v1beta1,
// v1alpha1, kind AuthorizationConfiguration), and the same configuration built from the legacy
// flags (--authorization-mode, --authorization-webhook-*), so both go through one builder.
// Loading and validation follow upstream (pkg/kubeapiserver/authorizer LoadAndValidateData and
// apiserver validation): field paths, texts and aggregation as kube-apiserver prints them.
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { yaml } from "../encoding/yaml-lazy.js";
import { parseGoDuration } from "../apimachinery/duration.js";
import { aggregateMessage, duplicate, invalid, isDNS1123Subdomain, notSupported, required, tooMany, type FieldError } from "../apimachinery/validation.js";
import { goDurationString } from "../cel/convert.js";
import { compileMatchCondition } from "./webhook/match-conditions.js";
import type { CelProgram } from "../cel/program.js";

export const authorizationModeChoices = ["AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"] as const;
export type AuthorizerType = (typeof authorizationModeChoices)[number];

export interface WebhookSettings {
  timeoutMs: number;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  cacheAuthorizedRequests: boolean;
  cacheUnauthorizedRequests: boolean;
  subjectAccessReviewVersion: string;
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: string;
  connectionInfo: { type: string; kubeConfigFile?: string };
  matchConditions: { expression: string }[];
  /** Compiled at validation. */
  compiled?: CelProgram[];
}

export interface AuthorizerConfig {
  type: string;
  name: string;
  webhook?: WebhookSettings;
}

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfig[];
}

/** Non-webhook authorizers are named after their type, lowercased (upstream GetNameForAuthorizerMode). */
export const nameForMode = (mode: string) => mode.toLowerCase();

const group = "apiserver.config.k8s.io";
const versions = ["v1", "v1beta1", "v1alpha1"];

type Obj = Record<string, unknown>;

function duration(v: unknown, what: string): number {
  if (v === undefined || v === null || v === "") return 0;
  if (typeof v !== "string") throw new Error(`${what}: json: cannot unmarshal ${typeof v} into Go value of type string`);
  return parseGoDuration(v);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

/** Decodes the file's text (YAML or JSON) into the internal form with v1 defaults. */
export function decodeAuthorizationConfiguration(text: string): AuthorizationConfiguration {
  if (text.trim() === "") return { authorizers: [] };
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new Error(`failed to load AuthorizationConfiguration from file: ${(e as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new Error("failed to load AuthorizationConfiguration from file: Object 'Kind' is missing in the document");
  const o = doc as Obj;
  const apiVersion = str(o.apiVersion);
  const kind = str(o.kind);
  if (!kind) throw new Error(`failed to load AuthorizationConfiguration from file: Object 'Kind' is missing in '${text.trim()}'`);
  if (!apiVersion) throw new Error(`failed to load AuthorizationConfiguration from file: Object 'apiVersion' is missing in '${text.trim()}'`);
  const [g, v] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  if (g !== group || !versions.includes(v!) || kind !== "AuthorizationConfiguration") {
    throw new Error(`failed to load AuthorizationConfiguration from file: no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/apis/apiserver/install/install.go"`);
  }
  const list = Array.isArray(o.authorizers) ? (o.authorizers as Obj[]) : [];
  try {
    return {
      authorizers: list.map((a, i) => {
        const out: AuthorizerConfig = { type: str(a?.type), name: str(a?.name) };
        const w = a?.webhook as Obj | undefined | null;
        if (w && typeof w === "object") {
          const ci = (w.connectionInfo ?? {}) as Obj;
          const mcs = Array.isArray(w.matchConditions) ? (w.matchConditions as Obj[]) : [];
          const at = `authorizers[${i}].webhook`;
          out.webhook = {
            timeoutMs: duration(w.timeout, `${at}.timeout`),
            // v1 defaults: authorizedTTL 5m, unauthorizedTTL 30s; both caches on.
            authorizedTtlMs: duration(w.authorizedTTL, `${at}.authorizedTTL`) || 5 * 60_000,
            unauthorizedTtlMs: duration(w.unauthorizedTTL, `${at}.unauthorizedTTL`) || 30_000,
            cacheAuthorizedRequests: w.cacheAuthorizedRequests !== false,
            cacheUnauthorizedRequests: w.cacheUnauthorizedRequests !== false,
            subjectAccessReviewVersion: str(w.subjectAccessReviewVersion),
            matchConditionSubjectAccessReviewVersion: str(w.matchConditionSubjectAccessReviewVersion),
            failurePolicy: str(w.failurePolicy),
            connectionInfo: { type: str(ci.type), ...(ci.kubeConfigFile !== undefined && ci.kubeConfigFile !== null ? { kubeConfigFile: str(ci.kubeConfigFile) } : {}) },
            matchConditions: mcs.map((m) => ({ expression: str(m?.expression) })),
          };
        }
        return out;
      }),
    };
  } catch (e) {
    throw new Error(`failed to load AuthorizationConfiguration from file: ${(e as Error).message}`);
  }
}

const ms = (n: number) => goDurationString(BigInt(Math.round(n * 1e6)));

function validateWebhook(path: string, w: WebhookSettings, withSelectors: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (w.timeoutMs === 0) errs.push(required(`${path}.timeout`));
  else if (w.timeoutMs > 30_000 || w.timeoutMs < 0) errs.push(invalid(`${path}.timeout`, ms(w.timeoutMs), "must be > 0s and <= 30s"));
  if (w.authorizedTtlMs < 0) errs.push(invalid(`${path}.authorizedTTL`, ms(w.authorizedTtlMs), "must be > 0s"));
  if (w.unauthorizedTtlMs < 0) errs.push(invalid(`${path}.unauthorizedTTL`, ms(w.unauthorizedTtlMs), "must be > 0s"));
  if (w.subjectAccessReviewVersion === "") errs.push(required(`${path}.subjectAccessReviewVersion`));
  else if (w.subjectAccessReviewVersion !== "v1" && w.subjectAccessReviewVersion !== "v1beta1") errs.push(notSupported(`${path}.subjectAccessReviewVersion`, w.subjectAccessReviewVersion, ["v1", "v1beta1"]));
  if (w.matchConditionSubjectAccessReviewVersion === "") {
    if (w.matchConditions.length > 0) errs.push(required(`${path}.matchConditionSubjectAccessReviewVersion`, "required if match conditions are specified"));
  } else if (w.matchConditionSubjectAccessReviewVersion !== "v1") errs.push(notSupported(`${path}.matchConditionSubjectAccessReviewVersion`, w.matchConditionSubjectAccessReviewVersion, ["v1"]));
  if (w.failurePolicy === "") errs.push(required(`${path}.failurePolicy`));
  else if (w.failurePolicy !== "NoOpinion" && w.failurePolicy !== "Deny") errs.push(notSupported(`${path}.failurePolicy`, w.failurePolicy, ["NoOpinion", "Deny"]));
  const ci = w.connectionInfo;
  const kc = `${path}.connectionInfo.kubeConfigFile`;
  switch (ci.type) {
    case "":
      errs.push(required(`${path}.connectionInfo.type`));
      break;
    case "InClusterConfig":
      if (ci.kubeConfigFile !== undefined) errs.push(invalid(kc, ci.kubeConfigFile, "can only be set when type=KubeConfigFile"));
      // kube-apiserver cannot call a webhook with its own in-cluster credentials.
      else errs.push(notSupported(`${path}.connectionInfo.type`, ci.type, ["KubeConfigFile"]));
      break;
    case "KubeConfigFile":
      if (!ci.kubeConfigFile) errs.push(required(kc));
      else if (!isAbsolute(ci.kubeConfigFile)) errs.push(invalid(kc, ci.kubeConfigFile, "must be an absolute path"));
      else {
        try {
          if (!statSync(ci.kubeConfigFile).isFile()) errs.push(invalid(kc, ci.kubeConfigFile, "must be a regular file"));
        } catch (e) {
          const err = e as NodeJS.ErrnoException;
          errs.push(invalid(kc, ci.kubeConfigFile, `error loading file: stat ${ci.kubeConfigFile}: ${err.code === "ENOENT" ? "no such file or directory" : err.message}`));
        }
      }
      break;
    default:
      errs.push(notSupported(`${path}.connectionInfo.type`, ci, ["InClusterConfig", "KubeConfigFile"]));
  }
  if (w.matchConditions.length > 64) {
    errs.push(tooMany(`${path}.matchConditions`, w.matchConditions.length, 64));
    return errs;
  }
  const seen = new Set<string>();
  const compiled: CelProgram[] = [];
  w.matchConditions.forEach((m, i) => {
    const f = `${path}.matchConditions[${i}].expression`;
    if (m.expression.trim() === "") return void errs.push(required(f));
    if (seen.has(m.expression)) return void errs.push(duplicate(f, m.expression));
    seen.add(m.expression);
    try {
      compiled.push(compileMatchCondition(m.expression, withSelectors));
    } catch (e) {
      errs.push(invalid(f, m.expression, (e as Error).message));
    }
  });
  w.compiled = compiled;
  return errs;
}

/**
 * Validates a decoded configuration as kube-apiserver does; throws with the aggregated message.
 * `requireNonWebhookTypes`: on reload, RBAC, Node and ABAC may be used only when enabled at start.
 */
export function validateAuthorizationConfiguration(c: AuthorizationConfiguration, opts: { authorizeWithSelectors: boolean }): void {
  const errs: FieldError[] = [];
  if (c.authorizers.length === 0) errs.push(required("authorizers", "at least one authorization mode must be defined"));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  c.authorizers.forEach((a, i) => {
    const path = `authorizers[${i}]`;
    if (a.type === "") return void errs.push(required(`${path}.type`));
    if (!(authorizationModeChoices as readonly string[]).includes(a.type)) return void errs.push(notSupported(`${path}.type`, a.type, [...authorizationModeChoices].sort()));
    if (seenTypes.has(a.type) && a.type !== "Webhook") return void errs.push(duplicate(`${path}.type`, a.type));
    seenTypes.add(a.type);
    if (a.name === "") errs.push(required(`${path}.name`));
    else if (seenNames.has(a.name)) errs.push(duplicate(`${path}.name`, a.name));
    else {
      const bad = isDNS1123Subdomain(a.name);
      if (bad.length > 0) errs.push(invalid(`${path}.name`, a.name, `authorizer name is invalid: ${bad.join(", ")}`));
    }
    seenNames.add(a.name);
    if (a.type === "Webhook") {
      if (!a.webhook) return void errs.push(required(`${path}.webhook`, "required when type=Webhook"));
      errs.push(...validateWebhook(path, a.webhook, opts.authorizeWithSelectors));
    } else if (a.webhook) {
      errs.push(invalid(`${path}.webhook`, "non-null", "may only be specified when type=Webhook"));
    }
  });
  if (errs.length > 0) throw new Error(aggregateMessage(errs));
  // kube-apiserver: the other types carry their fixed names.
  const more: string[] = [];
  for (const a of c.authorizers) {
    if (a.type === "Webhook") continue;
    const expected = nameForMode(a.type);
    if (a.name !== expected) more.push(`expected name ${expected} for authorizer ${a.type} instead of ${a.name}`);
  }
  if (more.length > 0) throw new Error(more.length === 1 ? more[0] : `[${more.join(", ")}]`);
}

export function loadAuthorizationConfiguration(text: string, opts: { authorizeWithSelectors: boolean }): AuthorizationConfiguration {
  const c = decodeAuthorizationConfiguration(text);
  validateAuthorizationConfiguration(c, opts);
  return c;
}

/** The --authorization-* flags. */
export interface AuthorizationFlags {
  /** --authorization-mode; undefined or empty: AlwaysAllow (unless --authorization-config). */
  authorizationMode?: string[];
  authorizationPolicyFile?: string;
  authorizationWebhookConfigFile?: string;
  /** --authorization-webhook-version (v1beta1). */
  authorizationWebhookVersion?: string;
  /** --authorization-webhook-cache-authorized-ttl in ms (5m). */
  authorizationWebhookCacheAuthorizedTtlMs?: number;
  /** --authorization-webhook-cache-unauthorized-ttl in ms (30s). */
  authorizationWebhookCacheUnauthorizedTtlMs?: number;
  /** --authorization-config. */
  authorizationConfig?: string;
}

/** Upstream's BuiltInAuthorizationOptions.Validate for the flags (the file is validated when loaded). */
export function validateAuthorizationFlags(f: AuthorizationFlags): string[] {
  const legacySet =
    (f.authorizationMode !== undefined && f.authorizationMode.length > 0) ||
    f.authorizationWebhookConfigFile !== undefined ||
    f.authorizationWebhookVersion !== undefined ||
    f.authorizationWebhookCacheAuthorizedTtlMs !== undefined ||
    f.authorizationWebhookCacheUnauthorizedTtlMs !== undefined;
  if (f.authorizationConfig) {
    if (legacySet) return ["--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"];
    return [];
  }
  const modes = f.authorizationMode && f.authorizationMode.length > 0 ? f.authorizationMode : ["AlwaysAllow"];
  const errs: string[] = [];
  for (const m of modes) {
    if (!(authorizationModeChoices as readonly string[]).includes(m)) errs.push(`authorization-mode "${m}" is not a valid mode`);
    if (m === "ABAC" && !f.authorizationPolicyFile) errs.push("authorization-mode ABAC's authorization policy file not passed");
    if (m === "Webhook" && !f.authorizationWebhookConfigFile) errs.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (f.authorizationPolicyFile && !modes.includes("ABAC")) errs.push("cannot specify --authorization-policy-file without mode ABAC");
  if (f.authorizationWebhookConfigFile && !modes.includes("Webhook")) errs.push("cannot specify --authorization-webhook-config-file without mode Webhook");
  if (new Set(modes).size !== modes.length) errs.push(`authorization-mode [${modes.map((m) => JSON.stringify(m)).join(" ")}] has mode specified more than once`);
  return errs;
}

/** The flags as a configuration (upstream buildAuthorizationConfiguration). */
export function configurationFromFlags(f: AuthorizationFlags): AuthorizationConfiguration {
  const modes = f.authorizationMode && f.authorizationMode.length > 0 ? f.authorizationMode : ["AlwaysAllow"];
  const authorizedTtlMs = f.authorizationWebhookCacheAuthorizedTtlMs ?? 5 * 60_000;
  const unauthorizedTtlMs = f.authorizationWebhookCacheUnauthorizedTtlMs ?? 30_000;
  return {
    authorizers: modes.map((m): AuthorizerConfig => {
      if (m !== "Webhook") return { type: m, name: nameForMode(m) };
      return {
        type: "Webhook",
        name: "default",
        webhook: {
          timeoutMs: 30_000,
          authorizedTtlMs,
          unauthorizedTtlMs,
          cacheAuthorizedRequests: authorizedTtlMs !== 0,
          cacheUnauthorizedRequests: unauthorizedTtlMs !== 0,
          subjectAccessReviewVersion: f.authorizationWebhookVersion ?? "v1beta1",
          matchConditionSubjectAccessReviewVersion: "",
          failurePolicy: "NoOpinion",
          connectionInfo: { type: "KubeConfigFile", kubeConfigFile: f.authorizationWebhookConfigFile ?? "" },
          matchConditions: [],
        },
      };
    }),
  };
}
