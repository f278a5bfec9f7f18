// Per-type strategy overrides for the generic store, keyed by "resource.group" (core: "resource").
// Defaults, validation and allocation for the everyday kinds grow here, one module per group.
import { strategy, type Strategy, defaultStrategy } from "../registry/strategy.js";
import type { KObject } from "../registry/object.js";

const str = (v: unknown): string => (v === undefined || v === null ? "" : String(v));

const namespaces = strategy({
  nameRule: "label",
  prepareForCreate(obj) {
    const spec = ((obj.spec as Record<string, unknown>) ??= {});
    const fin = (spec.finalizers as string[] | undefined) ?? [];
    if (!fin.includes("kubernetes")) spec.finalizers = [...fin, "kubernetes"];
    obj.status = { phase: "Active" };
  },
  prepareForUpdate(obj, old, ctx) {
    // spec.finalizers changes only through /finalize, and /finalize changes nothing else;
    // status.phase is the server's.
    const oldFinalizers = (old.spec as { finalizers?: string[] } | undefined)?.finalizers;
    if (ctx.subresource === "finalize") {
      const finalizers = (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
      obj.spec = { ...(old.spec as object), finalizers };
      obj.metadata = { ...old.metadata };
    } else if (oldFinalizers) {
      obj.spec = { ...(obj.spec as object), finalizers: oldFinalizers };
    }
    obj.status = old.status;
  },
  selectableFields: (o) => ({ "status.phase": str((o.status as any)?.phase) }),
});

const pods = strategy({
  tracksGeneration: true,
  returnDeletedObject: true,
  prepareForCreate(obj) {
    obj.status = { phase: "Pending", qosClass: "BestEffort" };
  },
  selectableFields: (o: KObject) => {
    const spec = (o.spec ?? {}) as Record<string, unknown>;
    const status = (o.status ?? {}) as Record<string, unknown>;
    return {
      "spec.nodeName": str(spec.nodeName),
      "spec.restartPolicy": str(spec.restartPolicy),
      "spec.schedulerName": str(spec.schedulerName),
      "spec.serviceAccountName": str(spec.serviceAccountName),
      "spec.hostNetwork": String(Boolean(spec.hostNetwork)),
      "status.phase": str(status.phase),
      "status.podIP": str(status.podIP),
      "status.nominatedNodeName": str(status.nominatedNodeName),
    };
  },
});

const events = strategy({
  selectableFields: (o: KObject) => {
    const io = (o.involvedObject ?? {}) as Record<string, unknown>;
    const src = (o.source ?? {}) as Record<string, unknown>;
    return {
      "involvedObject.kind": str(io.kind),
      "involvedObject.namespace": str(io.namespace),
      "involvedObject.name": str(io.name),
      "involvedObject.uid": str(io.uid),
      "involvedObject.apiVersion": str(io.apiVersion),
      "involvedObject.resourceVersion": str(io.resourceVersion),
      "involvedObject.fieldPath": str(io.fieldPath),
      reason: str(o.reason),
      reportingComponent: str(o.reportingComponent),
      source: str(src.component),
      type: str(o.type),
    };
  },
});

const secrets = strategy({
  prepareForCreate(obj) {
    if (!obj.type) obj.type = "Opaque";
  },
  selectableFields: (o) => ({ type: str(o.type) }),
});

const withSpec = strategy({ tracksGeneration: true });
const rbac = strategy({ nameRule: "path-segment" });

const overrides: Record<string, Strategy> = {
  namespaces,
  pods,
  events,
  secrets,
  services: strategy({ nameRule: "dns1035", tracksGeneration: true, returnDeletedObject: true }),
  nodes: strategy({ tracksGeneration: true, resetStatusOnCreate: false, selectableFields: (o) => ({ "spec.unschedulable": String(Boolean((o.spec as any)?.unschedulable)) }) }),
  replicationcontrollers: strategy({ tracksGeneration: true, selectableFields: (o) => ({ "status.replicas": str((o.status as any)?.replicas ?? 0) }) }),
  "replicasets.apps": strategy({ tracksGeneration: true, selectableFields: (o) => ({ "status.replicas": str((o.status as any)?.replicas ?? 0) }) }),
  "jobs.batch": strategy({ tracksGeneration: true, selectableFields: (o) => ({ "status.successful": str((o.status as any)?.succeeded ?? 0) }) }),
  "certificatesigningrequests.certificates.k8s.io": strategy({ selectableFields: (o) => ({ "spec.signerName": str((o.spec as any)?.signerName) }) }),
  "events.events.k8s.io": events,
  "roles.rbac.authorization.k8s.io": rbac,
  "clusterroles.rbac.authorization.k8s.io": rbac,
  "rolebindings.rbac.authorization.k8s.io": rbac,
  "clusterrolebindings.rbac.authorization.k8s.io": rbac,
};

// Types whose objects carry a spec that users change: generation tracks it.
const specTypes = new Set([
  "deployments.apps", "statefulsets.apps", "daemonsets.apps", "cronjobs.batch", "persistentvolumeclaims", "persistentvolumes",
  "horizontalpodautoscalers.autoscaling", "poddisruptionbudgets.policy", "ingresses.networking.k8s.io", "networkpolicies.networking.k8s.io",
  "customresourcedefinitions.apiextensions.k8s.io", "resourcequotas", "flowschemas.flowcontrol.apiserver.k8s.io",
  "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io", "validatingadmissionpolicies.admissionregistration.k8s.io",
]);

export function strategyFor(group: string, resource: string): Strategy {
  const key = group ? `${resource}.${group}` : resource;
  return overrides[key] ?? (specTypes.has(key) ? withSpec : defaultStrategy);
}
