// The token cleaner (upstream: pkg/controller/bootstrap/tokencleaner.go): every bootstrap token
// Secret in kube-system (type bootstrap.kubernetes.io/token) is examined when it appears or
// changes; one past its `expiration` (or with an expiration that does not parse) is deleted,
// with its uid as precondition; one that expires later is examined again at its expiration.
import type { ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import { getExpiration, tokenSecretNamespace, tokenSecretType } from "../../authn/bootstrap/token.js";
import { tokenCleanerController } from "../../controller-runtime/controllers-flag.js";
import { runController, type Controller, type ControllerContext, type ReconcileResult } from "../../controller-runtime/controller.js";

export interface TokenCleanerDeps {
  stores: Stores;
  secretsType: ResourceType;
  /** The Secrets informer (full objects). */
  secrets: ObjectInformer;
  log?: (msg: string) => void;
  now?: () => number;
  /** After a delete that failed for another reason than conflict or not found. */
  retryMs?: number;
}

const isTokenSecret = (s: KObject) => s.metadata.namespace === tokenSecretNamespace && (s as { type?: string }).type === tokenSecretType;

export function startTokenCleaner(d: TokenCleanerDeps): Controller {
  const log = d.log ?? (() => undefined);
  const now = d.now ?? Date.now;
  const ns = tokenSecretNamespace;

  async function sync(name: string, ctx: ControllerContext): Promise<ReconcileResult | void> {
    const secret = d.secrets.get(ns, name);
    if (!secret || !isTokenSecret(secret)) return; // gone, or no longer a token
    if (secret.metadata.deletionTimestamp) return; // already being deleted (finalizers pending)
    const exp = getExpiration(secret, now());
    if (exp.expired) {
      const uid = secret.metadata.uid;
      await d.stores.for(d.secretsType).delete(ns, name, { dryRun: false, ...(uid ? { preconditions: { uid } } : {}) }).catch((e) => {
        const reason = (e as { reason?: string })?.reason;
        if (reason === "NotFound" || reason === "Conflict") return; // already gone, or replaced
        log(`token-cleaner-controller: error deleting secret ${ns}/${name}: ${(e as Error)?.message ?? String(e)}`);
        ctx.enqueueAfter(name, d.retryMs ?? 1000);
      });
    } else if (exp.remainingMs > 0) {
      return { requeueAfterMs: exp.remainingMs };
    }
  }

  const tokenName = (s: KObject) => isTokenSecret(s) && s.metadata.name!;
  return runController({
    name: tokenCleanerController,
    watches: [{ informer: d.secrets, added: tokenName, updated: (_old, s) => tokenName(s) }],
    reconcile: sync,
    retry: false, // a failed delete is retried by sync itself, after retryMs
  });
}
