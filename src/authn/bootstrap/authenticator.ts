// --enable-bootstrap-token-auth: a bearer token `<id>.<secret>` is looked up as the Secret
// kube-system/bootstrap-token-<id> (type bootstrap.kubernetes.io/token) and authenticates as
// system:bootstrap:<id> in system:bootstrappers plus the Secret's extra groups.
//
// As upstream, a token that does not match its Secret (no Secret, being deleted, wrong type,
// wrong secret or id, expired, not marked for authentication, bad extra groups) is declined,
// not an error: the next token authenticator may still accept it, and when none does the
// request is refused as an invalid bearer token (401, never anonymous). Only a Secret that
// cannot be read is an error.
import { timingSafeEqual } from "node:crypto";
import { bearerToken, type Authenticator } from "../authenticator.js";
import type { KObject } from "../../apimachinery/object.js";
import { bootstrapUserPrefix, getData, getExpiration, getGroups, hasData, keys, parseToken, secretName, tokenSecretNamespace, tokenSecretType } from "./token.js";

/** Where Secrets are read: an informer's view, or the store while the informer is not synced. */
export interface SecretReader {
  /** The Secret, or undefined when there is none; throws when it cannot be read. */
  get(namespace: string, name: string): KObject | undefined | Promise<KObject | undefined>;
}

export interface BootstrapAuthenticatorOptions {
  secrets: SecretReader;
  /** Why a token that looked like a bootstrap token was declined (upstream logs it at V(3)). */
  log?: (msg: string) => void;
  now?: () => number;
}

/** Go's subtle.ConstantTimeCompare: different lengths never match. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bootstrapTokenAuthenticator(o: BootstrapAuthenticatorOptions): Authenticator {
  const log = o.log ?? (() => undefined);
  const now = o.now ?? Date.now;
  return {
    name: "bootstrap-token",
    async authenticate(req) {
      const token = bearerToken(req);
      if (!token) return undefined;
      const parsed = parseToken(token);
      if (!parsed) return undefined; // not of the bootstrap token form
      const name = secretName(parsed.id);
      let secret: KObject | undefined;
      try {
        secret = await o.secrets.get(tokenSecretNamespace, name);
      } catch (e) {
        return { error: `failed to read secret ${tokenSecretNamespace}/${name}: ${(e as Error)?.message ?? String(e)}` };
      }
      if (!secret) {
        log(`No secret of name ${name} to match bootstrap bearer token`);
        return undefined;
      }
      const declined = (why: string) => {
        log(`Bootstrap secret ${tokenSecretNamespace}/${name} matching bearer token ${why}`);
        return undefined;
      };
      if (secret.metadata.deletionTimestamp) return declined("is deleted and awaiting removal");
      if ((secret as { type?: string }).type !== tokenSecretType || !hasData(secret)) return declined(`has invalid type, expected ${tokenSecretType}.`);
      if (!constantTimeEqual(getData(secret, keys.tokenSecret), parsed.secret)) return declined(`has invalid value for key ${keys.tokenSecret}.`);
      const id = getData(secret, keys.tokenId);
      if (id !== parsed.id) return declined(`has invalid value for key ${keys.tokenId}, expected ${parsed.id}.`);
      const exp = getExpiration(secret, now());
      if (exp.expired) {
        log(`${exp.reason} in ${tokenSecretNamespace}/${name} Secret`);
        return undefined;
      }
      if (getData(secret, keys.usageAuthentication) !== "true") return declined(`not marked ${keys.usageAuthentication}=true.`);
      const groups = getGroups(secret);
      if ("error" in groups) return declined(`has invalid value for key ${keys.extraGroups}: ${groups.error}.`);
      return { user: { name: bootstrapUserPrefix + id, groups: groups.groups } };
    },
  };
}
