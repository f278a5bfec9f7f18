// Pod and PodSpec validation (upstream pkg/apis/core/validation: ValidatePodSpec and friends,
// ValidatePodUpdate), for the parts the everyday client meets.
import { compareQuantity, formatQuantity, parseQuantity } from "../../apimachinery/quantity.js";
import {
  duplicate,
  forbidden,
  invalid,
  isDNS1123Subdomain,
  notSupported,
  required,
  validateAnnotations,
  validateLabels,
  type FieldError,
} from "../../apimachinery/validation.js";
import { arr, child, dnsLabelErrors, index, isObj, isValidPortName, isValidPortNum, key, notFound, obj, str, type Obj } from "./helpers.js";
import { deepClone, deepEqual } from "../../apimachinery/json-value.js";

const volumeSourceKeys = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
  "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi",
  "ephemeral", "image",
];

function validateVolumeSource(v: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const present = volumeSourceKeys.filter((k) => v[k] !== undefined && v[k] !== null);
  if (present.length === 0) return [required(path, "must specify a volume type")];
  for (const k of present.slice(1)) errs.push(forbidden(child(path, k), "may not specify more than 1 volume type"));
  const src = obj(v[present[0]!]);
  const p = child(path, present[0]!);
  switch (present[0]) {
    case "hostPath":
      if (!str(src.path)) errs.push(required(child(p, "path"), ""));
      break;
    case "secret":
      if (!str(src.secretName)) errs.push(required(child(p, "secretName"), ""));
      break;
    case "configMap":
      if (!str(src.name)) errs.push(required(child(p, "name"), ""));
      break;
    case "persistentVolumeClaim":
      if (!str(src.claimName)) errs.push(required(child(p, "claimName"), ""));
      break;
    case "nfs":
      if (!str(src.server)) errs.push(required(child(p, "server"), ""));
      if (!str(src.path)) errs.push(required(child(p, "path"), ""));
      else if (!str(src.path).startsWith("/")) errs.push(invalid(child(p, "path"), src.path, "must be an absolute path"));
      break;
  }
  return errs;
}

/** Volumes: returns the errors and the names later checks can refer to. */
function validateVolumes(volumes: unknown, path: string): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(volumes).forEach((raw, i) => {
    const v = obj(raw);
    const p = index(path, i);
    const el = validateVolumeSource(v, p);
    const name = str(v.name);
    if (name === "") el.push(required(child(p, "name"), ""));
    else el.push(...dnsLabelErrors(name, child(p, "name")));
    if (names.has(name)) el.push(duplicate(child(p, "name"), name));
    if (el.length === 0) names.add(name);
    else errs.push(...el);
  });
  return { errs, names };
}

const portProtocols = ["SCTP", "TCP", "UDP"];

function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(ports).forEach((raw, i) => {
    const port = obj(raw);
    const p = index(path, i);
    const name = str(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) for (const m of msgs) errs.push(invalid(child(p, "name"), name, m));
      else if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
      else names.add(name);
    }
    const cp = Number(port.containerPort ?? 0);
    if (!cp) errs.push(required(child(p, "containerPort"), ""));
    else for (const m of isValidPortNum(cp)) errs.push(invalid(child(p, "containerPort"), cp, m));
    const hp = Number(port.hostPort ?? 0);
    if (hp) for (const m of isValidPortNum(hp)) errs.push(invalid(child(p, "hostPort"), hp, m));
    const proto = str(port.protocol);
    if (!proto) errs.push(required(child(p, "protocol"), ""));
    else if (!portProtocols.includes(proto)) errs.push(notSupported(child(p, "protocol"), proto, portProtocols));
  });
  return errs;
}

const standardContainerResources = new Set(["cpu", "memory", "ephemeral-storage"]);
const isNativeResource = (n: string) => !n.includes("/") || n.includes("kubernetes.io/");
const isExtendedResource = (n: string) => !isNativeResource(n) && !n.startsWith("requests.");

function validateResourceName(name: string, path: string): FieldError[] {
  if (name.includes("/")) return [];
  if (standardContainerResources.has(name) || name.startsWith("hugepages-")) return [];
  return [invalid(path, name, "must be a standard resource for containers")];
}

function validateQuantityValue(name: string, q: unknown, path: string): FieldError[] {
  const f = parseQuantity(q);
  if (!f) return [];
  const errs: FieldError[] = [];
  if (f.n < 0n) errs.push(invalid(path, formatQuantity(q), "must be greater than or equal to 0"));
  if (isExtendedResource(name) && f.n % f.d !== 0n) errs.push(invalid(path, formatQuantity(q), "must be an integer"));
  return errs;
}

const overcommitAllowed = (name: string) => isNativeResource(name) && !name.startsWith("hugepages-");

export function validateResources(res: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = obj(res);
  const limits = obj(r.limits);
  const requests = obj(r.requests);
  const limPath = child(path, "limits");
  const reqPath = child(path, "requests");
  for (const name of Object.keys(limits).sort()) {
    errs.push(...validateResourceName(name, key(limPath, name)), ...validateQuantityValue(name, limits[name], key(limPath, name)));
  }
  for (const name of Object.keys(requests).sort()) {
    const q = requests[name];
    errs.push(...validateResourceName(name, key(reqPath, name)), ...validateQuantityValue(name, q, key(reqPath, name)));
    if (name in limits) {
      const cmp = compareQuantity(q, limits[name]);
      if (cmp !== 0 && !overcommitAllowed(name)) {
        errs.push(invalid(reqPath, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limits[name])}`));
      } else if (cmp > 0) {
        errs.push(invalid(reqPath, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(limits[name])}`));
      }
    }
  }
  return errs;
}

const pullPolicies = ["Always", "IfNotPresent", "Never"];

function validateContainerCommon(c: Obj, volumes: Set<string>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c.name);
  if (!name) errs.push(required(child(p, "name"), ""));
  else errs.push(...dnsLabelErrors(name, child(p, "name")));
  if (!str(c.image)) errs.push(required(child(p, "image"), ""));
  const tmp = str(c.terminationMessagePolicy);
  if (!tmp) errs.push(required(child(p, "terminationMessagePolicy"), ""));
  else if (tmp !== "File" && tmp !== "FallbackToLogsOnError") {
    errs.push(notSupported(child(p, "terminationMessagePolicy"), tmp, ["File", "FallbackToLogsOnError"]));
  }
  errs.push(...validateContainerPorts(c.ports, child(p, "ports")));
  errs.push(...validateEnv(c.env, child(p, "env")));
  const mountPaths = new Set<string>();
  arr(c.volumeMounts).forEach((raw, i) => {
    const m = obj(raw);
    const mp = index(child(p, "volumeMounts"), i);
    const mname = str(m.name);
    if (!mname) errs.push(required(child(mp, "name"), ""));
    if (!volumes.has(mname)) errs.push(notFound(child(mp, "name"), mname));
    const path = str(m.mountPath);
    if (!path) errs.push(required(child(mp, "mountPath"), ""));
    if (mountPaths.has(path)) errs.push(invalid(child(mp, "mountPath"), path, "must be unique"));
    mountPaths.add(path);
  });
  const pp = str(c.imagePullPolicy);
  if (!pp) errs.push(required(child(p, "imagePullPolicy"), ""));
  else if (!pullPolicies.includes(pp)) errs.push(notSupported(child(p, "imagePullPolicy"), pp, pullPolicies));
  errs.push(...validateResources(c.resources, child(p, "resources")));
  return errs;
}

const envVarNameRe = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function validateEnv(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(env).forEach((raw, i) => {
    const e = obj(raw);
    const p = index(path, i);
    const name = str(e.name);
    if (!name) errs.push(required(child(p, "name"), ""));
    else if (!envVarNameRe.test(name)) {
      errs.push(invalid(child(p, "name"), name, "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"));
    }
  });
  return errs;
}

function validateContainers(containers: unknown, volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = arr(containers);
  if (list.length === 0) errs.push(required(path, ""));
  const names = new Set<string>();
  list.forEach((raw, i) => {
    const c = obj(raw);
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, volumes, p));
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
    else names.add(name);
  });
  return errs;
}

function validateInitContainers(containers: unknown, regular: unknown, volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>(arr(regular).map((c) => str(obj(c).name)));
  arr(containers).forEach((raw, i) => {
    const c = obj(raw);
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, volumes, p));
    const name = str(c.name);
    if (names.has(name)) errs.push(duplicate(child(p, "name"), name));
    else names.add(name);
  });
  return errs;
}

const restartPolicies = ["Always", "OnFailure", "Never"];
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];

export function validateRestartPolicy(v: unknown, path: string): FieldError[] {
  const rp = str(v);
  if (restartPolicies.includes(rp)) return [];
  if (rp === "") return [required(path, "")];
  return [notSupported(path, rp, restartPolicies)];
}

function validateTolerations(tols: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(tols).forEach((raw, i) => {
    const t = obj(raw);
    const p = index(path, i);
    const k = str(t.key);
    const op = str(t.operator);
    if (k === "" && op !== "Exists") errs.push(invalid(child(p, "operator"), op, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && str(t.effect) !== "NoExecute") {
      errs.push(invalid(child(p, "effect"), str(t.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op !== "" && op !== "Equal" && op !== "Exists") errs.push(notSupported(child(p, "operator"), op, ["Equal", "Exists"]));
    if (op === "Exists" && str(t.value) !== "") errs.push(invalid(child(p, "operator"), t, "value must be empty when `operator` is 'Exists'"));
    const eff = str(t.effect);
    if (eff !== "" && !["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(eff)) {
      errs.push(notSupported(child(p, "effect"), eff, ["NoExecute", "NoSchedule", "PreferNoSchedule"]));
    }
  });
  return errs;
}

/** Upstream ValidatePodCreate's own check: ephemeral containers come only through their subresource. */
export function validatePodCreate(specIn: unknown): FieldError[] {
  return arr(obj(specIn).ephemeralContainers).length > 0 ? [forbidden("spec.ephemeralContainers", "cannot be set on create")] : [];
}

export function validatePodSpec(specIn: unknown, path: string, extraVolumes: string[] = []): FieldError[] {
  const spec = obj(specIn);
  const { errs, names } = validateVolumes(spec.volumes, child(path, "volumes"));
  for (const v of extraVolumes) names.add(v);
  errs.push(...validateContainers(spec.containers, names, child(path, "containers")));
  errs.push(...validateInitContainers(spec.initContainers, spec.containers, names, child(path, "initContainers")));
  errs.push(...validateRestartPolicy(spec.restartPolicy, child(path, "restartPolicy")));
  const dns = str(spec.dnsPolicy);
  if (dns === "") errs.push(required(child(path, "dnsPolicy"), ""));
  else if (!dnsPolicies.includes(dns)) errs.push(notSupported(child(path, "dnsPolicy"), dns, dnsPolicies));
  errs.push(...validateLabels(isObj(spec.nodeSelector) ? spec.nodeSelector : undefined, child(path, "nodeSelector")));
  for (const f of ["serviceAccountName", "nodeName"]) {
    const v = str(spec[f]);
    if (v) for (const m of isDNS1123Subdomain(v)) errs.push(invalid(child(path, f), v, m));
  }
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    const v = Number(spec.activeDeadlineSeconds);
    if (v < 1 || v > 2147483647) errs.push(invalid(child(path, "activeDeadlineSeconds"), v, "must be between 1 and 2147483647, inclusive"));
  }
  for (const f of ["hostname", "subdomain"]) {
    const v = str(spec[f]);
    if (v) errs.push(...dnsLabelErrors(v, child(path, f)));
  }
  errs.push(...validateTolerations(spec.tolerations, child(path, "tolerations")));
  const pc = str(spec.priorityClassName);
  if (pc) for (const m of isDNS1123Subdomain(pc)) errs.push(invalid(child(path, "priorityClassName"), pc, m));
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds !== null && Number(spec.terminationGracePeriodSeconds) < 0) {
    errs.push(invalid(child(path, "terminationGracePeriodSeconds"), Number(spec.terminationGracePeriodSeconds), "must be greater than or equal to 0"));
  }
  return errs;
}

/**
 * Upstream ValidatePodTemplateSpec: the template's labels (at `<path>.labels`, upstream's path),
 * annotations, then its spec; `extraVolumes` are names that count as volumes (StatefulSet
 * claim templates).
 */
export function validatePodTemplateSpec(tpl: unknown, path: string, extraVolumes: string[] = []): FieldError[] {
  if (!isObj(tpl)) return [required(path, "")];
  const meta = obj(tpl.metadata);
  const errs = validateLabels(isObj(meta.labels) ? meta.labels : undefined, child(path, "labels"));
  errs.push(...validateAnnotations(isObj(meta.annotations) ? meta.annotations : undefined, child(path, "annotations")));
  errs.push(...validatePodSpec(obj(tpl.spec), child(path, "spec"), extraVolumes));
  return errs;
}

/** The checks a replicated workload adds to its template (ReplicaSet, Deployment, RC, DaemonSet). */
export function validateReplicatedTemplate(tpl: unknown, path: string, kindText: string): FieldError[] {
  const spec = obj(obj(tpl).spec);
  const errs: FieldError[] = [];
  if (str(spec.restartPolicy) !== "Always") errs.push(notSupported(child(path, "spec", "restartPolicy"), str(spec.restartPolicy), ["Always"]));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(child(path, "spec", "activeDeadlineSeconds"), `activeDeadlineSeconds in ${kindText} is not Supported`));
  }
  return errs;
}

export const updatablePodSpecFields = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

/** Upstream ValidatePodUpdate's spec part. */
export function validatePodSpecUpdate(newSpecIn: unknown, oldSpecIn: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const ns = obj(newSpecIn);
  const os = obj(oldSpecIn);
  for (const [f, label] of [["containers", "spec.containers"], ["initContainers", "spec.initContainers"]] as const) {
    const n = arr(ns[f]);
    const o = arr(os[f]);
    if (n.length !== o.length) return [forbidden(label, "pod updates may not add or remove containers")];
    n.forEach((c, i) => {
      if (!str(obj(c).image)) errs.push(required(child(index(label, i), "image"), ""));
    });
  }
  if (errs.length) return errs;
  if (ns.activeDeadlineSeconds !== undefined && ns.activeDeadlineSeconds !== null) {
    const v = Number(ns.activeDeadlineSeconds);
    if (v < 0 || v > 2147483647) return [invalid("spec.activeDeadlineSeconds", v, "must be between 0 and 2147483647, inclusive")];
    if (os.activeDeadlineSeconds !== undefined && os.activeDeadlineSeconds !== null && Number(os.activeDeadlineSeconds) < v) {
      return [invalid("spec.activeDeadlineSeconds", v, "must be less than or equal to previous value")];
    }
  } else if (os.activeDeadlineSeconds !== undefined && os.activeDeadlineSeconds !== null) {
    errs.push(invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"));
  }
  const munged: Obj = deepClone(ns);
  for (const f of ["containers", "initContainers"]) {
    arr(munged[f]).forEach((c, i) => {
      if (isObj(c)) c.image = obj(arr(os[f])[i]).image;
    });
  }
  munged.activeDeadlineSeconds = os.activeDeadlineSeconds;
  if (munged.activeDeadlineSeconds === undefined) delete munged.activeDeadlineSeconds;
  munged.schedulingGates = os.schedulingGates;
  if (munged.schedulingGates === undefined) delete munged.schedulingGates;
  // Tolerations: existing ones must stay (tolerationSeconds may change), new ones may be added.
  const oldTols = arr(os.tolerations);
  const newTols = arr(ns.tolerations);
  const sansSeconds = (t: unknown) => {
    const { tolerationSeconds: _s, ...rest } = obj(t);
    return rest;
  };
  const kept = oldTols.every((ot) => newTols.some((nt) => deepEqual(sansSeconds(ot), sansSeconds(nt))));
  if (!kept) errs.push(forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"));
  munged.tolerations = os.tolerations;
  if (munged.tolerations === undefined) delete munged.tolerations;
  const oldGrace = os.terminationGracePeriodSeconds;
  if (typeof oldGrace === "number" && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace;
  if (!deepEqual(munged, os)) {
    errs.push(forbidden("spec", `pod updates may not change fields other than ${updatablePodSpecFields.join(",")}\n${specDiff(os, munged)}`));
  }
  return errs;
}

/** The fields an ephemeral container may set (upstream's allow list); any other is refused. */
const ephemeralContainerFields = new Set([
  "name", "image", "command", "args", "workingDir", "env", "envFrom", "volumeMounts", "volumeDevices",
  "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty", "targetContainerName",
]);

const isZero = (v: unknown) => v === undefined || v === null || v === "" || v === false || v === 0 || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);

/** Upstream validateEphemeralContainers: container checks, unique names, a real target, the allow list. */
export function validateEphemeralContainers(specIn: unknown, path: string, volumes: Set<string>): FieldError[] {
  const spec = obj(specIn);
  const errs: FieldError[] = [];
  const others = new Set<string>([...arr(spec.containers), ...arr(spec.initContainers)].map((c) => str(obj(c).name)));
  const all = new Set(others);
  arr(spec.ephemeralContainers).forEach((raw, i) => {
    const ec = obj(raw);
    const p = index(path, i);
    errs.push(...validateContainerCommon(ec, volumes, p));
    const name = str(ec.name);
    if (all.has(name)) errs.push(duplicate(child(p, "name"), name));
    else all.add(name);
    const target = str(ec.targetContainerName);
    if (target && !others.has(target)) errs.push(notFound(child(p, "targetContainerName"), target));
    for (const [k, v] of Object.entries(ec)) {
      if (!ephemeralContainerFields.has(k) && !isZero(v)) errs.push(forbidden(child(p, k), "cannot be set for an Ephemeral Container"));
    }
    arr(ec.volumeMounts).forEach((m, j) => {
      for (const f of ["subPath", "subPathExpr"]) if (str(obj(m)[f])) errs.push(forbidden(child(index(child(p, "volumeMounts"), j), f), "cannot be set for an Ephemeral Container"));
    });
  });
  return errs;
}

/**
 * Upstream ValidatePodEphemeralContainersUpdate's own part: existing ephemeral containers stay as
 * they are (matched by name: a patch need not keep their order); new ones are validated.
 */
export function validateEphemeralContainersUpdate(newPod: Obj, oldPod: Obj): FieldError[] {
  const oldMeta = obj(oldPod.metadata);
  if (Object.hasOwn(obj(oldMeta.annotations), "kubernetes.io/config.mirror")) return [forbidden("", "static pods do not support ephemeral containers")];
  const path = "spec.ephemeralContainers";
  const byName = new Map(arr(obj(newPod.spec).ephemeralContainers).map((c) => [str(obj(c).name), c] as const));
  const errs: FieldError[] = [];
  for (const old of arr(obj(oldPod.spec).ephemeralContainers)) {
    const name = str(obj(old).name);
    const now = byName.get(name);
    if (now === undefined) errs.push(forbidden(path, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!deepEqual(old, now)) errs.push(forbidden(path, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${specDiff(old, now, "core.EphemeralContainer")}`));
  }
  const { names } = validateVolumes(obj(newPod.spec).volumes, "spec.volumes");
  errs.push(...validateEphemeralContainers(newPod.spec, path, names));
  return errs;
}

/** A short diff of two specs in the spirit of upstream's cmp.Diff text (lines "- old" / "+ new"). */
function specDiff(a: unknown, b: unknown, path = "PodSpec"): string {
  const lines: string[] = [];
  const walk = (x: unknown, y: unknown, p: string) => {
    if (deepEqual(x, y)) return;
    if (isObj(x) && isObj(y)) {
      for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])]) walk(x[k], y[k], `${p}.${k}`);
      return;
    }
    if (Array.isArray(x) && Array.isArray(y) && x.length === y.length) {
      x.forEach((_, i) => walk(x[i], y[i], `${p}[${i}]`));
      return;
    }
    lines.push(`  ${p}:`, `- \t${JSON.stringify(x ?? null)}`, `+ \t${JSON.stringify(y ?? null)}`);
  };
  walk(a, b, path);
  return lines.join("\n") + "\n";
}
