// Validation of the everyday non-workload kinds: PVC, StorageClass, PriorityClass, PDB, HPA,
// NetworkPolicy.
import { forbidden, invalid, notSupported, required, type FieldError } from "../../apimachinery/validation.js";
import { arr, FIELD_IMMUTABLE, immutable, isObj, nonNegative, obj, str, type Obj } from "./helpers.js";
import { deepClone, deepEqual } from "../../apimachinery/json-value.js";
import { compareQuantity } from "../../apimachinery/quantity.js";

const accessModes = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

export function validatePVC(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const modes = arr(spec.accessModes);
  if (modes.length === 0) errs.push(required("spec.accessModes", "at least 1 access mode is required"));
  for (const m of modes) if (!accessModes.includes(m)) errs.push(notSupported("spec.accessModes", m, accessModes));
  const storage = obj(obj(spec.resources).requests).storage;
  if (storage === undefined && !isObj(spec.dataSourceRef)) errs.push(required("spec.resources[storage]", ""));
  else if (storage !== undefined && compareQuantity(storage, "0") <= 0) {
    errs.push(invalid("spec.resources[storage]", String(storage), "must be greater than zero"));
  }
  const vm = spec.volumeMode;
  if (vm !== undefined && vm !== null && vm !== "Block" && vm !== "Filesystem") errs.push(notSupported("spec.volumeMode", vm, ["Block", "Filesystem"]));
  return errs;
}

export function validatePVCUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validatePVC(o);
  const ns = deepClone(obj(o.spec));
  const os = deepClone(obj(old.spec));
  if (!os.volumeName) os.volumeName = ns.volumeName;
  const bound = obj(o.status).phase === "Bound";
  if (bound) {
    if (isObj(ns.resources) && isObj(ns.resources.requests)) ns.resources.requests.storage = obj(obj(os.resources).requests).storage;
    ns.volumeAttributesClassName = os.volumeAttributesClassName;
  }
  if (!deepEqual(ns, os)) {
    errs.push(forbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"));
  }
  const newSize = obj(obj(obj(o.spec).resources).requests).storage;
  const oldSize = obj(obj(obj(old.spec).resources).requests).storage;
  if (newSize !== undefined && oldSize !== undefined && compareQuantity(newSize, oldSize) < 0) {
    errs.push(forbidden("spec.resources.requests.storage", "field can not be less than previous value"));
  }
  return errs;
}

export function validateStorageClass(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(o.provisioner)) errs.push(required("provisioner", ""));
  const rp = str(o.reclaimPolicy);
  if (rp !== "Delete" && rp !== "Retain") errs.push(notSupported("reclaimPolicy", rp, ["Delete", "Retain"]));
  const vbm = str(o.volumeBindingMode);
  if (vbm !== "Immediate" && vbm !== "WaitForFirstConsumer") errs.push(notSupported("volumeBindingMode", vbm, ["Immediate", "WaitForFirstConsumer"]));
  return errs;
}

export function validateStorageClassUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validateStorageClass(o);
  if (!deepEqual(o.parameters ?? {}, old.parameters ?? {})) errs.push(forbidden("parameters", "updates to parameters are forbidden."));
  if (o.provisioner !== old.provisioner) errs.push(forbidden("provisioner", "updates to provisioner are forbidden."));
  if (o.reclaimPolicy !== old.reclaimPolicy) errs.push(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  errs.push(...immutable("volumeBindingMode", o.volumeBindingMode, old.volumeBindingMode));
  return errs;
}

const systemPriorityClasses: Record<string, number> = { "system-node-critical": 2000001000, "system-cluster-critical": 2000000000 };

export function validatePriorityClass(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(o.metadata?.name);
  const value = Number(o.value ?? 0);
  if (name in systemPriorityClasses) {
    if (value !== systemPriorityClasses[name]) {
      errs.push(forbidden("metadata.name", `priority class names with 'system-' prefix are reserved`));
    }
  } else if (name.startsWith("system-")) {
    errs.push(forbidden("metadata.name", "priority class names with 'system-' prefix are reserved"));
  } else if (value > 1000000000) {
    errs.push(forbidden("value", "maximum allowed value of a user defined priority is 1000000000"));
  }
  const pp = o.preemptionPolicy;
  if (pp !== undefined && pp !== null && pp !== "Never" && pp !== "PreemptLowerPriority") {
    errs.push(notSupported("preemptionPolicy", pp, ["Never", "PreemptLowerPriority"]));
  }
  return errs;
}

export function validatePriorityClassUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validatePriorityClass(o);
  if (o.value !== old.value) errs.push(forbidden("value", "may not be changed in an update."));
  errs.push(...immutable("preemptionPolicy", o.preemptionPolicy, old.preemptionPolicy));
  return errs;
}

export function validatePDB(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.minAvailable !== null && spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    errs.push(invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const f of ["minAvailable", "maxUnavailable"]) {
    const v = spec[f];
    if (typeof v === "number") errs.push(...nonNegative(v, `spec.${f}`));
    else if (typeof v === "string") {
      if (!/^[0-9]+%$/.test(v)) {
        errs.push(invalid(`spec.${f}`, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
      } else if (parseInt(v, 10) > 100) errs.push(invalid(`spec.${f}`, v, "must not be greater than 100%"));
    }
  }
  const uhp = spec.unhealthyPodEvictionPolicy;
  if (uhp !== undefined && uhp !== null && uhp !== "AlwaysAllow" && uhp !== "IfHealthyBudget") {
    errs.push(notSupported("spec.unhealthyPodEvictionPolicy", uhp, ["AlwaysAllow", "IfHealthyBudget"]));
  }
  return errs;
}

export function validateHPA(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const ref = obj(spec.scaleTargetRef);
  if (!str(ref.kind)) errs.push(required("spec.scaleTargetRef.kind", ""));
  if (!str(ref.name)) errs.push(required("spec.scaleTargetRef.name", ""));
  const min = Number(spec.minReplicas ?? 1);
  if (min < 1) errs.push(invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
  const max = Number(spec.maxReplicas ?? 0);
  if (max < 1) errs.push(invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (max < min) errs.push(invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  return errs;
}

export function validateNetworkPolicy(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const types = arr(obj(o.spec).policyTypes);
  types.forEach((t, i) => {
    if (t !== "Ingress" && t !== "Egress") errs.push(notSupported(`spec.policyTypes[${i}]`, t, ["Egress", "Ingress"]));
  });
  if (types.length > 2) errs.push(invalid("spec.policyTypes", types, "may not specify more than two policyTypes"));
  return errs;
}

export { FIELD_IMMUTABLE };

/** A namespace's /status: the phase follows deletionTimestamp (only the server moves it). */
export function validateNamespaceStatusUpdate(o: Obj): FieldError[] {
  const phase = str(obj(o.status).phase);
  const deleting = Boolean(obj(o.metadata).deletionTimestamp);
  if (!deleting && phase !== "Active") return [invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  if (deleting && phase !== "Terminating") return [invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  return [];
}
