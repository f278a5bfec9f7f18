// The service-account token authenticator (upstream pkg/serviceaccount jwt.go, claims.go,
// legacy.go): a JWT whose unverified `iss` is one of the configured issuers (bound tokens) or
// `kubernetes/serviceaccount` (legacy Secret tokens) is this method's; it must then verify
// against one of the keys, carry an audience among the API audiences (legacy tokens: none,
// meaning the API's), pass the time checks, and name objects that still exist with the same uid.
import { goQuoteList } from "../../apimachinery/validation.js";
import type { KeyObject } from "node:crypto";
import { bearerToken, type Authenticator, type AuthnResult } from "../authenticator.js";
import { keyIdOf, looksLikeJwt, MalformedJwsError, parseJws, verifyJws } from "../jwt/jws.js";
import {
  audiencesOf,
  checkTimes,
  credentialIdForJti,
  leewaySeconds,
  legacyClaimKeys,
  legacyIssuer,
  splitUsername,
  userInfoOf,
  type ServiceAccountInfo,
} from "./claims.js";
import type { TokenObjectGetter } from "./getter.js";
import type { KObject } from "../../registry/object.js";

export interface ServiceAccountAuthenticatorOptions {
  issuers: readonly string[];
  publicKeys: readonly KeyObject[];
  apiAudiences: readonly string[];
  /** --service-account-lookup: legacy tokens are checked against their Secret and ServiceAccount. */
  lookup: boolean;
  getter: TokenObjectGetter;
  /** Unix seconds (tests). */
  now?: () => number;
}

/** Go's %q of a []string: ["a" "b"]. */

const cryptoError = "go-jose/go-jose: error in cryptographic primitive";

function unverifiedIssuer(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (!payload || payload.length > 1 << 20) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return v && typeof v === "object" && typeof v.iss === "string" ? v.iss : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
/** Deleted before the leeway: a deletionTimestamp older than now - 60s. */
const deletedBefore = (o: KObject, cutoffSeconds: number) => {
  const ts = o.metadata.deletionTimestamp;
  return Boolean(ts && Date.parse(ts) / 1000 < cutoffSeconds);
};

export function serviceAccountAuthenticator(o: ServiceAccountAuthenticatorOptions): Authenticator {
  const issuers = new Set(o.issuers);
  const keysById = new Map<string, KeyObject[]>();
  for (const k of o.publicKeys) {
    const id = keyIdOf(k);
    keysById.set(id, [...(keysById.get(id) ?? []), k]);
  }
  const now = o.now ?? (() => Math.floor(Date.now() / 1000));

  async function validateBound(claims: Record<string, unknown>): Promise<ServiceAccountInfo | string> {
    const t = now();
    const timeError = checkTimes(claims, t);
    if (timeError) return timeError;
    const cutoff = t - leewaySeconds;
    const k = obj(claims["kubernetes.io"]);
    const namespace = str(k.namespace);
    const saRef = obj(k.serviceaccount);
    const podRef = k.pod === undefined ? undefined : obj(k.pod);
    const secretRef = k.secret === undefined ? undefined : obj(k.secret);
    const nodeRef = k.node === undefined ? undefined : obj(k.node);
    const saName = str(saRef.name);
    const sa = await o.getter.serviceAccount(namespace, saName);
    if (!sa) return `serviceaccounts ${JSON.stringify(saName)} not found`;
    if (deletedBefore(sa, cutoff)) return `service account ${namespace}/${saName} has been deleted`;
    if (sa.metadata.uid !== str(saRef.uid)) return `service account UID (${sa.metadata.uid}) does not match claim (${str(saRef.uid)})`;
    if (secretRef) {
      const secret = await o.getter.secret(namespace, str(secretRef.name));
      if (!secret || deletedBefore(secret, cutoff)) return "service account token has been invalidated";
      if (str(secretRef.uid) !== secret.metadata.uid) return `secret UID (${secret.metadata.uid}) does not match service account secret ref claim (${str(secretRef.uid)})`;
    }
    const info: ServiceAccountInfo = { namespace, name: saName, uid: str(saRef.uid), credentialId: credentialIdForJti(str(claims.jti)) };
    if (podRef) {
      const pod = await o.getter.pod(namespace, str(podRef.name));
      if (!pod || deletedBefore(pod, cutoff)) return "service account token has been invalidated";
      if (str(podRef.uid) !== pod.metadata.uid) return `pod UID (${pod.metadata.uid}) does not match service account pod ref claim (${str(podRef.uid)})`;
      info.podName = str(podRef.name);
      info.podUid = str(podRef.uid);
    }
    if (nodeRef) {
      if (podRef) {
        info.nodeName = str(nodeRef.name);
        info.nodeUid = str(nodeRef.uid);
      } else {
        const node = await o.getter.node(str(nodeRef.name));
        if (!node || deletedBefore(node, cutoff)) return "service account token has been invalidated";
        if (str(nodeRef.uid) !== node.metadata.uid) return `node UID (${node.metadata.uid}) does not match service account node ref claim (${str(nodeRef.uid)})`;
        info.nodeName = str(nodeRef.name);
        info.nodeUid = str(nodeRef.uid);
      }
    }
    return info;
  }

  async function validateLegacy(token: string, claims: Record<string, unknown>): Promise<ServiceAccountInfo | string> {
    const sub = str(claims.sub);
    if (!sub) return "sub claim is missing";
    const namespace = str(claims[legacyClaimKeys.namespace]);
    if (!namespace) return "namespace claim is missing";
    const secretName = str(claims[legacyClaimKeys.secretName]);
    if (!secretName) return "secretName claim is missing";
    const saName = str(claims[legacyClaimKeys.serviceAccountName]);
    if (!saName) return "serviceAccountName claim is missing";
    const saUid = str(claims[legacyClaimKeys.serviceAccountUid]);
    if (!saUid) return "serviceAccountUID claim is missing";
    const split = splitUsername(sub);
    if (!split || split[0] !== namespace || split[1] !== saName) return "sub claim is invalid";
    if (o.lookup) {
      const secret = await o.getter.secret(namespace, secretName);
      if (!secret || secret.metadata.deletionTimestamp) return "Token has been invalidated";
      const data = obj(secret.data);
      const stored = typeof data.token === "string" ? Buffer.from(data.token, "base64").toString("utf8") : undefined;
      if (stored !== token) return "Token does not match server's copy";
      const sa = await o.getter.serviceAccount(namespace, saName);
      if (!sa) return `serviceaccounts ${JSON.stringify(saName)} not found`;
      if (sa.metadata.deletionTimestamp) return `ServiceAccount ${namespace}/${saName} has been deleted`;
      if (sa.metadata.uid !== saUid) return `ServiceAccount UID (${sa.metadata.uid}) does not match claim (${saUid})`;
    }
    return { namespace, name: saName, uid: saUid };
  }

  return {
    name: "service-account",
    async authenticate(req): Promise<AuthnResult> {
      const token = bearerToken(req);
      if (!token || !looksLikeJwt(token)) return undefined;
      const iss = unverifiedIssuer(token);
      const legacy = iss === legacyIssuer;
      if (iss === undefined || (!legacy && !issuers.has(iss))) return undefined;
      let jws;
      try {
        jws = parseJws(token);
      } catch (e) {
        if (e instanceof MalformedJwsError) return { error: `go-jose/go-jose: ${e.message}` };
        throw e;
      }
      if (jws.alg === "none" || jws.alg === "") return { error: `go-jose/go-jose: unexpected signature algorithm ${JSON.stringify(jws.alg)}` };
      const keys = (jws.kid && keysById.get(jws.kid)) || o.publicKeys;
      if (keys.length === 0) return { error: "invalid signature, no keys found" };
      if (!keys.some((k) => verifyJws(jws, k))) return { error: cryptoError };
      const claims = jws.payload as Record<string, unknown>;
      let tokenAudiences = audiencesOf(claims);
      if (!tokenAudiences) return { error: "go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience" };
      if (tokenAudiences.length === 0) tokenAudiences = [...o.apiAudiences];
      // A TokenReview's spec.audiences, else the API audiences.
      const requested = req.audiences ?? o.apiAudiences;
      const auds = tokenAudiences.filter((a) => requested.includes(a));
      if (auds.length === 0 && requested.length !== 0) {
        return { error: `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(requested)}` };
      }
      const r = legacy ? await validateLegacy(token, claims) : await validateBound(claims);
      if (typeof r === "string") return { error: r };
      return { user: userInfoOf(r), audiences: auds };
    },
  };
}
