// Authorization as configured: --authorization-mode (AlwaysAllow, AlwaysDeny, ABAC, Webhook,
// RBAC, Node) with --authorization-policy-file and --authorization-webhook-*, or
// --authorization-config (a file reloaded when it changes and every minute). Both become one
// configuration (./config.ts) built into a union behind one stable Authorizer, so every caller
// (the filter, impersonation, create-on-update, the access reviews) always asks the current chain.
//
// RBAC and Node are supplied by their modules through `ModeFactories`: each factory is called at
// most once, at start-up, when the initial configuration names the type (as upstream, a reload
// may not add or drop RBAC, Node or ABAC).
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { randomUUID } from "node:crypto";
import { loadWebhookKubeconfig } from "../webhook/kubeconfig.js";
import type { Backoff } from "../webhook/client.js";
import { abacFromFile } from "./abac/index.js";
import { alwaysAllow, alwaysDeny } from "./always.js";
import type { Attributes, Authorizer, AuthzResult } from "./authorizer.js";
import {
  configurationFromFlags,
  loadAuthorizationConfiguration,
  validateAuthorizationFlags,
  type AuthorizationConfiguration,
  type AuthorizationFlags,
} from "./config.js";
import { AuthorizationMetrics, sha256Label } from "./metrics.js";
import { mastersGroup } from "../apimachinery/user.js";
import { privilegedGroups } from "./privileged-groups.js";
import { aggregateErrors, unionAuthorizer, unionRuleResolver } from "./union.js";
import { checkSarVersion, webhookAuthorizer } from "./webhook/index.js";

export type { AuthorizationFlags };

/** Constructors of the modes other modules provide. */
export interface ModeFactories {
  rbac?: () => Authorizer;
  node?: () => Authorizer;
}

export interface AuthorizationEnv {
  /** AuthorizeWithSelectors: webhooks send selectors; match conditions may read them. */
  authorizeWithSelectors: boolean;
  log: (msg: string) => void;
  /** Webhook retries (upstream's default: 500ms ×1.5, jitter 0.2, 5 attempts). */
  webhookBackoff?: Backoff;
  /** How often the configuration file is re-read besides change notifications (60s). */
  reloadIntervalMs?: number;
  /** This server's identity in the reload metrics (hashed). */
  apiServerId?: string;
}

export interface AuthorizationSetup {
  /** Always the current chain. */
  authorizer: Authorizer;
  metrics: AuthorizationMetrics;
  /** Re-reads the configuration file now (no-op without --authorization-config). */
  checkFile(): void;
  stop(): void;
}

const defaultReloadIntervalMs = 60_000;

function instrumented(type: string, name: string, z: Authorizer, metrics: AuthorizationMetrics): Authorizer {
  const record = (r: AuthzResult) => {
    if (r.decision === "allow") metrics.decision(type, name, "allowed");
    else if (r.decision === "deny") metrics.decision(type, name, "denied");
    return r;
  };
  const out: Authorizer = {
    authorize(a: Attributes) {
      const r = z.authorize(a);
      return r instanceof Promise ? r.then(record) : record(r);
    },
  };
  if (z.rulesFor) out.rulesFor = z.rulesFor.bind(z);
  return out;
}

const nonWebhookTypes = ["ABAC", "Node", "RBAC"] as const;

/** The flags' own checks (upstream's Validate), before anything is built. */
export function checkAuthorizationFlags(flags: AuthorizationFlags): void {
  const errs = validateAuthorizationFlags(flags);
  if (errs.length > 0) throw new Error(aggregateErrors(errs));
  if (flags.authorizationWebhookVersion !== undefined) checkSarVersion(flags.authorizationWebhookVersion);
}

/** Builds the authorizer from the flags or the configuration file; throws upstream's start-up errors. */
export function setupAuthorization(flags: AuthorizationFlags, factories: ModeFactories, env: AuthorizationEnv): AuthorizationSetup {
  checkAuthorizationFlags(flags);
  const metrics = new AuthorizationMetrics(sha256Label(env.apiServerId ?? `kapi-${randomUUID()}`));
  const file = flags.authorizationConfig;
  let lastRead = "";
  let config: AuthorizationConfiguration;
  if (file) {
    lastRead = readConfigFile(file);
    config = loadAuthorizationConfiguration(lastRead, env);
  } else {
    config = configurationFromFlags(flags);
  }

  // The modes whose state lives across reloads: made once, when the initial configuration has them.
  const types = new Set(config.authorizers.map((a) => a.type));
  const fixed = new Map<string, Authorizer>();
  if (types.has("ABAC")) fixed.set("ABAC", abacFromFile(flags.authorizationPolicyFile ?? ""));
  if (types.has("RBAC")) fixed.set("RBAC", required("RBAC", factories.rbac)());
  if (types.has("Node")) fixed.set("Node", required("Node", factories.node)());
  const requiredTypes = nonWebhookTypes.filter((t) => types.has(t));

  const build = (c: AuthorizationConfiguration): Authorizer => {
    const chain: Authorizer[] = c.authorizers.map((a) => {
      let z: Authorizer;
      switch (a.type) {
        case "AlwaysAllow":
          z = alwaysAllow;
          break;
        case "AlwaysDeny":
          z = alwaysDeny;
          break;
        case "ABAC":
        case "RBAC":
        case "Node": {
          const f = fixed.get(a.type);
          if (!f) throw new Error(`authorizer type ${a.type} is not allowed if it was not enabled at initial server startup`);
          z = f;
          break;
        }
        case "Webhook": {
          const w = a.webhook!;
          z = webhookAuthorizer({
            name: a.name,
            connection: loadWebhookKubeconfig(w.connectionInfo.kubeConfigFile ?? ""),
            version: checkSarVersion(w.subjectAccessReviewVersion),
            authorizedTtlMs: w.cacheAuthorizedRequests ? w.authorizedTtlMs : 0,
            unauthorizedTtlMs: w.cacheUnauthorizedRequests ? w.unauthorizedTtlMs : 0,
            timeoutMs: w.timeoutMs,
            failurePolicy: w.failurePolicy === "Deny" ? "Deny" : "NoOpinion",
            matchConditions: w.compiled ?? [],
            authorizeWithSelectors: env.authorizeWithSelectors,
            ...(env.webhookBackoff ? { backoff: env.webhookBackoff } : {}),
            metrics,
            log: env.log,
          });
          break;
        }
        default:
          throw new Error(`unknown authorization mode ${a.type} specified`);
      }
      return instrumented(a.type, a.name, z, metrics);
    });
    // system:masters is allowed before the configured modes, which alone list a user's rules.
    return { authorize: unionAuthorizer([privilegedGroups(mastersGroup), ...chain]).authorize, rulesFor: unionRuleResolver(chain).rulesFor };
  };

  let current = build(config);
  const authorizer: Authorizer = {
    authorize: (a) => current.authorize(a),
    rulesFor: (u, ns) => current.rulesFor!(u, ns),
  };

  if (!file) return { authorizer, metrics, checkFile: () => undefined, stop: () => undefined };

  let lastConfig = JSON.stringify(config, dropCompiled);
  metrics.configInfo(lastRead);
  const checkFile = () => {
    let data: string;
    try {
      data = readConfigFile(file);
    } catch (e) {
      env.log(`kapi: reloading authorization config: ${(e as Error).message}`);
      metrics.reload("failure");
      return;
    }
    if (data === lastRead) return;
    lastRead = data;
    let next: AuthorizationConfiguration;
    let built: Authorizer;
    try {
      next = loadAuthorizationConfiguration(data, env);
      const seen = new Set(next.authorizers.map((a) => a.type));
      const missing = requiredTypes.filter((t) => !seen.has(t));
      if (missing.length > 0) throw new Error(`missing required types: [${missing.join(" ")}]`);
      const key = JSON.stringify(next, dropCompiled);
      if (key === lastConfig) return;
      lastConfig = key;
      built = build(next);
    } catch (e) {
      env.log(`kapi: reloading authorization config: ${(e as Error).message} (keeping the previous configuration)`);
      metrics.reload("failure");
      return;
    }
    current = built;
    env.log("kapi: reloaded authorization config");
    metrics.reload("success");
    metrics.configInfo(data);
  };

  // Change notifications (the directory is watched: editors and kubelet replace files) and a poll.
  let debounce: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      clearTimeout(debounce);
      debounce = setTimeout(checkFile, 50);
    });
    watcher.on("error", () => undefined);
    watcher.unref();
  } catch {
    watcher = undefined; // polling still reloads
  }
  const poll = setInterval(checkFile, env.reloadIntervalMs ?? defaultReloadIntervalMs);
  poll.unref();
  return {
    authorizer,
    metrics,
    checkFile,
    stop() {
      clearInterval(poll);
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}

function dropCompiled(key: string, value: unknown): unknown {
  return key === "compiled" ? undefined : value;
}

function required(mode: string, f: (() => Authorizer) | undefined): () => Authorizer {
  if (!f) throw new Error(`--authorization-mode: ${mode} is not supported yet by kapi (its module is not wired into this build)`);
  return f;
}

function readConfigFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Error(`open ${file}: ${err.code === "ENOENT" ? "no such file or directory" : err.message}`);
  }
}
