// The APIServices kube-apiserver registers itself (upstream: kube-aggregator's autoregister
// controller, fed by kube-apiserver's list of served group versions and by the CRD registration
// controller). Every served built-in group version with a priority gets a local APIService
// labelled kube-aggregator.kubernetes.io/automanaged=onstart — made or set right once when the
// controller starts, then left to whoever edits it; every served version of a CRD gets one
// labelled "true", kept as desired and deleted when no CRD serves it any more. An APIService
// without the label is never touched.
import type { KObject } from "../apimachinery/object.js";
import { deepEqual } from "../apimachinery/json-value.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { Stores } from "../registry/stores.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { aggregatorFieldManager, apiServiceType, isConflictOrGone, isObj, str, updateAPIService } from "./apiservices.js";
import { apiServiceName, builtinPriority, crdPriority, type APIServicePriority } from "./priorities.js";

export const automanagedLabel = "kube-aggregator.kubernetes.io/automanaged";
const onStart = "onstart";
const continuously = "true";

export interface AutoregisterDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
}

function desiredObject(group: string, version: string, p: APIServicePriority, mode: string): KObject {
  return {
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: apiServiceName(group, version), labels: { [automanagedLabel]: mode } },
    spec: { group, version, groupPriorityMinimum: p.group, versionPriority: p.version },
  } as KObject;
}

/** The served built-in group versions upstream registers (those with a priority). */
function builtinAPIServices(types: TypeRegistry, crdGroups: ReadonlySet<string>): Map<string, KObject> {
  const out = new Map<string, KObject>();
  for (const t of types.all()) {
    if (crdGroups.has(t.group)) continue;
    const p = builtinPriority(t.group, t.version);
    if (p) out.set(apiServiceName(t.group, t.version), desiredObject(t.group, t.version, p, onStart));
  }
  return out;
}

/** The built-in group versions' local APIServices (custom resources are the types without strategic merge patch). */
function servedBuiltinAPIServices(types: TypeRegistry): Map<string, KObject> {
  return builtinAPIServices(types, new Set(types.all().filter((t) => !t.strategicMergePatch).map((t) => t.group)));
}

/**
 * The names of the local APIServices registered at start for the built-in group versions served
 * now (upstream: apiServicesToRegister over kube-apiserver's listed paths, which hold no CRD).
 */
export function builtinAPIServiceNames(types: TypeRegistry): string[] {
  return [...servedBuiltinAPIServices(types).keys()];
}

/**
 * The missing ones made with the other bootstrap objects, in one commit and from their prepared
 * forms on a first start: /readyz waits for them (autoregister-completion), and the controller
 * then finds them made, as it finds them on a restart.
 */
export async function ensureBuiltinAPIServices(core: { types: TypeRegistry; ensureAll(t: ResourceType | undefined, ns: string, objs: readonly KObject[], fieldManager?: string): Promise<void> }): Promise<void> {
  await core.ensureAll(apiServiceType(core.types), "", [...servedBuiltinAPIServices(core.types).values()], aggregatorFieldManager);
}

const labelOf = (o: KObject | undefined) => o?.metadata.labels?.[automanagedLabel];

export function startAutoregister({ stores, types, informers }: AutoregisterDeps): Controller | undefined {
  const t = apiServiceType(types);
  const crdType = types.get("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  if (!t) return undefined;
  const apiServices = informers.forType(t);
  const crds = crdType ? informers.forType(crdType) : undefined;
  const crdList = () => crds?.list() ?? [];
  const crdGroups = () => new Set(crdList().map((c) => str((c.spec as any)?.group)));
  // What kube-apiserver serves when the controller starts (its listed paths).
  let builtins = new Map<string, KObject>();
  /** Names that existed when the controller started; names synced once since. */
  const atStart = new Set<string>();
  const synced = new Set<string>();

  /** The CRD registration's wish for one name: a served version of some CRD, unless built in. */
  function crdDesired(name: string): KObject | undefined {
    if (builtins.has(name)) return undefined;
    for (const crd of crdList()) {
      const spec = isObj(crd.spec) ? crd.spec : {};
      for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
        if (v?.served === true && apiServiceName(str(spec.group), str(v.name)) === name) return desiredObject(str(spec.group), str(v.name), crdPriority, continuously);
      }
    }
    return undefined;
  }

  async function check(name: string): Promise<void> {
    const desired = builtins.get(name) ?? crdDesired(name);
    const current = apiServices.get("", name);
    const hasSynced = synced.has(name);
    const store = stores.for(t!);
    if (!current && !desired) return void synced.add(name);
    if (labelOf(desired) === onStart && hasSynced) return;
    if (!current) {
      await store.create("", desired, { dryRun: false, fieldManager: aggregatorFieldManager }).catch((e) => {
        if (!(e?.code === 409)) throw e; // made meanwhile: its event brings us back
      });
      return void synced.add(name);
    }
    const mode = labelOf(current);
    if (mode !== onStart && mode !== continuously) return void synced.add(name);
    if (mode === onStart && (!atStart.has(name) || hasSynced)) return void synced.add(name);
    if (!desired) {
      await store.delete("", name, { dryRun: false, preconditions: { uid: current.metadata.uid! } }).catch((e) => {
        if (!isConflictOrGone(e)) throw e;
      });
      return void synced.add(name);
    }
    if (!deepEqual(current.spec, desired.spec)) {
      await updateAPIService(stores, t!, name, "", (o) => void (o.spec = desired.spec)).catch((e) => {
        if (!isConflictOrGone(e)) throw e;
      });
    }
    synced.add(name);
  }

  const crdNames = (crd: KObject): string[] => {
    const spec = isObj(crd.spec) ? crd.spec : {};
    return (Array.isArray(spec.versions) ? spec.versions : []).map((v: any) => apiServiceName(str(spec.group), str(v?.name)));
  };
  return runController({
    name: "autoregister",
    watches: [
      { informer: apiServices, added: (o) => o.metadata.name!, updated: (_old, o) => o.metadata.name!, deleted: (o) => o.metadata.name! },
      ...(crds ? [{ informer: crds, added: crdNames, updated: (old: KObject, o: KObject) => [...new Set([...crdNames(old), ...crdNames(o)])], deleted: crdNames }] : []),
    ],
    setup(ctx) {
      // The CRDs are listed before the first sync, so that one does not delete the APIService of
      // a CRD that still exists (upstream waits for the CRD registration's initial sync).
      const ready = Promise.all([apiServices.synced, crds?.synced]).then(async () => {
        for (const o of apiServices.list()) atStart.add(o.metadata.name!);
        builtins = builtinAPIServices(types, crdGroups());
        // The missing ones are written in one commit, not one by one: /readyz waits for them
        // (autoregister-completion). Should that fail, each is made alone by its reconcile.
        const missing = [...builtins.values()].filter((o) => !atStart.has(o.metadata.name!));
        if (missing.length > 0) {
          await stores.createAll(missing.map((object) => ({ type: t, namespace: "", object: structuredClone(object) })), { dryRun: false, fieldManager: aggregatorFieldManager }).catch(() => undefined);
        }
        for (const name of builtins.keys()) ctx.enqueue(name);
      });
      ctx.holdUntil(ready);
    },
    reconcile: check,
  });
}
