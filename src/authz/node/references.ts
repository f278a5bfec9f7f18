// What a pod and a persistent volume refer to, as upstream's pod and PV visitors see it
// (pkg/api/v1/pod VisitPodSecretNames / VisitPodConfigmapNames, pkg/api/v1/persistentvolume
// VisitPVSecretNames, component-helpers ephemeral.VolumeClaimName, DRA resourceclaim.Name).
import type { PodReferences } from "./graph.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v.map(obj).filter(Boolean) as Obj[]) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The annotation of a mirror pod (a static pod's API copy, created by its node). */
export const mirrorPodAnnotation = "kubernetes.io/config.mirror";

export function isMirrorPod(pod: Obj): boolean {
  const annotations = obj(obj(pod.metadata)?.annotations);
  return !!annotations && Object.prototype.hasOwnProperty.call(annotations, mirrorPodAnnotation);
}

function allContainers(spec: Obj): Obj[] {
  return [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)];
}

/** Adds non-empty names, keeping first-seen order, once each. */
class Names {
  readonly set = new Set<string>();
  add(name: unknown): void {
    const n = str(name);
    if (n) this.set.add(n);
  }
  get list(): string[] {
    return [...this.set];
  }
}

export function podSecretNames(pod: Obj): string[] {
  const spec = obj(pod.spec) ?? {};
  const out = new Names();
  for (const s of arr(spec.imagePullSecrets)) out.add(s.name);
  for (const c of allContainers(spec)) {
    for (const e of arr(c.envFrom)) out.add(obj(e.secretRef)?.name);
    for (const e of arr(c.env)) out.add(obj(obj(e.valueFrom)?.secretKeyRef)?.name);
  }
  for (const v of arr(spec.volumes)) {
    out.add(obj(v.azureFile)?.secretName);
    out.add(obj(obj(v.cephfs)?.secretRef)?.name);
    out.add(obj(obj(v.cinder)?.secretRef)?.name);
    out.add(obj(obj(v.flexVolume)?.secretRef)?.name);
    for (const p of arr(obj(v.projected)?.sources)) out.add(obj(p.secret)?.name);
    out.add(obj(obj(v.rbd)?.secretRef)?.name);
    out.add(obj(v.secret)?.secretName);
    out.add(obj(obj(v.scaleIO)?.secretRef)?.name);
    out.add(obj(obj(v.iscsi)?.secretRef)?.name);
    out.add(obj(obj(v.storageos)?.secretRef)?.name);
    out.add(obj(obj(v.csi)?.nodePublishSecretRef)?.name);
  }
  return out.list;
}

export function podConfigMapNames(pod: Obj): string[] {
  const spec = obj(pod.spec) ?? {};
  const out = new Names();
  for (const c of allContainers(spec)) {
    for (const e of arr(c.envFrom)) out.add(obj(e.configMapRef)?.name);
    for (const e of arr(c.env)) out.add(obj(obj(e.valueFrom)?.configMapKeyRef)?.name);
  }
  for (const v of arr(spec.volumes)) {
    for (const p of arr(obj(v.projected)?.sources)) out.add(obj(p.configMap)?.name);
    out.add(obj(v.configMap)?.name);
  }
  return out.list;
}

/** PVCs: persistentVolumeClaim volumes, and ephemeral volumes' claims (<pod>-<volume>). */
export function podClaimNames(pod: Obj): string[] {
  const spec = obj(pod.spec) ?? {};
  const podName = str(obj(pod.metadata)?.name);
  const out = new Names();
  for (const v of arr(spec.volumes)) {
    const pvc = obj(v.persistentVolumeClaim);
    if (pvc) out.add(pvc.claimName);
    else if (obj(v.ephemeral)) out.add(`${podName}-${str(v.name)}`);
  }
  return out.list;
}

/**
 * ResourceClaims: a claim named in the pod, or the one generated from a template as reported in
 * status.resourceClaimStatuses (none yet: no edge); and the extended-resource claim of the status.
 */
export function podResourceClaimNames(pod: Obj): string[] {
  const spec = obj(pod.spec) ?? {};
  const status = obj(pod.status) ?? {};
  const statuses = arr(status.resourceClaimStatuses);
  const out = new Names();
  for (const c of arr(spec.resourceClaims)) {
    if (str(c.resourceClaimName)) {
      out.add(c.resourceClaimName);
    } else if (str(c.resourceClaimTemplateName)) {
      const st = statuses.find((s) => str(s.name) === str(c.name));
      if (st) out.add(st.resourceClaimName);
    }
  }
  out.add(obj(status.extendedResourceClaimStatus)?.resourceClaimName);
  return out.list;
}

export function podReferences(pod: Obj): PodReferences {
  return {
    serviceAccount: str(obj(pod.spec)?.serviceAccountName),
    secrets: podSecretNames(pod),
    configMaps: podConfigMapNames(pod),
    pvcs: podClaimNames(pod),
    resourceClaims: podResourceClaimNames(pod),
  };
}

/** What decides a pod's edges beyond its (immutable) spec: a pod update that changes none of it keeps them. */
export function podEdgeKey(pod: Obj): string {
  const status = obj(pod.status) ?? {};
  const claims = arr(status.resourceClaimStatuses).map((s) => [str(s.name), typeof s.resourceClaimName === "string" ? s.resourceClaimName : null]);
  return JSON.stringify([
    str(obj(pod.spec)?.nodeName),
    str(obj(pod.metadata)?.uid),
    claims,
    str(obj(status.extendedResourceClaimStatus)?.resourceClaimName),
  ]);
}

/**
 * The secrets of a PV the kubelet reads (CSI controller publish/expand secrets are not its),
 * each in its own namespace or, when it names none, the bound claim's.
 */
export function pvKubeletSecrets(pv: Obj): { namespace: string; name: string }[] {
  const spec = obj(pv.spec) ?? {};
  const claimNs = str(obj(spec.claimRef)?.namespace) || "default";
  const out: { namespace: string; name: string }[] = [];
  const add = (ref: Obj | undefined, nsField = "namespace") => {
    const name = str(ref?.name);
    if (name) out.push({ namespace: str(ref?.[nsField]) || claimNs, name });
  };
  const azure = obj(spec.azureFile);
  if (azure && str(azure.secretName)) out.push({ namespace: str(azure.secretNamespace) || claimNs, name: str(azure.secretName) });
  add(obj(obj(spec.cephfs)?.secretRef));
  add(obj(obj(spec.cinder)?.secretRef));
  add(obj(obj(spec.flexVolume)?.secretRef));
  add(obj(obj(spec.rbd)?.secretRef));
  add(obj(obj(spec.scaleIO)?.secretRef));
  add(obj(obj(spec.iscsi)?.secretRef));
  add(obj(obj(spec.storageos)?.secretRef));
  const csi = obj(spec.csi);
  if (csi) {
    add(obj(csi.nodePublishSecretRef));
    add(obj(csi.nodeStageSecretRef));
    add(obj(csi.nodeExpandSecretRef));
  }
  return out;
}
