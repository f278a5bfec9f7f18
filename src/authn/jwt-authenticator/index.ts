// JWT authentication of one server: the authenticators of the `--oidc-*` flags or of the
// configuration file's `jwt` list (never both), validated at start-up with upstream's words,
// and — for the file — reloaded when it changes: a new valid file replaces the authenticators,
// an invalid one keeps the old ones and is logged. The reload metrics of kube-apiserver
// (apiserver_authentication_config_controller_*) are exported on the server's /metrics.
import { defaultServiceAccountIssuer } from "../serviceaccount/config.js";
import { createHash, randomUUID } from "node:crypto";
import { readFileSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { forbidden, type FieldError } from "../../apimachinery/validation.js";
import { CounterFamily, GaugeFamily } from "../../observability/metric-family.js";
import type { ServerMetrics } from "../../observability/metrics.js";
import { parseAuthenticationConfig, type AuthenticationConfig } from "../authentication-config.js";
import type { Authenticator, AuthnRequest, AuthnResult } from "../authenticator.js";
import { JwtAuthenticator, allSigningAlgorithms } from "./authenticator.js";
import { invalidConfigurationMessage, validateJwtAuthenticators, type CompiledMappings, type JwtAuthenticatorSpec } from "./config.js";

export { JwtAuthenticator } from "./authenticator.js";

/** The `--oidc-*` flags as ServerOptions carries them. */
export interface OidcFlagOptions {
  oidcIssuerURL?: string;
  oidcClientID?: string;
  oidcCAFile?: string;
  oidcUsernameClaim?: string;
  oidcUsernamePrefix?: string;
  oidcGroupsClaim?: string;
  oidcGroupsPrefix?: string;
  oidcSigningAlgs?: string[];
  oidcRequiredClaims?: Record<string, string>;
  /** Set by the CLI when any --oidc-* flag was given (library callers: any field set counts). */
  oidcFlagsSet?: boolean;
}

/** Library-only tuning (tests): reload polling and key refetch intervals. */
export interface JwtTuning {
  authenticationConfigReloadPollMs?: number;
  jwtMinKeyRefreshMs?: number;
}

/**
 * What the JWT authentication reads of the server's options: only these, so authn/ does not
 * import server/ (ServerOptions satisfies it).
 */
export interface JwtAuthenticationOptions extends OidcFlagOptions, JwtTuning {
  /** --authentication-config: the structured configuration file, watched for changes. */
  authenticationConfig?: string;
  /** --service-account-issuer: no JWT issuer may equal one of them. */
  serviceAccountIssuers: readonly string[];
  log: (msg: string) => void;
}

function oidcFlagsSet(o: OidcFlagOptions): boolean {
  if (o.oidcFlagsSet) return true;
  return [o.oidcIssuerURL, o.oidcClientID, o.oidcCAFile, o.oidcUsernameClaim, o.oidcUsernamePrefix, o.oidcGroupsClaim, o.oidcGroupsPrefix, o.oidcSigningAlgs, o.oidcRequiredClaims].some(
    (v) => v !== undefined,
  );
}

/** The JWT authenticator the flags describe (upstream's ToAuthenticationConfig), or undefined when the flags are not used. */
export function jwtSpecFromFlags(o: OidcFlagOptions): JwtAuthenticatorSpec | undefined {
  if (!o.oidcIssuerURL || !o.oidcClientID) return undefined;
  const usernameClaim = o.oidcUsernameClaim ?? "sub";
  let prefix = o.oidcUsernamePrefix ?? "";
  if (prefix === "" && usernameClaim !== "email") prefix = `${o.oidcIssuerURL}#`;
  if (o.oidcUsernamePrefix === "-") prefix = "";
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: o.oidcIssuerURL, audiences: [o.oidcClientID] },
    claimMappings: { username: { claim: usernameClaim, prefix } },
  };
  if (o.oidcGroupsClaim) spec.claimMappings.groups = { claim: o.oidcGroupsClaim, prefix: o.oidcGroupsPrefix ?? "" };
  if (o.oidcCAFile) {
    try {
      spec.issuer.certificateAuthority = readFileSync(o.oidcCAFile, "utf8");
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new Error(`open ${o.oidcCAFile}: ${err.code === "ENOENT" ? "no such file or directory" : err.message}`);
    }
  }
  const required = Object.entries(o.oidcRequiredClaims ?? {});
  if (required.length > 0) spec.claimValidationRules = required.map(([claim, requiredValue]) => ({ claim, requiredValue }));
  return spec;
}

/** The service-account issuers (kapi's default one when none is set): no JWT issuer may equal one of them. */
function serviceAccountIssuers(o: JwtAuthenticationOptions): readonly string[] {
  return o.serviceAccountIssuers.length ? o.serviceAccountIssuers : [defaultServiceAccountIssuer];
}

// ---- reload metrics ------------------------------------------------------------------------

const hash = (s: string) => (s.length === 0 ? "" : `sha256:${createHash("sha256").update(s).digest("hex")}`);

class ReloadMetrics {
  private readonly idHash: string;
  readonly reloads = new CounterFamily({ name: "apiserver_authentication_config_controller_automatic_reloads_total", help: "Automatic reloads of the authentication configuration file, by status and API server identity.", stability: "BETA", labels: ["status", "apiserver_id_hash"] });
  readonly lastReload = new GaugeFamily({ name: "apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds", help: "When the authentication configuration file was last reloaded (Unix seconds), by status and API server identity.", stability: "BETA", labels: ["status", "apiserver_id_hash"] });
  readonly lastConfig = new GaugeFamily({ name: "apiserver_authentication_config_controller_last_config_info", help: "The authentication configuration in effect, named by its hash, by API server identity.", stability: "ALPHA", labels: ["apiserver_id_hash", "hash"] });
  readonly families = [this.reloads, this.lastReload, this.lastConfig];

  constructor(apiServerID: string, data: string) {
    this.idHash = hash(apiServerID);
    this.applied(data);
  }

  record(status: "success" | "failure", data?: string): void {
    this.reloads.with(status, this.idHash).inc();
    this.lastReload.with(status, this.idHash).set(Date.now() / 1000);
    if (status === "success" && data !== undefined) this.applied(data);
  }

  private applied(data: string): void {
    this.lastConfig.reset();
    if (data) this.lastConfig.with(this.idHash, hash(data)).set(1);
  }
}

// ---- the authenticators of one configuration -----------------------------------------------

function build(specs: readonly JwtAuthenticatorSpec[], compiled: readonly CompiledMappings[], signingAlgs: readonly string[], o: JwtAuthenticationOptions): JwtAuthenticator[] {
  const out: JwtAuthenticator[] = [];
  try {
    specs.forEach((spec, i) => {
      out.push(new JwtAuthenticator({ spec, compiled: compiled[i]!, signingAlgs, minKeyRefreshMs: o.jwtMinKeyRefreshMs, log: o.log }));
    });
  } catch (e) {
    for (const a of out) a.stop();
    throw e;
  }
  return out;
}

function validate(specs: readonly JwtAuthenticatorSpec[], disallowed: readonly string[], extra: FieldError[] = []): CompiledMappings[] {
  const { compiled, errors } = validateJwtAuthenticators(specs, disallowed);
  const all = [...errors, ...extra];
  if (all.length > 0) throw new Error(invalidConfigurationMessage(all));
  return compiled;
}

export interface JwtAuthentication {
  /** To add to the server's authenticators (after service accounts and bootstrap tokens, before the webhook, as upstream). */
  readonly authenticators: Authenticator[];
  /** Exports the reload metrics on the server's /metrics (when a configuration file is used). */
  registerMetrics(metrics: ServerMetrics): void;
  /** Forces a reload check now (tests); resolves when done. */
  reload(): Promise<void>;
  stop(): void;
}

/**
 * The JWT authentication of a server from its options and its (already read) configuration
 * file. Throws start-up errors in upstream's words.
 */
export function jwtAuthentication(o: JwtAuthenticationOptions, config: AuthenticationConfig | undefined): JwtAuthentication {
  const flagsSet = oidcFlagsSet(o);
  if (o.authenticationConfig && flagsSet) throw new Error("authentication-config file and oidc-* flags are mutually exclusive");
  if (!o.authenticationConfig && flagsSet && (!o.oidcIssuerURL || !o.oidcClientID)) {
    throw new Error("oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
  }
  const disallowed = serviceAccountIssuers(o);
  let current: JwtAuthenticator[] = [];
  let stopped = false;
  const union: Authenticator = {
    name: "jwt",
    async authenticate(req: AuthnRequest): Promise<AuthnResult> {
      for (const a of current) {
        const r = await a.authenticate(req);
        if (r) return r;
      }
      return undefined;
    },
  };
  const noFile: JwtAuthentication = {
    authenticators: current.length > 0 ? [union] : [],
    registerMetrics: () => undefined,
    reload: async () => undefined,
    stop: () => {
      stopped = true;
      for (const a of current) a.stop();
    },
  };

  if (!o.authenticationConfig || !config) {
    const spec = jwtSpecFromFlags(o);
    if (!spec) return noFile;
    const compiled = validate([spec], disallowed);
    current = build([spec], compiled, o.oidcSigningAlgs ?? ["RS256"], o);
    return { ...noFile, authenticators: [union] };
  }

  // The configuration file: every known algorithm is allowed (upstream's rule for the file).
  const file = o.authenticationConfig;
  const compiled = validate(config.jwt, disallowed);
  current = build(config.jwt, compiled, allSigningAlgorithms, o);
  const metrics = new ReloadMetrics(`apiserver-${randomUUID()}`, config.data);
  const originalAnonymous = JSON.stringify(config.anonymous ?? null);
  let tracked = config.data;
  let running: Promise<void> | undefined;
  let again = false;
  // A valid file whose issuers could not be reached is tried again, but not on every poll.
  let unreachable: { data: string; at: number } | undefined;

  const check = async (): Promise<void> => {
    let data: string;
    try {
      data = readFileSync(file, "utf8");
    } catch (e) {
      o.log(`kapi: failed to read authentication config file: ${(e as Error).message}`);
      metrics.record("failure");
      return; // may resolve later: keep retrying
    }
    if (data === tracked) return;
    if (unreachable?.data === data && Date.now() - unreachable.at < 30_000) return;
    let next: AuthenticationConfig;
    try {
      next = parseAuthenticationConfig(data, file);
    } catch (e) {
      o.log(`kapi: failed to load authentication config: ${(e as Error).message}`);
      metrics.record("failure");
      tracked = data; // never valid: stop retrying this content
      return;
    }
    let nextCompiled: CompiledMappings[];
    try {
      const anonymousChanged = JSON.stringify(next.anonymous ?? null) !== originalAnonymous;
      nextCompiled = validate(next.jwt, disallowed, anonymousChanged ? [forbidden("anonymous", "changed from initial configuration file")] : []);
    } catch (e) {
      o.log(`kapi: failed to validate authentication config: ${(e as Error).message}`);
      metrics.record("failure");
      tracked = data;
      return;
    }
    let built: JwtAuthenticator[];
    try {
      built = build(next.jwt, nextCompiled, allSigningAlgorithms, o);
    } catch (e) {
      o.log(`kapi: failed to update authentication config: ${(e as Error).message}`);
      metrics.record("failure");
      tracked = data;
      return;
    }
    // As upstream, the new authenticators must be initialized (discovery and keys) before they
    // replace the old ones; otherwise the old configuration stays and the file is tried again.
    const ready = await Promise.all(built.map((a) => a.ready()));
    if (stopped || ready.some((r) => !r)) {
      for (const a of built) a.stop();
      if (!stopped) {
        o.log("kapi: failed to update authentication config: a jwt authenticator could not be initialized");
        metrics.record("failure");
        unreachable = { data, at: Date.now() };
      }
      return;
    }
    const old = current;
    current = built;
    for (const a of old) a.stop();
    tracked = data;
    o.log("kapi: reloaded authentication config");
    metrics.record("success", data);
  };
  const reload = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await check();
        } while (again && !stopped);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  // fs.watch on the directory (editors and `kubectl`-style atomic renames replace the file),
  // with a periodic check in case events are missed.
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
      if (!name || name === basename(file)) void reload();
    });
    watcher.on("error", () => undefined);
  } catch {
    watcher = undefined;
  }
  const poll = setInterval(() => void reload(), o.authenticationConfigReloadPollMs ?? 3_000);
  poll.unref();

  return {
    authenticators: [union],
    registerMetrics: (m) => m.register(...metrics.families),
    reload,
    stop: () => {
      stopped = true;
      clearInterval(poll);
      watcher?.close();
      for (const a of current) a.stop();
    },
  };
}

