// POST pods/<name>/binding: assigns a pod to a node (what a scheduler does). The Binding is
// admitted as a create of pods/binding; the pod itself is then updated outside the type's rules
// (its nodeName is otherwise immutable) and without admission of its own, as upstream's
// BindingREST: the store's typed `skip` option says so.
import { ApiError, badRequest, conflict, type StatusReason } from "../apimachinery/errors.js";
import { aggregateMessage, notSupported, required, type FieldError } from "../apimachinery/validation.js";
import type { KObject } from "../apimachinery/object.js";
import { storageKey } from "../registry/resource-type.js";
import { nowTimestamp } from "../apimachinery/object.js";
import type { ResourceRequest } from "./context.js";
import type { Creater, RestStorage } from "./rest/capabilities.js";
import { readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { negotiateWrite, writeResult } from "./output.js";
import { writeOptions } from "./write-options.js";
import { goQuote } from "../apimachinery/go-quote.js";

const bindingTypeMeta = { apiVersion: "v1", kind: "Binding" };

interface Binding {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  target?: { kind?: string; name?: string };
}

function validateBinding(b: Binding): FieldError[] {
  const errs: FieldError[] = [];
  const kind = b.target?.kind ?? "";
  if (kind !== "" && kind !== "Node") errs.push(notSupported("target.kind", kind, ["Node", "<empty>"]));
  if (!b.target?.name) errs.push(required("target.name", ""));
  return errs;
}

/** A Status answered for a plain (non-API) error, as upstream's handler words one. */
function unknownError(code: number, message: string): ApiError {
  return new ApiError(code, "" as StatusReason, message);
}

type Condition = { type?: string; status?: string; lastTransitionTime?: string; lastProbeTime?: string | null };

/** Sets PodScheduled=True, keeping the transition time when it already was. */
function markScheduled(pod: KObject): void {
  const status = ((pod.status ??= {}) as { conditions?: Condition[] });
  const conditions = (status.conditions ??= []);
  const existing = conditions.find((c) => c.type === "PodScheduled");
  if (existing) {
    if (existing.status !== "True") existing.lastTransitionTime = nowTimestamp();
    existing.status = "True";
  } else conditions.push({ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: nowTimestamp() });
}

/** pods/binding: created only. */
export const bindingStorage: Creater & RestStorage = {
  unservedVerb: "NotFound",
  async create(r: ResourceRequest) {
    const n = negotiateWrite(r);
    const { namespace, name } = r.info;
    const dryRun = parseDryRun(r.ex.query, "CreateOptions");
    const body = (await readObject(r, bindingTypeMeta)) as KObject & Binding;
    if ((body.metadata?.name ?? "") !== name) throw badRequest("name in URL does not match name in Binding object");
    const validate = (admitted: KObject) => {
      const errs = validateBinding(admitted as Binding);
      if (errs.length > 0) throw unknownError(500, aggregateMessage(errs));
    };
    const binding = (await r.store.create(namespace, body, writeOptions(r, { dryRun, subresource: { subresource: "binding", name, validate } }))).object as KObject & Binding;
    const node = binding.target!.name!;
    const { uid, resourceVersion, annotations, labels } = binding.metadata ?? {};
    const refuse = (why: string) => conflict({ group: "", resource: "pods/binding" }, name, why);
    // A failed precondition reads as upstream's storage error, wrapped in a 409.
    const precondition = (what: string) => conflict(r.type.gr, name, `StorageError: invalid object, Code: 4, Key: ${storageKey(r.type, namespace, name)}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ${what}`);
    // The pod's update is the binding's effect: admitted as the binding, and outside a pod
    // update's rules (its nodeName is otherwise immutable).
    const desired = (pod: KObject) => {
      if (uid && uid !== pod.metadata.uid) throw precondition(`UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid}`);
      if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) throw precondition(`ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion}`);
      const spec = (pod.spec ??= {}) as { nodeName?: string; schedulingGates?: unknown[] };
      if (pod.metadata.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
      if (spec.nodeName) throw refuse(`pod ${name} is already assigned to node ${goQuote(spec.nodeName)}`);
      if (spec.schedulingGates?.length) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
      spec.nodeName = node;
      if (annotations && Object.keys(annotations).length > 0) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
      // The Binding's labels (the node's topology labels from the PodTopologyLabels plugin) go onto the pod.
      if (r.parts.gates.enabled("PodTopologyLabelsAdmission") && labels && Object.keys(labels).length > 0) pod.metadata.labels = { ...pod.metadata.labels, ...labels };
      markScheduled(pod);
      return pod;
    };
    await r.store.update(namespace, name, { subresource: "binding", createIfMissing: false, desired }, { dryRun, skip: { admission: true, typeRules: true } });
    writeResult(r, n, 201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
  },
};
