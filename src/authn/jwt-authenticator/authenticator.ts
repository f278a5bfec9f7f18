// One JWT (OIDC) issuer as an Authenticator, as upstream's oidc token authenticator behaves:
// a bearer token that is not a compact JWT, or whose unverified `iss` is another issuer's, is
// left to the next method (so several issuers and the service-account authenticator coexist).
// Otherwise: allowed algorithm, signature with the issuer's keys (refetched once on an unknown
// key), expiry and not-before, audience; then the claim mappings (username, groups, uid, extra,
// by claim and prefix or by CEL), required claims, claim validation rules, user validation
// rules. Every failure is a 401 whose text is upstream's.
import { goQuoteList } from "../../apimachinery/go-quote.js";
import { userEnvironment } from "../../cel/environments.js";
import { toCel } from "../../cel/convert.js";
import type { CelProgram } from "../../cel/program.js";
import type { CelValue } from "../../cel/value.js";
import { bearerToken, type Authenticator, type AuthnRequest, type AuthnResult } from "../authenticator.js";
import { MalformedJwsError, parseJws, supportedAlgorithms, type ParsedJws } from "../jwt/jws.js";
import { verifiedByKeySet } from "../jwt/jwks.js";
import type { UserInfo } from "../../apimachinery/user.js";
import type { CompiledMappings, JwtAuthenticatorSpec } from "./config.js";
import { RemoteKeySet } from "./keyset.js";
import { goQuote } from "../../apimachinery/go-quote.js";

/** Every algorithm upstream allows (the default for the configuration file). */
export const allSigningAlgorithms: readonly string[] = [...supportedAlgorithms].sort();

export const credentialIdKey = "authentication.kubernetes.io/credential-id";

export interface JwtAuthenticatorOptions {
  spec: JwtAuthenticatorSpec;
  compiled: CompiledMappings;
  /** Allowed `alg` values (RS256 when empty, as upstream). */
  signingAlgs?: readonly string[];
  /** Token-triggered key refetches at most this often (default 5 s). */
  minKeyRefreshMs?: number;
  /** Discovery retried this often until it succeeds (default 10 s, as upstream). */
  initRetryMs?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
  log?: (msg: string) => void;
}

/** Go's time.Time `%v` of a UTC instant: `2006-01-02 15:04:05.999999999 +0000 UTC`. */
export function goTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "0001-01-01 00:00:00 +0000 UTC";
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  let s = `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  const frac = ms - Math.floor(ms / 1000) * 1000;
  if (frac > 0) s += `.${p(Math.round(frac * 1e6), 9)}`.replace(/0+$/, "");
  return `${s} +0000 UTC`;
}


function goKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  if (typeof v === "object") return "object";
  return typeof v;
}

/** json.Unmarshal of a claim into a Go string: null leaves "", anything but a string fails. */
function claimString(v: unknown): string {
  if (v === null) return "";
  if (typeof v !== "string") throw new Error(`json: cannot unmarshal ${goKind(v)} into Go value of type string`);
  return v;
}

/** upstream stringOrArray: a list of strings, or one string. */
function claimStrings(v: unknown): string[] {
  if (v === null) return [];
  if (Array.isArray(v)) {
    return v.map((x) => {
      if (x !== null && typeof x !== "string") throw new Error(`json: cannot unmarshal ${goKind(x)} into Go value of type string`);
      return x ?? "";
    });
  }
  if (typeof v === "string") return [v];
  throw new Error(`json: cannot unmarshal ${goKind(v)} into Go value of type string`);
}

/** A CEL result as a list of strings: "" and [] are nothing, null is nothing. */
function celStringList(v: CelValue): string[] {
  if (typeof v === "string") return v ? [v] : [];
  if (v === null) return [];
  if (Array.isArray(v)) {
    const out: string[] = [];
    for (const x of v as readonly CelValue[]) {
      if (typeof x !== "string") throw new Error("expression must return a string or a list of strings");
      if (x) out.push(x);
    }
    return out;
  }
  throw new Error("expression must return a string or a list of strings");
}

/** The unverified `iss` of a compact JWT, or undefined if the token is not one (upstream's untrustedIssuer). */
export function untrustedIssuer(token: string): string | undefined {
  if (token.trimStart().startsWith("{")) return undefined;
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const p = parts[1]!;
  if (!/^[A-Za-z0-9_-]*$/.test(p) || p.length % 4 === 1) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
    if (!claims || typeof claims !== "object" || Array.isArray(claims)) return undefined;
    const iss = (claims as { iss?: unknown }).iss;
    if (iss === undefined || iss === null) return "";
    if (typeof iss !== "string") return undefined;
    return iss === "accounts.google.com" ? "https://accounts.google.com" : iss;
  } catch {
    return undefined;
  }
}

class AuthError extends Error {}

function evalProgram(p: CelProgram, vars: Record<string, CelValue>): CelValue {
  try {
    return p.eval(vars).value;
  } catch (e) {
    throw new Error(`expression '${p.expression}' resulted in error: ${(e as Error).message}`);
  }
}

export class JwtAuthenticator implements Authenticator {
  readonly name = "jwt";
  readonly issuerURL: string;
  readonly keys: RemoteKeySet;
  private readonly spec: JwtAuthenticatorSpec;
  private readonly compiled: CompiledMappings;
  private readonly algs: readonly string[];
  private readonly audiences: ReadonlySet<string>;
  private readonly requiredClaims: [string, string][];
  private readonly now: () => number;
  private readonly log: (msg: string) => void;
  private initialized = false;
  private initializing?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(o: JwtAuthenticatorOptions) {
    this.spec = o.spec;
    this.compiled = o.compiled;
    this.issuerURL = o.spec.issuer.url;
    this.algs = o.signingAlgs && o.signingAlgs.length > 0 ? o.signingAlgs : ["RS256"];
    for (const a of this.algs) if (!allSigningAlgorithms.includes(a)) throw new Error(`oidc: unsupported signing alg: ${goQuote(a)}`);
    this.audiences = new Set(o.spec.issuer.audiences);
    this.requiredClaims = (o.spec.claimValidationRules ?? []).filter((r) => r.claim).map((r) => [r.claim!, r.requiredValue ?? ""]);
    this.now = o.now ?? Date.now;
    this.log = o.log ?? (() => undefined);
    this.keys = new RemoteKeySet({
      issuerURL: o.spec.issuer.url,
      discoveryURL: o.spec.issuer.discoveryURL,
      caPem: o.spec.issuer.certificateAuthority,
      minRefreshMs: o.minKeyRefreshMs,
    });
    const retry = o.initRetryMs ?? 10_000;
    const attempt = () => {
      if (this.stopped || this.initialized) return;
      this.initializing = this.keys.init().then(
        () => {
          this.initialized = true;
        },
        (e: Error) => {
          this.log(`oidc authenticator: initializing plugin: ${e.message}`);
          if (!this.stopped) {
            this.retryTimer = setTimeout(attempt, retry);
            this.retryTimer.unref();
          }
        },
      );
    };
    attempt();
  }

  /** Resolves once discovery and the first key fetch have been tried (successfully or not). */
  async ready(): Promise<boolean> {
    await this.initializing;
    return this.initialized;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  async authenticate(req: AuthnRequest): Promise<AuthnResult> {
    const token = bearerToken(req);
    if (!token) return undefined;
    return this.authenticateToken(token);
  }

  async authenticateToken(token: string): Promise<AuthnResult> {
    if (untrustedIssuer(token) !== this.issuerURL) return undefined;
    if (!(await this.ready())) return { error: "oidc: authenticator not initialized" };
    try {
      const claims = await this.verify(token);
      return { user: this.mapUser(claims) };
    } catch (e) {
      if (e instanceof AuthError) return { error: e.message };
      return { error: `oidc: ${(e as Error).message}` };
    }
  }

  /** Signature, then expiry and not-before, then audience; the claims of a token that passes. */
  private async verify(token: string): Promise<Record<string, unknown>> {
    const fail = (m: string) => new AuthError(`oidc: verify token: ${m}`);
    let jws: ParsedJws;
    try {
      jws = parseJws(token);
    } catch (e) {
      if (e instanceof MalformedJwsError) throw fail(`oidc: malformed jwt: ${e.message}`);
      throw e;
    }
    const claims = jws.payload as Record<string, unknown>;
    const typeError = (name: string, want: string) => fail(`oidc: failed to unmarshal claims: json: cannot unmarshal ${goKind(claims[name])} into Go struct field idToken.${name} of type ${want}`);
    for (const n of ["iss", "sub", "nonce", "at_hash"]) if (claims[n] !== undefined && claims[n] !== null && typeof claims[n] !== "string") throw typeError(n, "string");
    for (const n of ["exp", "iat", "nbf"]) if (claims[n] !== undefined && claims[n] !== null && typeof claims[n] !== "number") throw typeError(n, "float64");
    const aud = claims.aud;
    let audience: string[];
    if (aud === undefined || aud === null) audience = [];
    else if (typeof aud === "string") audience = [aud];
    else if (Array.isArray(aud) && aud.every((a) => typeof a === "string")) audience = aud as string[];
    else throw typeError("aud", "[]string");

    if (!this.algs.includes(jws.alg)) throw fail(`oidc: id token signed with unsupported algorithm, expected ${goQuoteList(this.algs)} got ${goQuote(jws.alg)}`);
    if (!(await this.verifySignature(jws))) throw fail("failed to verify signature: failed to verify id token signature");

    const now = this.now();
    const exp = typeof claims.exp === "number" ? claims.exp * 1000 : Number.NEGATIVE_INFINITY;
    if (exp < now) throw fail(`oidc: token is expired (Token Expiry: ${Number.isFinite(exp) ? goTime(exp) : "0001-01-01 00:00:00 +0000 UTC"})`);
    if (typeof claims.nbf === "number" && now + 60_000 < claims.nbf * 1000) {
      throw fail(`oidc: current time ${goTime(now)} before the nbf (not before) time: ${goTime(claims.nbf * 1000)}`);
    }
    if (!audience.some((a) => this.audiences.has(a))) {
      const auds = [...this.audiences];
      if (auds.length === 1) throw fail(`oidc: expected audience ${goQuote(auds[0])} got ${goQuoteList(audience)}`);
      throw fail(`oidc: expected audience in ${goQuoteList(auds.sort())} got ${goQuoteList(audience)}`);
    }
    return claims;
  }

  private async verifySignature(jws: ParsedJws): Promise<boolean> {
    // go-oidc's rule: every key with the token's kid (every key when it names none), in order.
    if (await verifiedByKeySet(jws, this.keys.current())) return true;
    let keys;
    try {
      keys = await this.keys.refresh();
    } catch (e) {
      throw new AuthError(`oidc: verify token: failed to verify signature: fetching keys ${(e as Error).message}`);
    }
    return verifiedByKeySet(jws, keys);
  }

  private mapUser(claims: Record<string, unknown>): UserInfo {
    const c = this.compiled;
    const m = this.spec.claimMappings;
    const needsCel = c.username || c.groups || c.uid || c.extra.length > 0 || c.claimValidation.length > 0;
    const vars: Record<string, CelValue> = needsCel ? { claims: toCel(claims) } : {};
    const has = (n: string) => Object.prototype.hasOwnProperty.call(claims, n);

    // username
    let name: string;
    if (c.username) {
      let v: CelValue;
      try {
        v = evalProgram(c.username, vars);
      } catch (e) {
        throw new AuthError(`oidc: error evaluating username claim expression: ${(e as Error).message}`);
      }
      if (typeof v !== "string") throw new AuthError("oidc: error evaluating username claim expression: username claim expression must return a string");
      if (v === "") throw new AuthError("oidc: empty username via CEL expression is not allowed");
      name = v;
    } else {
      const claim = m.username.claim!;
      try {
        if (!has(claim)) throw new Error("claim not present");
        name = claimString(claims[claim]);
      } catch (e) {
        throw new AuthError(`oidc: parse username claims ${goQuote(claim)}: ${(e as Error).message}`);
      }
      if (claim === "email" && has("email_verified")) {
        const ev = claims.email_verified;
        if (ev !== null && typeof ev !== "boolean") throw new AuthError(`oidc: parse 'email_verified' claim: json: cannot unmarshal ${goKind(ev)} into Go value of type bool`);
        if (ev !== true) throw new AuthError("oidc: email not verified");
      }
      // kapi: an empty username is refused whichever way it was mapped (the spec's rule).
      if (name === "") throw new AuthError(`oidc: parse username claims ${goQuote(claim)}: empty username is not allowed`);
      if (m.username.prefix) name = m.username.prefix + name;
    }

    // groups
    let groups: string[] = [];
    const groupsClaim = m.groups?.claim;
    if (groupsClaim && has(groupsClaim)) {
      try {
        groups = claimStrings(claims[groupsClaim]);
      } catch (e) {
        throw new AuthError(`oidc: parse groups claim ${goQuote(groupsClaim)}: ${(e as Error).message}`);
      }
      if (m.groups?.prefix) groups = groups.map((g) => m.groups!.prefix + g);
    } else if (c.groups) {
      try {
        groups = celStringList(evalProgram(c.groups, vars));
      } catch (e) {
        throw new AuthError(`oidc: error evaluating group claim expression: ${(e as Error).message}`);
      }
    }

    // uid
    let uid = "";
    const uidClaim = m.uid?.claim;
    if (uidClaim) {
      try {
        if (!has(uidClaim)) throw new Error("claim not present");
        uid = claimString(claims[uidClaim]);
      } catch (e) {
        throw new AuthError(`oidc: parse uid claim ${goQuote(uidClaim)}: ${(e as Error).message}`);
      }
    } else if (c.uid) {
      let v: CelValue;
      try {
        v = evalProgram(c.uid, vars);
      } catch (e) {
        throw new AuthError(`oidc: error evaluating uid claim expression: ${(e as Error).message}`);
      }
      if (typeof v !== "string") throw new AuthError("oidc: error evaluating uid claim expression: uid claim expression must return a string");
      uid = v;
    }

    // extra: the credential id from jti, then the mappings
    const extra: Record<string, string[]> = {};
    if (typeof claims.jti === "string" && claims.jti) extra[credentialIdKey] = [`JTI=${claims.jti}`];
    for (const x of c.extra) {
      let v: CelValue;
      try {
        v = evalProgram(x.program, vars);
      } catch (e) {
        throw new AuthError((e as Error).message); // upstream reports these without a prefix
      }
      let values: string[];
      try {
        values = celStringList(v);
      } catch (e) {
        throw new AuthError(`oidc: error evaluating extra claim expression: ${x.program.expression}: ${(e as Error).message}`);
      }
      if (values.length > 0) extra[x.key] = values;
    }

    // required claims (claim + requiredValue rules)
    for (const [claim, want] of this.requiredClaims) {
      if (!has(claim)) throw new AuthError(`oidc: required claim ${claim} not present in ID token`);
      let got: string;
      try {
        got = claimString(claims[claim]);
      } catch (e) {
        throw new AuthError(`oidc: parse claim ${claim}: ${(e as Error).message}`);
      }
      if (got !== want) throw new AuthError(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
    }

    // claim validation rules (CEL)
    for (const rule of c.claimValidation) {
      let v: CelValue;
      try {
        v = evalProgram(rule.program, vars);
      } catch (e) {
        throw new AuthError(`oidc: error evaluating claim validation expression: ${(e as Error).message}`);
      }
      if (typeof v !== "boolean") throw new AuthError("oidc: error evaluating claim validation expression: validation expression must return a boolean");
      if (!v) throw new AuthError(`oidc: error evaluating claim validation expression: validation expression '${rule.program.expression}' failed: ${rule.message}`);
    }

    const user: UserInfo = { name, uid, groups, extra };

    // user validation rules (CEL over the mapped user)
    if (c.userValidation.length > 0) {
      const u = toCel({ username: name, uid, groups, extra }, userEnvironment.variables.user);
      for (const rule of c.userValidation) {
        let v: CelValue;
        try {
          v = evalProgram(rule.program, { user: u });
        } catch (e) {
          throw new AuthError(`oidc: error evaluating user info validation rule: ${(e as Error).message}`);
        }
        if (typeof v !== "boolean") throw new AuthError("oidc: error evaluating user info validation rule: validation expression must return a boolean");
        if (!v) throw new AuthError(`oidc: error evaluating user info validation rule: validation expression '${rule.program.expression}' failed: ${rule.message}`);
      }
    }
    return user;
  }
}
