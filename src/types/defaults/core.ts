// Defaults for the non-workload core/v1 kinds.
import { arr, isObj, setDefault, setDefaultStr, type Obj } from "../validation/helpers.js";
import { canonicalResourceList, defaultPVCSpec } from "./pod.js";

const spec = (o: Obj): Obj => (isObj(o.spec) ? o.spec : (o.spec = {}));

/** Service types that get a node port per port. */
export const needsNodePorts = (svc: Obj): boolean => {
  const t = isObj(svc.spec) ? svc.spec.type : undefined;
  if (t === "NodePort") return true;
  return t === "LoadBalancer" && svc.spec.allocateLoadBalancerNodePorts !== false;
};

export function defaultService(o: Obj): void {
  const s = spec(o);
  setDefaultStr(s, "sessionAffinity", "None");
  if (s.sessionAffinity === "None") delete s.sessionAffinityConfig;
  if (s.sessionAffinity === "ClientIP") {
    const t = s.sessionAffinityConfig?.clientIP?.timeoutSeconds;
    if (t === undefined || t === null) s.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setDefaultStr(s, "type", "ClusterIP");
  for (const p of arr(s.ports)) {
    if (!isObj(p)) continue;
    setDefaultStr(p, "protocol", "TCP");
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
  }
  const external = s.type === "NodePort" || s.type === "LoadBalancer" || (s.type === "ClusterIP" && arr(s.externalIPs).length > 0);
  if (external) setDefaultStr(s, "externalTrafficPolicy", "Cluster");
  if ((s.internalTrafficPolicy === undefined || s.internalTrafficPolicy === null) && ["NodePort", "LoadBalancer", "ClusterIP"].includes(s.type)) {
    s.internalTrafficPolicy = "Cluster";
  }
  if (s.type === "LoadBalancer") setDefault(s, "allocateLoadBalancerNodePorts", true);
}

/** Secret: type Opaque; stringData merged into data (base64) and dropped. */
export function defaultSecret(o: Obj): void {
  setDefaultStr(o, "type", "Opaque");
  mergeStringData(o);
}

export function mergeStringData(o: Obj): void {
  if (o.stringData === undefined) return;
  if (isObj(o.stringData)) {
    const data = isObj(o.data) ? o.data : (o.data = {});
    for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v ?? ""), "utf8").toString("base64");
  }
  delete o.stringData;
}

export function defaultNamespace(o: Obj): void {
  const meta = o.metadata as Obj;
  if (typeof meta.name === "string" && meta.name.length > 0) {
    meta.labels = { ...(isObj(meta.labels) ? meta.labels : {}), "kubernetes.io/metadata.name": meta.name };
  }
  // The status is a struct upstream, so its phase is defaulted even when the body has none.
  const status = isObj(o.status) ? o.status : {};
  if (!status.phase) o.status = { ...status, phase: "Active" };
}

export function defaultPVC(o: Obj): void {
  defaultPVCSpec(spec(o));
  const res = o.spec.resources;
  if (isObj(res)) {
    canonicalResourceList(res.requests);
    canonicalResourceList(res.limits);
  }
}

export function defaultPV(o: Obj): void {
  const s = spec(o);
  setDefaultStr(s, "persistentVolumeReclaimPolicy", "Retain");
  setDefault(s, "volumeMode", "Filesystem");
  canonicalResourceList(s.capacity);
}

export function defaultNode(o: Obj): void {
  spec(o);
  const st = isObj(o.status) ? o.status : (o.status = {});
  if (!isObj(st.allocatable) && isObj(st.capacity)) st.allocatable = { ...st.capacity };
  canonicalResourceList(st.capacity);
  canonicalResourceList(st.allocatable);
  // Go zero values of the non-pointer structs in NodeStatus, as a typed object serialises.
  if (!isObj(st.daemonEndpoints)) st.daemonEndpoints = {};
  if (!isObj(st.daemonEndpoints.kubeletEndpoint)) st.daemonEndpoints.kubeletEndpoint = {};
  setDefault(st.daemonEndpoints.kubeletEndpoint, "Port", 0);
  const info = isObj(st.nodeInfo) ? st.nodeInfo : (st.nodeInfo = {});
  for (const k of ["architecture", "bootID", "containerRuntimeVersion", "kernelVersion", "kubeProxyVersion", "kubeletVersion", "machineID", "operatingSystem", "osImage", "systemUUID"]) {
    setDefault(info, k, "");
  }
}

export function defaultEndpoints(o: Obj): void {
  for (const ss of arr(o.subsets)) for (const p of arr(isObj(ss) ? ss.ports : undefined)) if (isObj(p)) setDefaultStr(p, "protocol", "TCP");
}

/** events.k8s.io/v1 Event: the zero-valued fields a typed Event always serialises. */
export function defaultEventsV1Event(o: Obj): void {
  setDefault(o, "eventTime", null);
  setDefault(o, "regarding", {});
  setDefault(o, "deprecatedSource", {});
  setDefault(o, "deprecatedFirstTimestamp", null);
  setDefault(o, "deprecatedLastTimestamp", null);
}

/** core/v1 Event: the zero-valued fields a typed Event always serialises. */
export function defaultCoreEvent(o: Obj): void {
  setDefault(o, "involvedObject", {});
  setDefault(o, "source", {});
  setDefault(o, "firstTimestamp", null);
  setDefault(o, "lastTimestamp", null);
  setDefault(o, "eventTime", null);
  setDefault(o, "reportingComponent", "");
  setDefault(o, "reportingInstance", "");
}

export function defaultLimitRange(o: Obj): void {
  for (const item of arr(spec(o).limits)) {
    if (!isObj(item) || item.type !== "Container") continue;
    const def = isObj(item.default) ? item.default : (item.default = {});
    const defReq = isObj(item.defaultRequest) ? item.defaultRequest : (item.defaultRequest = {});
    for (const [k, v] of Object.entries(isObj(item.max) ? item.max : {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
    for (const [k, v] of Object.entries(isObj(item.min) ? item.min : {})) if (!(k in defReq)) defReq[k] = v;
  }
}
