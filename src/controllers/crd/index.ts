// The CustomResourceDefinition controllers of apiextensions-apiserver (pkg/controller):
//   naming      — status.acceptedNames and the NamesAccepted condition; a name another CRD of the
//                 group already accepted is refused (`"x" is already in use`) and the CRD keeps
//                 its previously accepted names; Established starts False (NotAccepted/Installing);
//   establishing — Established=True once the names are accepted (single server: at once);
//   finalizer   — for a CRD being deleted with the customresourcecleanup finalizer: Terminating,
//                 every custom object deleted (all namespaces, every stored version's type), then
//                 the finalizer removed so that the CRD goes.
// status.storedVersions is kept by the strategy (../../apiextensions/crd-strategy.ts), as upstream.
// All three follow the CRD informer and write through the store's /status.
import { removeFinalizer } from "../remove-finalizer.js";
import { deepClone, deepEqual } from "../../apimachinery/json-value.js";
import { listObjects } from "../../registry/list.js";
import { parseListOptions } from "../../registry/list-options.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import { customResourceCleanupFinalizer } from "../../apiextensions/crd-strategy.js";
import { findCRDCondition, isCRDConditionTrue, setCRDCondition, type CRDCondition } from "../../apiextensions/crd-conditions.js";
import { controllerEnabled, crdEstablishingController, crdFinalizerController, crdNamingController } from "../../controller-runtime/controllers-flag.js";
import { runController, type Controller, type ControllerContext } from "../../controller-runtime/controller.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export interface CRDControllerDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  log?: (msg: string) => void;
}

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const everything = parseListOptions(new URLSearchParams());
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
  { stores, types, informers, log }: CRDControllerDeps,
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

  async function sync(name: string, ctx: ControllerContext): Promise<void> {
    const crd = crds.get("", name);
    if (!crd) return;
    if (crd.metadata.deletionTimestamp) {
      if (on.finalizer) await finalize(crd);
      return;
    }
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

  /** The resource types of a CRD's custom objects (one per served version; they share storage). */
  function typesOf(crd: KObject): ResourceType[] {
    const spec = (crd.spec ?? {}) as Obj;
    const group = str(spec.group);
    const plural = str(spec.names?.plural);
    const seen = new Set<string>();
    const out: ResourceType[] = [];
    for (const t of types.stored()) {
      if (t.group !== group || t.resource !== plural || seen.has(t.keyPrefix)) continue;
      seen.add(t.keyPrefix);
      out.push(t);
    }
    return out;
  }

  async function finalize(crd: KObject): Promise<void> {
    const name = crd.metadata.name!;
    if (!(crd.metadata.finalizers ?? []).includes(customResourceCleanupFinalizer)) return;
    await updateStatus(name, (c) =>
      setCRDCondition(c, { type: "Terminating", status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" }),
    );
    let failure: CRDCondition | undefined;
    for (const t of typesOf(crd)) {
      let items: KObject[];
      try {
        items = (await listObjects(stores.for(t), "", everything)).items;
      } catch (e) {
        failure = { type: "Terminating", status: "True", reason: "InstanceDeletionFailed", message: `could not list instances: ${(e as Error).message}` };
        break;
      }
      const errors: string[] = [];
      for (const o of items) {
        if (o.metadata.deletionTimestamp) continue;
        await stores.for(t).delete(o.metadata.namespace ?? "", o.metadata.name!, { dryRun: false }).catch((e: Error & { reason?: string }) => {
          if (e.reason !== "NotFound") errors.push(e.message);
        });
      }
      if (errors.length > 0) {
        failure = { type: "Terminating", status: "True", reason: "InstanceDeletionFailed", message: `could not issue all deletes: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}` };
        break;
      }
      const remaining = (await listObjects(stores.for(t), "", everything)).items.length;
      if (remaining > 0) {
        failure = { type: "Terminating", status: "True", reason: "InstanceDeletionCheck", message: `could not confirm zero CustomResources remaining: timed out waiting for the condition` };
        break;
      }
    }
    if (failure) {
      await updateStatus(name, (c) => setCRDCondition(c, failure!));
      return; // the resync tries again
    }
    await updateStatus(name, (c) => {
      setCRDCondition(c, { type: "Terminating", status: "False", reason: "InstanceDeletionCompleted", message: "removed all instances" });
      return true;
    });
    // Removing the finalizer (main resource): with none left the store removes the CRD.
    await removeFinalizer(stores.for(crdType), "", name, customResourceCleanupFinalizer);
  }

  /** Those of the group still waiting for their names (one may be free now). */
  const waitingInGroupOf = (o: KObject) => {
    const group = str((o.spec as Obj)?.group);
    return crds.list().filter((c) => str((c.spec as Obj)?.group) === group && !isCRDConditionTrue(c, "NamesAccepted")).map((c) => c.metadata.name!);
  };
  const names = [on.naming && crdNamingController, on.establishing && crdEstablishingController, on.finalizer && crdFinalizerController].filter(Boolean);
  return runController({
    name: names.join(","),
    watches: [{ informer: crds, added: (o) => o.metadata.name!, updated: (_old, o) => o.metadata.name!, deleted: waitingInGroupOf }],
    reconcile: sync,
    resync: { everyMs: resyncMs, keys: () => crds.list().filter((o) => o.metadata.deletionTimestamp || !isCRDConditionTrue(o, "Established")).map((o) => o.metadata.name!) },
    onError: (name, e) => log?.(`customresourcedefinition ${name}: ${(e as Error).message}`),
    retry: false, // the resync tries again
  });
}

const sameCondition = (a: CRDCondition | undefined, b: CRDCondition) =>
  a !== undefined && a.status === b.status && (a.reason ?? "") === (b.reason ?? "") && (a.message ?? "") === (b.message ?? "");
