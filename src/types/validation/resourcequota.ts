// ResourceQuota validation (upstream: pkg/apis/core/validation ValidateResourceQuota,
// ValidateResourceQuotaUpdate, ValidateResourceQuotaStatusUpdate): quota resource names,
// non-negative (and for counts, integral) quantities in spec.hard, status.hard and status.used,
// scopes valid for the resources they limit, scope selectors, and scopes that never change.
import { formatQuantity, parseQuantity } from "../../apimachinery/quantity.js";
import { invalid, isQualifiedName, required, type FieldError } from "../../apimachinery/validation.js";
import { arr, child, FIELD_IMMUTABLE, isObj, key, obj, str, type Obj } from "./helpers.js";

const standardResources = new Set([
  "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
  "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
  "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
  "services.nodeports", "services.loadbalancers",
]);
const standardQuotaResources = new Set([
  "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage", "requests.ephemeral-storage",
  "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
  "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers",
]);
const integerResources = new Set([
  "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
  "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
]);
const standardScopes = ["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity", "VolumeAttributesClass"];
const podCompute = new Set(["cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"]);
const pvcResources = new Set(["persistentvolumeclaims", "requests.storage"]);

const isHugePages = (n: string) => n.startsWith("hugepages-") || n.startsWith("requests.hugepages-");
const isStandardResourceName = (n: string) => standardResources.has(n) || isHugePages(n);
const isStandardQuotaResourceName = (n: string) => standardQuotaResources.has(n) || isHugePages(n);
const isNative = (n: string) => !n.includes("/") || n.includes("kubernetes.io/");
const isExtendedResourceName = (n: string) => !isNative(n) && !n.startsWith("requests.") && isQualifiedName(`requests.${n}`).length === 0;
const isIntegerResourceName = (n: string) => integerResources.has(n) || isExtendedResourceName(n);

function scopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case "Terminating":
    case "NotTerminating":
    case "NotBestEffort":
    case "PriorityClass":
    case "CrossNamespacePodAffinity":
      return resource === "pods" || podCompute.has(resource);
    case "BestEffort":
      return resource === "pods";
    case "VolumeAttributesClass":
      return pvcResources.has(resource);
    default:
      return true;
  }
}

function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (errs.length > 0) return errs;
  if (!name.includes("/")) {
    if (!isStandardResourceName(name)) return [invalid(path, name, "must be a standard resource type or fully qualified")];
    if (!isStandardQuotaResourceName(name)) return [invalid(path, name, "must be a standard resource for quota")];
  }
  return [];
}

function validateQuantity(name: string, value: unknown, path: string): FieldError[] {
  const q = parseQuantity(value);
  if (!q) return [invalid(path, value, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")];
  const errs: FieldError[] = [];
  if (q.n < 0n) errs.push(invalid(path, formatQuantity(value), "must be greater than or equal to 0"));
  // MilliValue() % 1000: the value in thousandths (rounded up, as MilliValue) must be whole units.
  const milli = (q.n * 1000n + q.d - 1n) / q.d;
  if (isIntegerResourceName(name) && milli % 1000n !== 0n) errs.push(invalid(path, formatQuantity(value), "must be an integer"));
  return errs;
}

function validateResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(obj(list))) {
    const p = key(path, k);
    errs.push(...validateResourceName(k, p), ...validateQuantity(k, v, p));
  }
  return errs;
}

const conflictingPairs = [
  ["BestEffort", "NotBestEffort"],
  ["Terminating", "NotTerminating"],
];

function validateScopes(spec: Obj, path: string): FieldError[] {
  const scopes = arr(spec.scopes).map(str);
  if (scopes.length === 0) return [];
  const hard = Object.keys(obj(spec.hard)).sort();
  const p = child(path, "scopes");
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!standardScopes.includes(scope)) errs.push(invalid(p, spec.scopes, "unsupported scope"));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k)) errs.push(invalid(p, spec.scopes, "unsupported scope applied to resource"));
    }
  }
  for (const pair of conflictingPairs) if (pair.every((s) => scopes.includes(s))) errs.push(invalid(p, spec.scopes, "conflicting scopes"));
  return errs;
}

function validateScopeSelector(spec: Obj, path: string): FieldError[] {
  if (!isObj(spec.scopeSelector)) return [];
  const hard = Object.keys(obj(spec.hard)).sort();
  const p = child(path, "scopeSelector", "matchExpressions");
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(spec.scopeSelector.matchExpressions).forEach((raw) => {
    const req = obj(raw);
    const scope = str(req.scopeName);
    if (!standardScopes.includes(scope)) errs.push(invalid(child(p, "scopeName"), scope, "unsupported scope"));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeValidForResource(scope, k)) errs.push(invalid(p, spec.scopeSelector, "unsupported scope applied to resource"));
    }
    if (["BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity"].includes(scope) && req.operator !== "Exists") {
      errs.push(
        invalid(
          child(p, "operator"),
          str(req.operator),
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    const values = arr(req.values);
    switch (req.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) errs.push(required(child(p, "values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length !== 0) errs.push(invalid(child(p, "values"), req.values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        break;
      default:
        errs.push(invalid(child(p, "operator"), str(req.operator), "not a valid selector operator"));
    }
    seen.add(scope);
  });
  for (const pair of conflictingPairs) if (pair.every((s) => seen.has(s))) errs.push(invalid(p, spec.scopes ?? null, "conflicting scopes"));
  return errs;
}

function validateSpec(spec: Obj): FieldError[] {
  return [...validateResourceList(spec.hard, "spec.hard"), ...validateScopes(spec, "spec"), ...validateScopeSelector(spec, "spec")];
}

function validateStatus(status: Obj): FieldError[] {
  return [...validateResourceList(status.hard, "status.hard"), ...validateResourceList(status.used, "status.used")];
}

export function validateResourceQuota(o: Obj): FieldError[] {
  return [...validateSpec(obj(o.spec)), ...validateStatus(obj(o.status))];
}

export function validateResourceQuotaUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validateSpec(obj(o.spec));
  const now = new Set(arr(obj(o.spec).scopes).map(str));
  const before = new Set(arr(obj(old.spec).scopes).map(str));
  if (now.size !== before.size || [...now].some((s) => !before.has(s))) errs.push(invalid("spec.scopes", obj(o.spec).scopes ?? null, FIELD_IMMUTABLE));
  return errs;
}

export function validateResourceQuotaStatusUpdate(o: Obj): FieldError[] {
  return validateStatus(obj(o.status));
}
