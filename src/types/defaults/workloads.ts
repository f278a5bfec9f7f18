// Defaults for the workload kinds (apps/v1, batch/v1, core/v1 ReplicationController and
// PodTemplate) and the status each starts with (what upstream's PrepareForCreate leaves,
// serialised the way a typed Go object is).
import { arr, isObj, setDefault, setDefaultStr, type Obj } from "../validation/helpers.js";
import { defaultPodTemplateSpec, defaultPVCSpec } from "./pod.js";

const spec = (o: Obj): Obj => (isObj(o.spec) ? o.spec : (o.spec = {}));

export function defaultDeployment(o: Obj): void {
  const s = spec(o);
  setDefault(s, "replicas", 1);
  const st = isObj(s.strategy) ? s.strategy : (s.strategy = {});
  setDefaultStr(st, "type", "RollingUpdate");
  if (st.type === "RollingUpdate") {
    const ru = isObj(st.rollingUpdate) ? st.rollingUpdate : (st.rollingUpdate = {});
    setDefault(ru, "maxUnavailable", "25%");
    setDefault(ru, "maxSurge", "25%");
  }
  setDefault(s, "revisionHistoryLimit", 10);
  setDefault(s, "progressDeadlineSeconds", 600);
  defaultPodTemplateSpec(s.template);
}

export function defaultReplicaSet(o: Obj): void {
  const s = spec(o);
  setDefault(s, "replicas", 1);
  defaultPodTemplateSpec(s.template);
}

export function defaultDaemonSet(o: Obj): void {
  const s = spec(o);
  const us = isObj(s.updateStrategy) ? s.updateStrategy : (s.updateStrategy = {});
  setDefaultStr(us, "type", "RollingUpdate");
  if (us.type === "RollingUpdate") {
    const ru = isObj(us.rollingUpdate) ? us.rollingUpdate : (us.rollingUpdate = {});
    setDefault(ru, "maxUnavailable", 1);
    setDefault(ru, "maxSurge", 0);
  }
  setDefault(s, "revisionHistoryLimit", 10);
  defaultPodTemplateSpec(s.template);
}

export function defaultStatefulSet(o: Obj): void {
  const s = spec(o);
  setDefaultStr(s, "podManagementPolicy", "OrderedReady");
  const us = isObj(s.updateStrategy) ? s.updateStrategy : (s.updateStrategy = {});
  if (!us.type) {
    us.type = "RollingUpdate";
    if (!isObj(us.rollingUpdate)) us.rollingUpdate = {};
  }
  if (us.type === "RollingUpdate" && isObj(us.rollingUpdate)) setDefault(us.rollingUpdate, "partition", 0);
  const ret = isObj(s.persistentVolumeClaimRetentionPolicy) ? s.persistentVolumeClaimRetentionPolicy : (s.persistentVolumeClaimRetentionPolicy = {});
  setDefaultStr(ret, "whenDeleted", "Retain");
  setDefaultStr(ret, "whenScaled", "Retain");
  setDefault(s, "replicas", 1);
  setDefault(s, "revisionHistoryLimit", 10);
  defaultPodTemplateSpec(s.template);
  for (const pvc of arr(s.volumeClaimTemplates)) {
    if (!isObj(pvc)) continue;
    if (!isObj(pvc.spec)) pvc.spec = {};
    defaultPVCSpec(pvc.spec);
    const st = isObj(pvc.status) ? pvc.status : (pvc.status = {});
    setDefaultStr(st, "phase", "Pending");
  }
}

export function defaultJobSpec(s: Obj, meta?: Obj): void {
  if ((s.completions === undefined || s.completions === null) && (s.parallelism === undefined || s.parallelism === null)) {
    s.completions = 1;
    s.parallelism = 1;
  }
  setDefault(s, "parallelism", 1);
  setDefault(s, "backoffLimit", s.backoffLimitPerIndex !== undefined && s.backoffLimitPerIndex !== null ? 2147483647 : 6);
  if (meta) {
    const tplLabels = isObj(s.template) && isObj(s.template.metadata) ? s.template.metadata.labels : undefined;
    if (isObj(tplLabels) && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = { ...tplLabels };
  }
  setDefault(s, "completionMode", "NonIndexed");
  setDefault(s, "suspend", false);
  setDefault(s, "podReplacementPolicy", isObj(s.podFailurePolicy) ? "Failed" : "TerminatingOrFailed");
  if (isObj(s.podFailurePolicy)) {
    for (const r of arr(s.podFailurePolicy.rules)) {
      for (const p of arr(isObj(r) ? r.onPodConditions : undefined)) if (isObj(p)) setDefaultStr(p, "status", "True");
    }
  }
  defaultPodTemplateSpec(s.template);
}

export function defaultJob(o: Obj): void {
  defaultJobSpec(spec(o), o.metadata as Obj);
}

export function defaultCronJob(o: Obj): void {
  const s = spec(o);
  setDefaultStr(s, "concurrencyPolicy", "Allow");
  setDefault(s, "suspend", false);
  setDefault(s, "successfulJobsHistoryLimit", 3);
  setDefault(s, "failedJobsHistoryLimit", 1);
  const jt = isObj(s.jobTemplate) ? s.jobTemplate : (s.jobTemplate = {});
  // The embedded JobSpec gets the Job defaults (not the Job's labels rule).
  defaultJobSpec(isObj(jt.spec) ? jt.spec : (jt.spec = {}));
}

export function defaultReplicationController(o: Obj): void {
  const s = spec(o);
  const tplLabels = isObj(s.template) && isObj(s.template.metadata) ? s.template.metadata.labels : undefined;
  if (isObj(tplLabels)) {
    if (!isObj(s.selector) || Object.keys(s.selector).length === 0) s.selector = { ...tplLabels };
    const meta = o.metadata as Obj;
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...tplLabels };
  }
  setDefault(s, "replicas", 1);
  defaultPodTemplateSpec(s.template);
}

export function defaultPodTemplate(o: Obj): void {
  if (!isObj(o.template)) o.template = {};
  defaultPodTemplateSpec(o.template);
}

