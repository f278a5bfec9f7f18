// The CustomResourceDefinition controllers of apiextensions-apiserver (pkg/controller):
//   naming      — status.acceptedNames and the NamesAccepted condition; a name another CRD of the
//                 group already accepted is refused (`"x" is already in use`) and the CRD keeps
//                 its previously accepted names; Established starts False (NotAccepted/Installing);
//   establishing — Established=True once the names are accepted (single server: at once);
//   finalizer   — for a CRD being deleted with the customresourcecleanup finalizer: Terminating,
//                 every custom object deleted, then the finalizer removed (./finalizer.ts).
// status.storedVersions is kept by the strategy (../../apiextensions/crd-strategy.ts), as upstream.
// All three follow the CRD informer and write through the store's /status.
import { deepClone, deepEqual } from "../../apimachinery/json-value.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { Storage } from "../../storage/interface.js";
import { customResourceCleanupFinalizer } from "../../apiextensions/crd-strategy.js";
import { findCRDCondition, isCRDConditionTrue, setCRDCondition, type CRDCondition } from "../../apiextensions/crd-conditions.js";
import { controllerEnabled, crdEstablishingController, crdFinalizerController, crdNamingController } from "../../controller-runtime/controllers-flag.js";
import { runController, type Controller, type ControllerContext, type ReconcileResult } from "../../controller-runtime/controller.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { followChanges } from "../change-follower.js";
import { crdFinalizer, finalizerWantsUpdate, type CRDFinalizer } from "./finalizer.js";

export interface CRDControllerDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  /** Watched for changes of the custom objects a deleted CRD waits on. */
  storage: Storage;
  log?: (msg: string) => void;
}

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const resyncMs = 2000;

interface Names {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

const namesOf = (v: unknown): Names => {
  const n = isObj(v) ? v : {};
  const out: Names = { plural: str(n.plural), kind: str(n.kind) };
  if (str(n.singular)) out.singular = n.singular;
  if (Array.isArray(n.shortNames) && n.shortNames.length > 0) out.shortNames = [...n.shortNames];
  if (str(n.listKind)) out.listKind = n.listKind;
  if (Array.isArray(n.categories) && n.categories.length > 0) out.categories = [...n.categories];
  return out;
};

/** upstream calculateNamesAndConditions: the names to accept and the two conditions. */
export function calculateNames(crd: KObject, others: KObject[]): { names: Names; namesAccepted: CRDCondition; established: CRDCondition } {
  const group = str((crd.spec as Obj)?.group);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.metadata.name === crd.metadata.name || str((o.spec as Obj)?.group) !== group) continue;
    const a = namesOf((o.status as Obj)?.acceptedNames);
    for (const r of [a.plural, a.singular ?? "", ...(a.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [a.kind, a.listKind ?? ""]) if (k) kinds.add(k);
  }
  const requested = namesOf((crd.spec as Obj)?.names);
  const accepted = namesOf((crd.status as Obj)?.acceptedNames);
  const names: Names = deepClone(accepted);
  const cond: CRDCondition = { type: "NamesAccepted", status: "Unknown" };
  const fresh = (req: string, acc: string, used: Set<string>): string | undefined =>
    req === acc || !used.has(req) ? undefined : `${goQuote(req)} is already in use`;
  const conflict = (reason: string, message: string) => {
    cond.status = "False";
    cond.reason = reason;
    cond.message = message;
  };
  let e = fresh(requested.plural, accepted.plural, resources);
  if (e) conflict("PluralConflict", e);
  else names.plural = requested.plural;
  e = fresh(requested.singular ?? "", accepted.singular ?? "", resources);
  if (e) conflict("SingularConflict", e);
  else if (requested.singular) names.singular = requested.singular;
  else delete names.singular;
  if (!deepEqual(requested.shortNames ?? [], accepted.shortNames ?? [])) {
    const errs: string[] = [];
    const existing = new Set(accepted.shortNames ?? []);
    for (const s of requested.shortNames ?? []) {
      if (existing.has(s)) continue;
      const se = fresh(s, "", resources);
      if (se) errs.push(se);
    }
    if (errs.length > 0) conflict("ShortNamesConflict", errs.length === 1 ? errs[0]! : `[${errs.join(", ")}]`);
    else if (requested.shortNames) names.shortNames = requested.shortNames;
    else delete names.shortNames;
  }
  e = fresh(requested.kind, accepted.kind, kinds);
  if (e) conflict("KindConflict", e);
  else names.kind = requested.kind;
  e = fresh(requested.listKind ?? "", accepted.listKind ?? "", kinds);
  if (e) conflict("ListKindConflict", e);
  else if (requested.listKind) names.listKind = requested.listKind;
  else delete names.listKind;
  if (requested.categories) names.categories = requested.categories;
  else delete names.categories;
  if (cond.status === "Unknown") {
    cond.status = "True";
    cond.reason = "NoConflicts";
    cond.message = "no conflicts found";
  }
  let established: CRDCondition = findCRDCondition(crd, "Established") ?? { type: "Established", status: "False", reason: "NotAccepted", message: "not all names are accepted" };
  if (established.status !== "True" && cond.status === "True") {
    established = { type: "Established", status: "False", reason: "Installing", message: "the initial names have been accepted" };
  }
  return { names, namesAccepted: cond, established };
}

export function startCRDControllers(deps: CRDControllerDeps, list?: readonly string[]): Controller[] {
  const crdType = deps.types.get("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  if (!crdType) return [];
  const naming = controllerEnabled(crdNamingController, list);
  const establishing = controllerEnabled(crdEstablishingController, list);
  const finalizer = controllerEnabled(crdFinalizerController, list);
  if (!naming && !establishing && !finalizer) return [];
  return [startCRDController(deps, crdType, { naming, establishing, finalizer })];
}

function startCRDController(
  { stores, types, informers, storage, log }: CRDControllerDeps,
  crdType: ResourceType,
  on: { naming: boolean; establishing: boolean; finalizer: boolean },
): Controller {
  const crds = informers.forType(crdType);

  /** Writes the CRD's status through /status, recomputed from the stored object on conflicts. */
  const updateStatus = (name: string, change: (crd: KObject) => boolean) =>
    stores.for(crdType).update("", name, {
      subresource: "status",
      createIfMissing: false,
      desired: (cur) => {
        if (!cur) throw new Error("gone");
        const next = deepClone(cur);
        change(next);
        return next;
      },
    }, { dryRun: false });

  let finalizer: CRDFinalizer | undefined;

  async function sync(name: string, ctx: ControllerContext): Promise<ReconcileResult | void> {
    const crd = crds.get("", name);
    if (!crd?.metadata.deletionTimestamp) finalizer?.forget(name);
    if (!crd) return;
    if (crd.metadata.deletionTimestamp) return finalizer?.finalize(crd);
    if (on.naming) {
      const { names, namesAccepted, established } = calculateNames(crd, crds.list());
      const accepted = (crd.status as Obj)?.acceptedNames;
      const changed =
        !deepEqual(namesOf(accepted), names) ||
        !sameCondition(findCRDCondition(crd, "NamesAccepted"), namesAccepted) ||
        !sameCondition(findCRDCondition(crd, "Established"), established);
      if (changed) {
        await updateStatus(name, (c) => {
          const r = calculateNames(c, crds.list());
          const status = ((c.status as Obj) ??= {});
          status.acceptedNames = r.names;
          setCRDCondition(c, r.namesAccepted);
          setCRDCondition(c, r.established);
          return true;
        });
        // Others of the group waiting for a name this CRD may have released.
        const group = str((crd.spec as Obj)?.group);
        for (const o of crds.list()) {
          if (o.metadata.name !== name && str((o.spec as Obj)?.group) === group && !isCRDConditionTrue(o, "NamesAccepted")) ctx.enqueue(o.metadata.name!);
        }
        return; // the informer brings the written status back: establishing runs on it
      }
    }
    if (on.establishing && isCRDConditionTrue(crd, "NamesAccepted") && !isCRDConditionTrue(crd, "Established")) {
      await updateStatus(name, (c) =>
        isCRDConditionTrue(c, "NamesAccepted")
          ? setCRDCondition(c, { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" })
          : false,
      );
    }
  }

  /** Those of the group still waiting for their names (one may be free now). */
  const waitingInGroupOf = (o: KObject) => {
    const group = str((o.spec as Obj)?.group);
    return crds.list().filter((c) => str((c.spec as Obj)?.group) === group && !isCRDConditionTrue(c, "NamesAccepted")).map((c) => c.metadata.name!);
  };
  /** A CRD being finalized is looked at again only when more than its Terminating condition changed. */
  const updated = (old: KObject, o: KObject) => {
    const finalizing = o.metadata.deletionTimestamp && (o.metadata.finalizers ?? []).includes(customResourceCleanupFinalizer);
    return (!finalizing || finalizerWantsUpdate(old, o)) && o.metadata.name!;
  };
  const names = [on.naming && crdNamingController, on.establishing && crdEstablishingController, on.finalizer && crdFinalizerController].filter(Boolean);
  return runController({
    name: names.join(","),
    watches: [{ informer: crds, added: (o) => o.metadata.name!, updated, deleted: (o) => (finalizer?.forget(o.metadata.name!), waitingInGroupOf(o)) }],
    setup(ctx) {
      if (!on.finalizer) return;
      const follower = followChanges(storage, (name) => ctx.enqueue(name));
      finalizer = crdFinalizer({ stores, types, storage, follower, updateStatus, crdType });
      ctx.onStop(() => follower.stop());
    },
    reconcile: sync,
    resync: { everyMs: resyncMs, keys: () => crds.list().filter((o) => o.metadata.deletionTimestamp || !isCRDConditionTrue(o, "Established")).map((o) => o.metadata.name!) },
    onError: (name, e) => log?.(`customresourcedefinition ${name}: ${(e as Error).message}`),
    // A failed pass is queued again with client-go's default controller backoff, as upstream's
    // three queues do (AddRateLimited).
  });
}

const sameCondition = (a: CRDCondition | undefined, b: CRDCondition) =>
  a !== undefined && a.status === b.status && (a.reason ?? "") === (b.reason ?? "") && (a.message ?? "") === (b.message ?? "");
