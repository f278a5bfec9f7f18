// The controller manager's service-account controllers, in process (upstream
// pkg/controller/serviceaccount): the serviceaccount controller keeps a `default` ServiceAccount in
// every namespace that is not terminating (made when missing, made again when deleted); the tokens
// controller fills Secrets of type kubernetes.io/service-account-token with `token` (a legacy
// token), `ca.crt` and `namespace`, and deletes those whose ServiceAccount is gone or has another
// uid. Both hear of changes from the shared informers and re-read live objects before writing.
import type { KeyObject } from "node:crypto";
import { runController, type Controller } from "../../controller-runtime/controller.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import { legacyToken } from "./token-signer.js";

export const serviceAccountTokenType = "kubernetes.io/service-account-token";
export const serviceAccountNameKey = "kubernetes.io/service-account.name";
export const serviceAccountUidKey = "kubernetes.io/service-account.uid";
export const defaultServiceAccountName = "default";
// Their --controllers names (controller-runtime/controllers-flag.ts lists them too).
const serviceAccountController = "serviceaccount-controller";
const serviceAccountTokenController = "serviceaccount-token-controller";
const resyncMs = 5000;

export interface ServiceAccountControllerDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  log?: (m: string) => void;
}

const isNotFound = (e: unknown) => (e as { reason?: string })?.reason === "NotFound";

export function startServiceAccountsController({ stores, types, informers }: ServiceAccountControllerDeps): Controller {
  const nsType = types.get("", "v1", "namespaces")!;
  const saType = types.get("", "v1", "serviceaccounts")!;
  const namespaces = informers.metadataFor(nsType);
  const accounts = informers.metadataFor(saType);
  async function ensureDefaultAccount(ns: string): Promise<void> {
    const namespace = await stores.for(nsType).get("", ns).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (!namespace || namespace.metadata.deletionTimestamp) return;
    if (accounts.hasSynced() && accounts.get(ns, defaultServiceAccountName)) return;
    const existing = await stores.for(saType).get(ns, defaultServiceAccountName).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (existing) return;
    await stores.for(saType).create(ns, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: defaultServiceAccountName } } as KObject, { dryRun: false }).catch((e) => {
      if (e?.reason !== "AlreadyExists" && e?.reason !== "Forbidden") throw e;
    });
  }
  return runController({
    name: serviceAccountController,
    watches: [
      { informer: namespaces, added: (ns) => ns.metadata.name!, updated: (_o, ns) => ns.metadata.name! },
      { informer: accounts, deleted: (sa) => sa.metadata.name === defaultServiceAccountName && sa.metadata.namespace! },
    ],
    reconcile: ensureDefaultAccount,
    resync: {
      everyMs: resyncMs,
      keys: () =>
        !namespaces.hasSynced() || !accounts.hasSynced()
          ? []
          : namespaces.list().filter((ns) => !ns.metadata.deletionTimestamp && !accounts.get(ns.metadata.name!, defaultServiceAccountName)).map((ns) => ns.metadata.name!),
    },
    retry: false, // the next event or resync tries again
  });
}

export interface TokensControllerDeps extends ServiceAccountControllerDeps {
  signingKey: KeyObject;
  /** ca.crt of every token Secret (the serving CA bundle). */
  rootCA: string;
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

export function startTokensController({ stores, types, informers, signingKey, rootCA }: TokensControllerDeps): Controller {
  const secretType = types.get("", "v1", "secrets")!;
  const saType = types.get("", "v1", "serviceaccounts")!;
  const secrets = informers.forType(secretType);
  const accounts = informers.metadataFor(saType);
  const isToken = (s: KObject) => (s as { type?: string }).type === serviceAccountTokenType;

  async function fillOrDelete(key: string): Promise<void> {
    const [ns, name] = key.split("/", 2) as [string, string];
    const secret = await stores.for(secretType).get(ns, name).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (!secret || !isToken(secret) || secret.metadata.deletionTimestamp) return;
    const ann = secret.metadata.annotations ?? {};
    const saName = ann[serviceAccountNameKey] ?? "";
    const wantUid = ann[serviceAccountUidKey] ?? "";
    const sa = saName ? await stores.for(saType).get(ns, saName).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e))) : undefined;
    if (!sa || (wantUid && wantUid !== sa.metadata.uid) || sa.metadata.deletionTimestamp) {
      await stores.for(secretType).delete(ns, name, { dryRun: false, preconditions: { uid: secret.metadata.uid } }).catch((e) => {
        if (!isNotFound(e)) throw e;
      });
      return;
    }
    const data = ((secret as { data?: Record<string, string> }).data ?? {}) as Record<string, string>;
    if (data["token"] && data["ca.crt"] !== undefined && data["namespace"] && wantUid) return;
    await stores.for(secretType).update(ns, name, {
      subresource: "",
      createIfMissing: false,
      desired(stored) {
        if (!stored || stored.metadata.uid !== secret.metadata.uid) throw Object.assign(new Error("gone"), { reason: "NotFound" });
        const cur = structuredClone(stored) as KObject & { data?: Record<string, string> };
        const d = { ...(cur.data ?? {}) };
        if (!d["ca.crt"] && rootCA) d["ca.crt"] = b64(rootCA);
        if (!d["namespace"]) d["namespace"] = b64(ns);
        if (!d["token"]) d["token"] = b64(legacyToken(signingKey, { namespace: ns, name: sa.metadata.name!, uid: sa.metadata.uid! }, name));
        cur.data = d;
        cur.metadata.annotations = { ...(cur.metadata.annotations ?? {}), [serviceAccountNameKey]: sa.metadata.name!, [serviceAccountUidKey]: sa.metadata.uid! };
        return cur;
      },
    }, { dryRun: false });
  }

  const keyOf = (o: KObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  const tokenKey = (s: KObject) => isToken(s) && keyOf(s);
  const referencing = (sa: KObject) =>
    secrets.list(sa.metadata.namespace!).filter((s) => isToken(s) && s.metadata.annotations?.[serviceAccountNameKey] === sa.metadata.name).map(keyOf);
  return runController({
    name: serviceAccountTokenController,
    watches: [
      { informer: secrets, added: tokenKey, updated: (_o, s) => tokenKey(s) },
      { informer: accounts, deleted: referencing, updated: (_o, sa) => !!sa.metadata.deletionTimestamp && referencing(sa) },
    ],
    reconcile: fillOrDelete,
    retry: false, // the next event tries again
  });
}
