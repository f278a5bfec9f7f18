// The controller manager's storage protection controllers, in process (upstream
// pkg/controller/volume/pvcprotection and pvprotection): they lift the finalizers the
// StorageObjectInUseProtection admission plugin puts on new claims and volumes once a deleted
// one is no longer used — a claim by any scheduled, still running pod of its namespace, a volume
// by being Bound. Without them a deleted claim or volume would wait forever.
import { pvcProtectionFinalizer, pvProtectionFinalizer } from "../admission/builtin/storage-object-in-use-protection.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import { removeFinalizer } from "./remove-finalizer.js";
import type { GenericStore } from "../registry/store.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { controllerEnabled, pvcProtectionController, pvProtectionController } from "../controller-runtime/controllers-flag.js";
import { runController, type Controller } from "../controller-runtime/controller.js";

export interface StorageProtectionDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
}

const resyncMs = 5000;
type Obj = Record<string, any>;

const isDeleting = (o: KObject, finalizer: string) => !!o.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes(finalizer);

/** Does this pod keep the claim in use? Only scheduled pods that have not finished count (the kubelet starts no pod on a claim being deleted). */
export function podUsesClaim(pod: KObject, claim: string): boolean {
  const spec = (pod.spec ?? {}) as Obj;
  const phase = (pod.status as Obj | undefined)?.phase;
  if (!spec.nodeName || phase === "Succeeded" || phase === "Failed") return false;
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) {
    if (v?.persistentVolumeClaim?.claimName === claim) return true;
    // A generic ephemeral volume's claim is named <pod>-<volume>.
    if (v?.ephemeral && `${pod.metadata.name}-${v.name}` === claim) return true;
  }
  return false;
}

/** Removes `finalizer` from the stored object (a no-op when it is gone or no longer has it). */
async function dropFinalizer(store: GenericStore, ns: string, name: string, finalizer: string): Promise<void> {
  await removeFinalizer(store, ns, name, finalizer).catch(() => undefined); // changed meanwhile: the next event or resync looks again
}

export function startPvcProtectionController({ stores, types, informers }: StorageProtectionDeps): Controller {
  const pvcType = types.get("", "v1", "persistentvolumeclaims")!;
  const podType = types.get("", "v1", "pods")!;
  const claims = informers.forType(pvcType);
  const pods = informers.forType(podType);
  const claimKey = (c: KObject) => `${c.metadata.namespace}/${c.metadata.name}`;
  const deletingClaim = (c: KObject) => isDeleting(c, pvcProtectionFinalizer) && claimKey(c);
  /** A pod that stops using claims (deleted, finished) may free them. */
  const claimsOf = (p: KObject): string[] => {
    const out: string[] = [];
    for (const v of ((p.spec as Obj | undefined)?.volumes ?? []) as Obj[]) {
      const name = v?.persistentVolumeClaim?.claimName ?? (v?.ephemeral ? `${p.metadata.name}-${v.name}` : undefined);
      if (name) out.push(`${p.metadata.namespace}/${name}`);
    }
    return out;
  };
  return runController({
    name: pvcProtectionController,
    watches: [
      { informer: claims, added: deletingClaim, updated: (_o, c) => deletingClaim(c) },
      { informer: pods, updated: (_o, p) => claimsOf(p), deleted: claimsOf },
    ],
    async reconcile(key) {
      const [ns, name] = key.split("/") as [string, string];
      const claim = claims.get(ns, name);
      if (!claim || !isDeleting(claim, pvcProtectionFinalizer)) return;
      if (pods.list(ns).some((p) => podUsesClaim(p, name))) return;
      // The informer may lag a pod just created: ask storage, as upstream does before removing.
      for (const podName of await stores.for(podType).storedNames(ns)) {
        const pod = await stores.for(podType).get(ns, podName).catch(() => undefined);
        if (pod && podUsesClaim(pod, name)) return;
      }
      await dropFinalizer(stores.for(pvcType), ns, name, pvcProtectionFinalizer);
    },
    resync: { everyMs: resyncMs, keys: () => claims.list().filter((c) => isDeleting(c, pvcProtectionFinalizer)).map(claimKey) },
    retry: false, // a failure is left to the next event or resync
  });
}

export function startPvProtectionController({ stores, types, informers }: StorageProtectionDeps): Controller {
  const pvType = types.get("", "v1", "persistentvolumes")!;
  const volumes = informers.forType(pvType);
  const deletingVolume = (v: KObject) => isDeleting(v, pvProtectionFinalizer) && v.metadata.name!;
  return runController({
    name: pvProtectionController,
    watches: [{ informer: volumes, added: deletingVolume, updated: (_o, v) => deletingVolume(v) }],
    async reconcile(name) {
      const pv = volumes.get("", name);
      if (!pv || !isDeleting(pv, pvProtectionFinalizer)) return;
      if ((pv.status as Obj | undefined)?.phase === "Bound") return; // a claim still uses it
      await dropFinalizer(stores.for(pvType), "", name, pvProtectionFinalizer);
    },
    resync: { everyMs: resyncMs, keys: () => volumes.list().filter((v) => isDeleting(v, pvProtectionFinalizer)).map((v) => v.metadata.name!) },
    retry: false, // a failure is left to the next event or resync
  });
}

/** Both controllers, as --controllers switches them, when their types are served. */
export function startStorageProtection(deps: StorageProtectionDeps, enabled: readonly string[]): Controller[] {
  const out: Controller[] = [];
  const served = (r: string) => !!deps.types.get("", "v1", r);
  if (served("persistentvolumeclaims") && served("pods") && controllerEnabled(pvcProtectionController, enabled)) out.push(startPvcProtectionController(deps));
  if (served("persistentvolumes") && controllerEnabled(pvProtectionController, enabled)) out.push(startPvProtectionController(deps));
  return out;
}
