// The customresourcedefinitions strategy (upstream pkg/registry/customresourcedefinition):
// v1 defaults, status owned by the server (storedVersions kept with the storage version),
// generation on spec changes, validation by ./crd-validation.ts, and the first DELETE marking the
// CRD Terminating with the customresourcecleanup finalizer (etcd.go's REST.Delete) so that the
// finalizer controller deletes its custom objects before the CRD goes.
import { strategy, type Strategy } from "../registry/strategy.js";
import type { KObject } from "../apimachinery/object.js";
import { validateCRD, validateCRDStatus } from "./crd-validation.js";
import { setCRDCondition } from "./crd-conditions.js";

export const customResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** SetDefaults_CustomResourceDefinitionSpec and SetDefaults_ServiceReference of apiextensions/v1. */
export function defaultCRD(o: KObject): void {
  if (!isObj(o.spec)) return;
  const spec = o.spec as Obj;
  const names = isObj(spec.names) ? spec.names : undefined;
  if (names) {
    const kind = typeof names.kind === "string" ? names.kind : "";
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind !== "") names.listKind = kind + "List";
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: "None" };
  const svc = spec.conversion?.webhook?.clientConfig?.service;
  if (isObj(svc) && svc.port === undefined) svc.port = 443;
}

/** The storage version, once added to status.storedVersions (PrepareForCreate/PrepareForUpdate). */
function addStorageVersion(o: KObject): void {
  const storage = (Array.isArray((o.spec as Obj | undefined)?.versions) ? (o.spec as Obj).versions : []).find((v: unknown) => isObj(v) && v.storage === true);
  const status = (isObj(o.status) ? o.status : (o.status = {})) as Obj;
  const stored: string[] = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (storage && typeof storage.name === "string" && !stored.includes(storage.name)) stored.push(storage.name);
  status.storedVersions = stored.length > 0 ? stored : null;
}

export const crdStrategy: Strategy = strategy({
  tracksGeneration: true,
  default: defaultCRD,
  prepareForCreate(o) {
    // A new CRD's status: no names accepted yet, the storage version stored.
    o.status = { acceptedNames: { plural: "", kind: "" } };
    addStorageVersion(o);
  },
  prepareForUpdate(o, _old, ctx) {
    if (ctx.subresource === "status") return;
    addStorageVersion(o);
  },
  // The first DELETE only marks the CRD (finalizer + Terminating); it goes once the finalizer
  // controller removed the finalizer.
  pendingFinalization: (o) => !o.metadata.deletionTimestamp,
  prepareForDelete(o) {
    const fins = o.metadata.finalizers ?? [];
    if (!fins.includes(customResourceCleanupFinalizer)) o.metadata.finalizers = [...fins, customResourceCleanupFinalizer];
    setCRDCondition(o, {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionPending",
      message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    });
  },
  validate: (o, ctx) => validateCRD(o, undefined, ctx.celTimings),
  validateUpdate: (o, old, ctx) => (ctx.subresource === "status" ? validateCRDStatus(o) : validateCRD(o, old, ctx.celTimings)),
});
