// Bootstrap tokens: the token format, the Secret that holds one and how its keys read
// (upstream: k8s.io/cluster-bootstrap token/api, util/tokens, util/secrets).
import type { KObject } from "../../apimachinery/object.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export const tokenSecretNamespace = "kube-system";
export const tokenSecretPrefix = "bootstrap-token-";
export const tokenSecretType = "bootstrap.kubernetes.io/token";
export const clusterInfoNamespace = "kube-public";
export const clusterInfoName = "cluster-info";
export const kubeconfigKey = "kubeconfig";
export const signatureKeyPrefix = "jws-kubeconfig-";
export const bootstrapUserPrefix = "system:bootstrap:";
export const bootstrapDefaultGroup = "system:bootstrappers";

/** Keys of a bootstrap token Secret's data. */
export const keys = {
  description: "description",
  tokenId: "token-id",
  tokenSecret: "token-secret",
  expiration: "expiration",
  usageAuthentication: "usage-bootstrap-authentication",
  usageSigning: "usage-bootstrap-signing",
  extraGroups: "auth-extra-groups",
} as const;

export const tokenPattern = String.raw`\A([a-z0-9]{6})\.([a-z0-9]{16})\z`;
export const groupPattern = String.raw`\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\z`;
const tokenRe = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const groupRe = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const secretNameRe = /^bootstrap-token-([a-z0-9]{6})$/;

/** `<id>.<secret>` → its parts; undefined when the string is not a bootstrap token. */
export function parseToken(token: string): { id: string; secret: string } | undefined {
  // Anchored on both ends, no multiline: a trailing newline does not match (Go's \z).
  const m = tokenRe.exec(token);
  return m && m[0].length === token.length ? { id: m[1], secret: m[2] } : undefined;
}

/** The token id a Secret's name carries (`bootstrap-token-<id>`), if it has that form. */
export function parseSecretName(name: string): string | undefined {
  const m = secretNameRe.exec(name);
  return m && m[0].length === name.length ? m[1] : undefined;
}

export const secretName = (id: string) => tokenSecretPrefix + id;

/** The Secret has a data map (upstream: `secret.Data == nil` is refused). */
export function hasData(secret: KObject): boolean {
  const d = (secret as { data?: unknown }).data;
  return typeof d === "object" && d !== null && !Array.isArray(d);
}

/** A data key's value as a string (data values are base64 in the API object); "" when absent. */
export function getData(secret: KObject, key: string): string {
  const data = (secret as { data?: Record<string, unknown> }).data;
  if (!data || typeof data !== "object") return "";
  const v = data[key];
  if (typeof v !== "string") return "";
  return Buffer.from(v, "base64").toString("utf8");
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Go's time.Parse(time.RFC3339, s) in milliseconds since the epoch; undefined when it fails. */
export function parseRfc3339(s: string): number | undefined {
  const m = rfc3339.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec] = m.map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || sec > 59) return undefined;
  const zone = m[8];
  if (zone.length > 1 && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ? m[7].slice(0, 4).padEnd(4, "0") : ""}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * When the token expires: `remainingMs` until then (0 without an expiration), `expired` when
 * it has passed — or when the expiration cannot be parsed, which counts as expired (upstream).
 */
export function getExpiration(secret: KObject, now: number = Date.now()): { remainingMs: number; expired: boolean; reason?: string } {
  const exp = getData(secret, keys.expiration);
  if (!exp) return { remainingMs: 0, expired: false };
  const at = parseRfc3339(exp);
  if (at === undefined) return { remainingMs: 0, expired: true, reason: `Unparseable expiration time (${exp}); treating as expired` };
  const remainingMs = at - now;
  if (remainingMs <= 0) return { remainingMs: 0, expired: true, reason: `Expired bootstrap token (${exp})` };
  return { remainingMs, expired: false };
}

export const hasExpired = (secret: KObject, now: number = Date.now()) => getExpiration(secret, now).expired;

export function validateGroupName(name: string): string | undefined {
  return groupRe.test(name) && !name.includes("\n") ? undefined : `bootstrap group ${goQuote(name)} is invalid (must match ${groupPattern})`;
}

/**
 * The token's groups: system:bootstrappers plus the `auth-extra-groups` list, deduplicated
 * and sorted; an invalid extra group is an error.
 */
export function getGroups(secret: KObject): { groups: string[] } | { error: string } {
  const groups = new Set([bootstrapDefaultGroup]);
  const extra = getData(secret, keys.extraGroups);
  if (extra) {
    for (const g of extra.split(",")) {
      const err = validateGroupName(g);
      if (err) return { error: err };
      groups.add(g);
    }
  }
  return { groups: [...groups].sort() };
}
