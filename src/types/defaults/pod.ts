// Defaults for Pods and pod templates as kube-apiserver 1.34 applies them on decode
// (core/v1 SetDefaults_* plus the declarative +default markers of the v1 types).
import { compareQuantity, formatQuantity, isZeroQuantity, parseQuantity } from "../../apimachinery/quantity.js";
import { arr, isObj, setDefault, setDefaultStr, type Obj } from "../validation/helpers.js";

/** The tag part of an image reference as upstream's parsers.ParseImageName sees it ("latest" when absent). */
export function imageTag(image: string): string {
  if (image === "") return "";
  const at = image.indexOf("@");
  const digest = at >= 0;
  const name = digest ? image.slice(0, at) : image;
  const lastSlash = name.lastIndexOf("/");
  const lastPart = name.slice(lastSlash + 1);
  const colon = lastPart.lastIndexOf(":");
  if (colon >= 0) return lastPart.slice(colon + 1);
  return digest ? "" : "latest";
}

function defaultHTTPGet(h: unknown): void {
  if (!isObj(h)) return;
  setDefaultStr(h, "path", "/");
  setDefaultStr(h, "scheme", "HTTP");
}

function defaultHandler(h: unknown): void {
  if (isObj(h)) defaultHTTPGet(h.httpGet);
}

function defaultProbe(p: unknown): void {
  if (!isObj(p)) return;
  for (const [k, v] of [["timeoutSeconds", 1], ["periodSeconds", 10], ["successThreshold", 1], ["failureThreshold", 3]] as const) {
    if (!p[k]) p[k] = v;
  }
  defaultHandler(p);
}

function defaultFieldRef(ref: unknown): void {
  if (isObj(ref)) setDefaultStr(ref, "apiVersion", "v1");
}

/** Canonical quantity strings, as a decoded resource.Quantity re-encodes. */
export function canonicalResourceList(list: unknown): void {
  if (!isObj(list)) return;
  for (const k of Object.keys(list)) {
    const v = list[k];
    if (typeof v === "string" || typeof v === "number") list[k] = formatQuantity(v);
  }
}

export function defaultContainer(c: unknown): void {
  if (!isObj(c)) return;
  if (!c.imagePullPolicy) c.imagePullPolicy = imageTag(String(c.image ?? "")) === "latest" ? "Always" : "IfNotPresent";
  setDefaultStr(c, "terminationMessagePath", "/dev/termination-log");
  setDefaultStr(c, "terminationMessagePolicy", "File");
  for (const p of arr(c.ports)) if (isObj(p)) setDefaultStr(p, "protocol", "TCP");
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) defaultProbe(c[probe]);
  if (isObj(c.lifecycle)) {
    defaultHandler(c.lifecycle.postStart);
    defaultHandler(c.lifecycle.preStop);
  }
  for (const e of arr(c.env)) if (isObj(e) && isObj(e.valueFrom)) defaultFieldRef(e.valueFrom.fieldRef);
  if (!isObj(c.resources)) c.resources = {};
  canonicalResourceList(c.resources.limits);
  canonicalResourceList(c.resources.requests);
}

const volumeSources = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
  "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi",
  "ephemeral", "image",
];

function defaultDownwardAPIItems(items: unknown): void {
  for (const it of arr(items)) if (isObj(it)) defaultFieldRef(it.fieldRef);
}

export function defaultPVCSpec(spec: unknown): void {
  if (isObj(spec)) setDefault(spec, "volumeMode", "Filesystem");
}

export function defaultVolume(v: unknown): void {
  if (!isObj(v)) return;
  if (!volumeSources.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  if (isObj(v.secret)) setDefault(v.secret, "defaultMode", 420);
  if (isObj(v.configMap)) setDefault(v.configMap, "defaultMode", 420);
  if (isObj(v.downwardAPI)) {
    setDefault(v.downwardAPI, "defaultMode", 420);
    defaultDownwardAPIItems(v.downwardAPI.items);
  }
  if (isObj(v.projected)) {
    setDefault(v.projected, "defaultMode", 420);
    for (const s of arr(v.projected.sources)) {
      if (!isObj(s)) continue;
      if (isObj(s.serviceAccountToken)) setDefault(s.serviceAccountToken, "expirationSeconds", 3600);
      if (isObj(s.downwardAPI)) defaultDownwardAPIItems(s.downwardAPI.items);
    }
  }
  if (isObj(v.hostPath)) setDefault(v.hostPath, "type", "");
  if (isObj(v.iscsi)) setDefaultStr(v.iscsi, "iscsiInterface", "default");
  if (isObj(v.rbd)) {
    setDefaultStr(v.rbd, "pool", "rbd");
    setDefaultStr(v.rbd, "user", "admin");
    setDefaultStr(v.rbd, "keyring", "/etc/ceph/keyring");
  }
  if (isObj(v.azureDisk)) {
    setDefault(v.azureDisk, "cachingMode", "ReadWrite");
    setDefault(v.azureDisk, "fsType", "ext4");
    setDefault(v.azureDisk, "readOnly", false);
    setDefault(v.azureDisk, "kind", "Shared");
  }
  if (isObj(v.scaleIO)) {
    setDefaultStr(v.scaleIO, "storageMode", "ThinProvisioned");
    setDefaultStr(v.scaleIO, "fsType", "xfs");
  }
  if (isObj(v.image) && !v.image.pullPolicy) {
    v.image.pullPolicy = imageTag(String(v.image.reference ?? "")) === "latest" ? "Always" : "IfNotPresent";
  }
  if (isObj(v.ephemeral) && isObj(v.ephemeral.volumeClaimTemplate)) defaultPVCSpec(v.ephemeral.volumeClaimTemplate.spec);
}

/** SetDefaults_PodSpec and everything nested in a PodSpec (templates get exactly this). */
export function defaultPodSpec(spec: Obj): void {
  // v1's deprecated serviceAccount twin: read when serviceAccountName is empty, always written
  // back equal to it (upstream's v1 conversion), so every served pod spec shows both.
  const account = (typeof spec.serviceAccountName === "string" && spec.serviceAccountName) || (typeof spec.serviceAccount === "string" && spec.serviceAccount) || "";
  if (account) {
    spec.serviceAccountName = account;
    spec.serviceAccount = account;
  }
  setDefaultStr(spec, "dnsPolicy", "ClusterFirst");
  setDefaultStr(spec, "restartPolicy", "Always");
  setDefault(spec, "securityContext", {});
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefaultStr(spec, "schedulerName", "default-scheduler");
  for (const c of arr(spec.initContainers)) defaultContainer(c);
  for (const c of arr(spec.containers)) defaultContainer(c);
  for (const c of arr(spec.ephemeralContainers)) defaultContainer(c);
  for (const v of arr(spec.volumes)) defaultVolume(v);
  if (isObj(spec.resources)) {
    canonicalResourceList(spec.resources.limits);
    canonicalResourceList(spec.resources.requests);
  }
}

export function defaultPodTemplateSpec(tpl: unknown): void {
  if (!isObj(tpl)) return;
  if (!isObj(tpl.spec)) tpl.spec = {};
  defaultPodSpec(tpl.spec);
}

/** SetDefaults_Pod on top of the PodSpec defaults (priority is the Priority admission plugin's). */
export function defaultPod(pod: Obj): void {
  if (!isObj(pod.spec)) pod.spec = {};
  const spec = pod.spec as Obj;
  for (const list of [spec.containers, spec.initContainers]) {
    for (const c of arr(list)) {
      if (!isObj(c) || !isObj(c.resources) || !isObj(c.resources.limits)) continue;
      const requests = isObj(c.resources.requests) ? c.resources.requests : (c.resources.requests = {});
      for (const [k, v] of Object.entries(c.resources.limits)) if (!(k in requests)) requests[k] = v;
    }
  }
  setDefault(spec, "enableServiceLinks", true);
  if (spec.hostNetwork === true) {
    for (const list of [spec.containers, spec.initContainers]) {
      for (const c of arr(list)) for (const p of arr(isObj(c) ? c.ports : undefined)) if (isObj(p) && !p.hostPort) p.hostPort = p.containerPort;
    }
  }
  defaultPodSpec(spec);
}

/** Upstream qos.GetPodQOS over cpu and memory of all (init) containers. */
export function podQOSClass(spec: Obj): "Guaranteed" | "Burstable" | "BestEffort" {
  const requests = new Map<string, string[]>();
  const limits = new Map<string, string[]>();
  let guaranteed = true;
  const add = (m: Map<string, string[]>, k: string, v: string) => m.set(k, [...(m.get(k) ?? []), v]);
  const containers = [...arr(spec.initContainers), ...arr(spec.containers)];
  for (const c of containers) {
    const res = isObj(c) && isObj(c.resources) ? c.resources : {};
    const req = isObj(res.requests) ? res.requests : {};
    const lim = isObj(res.limits) ? res.limits : {};
    for (const name of ["cpu", "memory"]) {
      if (req[name] !== undefined && !isZeroQuantity(req[name])) add(requests, name, String(req[name]));
      if (lim[name] !== undefined && !isZeroQuantity(lim[name])) add(limits, name, String(lim[name]));
    }
    if (!(lim.cpu !== undefined && !isZeroQuantity(lim.cpu) && lim.memory !== undefined && !isZeroQuantity(lim.memory))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, reqs] of requests) {
      const lims = limits.get(name);
      if (!lims || compareQuantity(sumQ(reqs), sumQ(lims)) !== 0) return "Burstable";
    }
    if (limits.size !== requests.size) return "Burstable";
    return "Guaranteed";
  }
  return "Burstable";
}

function sumQ(values: string[]): string {
  let total = 0n;
  for (const v of values) {
    const f = parseQuantity(v);
    if (f) total += (f.n * 1_000_000_000n) / f.d;
  }
  return `${total}n`;
}
