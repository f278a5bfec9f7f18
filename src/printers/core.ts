// Printers for the core ("") API group.
import { humanDuration, parseTime } from "./duration.js";
import {
  age,
  ageColumn,
  arr,
  col,
  containerCells,
  containersColumn,
  formatLabels,
  imagesColumn,
  int,
  joinHostPort,
  loadBalancerString,
  name,
  nameColumn,
  objectKeysCount,
  selectorColumn,
  since,
  sortStrings,
  str,
} from "./helpers.js";
import { formatQuantity } from "../apimachinery/quantity.js";
import { replicaControllerColumns } from "./apps.js";
import type { Printer } from "./types.js";

// ---------------------------------------------------------------- pods

function isRestartableInit(container: any): boolean {
  return container?.restartPolicy === "Always";
}

function hasPodReadyCondition(conditions: any[]): boolean {
  return conditions.some((c) => c?.type === "Ready" && c?.status === "True");
}

function isPodInitializedTrue(conditions: any[]): boolean {
  const c = conditions.find((x) => x?.type === "Initialized");
  return c !== undefined && c.status === "True";
}

/** Millisecond timestamp of a container's last termination, or undefined. */
function lastTerminated(status: any): number | undefined {
  const t = status?.lastState?.terminated;
  return t ? parseTime(t.finishedAt) : undefined;
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (b === undefined) return a;
  if (a === undefined) return b;
  return b > a ? b : a;
}

function terminatedReason(t: any, prefix: string): string {
  if (str(t.reason) !== "") return prefix + str(t.reason);
  if (int(t.signal) !== 0) return `${prefix}Signal:${int(t.signal)}`;
  return `${prefix}ExitCode:${int(t.exitCode)}`;
}

/** READY, STATUS, RESTARTS cells of a pod, following kubectl's aggregation rules. */
export function podSummary(pod: any, now: Date): { ready: string; status: string; restarts: string } {
  const spec = pod?.spec ?? {};
  const status = pod?.status ?? {};
  const conditions = arr(status.conditions);
  const initSpecs = arr(spec.initContainers);
  const initByName = new Map<string, any>(initSpecs.map((c) => [str(c?.name), c]));

  let restarts = 0;
  let sidecarRestarts = 0;
  let total = arr(spec.containers).length + initSpecs.filter(isRestartableInit).length;
  let ready = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;

  const phase = str(status.phase);
  let reason = str(status.reason) !== "" ? str(status.reason) : phase;
  for (const c of conditions) {
    if (c?.type === "PodScheduled" && c?.reason === "SchedulingGated") reason = "SchedulingGated";
  }

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const restartable = isRestartableInit(initByName.get(str(cs?.name)));
    restarts += int(cs?.restartCount);
    lastRestart = later(lastRestart, lastTerminated(cs));
    if (restartable) {
      sidecarRestarts += int(cs?.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, lastTerminated(cs));
    }
    const terminated = cs?.state?.terminated;
    const waiting = cs?.state?.waiting;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (restartable && cs?.started === true) {
      if (cs?.ready === true) ready++;
      continue;
    }
    if (terminated) {
      reason = terminatedReason(terminated, "Init:");
    } else if (waiting && str(waiting.reason) !== "" && waiting.reason !== "PodInitializing") {
      reason = "Init:" + str(waiting.reason);
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || isPodInitializedTrue(conditions)) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    let errorReason = "";
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += int(cs?.restartCount);
      lastRestart = later(lastRestart, lastTerminated(cs));
      const waiting = cs?.state?.waiting;
      const terminated = cs?.state?.terminated;
      if (waiting && str(waiting.reason) !== "") {
        reason = str(waiting.reason);
      } else if (terminated) {
        reason = terminatedReason(terminated, "");
        if (int(terminated.exitCode) !== 0) errorReason = reason;
      } else if (cs?.ready === true && cs?.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed") {
      if (hasRunning && hasPodReadyCondition(conditions)) reason = "Running";
      else if (errorReason !== "") reason = errorReason;
      else if (hasRunning) reason = "NotReady";
    }
  }

  const deleting = parseTime(pod?.metadata?.deletionTimestamp) !== undefined;
  if (deleting && status.reason === "NodeLost") {
    reason = "Unknown";
  } else if (deleting && phase !== "Failed" && phase !== "Succeeded") {
    reason = "Terminating";
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) {
    restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`;
  }
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsText };
}

export const podPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Ready", "string", "Ready containers out of all containers in the pod."),
    col("Status", "string", "Summary of the pod's phase and container states."),
    col("Restarts", "string", "Container restarts, with the time since the most recent one."),
    ageColumn(),
    col("IP", "string", "First IP address assigned to the pod.", 1),
    col("Node", "string", "Node the pod is bound to.", 1),
    col("Nominated Node", "string", "Node nominated by preemption, if any.", 1),
    col("Readiness Gates", "string", "Readiness gates whose condition is True, out of all gates.", 1),
  ],
  cells(pod, now) {
    const s = podSummary(pod, now);
    const status = pod?.status ?? {};
    const podIPs = arr(status.podIPs);
    const podIP = (podIPs.length > 0 ? str(podIPs[0]?.ip) : str(status.podIP)) || "<none>";
    const nodeName = str(pod?.spec?.nodeName) || "<none>";
    const nominated = str(status.nominatedNodeName) || "<none>";
    const gates = arr(pod?.spec?.readinessGates);
    let readinessGates = "<none>";
    if (gates.length > 0) {
      const conditions = arr(status.conditions);
      let trueCount = 0;
      for (const gate of gates) {
        const c = conditions.find((x) => x?.type === gate?.conditionType);
        if (c && c.status === "True") trueCount++;
      }
      readinessGates = `${trueCount}/${gates.length}`;
    }
    return [name(pod), s.ready, s.status, s.restarts, age(pod, now), podIP, nodeName, nominated, readinessGates];
  },
};

// ---------------------------------------------------------------- replicationcontrollers

export const replicationControllerPrinter: Printer = {
  columns: replicaControllerColumns,
  cells(rc, now) {
    const [names, images] = containerCells(rc?.spec?.template?.spec?.containers);
    return [
      name(rc),
      typeof rc?.spec?.replicas === "number" ? int(rc.spec.replicas) : 1,
      int(rc?.status?.replicas),
      int(rc?.status?.readyReplicas),
      age(rc, now),
      names,
      images,
      formatLabels(rc?.spec?.selector),
    ];
  },
};

// ---------------------------------------------------------------- services

function serviceExternalIP(svc: any): string {
  const externalIPs = arr<string>(svc?.spec?.externalIPs).map(str);
  switch (str(svc?.spec?.type) || "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = loadBalancerString(svc?.status?.loadBalancer);
      if (externalIPs.length > 0) {
        const all = lb !== "" ? lb.split(",") : [];
        return [...all, ...externalIPs].join(",");
      }
      return lb !== "" ? lb : "<pending>";
    }
    case "ExternalName":
      return str(svc?.spec?.externalName);
    default:
      return "<unknown>";
  }
}

function servicePorts(ports: unknown): string {
  return arr(ports)
    .map((p) => {
      const protocol = str(p?.protocol) || "TCP";
      return int(p?.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${protocol}` : `${int(p?.port)}/${protocol}`;
    })
    .join(",");
}

export const servicePrinter: Printer = {
  columns: [
    nameColumn(),
    col("Type", "string", "How the service is exposed."),
    col("Cluster-IP", "string", "Virtual IP of the service inside the cluster."),
    col("External-IP", "string", "Addresses reachable from outside the cluster."),
    col("Port(s)", "string", "Exposed ports, with node ports where allocated."),
    ageColumn(),
    col("Selector", "string", "Pods receiving the service's traffic.", 1),
  ],
  cells(svc, now) {
    const clusterIPs = arr<string>(svc?.spec?.clusterIPs);
    const clusterIP = (clusterIPs.length > 0 ? str(clusterIPs[0]) : str(svc?.spec?.clusterIP)) || "<none>";
    return [
      name(svc),
      str(svc?.spec?.type) || "ClusterIP",
      clusterIP,
      serviceExternalIP(svc),
      servicePorts(svc?.spec?.ports) || "<none>",
      age(svc, now),
      formatLabels(svc?.spec?.selector),
    ];
  },
};

// ---------------------------------------------------------------- endpoints

export function formatEndpointSubsets(subsets: unknown): string {
  const list = arr(subsets);
  if (list.length === 0) return "<none>";
  const out: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ss of list) {
    const addresses = arr(ss?.addresses);
    const ports = arr(ss?.ports);
    if (ports.length === 0) {
      count += addresses.length;
      for (const a of addresses) {
        if (out.length === max) {
          more = true;
          break;
        }
        out.push(str(a?.ip));
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (out.length === max) {
          more = true;
          break;
        }
        out.push(joinHostPort(str(a?.ip), int(port?.port)));
      }
    }
  }
  const joined = out.join(",");
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsPrinter: Printer = {
  columns: [nameColumn(), col("Endpoints", "string", "Ready addresses with their ports."), ageColumn()],
  cells(ep, now) {
    return [name(ep), formatEndpointSubsets(ep?.subsets), age(ep, now)];
  },
};

// ---------------------------------------------------------------- nodes

const ROLE_PREFIX = "node-role.kubernetes.io/";
const ROLE_LABEL = "kubernetes.io/role";

export function nodeRoles(node: any): string[] {
  const roles = new Set<string>();
  const labels = node?.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith(ROLE_PREFIX)) {
      const role = k.slice(ROLE_PREFIX.length);
      if (role.length > 0) roles.add(role);
    } else if (k === ROLE_LABEL && str(v) !== "") {
      roles.add(str(v));
    }
  }
  return sortStrings([...roles]);
}

function nodeAddress(node: any, type: string): string {
  const a = arr(node?.status?.addresses).find((x) => x?.type === type);
  return a ? str(a.address) : "<none>";
}

export const nodePrinter: Printer = {
  columns: [
    nameColumn(),
    col("Status", "string", "Readiness of the node and whether it accepts new pods."),
    col("Roles", "string", "Roles taken from the node's role labels."),
    ageColumn(),
    col("Version", "string", "Kubelet version reported by the node."),
    col("Internal-IP", "string", "First internal address of the node.", 1),
    col("External-IP", "string", "First external address of the node.", 1),
    col("OS-Image", "string", "Operating system image reported by the node.", 1),
    col("Kernel-Version", "string", "Kernel version reported by the node.", 1),
    col("Container-Runtime", "string", "Container runtime and version reported by the node.", 1),
  ],
  cells(node, now) {
    let ready: any;
    for (const c of arr(node?.status?.conditions)) if (c?.type === "Ready") ready = c;
    const status: string[] = [];
    if (ready) status.push(ready.status === "True" ? "Ready" : "NotReady");
    if (status.length === 0) status.push("Unknown");
    if (node?.spec?.unschedulable === true) status.push("SchedulingDisabled");
    const info = node?.status?.nodeInfo ?? {};
    return [
      name(node),
      status.join(","),
      nodeRoles(node).join(",") || "<none>",
      age(node, now),
      str(info.kubeletVersion),
      nodeAddress(node, "InternalIP"),
      nodeAddress(node, "ExternalIP"),
      str(info.osImage) || "<unknown>",
      str(info.kernelVersion) || "<unknown>",
      str(info.containerRuntimeVersion) || "<unknown>",
    ];
  },
};

// ---------------------------------------------------------------- namespaces, configmaps, secrets, serviceaccounts

export const namespacePrinter: Printer = {
  columns: [nameColumn(), col("Status", "string", "Lifecycle phase of the namespace."), ageColumn()],
  cells(ns, now) {
    return [name(ns), str(ns?.status?.phase), age(ns, now)];
  },
};

export const configMapPrinter: Printer = {
  columns: [nameColumn(), col("Data", "string", "Number of data and binaryData entries."), ageColumn()],
  cells(cm, now) {
    return [name(cm), objectKeysCount(cm?.data) + objectKeysCount(cm?.binaryData), age(cm, now)];
  },
};

export const secretPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Type", "string", "Kind of secret, used for programmatic handling."),
    col("Data", "string", "Number of data entries."),
    ageColumn(),
  ],
  cells(secret, now) {
    return [name(secret), str(secret?.type), objectKeysCount(secret?.data), age(secret, now)];
  },
};

export const serviceAccountPrinter: Printer = {
  columns: [nameColumn(), ageColumn()],
  cells(sa, now) {
    return [name(sa), age(sa, now)];
  },
};

// ---------------------------------------------------------------- events (core/v1 shape)

/** Fields of an event after conversion to the shape the printer works on. */
export interface EventView {
  name: string;
  type: string;
  reason: string;
  message: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  series?: { count: number; lastObservedTime: unknown };
  involvedObject: { kind: string; name: string; fieldPath: string };
  source: { component: string; host: string };
  reportingController: string;
  reportingInstance: string;
}

export const eventColumns = [
  col("Last Seen", "string", "Time since the event was last observed."),
  col("Type", "string", "Event type (Normal or Warning)."),
  col("Reason", "string", "Short machine-readable reason."),
  col("Object", "string", "Object the event is about."),
  col("Subobject", "string", "Part of the object the event is about.", 1),
  col("Source", "string", "Component (and host) reporting the event.", 1),
  col("Message", "string", "Human-readable description."),
  col("First Seen", "string", "Time since the event was first observed.", 1),
  col("Count", "string", "How many times the event occurred.", 1),
  col("Name", "string", "Unique name of the event object.", 1, "name"),
];

function nonEmpty(...values: string[]): string {
  return values.find((v) => v.length > 0) ?? "";
}

export function eventCells(e: EventView, now: Date): unknown[] {
  let first = since(e.firstTimestamp, now);
  if (parseTime(e.firstTimestamp) === undefined) first = since(e.eventTime, now);
  let last = since(e.lastTimestamp, now);
  if (parseTime(e.lastTimestamp) === undefined) last = first;
  let count = e.count;
  if (e.series) {
    last = since(e.series.lastObservedTime, now);
    count = e.series.count;
  } else if (count === 0) {
    count = 1;
  }
  const kind = e.involvedObject.kind.toLowerCase();
  const target = e.involvedObject.name.length > 0 ? `${kind}/${e.involvedObject.name}` : kind;
  const component = nonEmpty(e.source.component, e.reportingController);
  const instance = nonEmpty(e.source.host, e.reportingInstance);
  const source = instance.length === 0 ? component : `${component}, ${instance}`;
  return [last, e.type, e.reason, target, e.involvedObject.fieldPath, source, e.message.trim(), first, count, e.name];
}

function coreEventView(ev: any): EventView {
  const involved = ev?.involvedObject ?? {};
  return {
    name: name(ev),
    type: str(ev?.type),
    reason: str(ev?.reason),
    message: str(ev?.message),
    firstTimestamp: ev?.firstTimestamp,
    lastTimestamp: ev?.lastTimestamp,
    eventTime: ev?.eventTime,
    count: int(ev?.count),
    series: ev?.series ? { count: int(ev.series.count), lastObservedTime: ev.series.lastObservedTime } : undefined,
    involvedObject: { kind: str(involved.kind), name: str(involved.name), fieldPath: str(involved.fieldPath) },
    source: { component: str(ev?.source?.component), host: str(ev?.source?.host) },
    reportingController: str(ev?.reportingComponent),
    reportingInstance: str(ev?.reportingInstance),
  };
}

export const eventPrinter: Printer = {
  columns: eventColumns,
  cells(ev, now) {
    return eventCells(coreEventView(ev), now);
  },
};

// ---------------------------------------------------------------- persistent volumes and claims

export function accessModes(modes: unknown): string {
  const set = new Set(arr<string>(modes));
  const out: string[] = [];
  if (set.has("ReadWriteOnce")) out.push("RWO");
  if (set.has("ReadOnlyMany")) out.push("ROX");
  if (set.has("ReadWriteMany")) out.push("RWX");
  if (set.has("ReadWriteOncePod")) out.push("RWOP");
  return out.join(",");
}

const BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class";

function storageClassOf(obj: any): string {
  const annotations = obj?.metadata?.annotations ?? {};
  if (Object.prototype.hasOwnProperty.call(annotations, BETA_STORAGE_CLASS)) return str(annotations[BETA_STORAGE_CLASS]);
  return str(obj?.spec?.storageClassName);
}

function isDeleting(obj: any): boolean {
  return parseTime(obj?.metadata?.deletionTimestamp) !== undefined;
}

export const persistentVolumePrinter: Printer = {
  columns: [
    nameColumn(),
    col("Capacity", "string", "Storage capacity of the volume."),
    col("Access Modes", "string", "Ways the volume can be mounted."),
    col("Reclaim Policy", "string", "What happens to the volume when its claim is released."),
    col("Status", "string", "Lifecycle phase of the volume."),
    col("Claim", "string", "Claim bound to the volume."),
    col("StorageClass", "string", "Storage class of the volume."),
    col("VolumeAttributesClass", "string", "Volume attributes class of the volume."),
    col("Reason", "string", "Reason for a failed phase."),
    ageColumn(),
    col("VolumeMode", "string", "Filesystem or Block.", 1),
  ],
  cells(pv, now) {
    const spec = pv?.spec ?? {};
    const claim = spec.claimRef ? `${str(spec.claimRef.namespace)}/${str(spec.claimRef.name)}` : "";
    return [
      name(pv),
      formatQuantity(spec.capacity?.storage),
      accessModes(spec.accessModes),
      str(spec.persistentVolumeReclaimPolicy),
      isDeleting(pv) ? "Terminating" : str(pv?.status?.phase),
      claim,
      storageClassOf(pv),
      typeof spec.volumeAttributesClassName === "string" ? spec.volumeAttributesClassName : "<unset>",
      str(pv?.status?.reason),
      age(pv, now),
      typeof spec.volumeMode === "string" ? spec.volumeMode : "<unset>",
    ];
  },
};

export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Status", "string", "Lifecycle phase of the claim."),
    col("Volume", "string", "Volume bound to the claim."),
    col("Capacity", "string", "Actual capacity of the bound volume."),
    col("Access Modes", "string", "Access modes of the bound volume."),
    col("StorageClass", "string", "Storage class requested by the claim."),
    col("VolumeAttributesClass", "string", "Volume attributes class requested by the claim."),
    ageColumn(),
    col("VolumeMode", "string", "Filesystem or Block.", 1),
  ],
  cells(pvc, now) {
    const spec = pvc?.spec ?? {};
    const volumeName = str(spec.volumeName);
    let capacity = "";
    let modes = "";
    if (volumeName !== "") {
      modes = accessModes(pvc?.status?.accessModes);
      capacity = formatQuantity(pvc?.status?.capacity?.storage);
    }
    return [
      name(pvc),
      isDeleting(pvc) ? "Terminating" : str(pvc?.status?.phase),
      volumeName,
      capacity,
      modes,
      storageClassOf(pvc),
      typeof spec.volumeAttributesClassName === "string" ? spec.volumeAttributesClassName : "<unset>",
      age(pvc, now),
      typeof spec.volumeMode === "string" ? spec.volumeMode : "<unset>",
    ];
  },
};

// ---------------------------------------------------------------- resource quotas

export const resourceQuotaPrinter: Printer = {
  columns: [
    nameColumn(),
    col("Request", "string", "Used and hard amounts of non-limit resources."),
    col("Limit", "string", "Used and hard amounts of limits.* resources."),
    ageColumn(),
  ],
  cells(rq, now) {
    const hard = rq?.status?.hard ?? {};
    const used = rq?.status?.used ?? {};
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of sortStrings(Object.keys(hard))) {
      const pieces = resource.split(".");
      const target = pieces.length > 1 && pieces[0] === "limits" ? limits : requests;
      target.push(`${resource}: ${formatQuantity(used[resource])}/${formatQuantity(hard[resource])}`);
    }
    return [name(rq), requests.join(", "), limits.join(", "), age(rq, now)];
  },
};
