// What a kubelet may do to pods (upstream noderestriction admitPod, admitPodStatus,
// admitPodEviction): create mirror pods of its own static pods — bound to itself, owned by its
// Node, referring to no other API object — delete pods bound to itself, update the status of
// pods bound to itself (not their labels, not their resource claim statuses), and evict pods
// bound to itself. No other write to a pod.
import { goQuote } from "../../apimachinery/go-quote.js";
import { isMirrorPod, mirrorPodAnnotation, podConfigMapNames, podSecretNames } from "../../authz/node/references.js";
import type { KObject } from "../../apimachinery/object.js";
import { admissionForbidden } from "../certificates/forbidden.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { arr, listerNotFound, obj, type ObjectLookup, specOf, str } from "./lookup.js";

export async function admitPod(nodeName: string, a: AdmissionAttributes, lookup: ObjectLookup): Promise<void> {
  const q = goQuote(nodeName);
  switch (a.operation) {
    case "CREATE":
      return admitPodCreate(nodeName, a, lookup);
    case "DELETE": {
      const pod = await existingPod(a.namespace, a.name, lookup);
      if (str(specOf(pod).nodeName) !== nodeName) throw admissionForbidden(a, `node ${q} can only delete pods with spec.nodeName set to itself`);
      return;
    }
    default:
      throw admissionForbidden(a, `unexpected operation ${goQuote(a.operation)}, node ${q} can only create and delete mirror pods`);
  }
}

async function admitPodCreate(nodeName: string, a: AdmissionAttributes, lookup: ObjectLookup): Promise<void> {
  const q = goQuote(nodeName);
  const pod = a.object!;
  if (!isMirrorPod(pod as unknown as Record<string, unknown>)) {
    throw admissionForbidden(a, `pod does not have ${goQuote(mirrorPodAnnotation)} annotation, node ${q} can only create mirror pods`);
  }
  const spec = specOf(pod);
  if (str(spec.nodeName) !== nodeName) throw admissionForbidden(a, `node ${q} can only create pods with spec.nodeName set to itself`);
  const owners = arr(pod.metadata.ownerReferences);
  if (owners.length > 1) throw admissionForbidden(a, `node ${q} can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) throw admissionForbidden(a, `node ${q} can only create pods with an owner reference set to itself`);
  const owner = owners[0]!;
  if (owner.apiVersion !== "v1" || owner.kind !== "Node" || owner.name !== nodeName) {
    throw admissionForbidden(a, `node ${q} can only create pods with an owner reference set to itself`);
  }
  if (owner.controller !== true) throw admissionForbidden(a, `node ${q} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw admissionForbidden(a, `node ${q} must not set blockOwnerDeletion on an owner reference`);
  const node = await lookup.get("", "nodes", "", nodeName);
  if (!node) throw listerNotFound("", "node", nodeName);
  if (str(owner.uid) !== (node.metadata.uid ?? "")) {
    throw admissionForbidden(a, `node ${nodeName} UID mismatch: expected ${str(owner.uid)} got ${node.metadata.uid ?? ""}`);
  }

  // A mirror pod may not reach any other API object through the node's access to it.
  if (str(spec.serviceAccountName) !== "") throw admissionForbidden(a, `node ${q} can not create pods that reference a service account`);
  const podObj = pod as unknown as Record<string, unknown>;
  if (podSecretNames(podObj).length > 0) throw admissionForbidden(a, `node ${q} can not create pods that reference secrets`);
  if (podConfigMapNames(podObj).length > 0) throw admissionForbidden(a, `node ${q} can not create pods that reference configmaps`);
  const volumes = arr(spec.volumes);
  for (const v of volumes) {
    if (arr(obj(v.projected)?.sources).some((s) => obj(s.clusterTrustBundle))) {
      throw admissionForbidden(a, `node ${q} can not create pods that reference clustertrustbundles`);
    }
  }
  if (volumes.some((v) => obj(v.persistentVolumeClaim))) throw admissionForbidden(a, `node ${q} can not create pods that reference persistentvolumeclaims`);
}

export function admitPodStatus(nodeName: string, a: AdmissionAttributes): void {
  const q = goQuote(nodeName);
  if (a.operation !== "UPDATE") throw admissionForbidden(a, `unexpected operation ${goQuote(a.operation)}`);
  const oldPod = a.oldObject!;
  const pod = a.object!;
  if (str(specOf(oldPod).nodeName) !== nodeName) throw admissionForbidden(a, `node ${q} can only update pod status for pods with spec.nodeName set to itself`);
  if (!sameLabels(oldPod.metadata.labels, pod.metadata.labels)) throw admissionForbidden(a, `node ${q} cannot update labels through pod status`);
  if (!sameClaimStatuses(oldPod, pod)) throw admissionForbidden(a, `node ${q} cannot update resource claim statues`);
}

export async function admitPodEviction(nodeName: string, a: AdmissionAttributes, lookup: ObjectLookup): Promise<void> {
  if (a.operation !== "CREATE") throw admissionForbidden(a, `unexpected operation ${a.operation}`);
  // The pod named by the request wins over the one the Eviction body names.
  let podName = a.name;
  if (!podName) {
    podName = a.object?.metadata.name ?? "";
    if (!podName) throw admissionForbidden(a, "could not determine pod from request data");
  }
  const pod = await existingPod(a.namespace, podName, lookup);
  if (str(specOf(pod).nodeName) !== nodeName) throw admissionForbidden(a, `node ${nodeName} can only evict pods with spec.nodeName set to itself`);
}

async function existingPod(namespace: string, name: string, lookup: ObjectLookup): Promise<KObject> {
  const pod = await lookup.get("", "pods", namespace, name);
  if (!pod) throw listerNotFound("", "pod", name);
  return pod;
}

/** upstream labels.Equals: same keys and values; absent and empty are the same. */
function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => k in y && x[k] === y[k]);
}

/** Same entries, in order, by pod claim name and generated ResourceClaim name. */
function sameClaimStatuses(oldPod: KObject, pod: KObject): boolean {
  const a = arr(obj(oldPod.status)?.resourceClaimStatuses);
  const b = arr(obj(pod.status)?.resourceClaimStatuses);
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    if (x.name !== y.name) return false;
    const xn = typeof x.resourceClaimName === "string" ? x.resourceClaimName : undefined;
    const yn = typeof y.resourceClaimName === "string" ? y.resourceClaimName : undefined;
    return xn === yn;
  });
}
