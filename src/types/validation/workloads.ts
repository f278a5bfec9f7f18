// Validation of the workload kinds (upstream pkg/apis/apps/validation, pkg/apis/batch/validation,
// and the ReplicationController / PodTemplate parts of pkg/apis/core/validation).
import { labelSelectorFromObject, validateLabelSelector, type LabelSelectorObject } from "../../apimachinery/labels.js";
import { forbidden, invalid, notSupported, required, type FieldError } from "../../apimachinery/validation.js";
import { arr, child, FIELD_IMMUTABLE, immutable, isObj, nonNegative, obj, str, type Obj } from "./helpers.js";
import { deepClone, deepEqual } from "../../apimachinery/json-value.js";
import { validatePodTemplateSpec, validateReplicatedTemplate } from "./pod.js";

const templateLabels = (tpl: unknown): Record<string, string> | null => {
  const l = obj(obj(tpl).metadata).labels;
  return isObj(l) ? (l as Record<string, string>) : null;
};

/** metav1.LabelSelectorAsSelector: nil matches nothing, {} everything. */
function selectorMatches(sel: unknown, labels: Record<string, string> | null): { empty: boolean; matches: boolean } {
  try {
    const s = labelSelectorFromObject(isObj(sel) ? (sel as LabelSelectorObject) : null);
    return { empty: s.isEmpty(), matches: s.matches(labels ?? {}) };
  } catch {
    return { empty: false, matches: true };
  }
}

const selectorMismatch = "`selector` does not match template `labels`";

/** Selector required, valid and non-empty; the template must match it. */
function validateSelectorAndTemplate(spec: Obj, path: string, emptyText: string, requireSelector = true): FieldError[] {
  const errs: FieldError[] = [];
  const selPath = child(path, "selector");
  if (!isObj(spec.selector)) {
    if (requireSelector) errs.push(required(selPath, ""));
  } else {
    errs.push(...validateLabelSelector(spec.selector as LabelSelectorObject, selPath));
    if (Object.keys(obj(spec.selector.matchLabels)).length + arr(spec.selector.matchExpressions).length === 0) {
      errs.push(invalid(selPath, spec.selector, `empty selector is invalid for ${emptyText}`));
    }
  }
  return errs;
}

function templateMatch(spec: Obj, path: string): FieldError[] {
  const labels = templateLabels(spec.template);
  const m = selectorMatches(spec.selector, labels);
  if (!m.empty && !m.matches) return [invalid(child(path, "template", "metadata", "labels"), labels, selectorMismatch)];
  return [];
}

function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === "string") {
    return /^[0-9]+%$/.test(v)
      ? []
      : [invalid(path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return nonNegative(v, path);
}

const intOrPercentValue = (v: unknown): number => (typeof v === "string" ? parseInt(v, 10) || 0 : Number(v ?? 0));

function notMoreThan100(v: unknown, path: string): FieldError[] {
  return typeof v === "string" && /^[0-9]+%$/.test(v) && parseInt(v, 10) > 100 ? [invalid(path, v, "must not be greater than 100%")] : [];
}

export function validateDeployment(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs = nonNegative(spec.replicas, "spec.replicas");
  errs.push(...validateSelectorAndTemplate(spec, "spec", "deployment"));
  errs.push(...templateMatch(spec, "spec"));
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template"));
  errs.push(...validateReplicatedTemplate(spec.template, "spec.template", "ReplicaSet"));
  const st = obj(spec.strategy);
  switch (st.type) {
    case "Recreate":
      if (st.rollingUpdate !== undefined && st.rollingUpdate !== null) {
        errs.push(forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
      }
      break;
    case "RollingUpdate": {
      const ru = obj(st.rollingUpdate);
      errs.push(...validateIntOrPercent(ru.maxUnavailable, "spec.strategy.rollingUpdate.maxUnavailable"));
      errs.push(...validateIntOrPercent(ru.maxSurge, "spec.strategy.rollingUpdate.maxSurge"));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(invalid("spec.strategy.rollingUpdate.maxUnavailable", ru.maxUnavailable, "may not be 0 when `maxSurge` is 0"));
      }
      errs.push(...notMoreThan100(ru.maxUnavailable, "spec.strategy.rollingUpdate.maxUnavailable"));
      break;
    }
    default:
      errs.push(notSupported("spec.strategy", st, ["Recreate", "RollingUpdate"]));
  }
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  if (typeof spec.progressDeadlineSeconds === "number") {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, "spec.progressDeadlineSeconds"));
    if (spec.progressDeadlineSeconds <= Number(spec.minReadySeconds ?? 0)) {
      errs.push(invalid("spec.progressDeadlineSeconds", spec.progressDeadlineSeconds, "must be greater than minReadySeconds"));
    }
  }
  return errs;
}

export function validateReplicaSet(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs = nonNegative(spec.replicas, "spec.replicas");
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  errs.push(...validateSelectorAndTemplate(spec, "spec", "deployment"));
  errs.push(...templateMatch(spec, "spec"));
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template"));
  errs.push(...validateReplicatedTemplate(spec.template, "spec.template", "ReplicaSet"));
  return errs;
}

export function validateStatefulSet(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const pmp = str(spec.podManagementPolicy);
  if (pmp === "") errs.push(required("spec.podManagementPolicy", ""));
  else if (pmp !== "OrderedReady" && pmp !== "Parallel") errs.push(invalid("spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"));
  const us = obj(spec.updateStrategy);
  switch (str(us.type)) {
    case "":
      errs.push(required("spec.updateStrategy", ""));
      break;
    case "OnDelete":
      if (us.rollingUpdate !== undefined && us.rollingUpdate !== null) {
        errs.push(invalid("spec.updateStrategy.rollingUpdate", us.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case "RollingUpdate":
      errs.push(...nonNegative(obj(us.rollingUpdate).partition, "spec.updateStrategy.rollingUpdate.partition"));
      break;
    default:
      errs.push(invalid("spec.updateStrategy", us, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const ret = obj(spec.persistentVolumeClaimRetentionPolicy);
  for (const f of ["whenDeleted", "whenScaled"]) {
    const v = str(ret[f]);
    if (v !== "Retain" && v !== "Delete") errs.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ["Retain", "Delete"]));
  }
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  errs.push(...validateSelectorAndTemplate(spec, "spec", "statefulset"));
  errs.push(...templateMatch(spec, "spec"));
  const claimNames = arr(spec.volumeClaimTemplates).map((c) => str(obj(obj(c).metadata).name));
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template", claimNames));
  errs.push(...validateReplicatedTemplate(spec.template, "spec.template", "StatefulSet"));
  return errs;
}

export function validateStatefulSetUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validateStatefulSet(o);
  const mutable = ["replicas", "template", "updateStrategy", "minReadySeconds", "ordinals", "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy"];
  const strip = (s: Obj) => Object.fromEntries(Object.entries(obj(s)).filter(([k]) => !mutable.includes(k)));
  if (!deepEqual(strip(o.spec), strip(old.spec))) {
    errs.push(forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errs;
}

export function validateDaemonSet(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  if (isObj(spec.selector)) errs.push(...validateLabelSelector(spec.selector as LabelSelectorObject, "spec.selector"));
  const labels = templateLabels(spec.template);
  if (!selectorMatches(spec.selector, labels).matches) errs.push(invalid("spec.template.metadata.labels", labels, selectorMismatch));
  if (isObj(spec.selector) && Object.keys(obj(spec.selector.matchLabels)).length + arr(spec.selector.matchExpressions).length === 0) {
    errs.push(invalid("spec.selector", spec.selector, "empty selector is invalid for daemonset"));
  }
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template"));
  const tspec = obj(obj(spec.template).spec);
  if (str(tspec.restartPolicy) !== "Always") errs.push(notSupported("spec.template.spec.restartPolicy", str(tspec.restartPolicy), ["Always"]));
  if (tspec.activeDeadlineSeconds !== undefined && tspec.activeDeadlineSeconds !== null) {
    errs.push(invalid("spec.template.spec.activeDeadlineSeconds", tspec.activeDeadlineSeconds, "activeDeadlineSeconds in DaemonSet is not Supported"));
  }
  errs.push(...nonNegative(spec.minReadySeconds, "spec.minReadySeconds"));
  const us = obj(spec.updateStrategy);
  switch (str(us.type)) {
    case "OnDelete":
      break;
    case "RollingUpdate": {
      const ru = obj(us.rollingUpdate);
      errs.push(...validateIntOrPercent(ru.maxUnavailable, "spec.updateStrategy.rollingUpdate.maxUnavailable"));
      errs.push(...validateIntOrPercent(ru.maxSurge, "spec.updateStrategy.rollingUpdate.maxSurge"));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(invalid("spec.updateStrategy.rollingUpdate.maxUnavailable", ru.maxUnavailable, "cannot be 0 when maxSurge is 0"));
      }
      errs.push(...notMoreThan100(ru.maxUnavailable, "spec.updateStrategy.rollingUpdate.maxUnavailable"));
      break;
    }
    default:
      errs.push(notSupported("spec.updateStrategy", str(us.type), ["OnDelete", "RollingUpdate"]));
  }
  errs.push(...nonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit"));
  return errs;
}

/** Selectors of apps/v1 workloads never change. */
export function validateSelectorImmutable(o: Obj, old: Obj): FieldError[] {
  return immutable("spec.selector", obj(o.spec).selector, obj(old.spec).selector);
}

export function validateReplicationController(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs = nonNegative(spec.minReadySeconds, "spec.minReadySeconds");
  const sel = isObj(spec.selector) ? (spec.selector as Record<string, string>) : {};
  if (Object.keys(sel).length === 0) errs.push(required("spec.selector", ""));
  errs.push(...nonNegative(spec.replicas, "spec.replicas"));
  if (!isObj(spec.template)) {
    errs.push(required("spec.template", ""));
    return errs;
  }
  const labels = templateLabels(spec.template);
  if (Object.keys(sel).length > 0 && !Object.entries(sel).every(([k, v]) => labels?.[k] === v)) {
    errs.push(invalid("spec.template.metadata.labels", labels, selectorMismatch));
  }
  errs.push(...validatePodTemplateSpec(spec.template, "spec.template"));
  errs.push(...validateReplicatedTemplate(spec.template, "spec.template", "ReplicationController"));
  return errs;
}

export function validatePodTemplate(o: Obj): FieldError[] {
  return validatePodTemplateSpec(o.template, "template");
}

// ---- batch

const jobRestartPolicies = ["OnFailure", "Never"];

export function validateJobSpec(spec: Obj, path: string, checkSelector = true): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ["parallelism", "completions", "backoffLimit"]) errs.push(...nonNegative(spec[f], child(path, f)));
  if (typeof spec.activeDeadlineSeconds === "number" && spec.activeDeadlineSeconds <= 0) {
    errs.push(invalid(child(path, "activeDeadlineSeconds"), spec.activeDeadlineSeconds, "must be greater than 0"));
  }
  if (checkSelector) {
    if (!isObj(spec.selector)) errs.push(required(child(path, "selector"), ""));
    else errs.push(...validateLabelSelector(spec.selector as LabelSelectorObject, child(path, "selector")));
    const labels = templateLabels(spec.template);
    if (isObj(spec.selector) && !selectorMatches(spec.selector, labels).matches) {
      errs.push(invalid(child(path, "template", "metadata", "labels"), labels, selectorMismatch));
    }
  }
  const cm = str(spec.completionMode);
  if (cm && cm !== "NonIndexed" && cm !== "Indexed") errs.push(notSupported(child(path, "completionMode"), cm, ["NonIndexed", "Indexed"]));
  if (cm === "Indexed" && (spec.completions === undefined || spec.completions === null)) {
    errs.push(required(child(path, "completions"), "when completion mode is Indexed"));
  }
  errs.push(...validatePodTemplateSpec(spec.template, child(path, "template")));
  const rp = str(obj(obj(spec.template).spec).restartPolicy);
  if (!jobRestartPolicies.includes(rp)) errs.push(notSupported(child(path, "template", "spec", "restartPolicy"), rp, jobRestartPolicies));
  return errs;
}

export function validateJob(o: Obj): FieldError[] {
  const spec = obj(o.spec);
  const errs = validateJobSpec(spec, "spec");
  if (spec.manualSelector !== true) {
    const uid = str(o.metadata?.uid);
    const expected = { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
    if (!deepEqual(spec.selector, expected)) errs.push(invalid("spec.selector", spec.selector ?? null, "`selector` not auto-generated"));
  }
  return errs;
}

export function validateJobUpdate(o: Obj, old: Obj): FieldError[] {
  const errs = validateJob(o);
  const ns = obj(o.spec);
  const os = obj(old.spec);
  errs.push(...immutable("spec.selector", ns.selector, os.selector));
  // The template may change only in scheduling directives, and only while the job is suspended.
  const strip = (t: unknown, suspended: boolean) => {
    const c = deepClone(obj(t));
    if (suspended) {
      const s = obj(c.spec);
      delete s.nodeSelector;
      delete s.affinity;
      delete s.tolerations;
      delete s.schedulingGates;
      if (isObj(c.metadata)) {
        delete c.metadata.labels;
        delete c.metadata.annotations;
      }
    }
    return c;
  };
  const suspended = os.suspend === true && ns.suspend === true || (os.suspend === true && !isObj(old.status?.startTime));
  if (!deepEqual(strip(ns.template, suspended), strip(os.template, suspended))) errs.push(invalid("spec.template", ns.template, FIELD_IMMUTABLE));
  errs.push(...immutable("spec.completionMode", ns.completionMode, os.completionMode));
  errs.push(...immutable("spec.podFailurePolicy", ns.podFailurePolicy, os.podFailurePolicy));
  errs.push(...immutable("spec.backoffLimitPerIndex", ns.backoffLimitPerIndex, os.backoffLimitPerIndex));
  if (ns.completionMode !== "Indexed") errs.push(...immutable("spec.completions", ns.completions, os.completions));
  return errs;
}

const cronMacros = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];

/** Enough of robfig/cron's standard parser to reject what it rejects with its messages. */
function cronError(schedule: string): string | undefined {
  let s = schedule.trim();
  if (s.startsWith("TZ=") || s.startsWith("CRON_TZ=")) return undefined;
  if (s.startsWith("@")) {
    if (cronMacros.includes(s) || s.startsWith("@every ")) return undefined;
    return `unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`;
  s = "";
  return undefined;
}

export function validateCronJob(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(o.metadata?.name);
  if (name.length > 52) errs.push(invalid("metadata.name", name, "must be no more than 52 characters"));
  const spec = obj(o.spec);
  const schedule = str(spec.schedule);
  if (schedule === "") errs.push(required("spec.schedule", ""));
  else {
    const e = cronError(schedule);
    if (e) errs.push(invalid("spec.schedule", schedule, e));
  }
  const cp = str(spec.concurrencyPolicy);
  if (cp === "") errs.push(required("spec.concurrencyPolicy", ""));
  else if (!["Allow", "Forbid", "Replace"].includes(cp)) errs.push(notSupported("spec.concurrencyPolicy", cp, ["Allow", "Forbid", "Replace"]));
  errs.push(...nonNegative(spec.startingDeadlineSeconds, "spec.startingDeadlineSeconds"));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, "spec.successfulJobsHistoryLimit"));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, "spec.failedJobsHistoryLimit"));
  const jt = obj(spec.jobTemplate);
  errs.push(...validateJobSpec(obj(jt.spec), "spec.jobTemplate.spec", false));
  return errs;
}
