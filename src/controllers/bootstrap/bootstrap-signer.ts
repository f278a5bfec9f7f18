// The bootstrap signer (upstream: pkg/controller/bootstrap/bootstrapsigner.go): the ConfigMap
// kube-public/cluster-info, when it exists and has a `kubeconfig` key, carries one key
// `jws-kubeconfig-<id>` per bootstrap token usable for signing (Secret bootstrap-token-<id> in
// kube-system, token-id matching the name, a token-secret, not expired,
// usage-bootstrap-signing=true): a detached HS256 JWS of the kubeconfig. Signatures of tokens
// that are gone are removed. It never creates cluster-info (kubeadm does).
//
// Any change of cluster-info or of a token Secret queues one re-signing; the ConfigMap is
// written only when a signature is new, changed or gone. Beyond upstream, a signature is also
// re-examined when its token expires (upstream waits for the next change, usually the cleaner
// deleting the Secret).
import { deepClone } from "../../apimachinery/json-value.js";
import type { ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import { computeDetachedSignature } from "../../authn/bootstrap/jws.js";
import {
  clusterInfoName,
  clusterInfoNamespace,
  getData,
  getExpiration,
  keys,
  kubeconfigKey,
  parseSecretName,
  signatureKeyPrefix,
  tokenSecretNamespace,
  tokenSecretType,
} from "../../authn/bootstrap/token.js";
import { bootstrapSignerController } from "../../controller-runtime/controllers-flag.js";
import { runController, type Controller, type ReconcileResult } from "../../controller-runtime/controller.js";

export interface BootstrapSignerDeps {
  stores: Stores;
  configMapsType: ResourceType;
  /** Full-object informers. */
  configMaps: ObjectInformer;
  secrets: ObjectInformer;
  log?: (msg: string) => void;
  now?: () => number;
}

const isTokenSecret = (s: KObject) => s.metadata.namespace === tokenSecretNamespace && (s as { type?: string }).type === tokenSecretType;
const isClusterInfo = (c: KObject) => c.metadata.namespace === clusterInfoNamespace && c.metadata.name === clusterInfoName;

/** token id → token secret, for every Secret that may sign now; and the earliest expiry among them. */
export function signingTokens(secrets: readonly KObject[], now: number): { tokens: Map<string, string>; nextExpiryMs?: number } {
  const tokens = new Map<string, string>();
  let nextExpiryMs: number | undefined;
  for (const s of secrets) {
    if (!isTokenSecret(s)) continue;
    const nameId = parseSecretName(s.metadata.name ?? "");
    const id = getData(s, keys.tokenId);
    const secret = getData(s, keys.tokenSecret);
    if (!nameId || !id || nameId !== id || !secret) continue;
    const exp = getExpiration(s, now);
    if (exp.expired || getData(s, keys.usageSigning) !== "true") continue;
    if (tokens.has(id)) continue; // cannot happen: the name carries the id
    tokens.set(id, secret);
    if (exp.remainingMs > 0 && (nextExpiryMs === undefined || exp.remainingMs < nextExpiryMs)) nextExpiryMs = exp.remainingMs;
  }
  return { tokens, nextExpiryMs };
}

/** cluster-info's data with the signatures these tokens make; undefined when nothing changes. */
export function signedData(data: Record<string, string>, tokens: ReadonlyMap<string, string>): Record<string, string> | undefined {
  const content = data[kubeconfigKey];
  if (content === undefined) return undefined;
  const next: Record<string, string> = {};
  const old = new Map<string, string>();
  for (const [k, v] of Object.entries(data)) {
    if (k.startsWith(signatureKeyPrefix)) old.set(k.slice(signatureKeyPrefix.length), v);
    else next[k] = v;
  }
  let changed = false;
  for (const [id, secret] of tokens) {
    const sig = computeDetachedSignature(content, id, secret);
    if (old.get(id) !== sig) changed = true;
    old.delete(id);
    next[signatureKeyPrefix + id] = sig;
  }
  if (old.size > 0) changed = true;
  return changed ? next : undefined;
}

export function startBootstrapSigner(d: BootstrapSignerDeps): Controller {
  const log = d.log ?? (() => undefined);
  const now = d.now ?? Date.now;
  const key = `${clusterInfoNamespace}/${clusterInfoName}`;

  async function sign(): Promise<ReconcileResult | void> {
    const cm = d.configMaps.get(clusterInfoNamespace, clusterInfoName);
    if (!cm) return;
    const { tokens, nextExpiryMs } = signingTokens(d.secrets.list(tokenSecretNamespace), now());
    // A signature goes when its token expires: look again then.
    const again = nextExpiryMs !== undefined ? { requeueAfterMs: nextExpiryMs } : undefined;
    const data = ((cm as { data?: Record<string, string> }).data ?? {}) as Record<string, string>;
    if (!signedData(data, tokens)) return again; // nothing to change, or no kubeconfig key to sign
    await d.stores
      .for(d.configMapsType)
      .update(
        clusterInfoNamespace,
        clusterInfoName,
        {
          subresource: "",
          createIfMissing: false,
          desired: (current) => {
            if (!current) throw Object.assign(new Error("cluster-info is gone"), { reason: "NotFound" });
            const cur = deepClone(current);
            const curData = ((cur as { data?: Record<string, string> }).data ?? {}) as Record<string, string>;
            // Signed from what is stored now (the informer may lag): same tokens, current content.
            (cur as { data?: Record<string, string> }).data = signedData(curData, tokens) ?? curData;
            return cur;
          },
        },
        { dryRun: false, fieldManager: "kube-controller-manager" },
      )
      .catch((e) => {
        const reason = (e as { reason?: string })?.reason;
        if (reason === "NotFound" || reason === "Conflict") return; // the next change queues us again
        log(`bootstrap-signer-controller: error updating ConfigMap ${key}: ${(e as Error)?.message ?? String(e)}`);
      });
    return again;
  }

  const clusterInfo = (c: KObject) => isClusterInfo(c) && key;
  const tokenChanged = (s: KObject) => isTokenSecret(s) && key;
  return runController({
    name: bootstrapSignerController,
    watches: [
      { informer: d.configMaps, added: clusterInfo, updated: (_o, c) => clusterInfo(c) },
      { informer: d.secrets, added: tokenChanged, updated: (o, s) => (isTokenSecret(s) || isTokenSecret(o)) && key, deleted: tokenChanged },
    ],
    reconcile: sign,
    retry: false, // a failed write waits for the next change (as upstream)
  });
}
