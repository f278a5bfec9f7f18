// The service-account flags as kube-apiserver validates and completes them, and the keys they
// name. kapi's defaults: the issuer https://kubernetes.default.svc.cluster.local; verifying keys
// from --service-account-key-file, else --tls-private-key-file; the signing key from
// --service-account-signing-key-file, else the first private key of those files, else (kapi made
// its own serving key) a key kapi generates once and keeps as <cert dir>/sa.key.
import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { privateKeyFromPem, publicKeysFromPem } from "../jwt/keys.js";
import { expirationExtensionSeconds, warnOnlyBoundTokenExpirationSeconds } from "./claims.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export const defaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";

/** The flags, as ServerOptions carries them. */
export interface ServiceAccountFlags {
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  serviceAccountIssuers: string[];
  serviceAccountLookup: boolean;
  apiAudiences: string[];
  /** Seconds; 0 = unset. */
  serviceAccountMaxTokenExpirationSeconds: number;
  serviceAccountExtendTokenExpiration: boolean;
  tlsPrivateKeyFile?: string;
}

export interface ServiceAccountConfig {
  issuers: string[];
  apiAudiences: string[];
  lookup: boolean;
  /** Every key a token may be signed with. */
  publicKeys: KeyObject[];
  /** Signs TokenRequests and legacy tokens; undefined: kapi issues none. */
  signingKey?: KeyObject;
  maxExpirationSeconds: number;
  extendExpiration: boolean;
  /** How long extended (kubelet-style) tokens live. */
  maxExtendedExpirationSeconds: number;
}

/** Go's url.Parse rejects little; these are the cases a user meets (bad port, bad host brackets, control characters). */
function goUrlParseError(s: string): string | undefined {
  if (/[\x00-\x1f\x7f]/.test(s)) return `parse ${goQuote(s)}: net/url: invalid control character in URL`;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(s);
  if (!m) {
    if (/^:/.test(s)) return `parse ${goQuote(s)}: missing protocol scheme`;
    return undefined;
  }
  const host = m[2].includes("@") ? m[2].slice(m[2].lastIndexOf("@") + 1) : m[2];
  const port = host.startsWith("[") ? host.slice(host.indexOf("]") + 1) : host.includes(":") ? host.slice(host.lastIndexOf(":")) : "";
  if (host.startsWith("[") && !host.includes("]")) return `parse ${goQuote(s)}: missing ']' in host`;
  if (port && !/^:\d*$/.test(port)) return `parse ${goQuote(s)}: invalid port ${goQuote(port)} after host`;
  return undefined;
}

/** kube-apiserver's checks of the service-account flags, with its messages (all of them, joined). */
export function validateServiceAccountFlags(f: ServiceAccountFlags): string[] {
  const errs: string[] = [];
  const seen = new Set<string>();
  for (const issuer of f.serviceAccountIssuers) {
    if (issuer.includes(":")) {
      const e = goUrlParseError(issuer);
      if (e) {
        errs.push(`service-account-issuer ${goQuote(issuer)} contained a ':' but was not a valid URL: ${e}`);
        continue;
      }
    }
    if (issuer === "") {
      errs.push("service-account-issuer should not be an empty string");
      continue;
    }
    if (seen.has(issuer)) {
      errs.push(`service-account-issuer ${goQuote(issuer)} is already specified`);
      continue;
    }
    seen.add(issuer);
  }
  const max = f.serviceAccountMaxTokenExpirationSeconds;
  if (max !== 0 && (max < 3600 || max > 2 ** 32)) errs.push("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  return errs;
}

function readPem(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`failed to parse key file ${goQuote(file)}: ${(e as Error).message}`);
  }
}

function firstPrivateKey(text: string, file: string): KeyObject | undefined {
  if (!/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text)) return undefined;
  return privateKeyFromPem(text, file);
}

/** Loads (or generates, under certDir) the keys and completes the defaults; throws upstream's messages. */
export function resolveServiceAccountConfig(f: ServiceAccountFlags, certDir: string | undefined, log: (m: string) => void = () => undefined): ServiceAccountConfig {
  const errs = validateServiceAccountFlags(f);
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`);
  const issuers = f.serviceAccountIssuers.length ? [...f.serviceAccountIssuers] : [defaultServiceAccountIssuer];
  const apiAudiences = f.apiAudiences.length ? [...f.apiAudiences] : [...issuers];
  const keyFiles = f.serviceAccountKeyFiles.length ? f.serviceAccountKeyFiles : f.tlsPrivateKeyFile ? [f.tlsPrivateKeyFile] : [];
  const publicKeys: KeyObject[] = [];
  let signingKey: KeyObject | undefined;
  for (const file of keyFiles) {
    const text = readPem(file);
    try {
      publicKeys.push(...publicKeysFromPem(text, file));
    } catch (e) {
      throw new Error(`failed to parse key file ${goQuote(file)}: ${(e as Error).message}`);
    }
    if (!f.serviceAccountSigningKeyFile && !signingKey) signingKey = firstPrivateKey(text, file);
  }
  if (f.serviceAccountSigningKeyFile) {
    const file = f.serviceAccountSigningKeyFile;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
      signingKey = privateKeyFromPem(text, file);
    } catch (e) {
      throw new Error(`failed to parse service-account-issuer-key-file: ${(e as Error).message}`);
    }
  }
  if (keyFiles.length === 0 && !f.serviceAccountSigningKeyFile) signingKey = generatedKey(certDir, log);
  if (signingKey) {
    const pub = createPublicKey(signingKey);
    const der = pub.export({ type: "spki", format: "der" });
    if (!publicKeys.some((k) => k.export({ type: "spki", format: "der" }).equals(der))) publicKeys.push(pub);
  }
  const max = f.serviceAccountMaxTokenExpirationSeconds;
  let maxExtended = expirationExtensionSeconds;
  if (f.serviceAccountExtendTokenExpiration && max !== 0) {
    if (max < warnOnlyBoundTokenExpirationSeconds) {
      log(`kapi: warning: service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than ${warnOnlyBoundTokenExpirationSeconds} seconds (currently ${max}s)`);
    }
    if (max < expirationExtensionSeconds) {
      log(`kapi: warning: service-account-extend-token-expiration is true, enabling tokens valid up to ${expirationExtensionSeconds} seconds, which is longer than service-account-max-token-expiration set to ${max}s`);
    } else maxExtended = max;
  }
  return {
    issuers,
    apiAudiences,
    lookup: f.serviceAccountLookup,
    publicKeys,
    signingKey,
    maxExpirationSeconds: max,
    extendExpiration: f.serviceAccountExtendTokenExpiration,
    maxExtendedExpirationSeconds: maxExtended,
  };
}

/** kapi's own signing key: an EC P-256 key made once and kept as <certDir>/sa.key (in memory without a cert dir). */
function generatedKey(certDir: string | undefined, log: (m: string) => void): KeyObject {
  const path = certDir ? join(certDir, "sa.key") : undefined;
  if (path && existsSync(path)) return privateKeyFromPem(readFileSync(path, "utf8"), path);
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  if (path && certDir) {
    mkdirSync(certDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    writeFileSync(join(certDir, "sa.pub"), createPublicKey(privateKey).export({ type: "spki", format: "pem" }), { mode: 0o644 });
    log(`kapi: generated the service-account signing key ${path}`);
  }
  return privateKey;
}
