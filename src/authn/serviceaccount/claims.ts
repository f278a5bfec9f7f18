// Service-account token claims as kube-apiserver writes and checks them (pkg/serviceaccount
// claims.go, legacy.go; apiserver's serviceaccount util.go): the bound token's registered claims
// plus the private `kubernetes.io` claim, the legacy Secret-based token's four flat claims, the
// time checks with go-jose's one-minute leeway, and the user a verified token stands for.
import { randomUUID } from "node:crypto";
import type { UserInfo } from "../../apimachinery/user.js";

/** A kubelet-style request for this many seconds gets a long-lived, warn-only token (1h + 7s). */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** How long such an extended token lives: one year. */
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;
/** go-jose's default leeway for exp/nbf/iat, also the grace for bound objects being deleted. */
export const leewaySeconds = 60;
/** The issuer of legacy (Secret-based) tokens. */
export const legacyIssuer = "kubernetes/serviceaccount";

export const serviceAccountUsernamePrefix = "system:serviceaccount:";
export const allServiceAccountsGroup = "system:serviceaccounts";
export const podNameKey = "authentication.kubernetes.io/pod-name";
export const podUidKey = "authentication.kubernetes.io/pod-uid";
export const nodeNameKey = "authentication.kubernetes.io/node-name";
export const nodeUidKey = "authentication.kubernetes.io/node-uid";
export const credentialIdKey = "authentication.kubernetes.io/credential-id";

export const makeUsername = (namespace: string, name: string) => `${serviceAccountUsernamePrefix}${namespace}:${name}`;
export const makeGroupNames = (namespace: string) => [allServiceAccountsGroup, `${allServiceAccountsGroup}:${namespace}`];

/** system:serviceaccount:<ns>:<name> → [ns, name]; undefined when it is not one. */
export function splitUsername(username: string): [string, string] | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(":");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return [parts[0], parts[1]];
}

export interface ObjectRef {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim of a bound token. */
export interface KubernetesClaim {
  namespace?: string;
  serviceaccount?: Partial<ObjectRef>;
  pod?: Partial<ObjectRef>;
  secret?: Partial<ObjectRef>;
  node?: Partial<ObjectRef>;
  warnafter?: number;
}

export interface BoundClaimsInput {
  serviceAccount: { namespace: string; name: string; uid: string };
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  expirationSeconds: number;
  /** Non-zero: the `warnafter` time, this many seconds from now (extended tokens). */
  warnAfterSeconds?: number;
  audiences: readonly string[];
  issuer: string;
  /** Unix seconds; default now. */
  now?: number;
}

const ref = (r: ObjectRef) => ({ ...(r.name ? { name: r.name } : {}), ...(r.uid ? { uid: r.uid } : {}) });

/**
 * The claims of a bound token, keys in the order go-jose serialises them (alphabetical). A pod's
 * node, when known, is recorded beside the pod; a token is bound to at most one object kind.
 */
export function boundTokenClaims(i: BoundClaimsInput): Record<string, unknown> {
  if (i.secret && (i.pod || i.node)) throw new Error("internal error, token can only be bound to one object type");
  const now = i.now ?? Math.floor(Date.now() / 1000);
  const k: KubernetesClaim = { namespace: i.serviceAccount.namespace, serviceaccount: ref(i.serviceAccount) };
  const kube: Record<string, unknown> = { namespace: k.namespace };
  if (i.node) kube.node = ref(i.node);
  if (i.pod) kube.pod = ref(i.pod);
  if (i.secret) kube.secret = ref(i.secret);
  kube.serviceaccount = k.serviceaccount;
  if (i.warnAfterSeconds) kube.warnafter = now + i.warnAfterSeconds;
  return {
    aud: [...i.audiences],
    exp: now + i.expirationSeconds,
    iat: now,
    iss: i.issuer,
    jti: randomUUID(),
    "kubernetes.io": kube,
    nbf: now,
    sub: makeUsername(i.serviceAccount.namespace, i.serviceAccount.name),
  };
}

export const legacyClaimKeys = {
  serviceAccountName: "kubernetes.io/serviceaccount/service-account.name",
  serviceAccountUid: "kubernetes.io/serviceaccount/service-account.uid",
  secretName: "kubernetes.io/serviceaccount/secret.name",
  namespace: "kubernetes.io/serviceaccount/namespace",
} as const;

/** The claims of a legacy token in a Secret: no audience, no expiry. */
export function legacyTokenClaims(sa: { namespace: string; name: string; uid: string }, secretName: string): Record<string, unknown> {
  return {
    iss: legacyIssuer,
    [legacyClaimKeys.namespace]: sa.namespace,
    [legacyClaimKeys.secretName]: secretName,
    [legacyClaimKeys.serviceAccountName]: sa.name,
    [legacyClaimKeys.serviceAccountUid]: sa.uid,
    sub: makeUsername(sa.namespace, sa.name),
  };
}

/** What a verified token says about its service account (upstream ServiceAccountInfo). */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUid?: string;
  nodeName?: string;
  nodeUid?: string;
  credentialId?: string;
}

export function userInfoOf(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.podName && sa.podUid) {
    extra[podNameKey] = [sa.podName];
    extra[podUidKey] = [sa.podUid];
  }
  if (sa.credentialId) extra[credentialIdKey] = [sa.credentialId];
  if (sa.nodeName) {
    extra[nodeNameKey] = [sa.nodeName];
    if (sa.nodeUid) extra[nodeUidKey] = [sa.nodeUid];
  }
  return { name: makeUsername(sa.namespace, sa.name), uid: sa.uid, groups: makeGroupNames(sa.namespace), ...(Object.keys(extra).length ? { extra } : {}) };
}

export const credentialIdForJti = (jti: string | undefined) => (jti ? `JTI=${jti}` : "");

const numericDate = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** go-jose's time checks (nbf, exp, iat with leeway) and upstream's messages; undefined when fine. */
export function checkTimes(claims: Readonly<Record<string, unknown>>, nowSeconds: number): string | undefined {
  const nbf = numericDate(claims.nbf);
  const exp = numericDate(claims.exp);
  const iat = numericDate(claims.iat);
  for (const k of ["nbf", "exp", "iat"] as const) {
    if (claims[k] !== undefined && claims[k] !== null && numericDate(claims[k]) === undefined) return "service account token claims could not be validated due to unexpected validation error";
  }
  if (nbf !== undefined && nowSeconds + leewaySeconds < nbf) return "service account token is not valid yet";
  if (exp !== undefined && nowSeconds - leewaySeconds > exp) return "service account token has expired";
  if (iat !== undefined && nowSeconds + leewaySeconds < iat) return "service account token is issued in the future";
  return undefined;
}

/** The `aud` claim as a list (a string or an array of strings). */
export function audiencesOf(claims: Readonly<Record<string, unknown>>): string[] | undefined {
  const aud = claims.aud;
  if (aud === undefined || aud === null) return [];
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === "string")) return aud as string[];
  return undefined;
}
