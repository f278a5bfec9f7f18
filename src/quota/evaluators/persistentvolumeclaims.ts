// PersistentVolumeClaims (upstream: pkg/quota/v1/evaluator/core/persistent_volume_claims.go):
// persistentvolumeclaims and requests.storage, also per storage class as
// `<class>.storageclass.storage.k8s.io/<resource>`; the VolumeAttributesClass scope. Storage is
// charged in whole bytes, at the larger of the request and what the volume was given
// (status.allocatedResources) once that is known.
import type { KObject } from "../../apimachinery/object.js";
import { cmp, integerQuantity, quantityOf, roundUpToInteger, type Quantity, type ResourceList } from "../resource-list.js";
import { requirementMatches, type ScopeRequirement } from "../scopes.js";
import { objectCountName, type Evaluator } from "./evaluator.js";

const countName = objectCountName("", "persistentvolumeclaims");
const pvcResources = ["persistentvolumeclaims", "requests.storage"];
const storageClassSuffix = ".storageclass.storage.k8s.io/";
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

type Pvc = {
  metadata: KObject["metadata"];
  spec?: { storageClassName?: string | null; volumeAttributesClassName?: string | null; resources?: { requests?: Record<string, unknown> } };
  status?: { allocatedResources?: Record<string, unknown>; currentVolumeAttributesClassName?: string | null; modifyVolumeStatus?: { targetVolumeAttributesClassName?: string } };
};

/** The claim's class: the beta annotation first, then spec.storageClassName. */
function storageClassOf(pvc: Pvc): string {
  const ann = pvc.metadata.annotations?.[betaStorageClassAnnotation];
  if (ann !== undefined) return ann;
  return pvc.spec?.storageClassName ?? "";
}

function storageUsage(pvc: Pvc): Quantity | undefined {
  const requested = quantityOf(pvc.spec?.resources?.requests?.storage);
  if (!requested) return undefined;
  let result = roundUpToInteger(requested);
  const allocated = quantityOf(pvc.status?.allocatedResources?.storage);
  if (allocated && cmp(allocated, result) > 0) result = roundUpToInteger(allocated);
  return result;
}

/** The volume attributes classes the claim names: wanted, current, and the one it is moving to. */
function volumeAttributesClasses(pvc: Pvc): Set<string> {
  const out = new Set<string>();
  for (const n of [pvc.spec?.volumeAttributesClassName, pvc.status?.currentVolumeAttributesClassName, pvc.status?.modifyVolumeStatus?.targetVolumeAttributesClassName]) {
    if (n) out.add(n);
  }
  return out;
}

function matchesScope(req: ScopeRequirement, obj: KObject): boolean {
  if (req.scopeName !== "VolumeAttributesClass") return false;
  const names = volumeAttributesClasses(obj as Pvc);
  if (req.operator === "Exists") return names.size > 0;
  if (names.size === 0) return requirementMatches(req, {});
  return [...names].some((n) => requirementMatches(req, { VolumeAttributesClass: n }));
}

export function pvcUsage(obj: KObject): ResourceList {
  const pvc = obj as Pvc;
  const out: ResourceList = new Map([
    ["persistentvolumeclaims", integerQuantity(1)],
    [countName, integerQuantity(1)],
  ]);
  const cls = storageClassOf(pvc);
  if (cls) out.set(`${cls}${storageClassSuffix}persistentvolumeclaims`, integerQuantity(1));
  const storage = storageUsage(pvc);
  if (storage) {
    out.set("requests.storage", storage);
    if (cls) out.set(`${cls}${storageClassSuffix}requests.storage`, storage);
  }
  return out;
}

/** A status write that changes what the claim is charged (allocated size, attribute classes). */
function requiresReplenish(pvc: Pvc, old: Pvc): boolean {
  const a = quantityOf(pvc.status?.allocatedResources?.storage);
  const b = quantityOf(old.status?.allocatedResources?.storage);
  if ((a === undefined) !== (b === undefined) || (a && b && cmp(a, b) !== 0)) return true;
  const x = volumeAttributesClasses(pvc);
  const y = volumeAttributesClasses(old);
  return x.size !== y.size || [...x].some((n) => !y.has(n));
}

export const pvcEvaluator: Evaluator = {
  group: "",
  resource: "persistentvolumeclaims",
  handles(r) {
    if (r.subresource === "") return r.operation === "CREATE" || r.operation === "UPDATE";
    if (r.subresource === "status" && r.operation === "UPDATE" && r.object && r.oldObject) return requiresReplenish(r.object as Pvc, r.oldObject as Pvc);
    return false;
  },
  matchingResources(items) {
    return items.filter(
      (item) => item === countName || pvcResources.includes(item) || pvcResources.some((r) => item.endsWith(storageClassSuffix + r)),
    );
  },
  matchesScope,
  constraints: () => undefined,
  usage: (obj) => pvcUsage(obj),
};
