// What service account tokens a kubelet may request (upstream admitServiceAccount and, with
// ServiceAccountNodeAudienceRestriction (1.34: beta, on), validateNodeServiceAccountAudience):
// only tokens bound to a pod (by name and current uid) scheduled on itself, and for at most one
// audience that one of the pod's volumes uses — a projected serviceAccountToken, or a CSI driver
// (inline, through a PVC and its PV, or an in-tree volume migrated to CSI) whose CSIDriver asks
// for tokens of that audience — unless an authorizer grants it `request-serviceaccounts-token-audience`
// on that audience.
import { goQuote } from "../../apimachinery/go-quote.js";
import type { Authorizer } from "../../authz/authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import { admissionForbidden } from "../certificates/forbidden.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { arr, listerNotFound, obj, type ObjectLookup, specOf, str } from "./lookup.js";

export interface TokenChecks {
  lookup: ObjectLookup;
  authorizer: () => Authorizer;
  audienceRestriction: boolean;
}

export async function admitServiceAccount(nodeName: string, a: AdmissionAttributes, c: TokenChecks): Promise<void> {
  if (a.operation !== "CREATE" || a.subresource !== "token") return;
  const spec = specOf(a.object);
  const ref = obj(spec.boundObjectRef);
  if (!ref || ref.apiVersion !== "v1" || ref.kind !== "Pod" || !str(ref.name)) throw admissionForbidden(a, "node requested token not bound to a pod");
  if (!str(ref.uid)) throw admissionForbidden(a, "node requested token with a pod binding without a uid");
  const pod = await c.lookup.get("", "pods", a.namespace, str(ref.name));
  if (!pod) throw listerNotFound("", "pod", str(ref.name));
  if (str(ref.uid) !== pod.metadata.uid) {
    throw admissionForbidden(a, `the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (str(specOf(pod).nodeName) !== nodeName) throw admissionForbidden(a, "node requested token bound to a pod scheduled on a different node");
  // A token is bound to one object: requiring the pod binding leaves no room to spoof a node
  // binding (the server infers the node from the pod).
  if (c.audienceRestriction) await checkAudience(a, pod, c);
}

async function checkAudience(a: AdmissionAttributes, pod: KObject, c: TokenChecks): Promise<void> {
  const audiences = Array.isArray(specOf(a.object).audiences) ? (specOf(a.object).audiences as unknown[]) : [];
  if (audiences.length > 1) throw admissionForbidden(a, "node may only request 0 or 1 audiences");
  const audience = str(audiences[0]);
  let found: boolean;
  try {
    found = await podReferencesAudience(pod, audience, c.lookup);
  } catch (e) {
    throw admissionForbidden(a, `error validating audience ${goQuote(audience)}: ${(e as Error).message}`);
  }
  if (found) return;
  const user = a.user!;
  let decision: string;
  try {
    decision = (
      await c.authorizer().authorize({
        user,
        verb: "request-serviceaccounts-token-audience",
        isResourceRequest: true,
        path: "",
        namespace: a.namespace,
        apiGroup: "",
        apiVersion: "",
        resource: audience,
        subresource: "",
        name: a.name,
      })
    ).decision;
  } catch (e) {
    throw admissionForbidden(a, `error validating audience ${goQuote(audience)}: ${(e as Error).message}`);
  }
  if (decision !== "allow") {
    throw admissionForbidden(a, `audience ${goQuote(audience)} not found in pod spec volume, ${user.name} is not authorized to request tokens for this audience`);
  }
}

/**
 * In-tree volume types whose CSI migration is on in 1.34, and the CSI driver each becomes
 * (csi-translation-lib): their tokens are the CSI driver's.
 */
const migratedDrivers: Record<string, string> = {
  awsElasticBlockStore: "ebs.csi.aws.com",
  azureDisk: "disk.csi.azure.com",
  azureFile: "file.csi.azure.com",
  cinder: "cinder.csi.openstack.org",
  gcePersistentDisk: "pd.csi.storage.gke.io",
  portworxVolume: "pxd.portworx.com",
  vsphereVolume: "csi.vsphere.vmware.com",
};

function driverOf(source: Record<string, unknown>): string {
  const csi = str(obj(source.csi)?.driver);
  if (csi) return csi;
  for (const [field, driver] of Object.entries(migratedDrivers)) if (obj(source[field])) return driver;
  return "";
}

/** Projected tokens first, then inline CSI drivers, then the drivers behind the pod's claims. */
async function podReferencesAudience(pod: KObject, audience: string, lookup: ObjectLookup): Promise<boolean> {
  const volumes = arr(specOf(pod).volumes);
  for (const v of volumes) {
    for (const s of arr(obj(v.projected)?.sources)) {
      const token = obj(s.serviceAccountToken);
      if (token && str(token.audience) === audience) return true;
    }
  }
  const inline = volumes.map(driverOf).filter(Boolean);
  for (const driver of inline) if (await driverRequestsAudience(driver, audience, lookup)) return true;
  const podName = pod.metadata.name ?? "";
  const ns = pod.metadata.namespace ?? "";
  for (const v of volumes) {
    const claim = str(obj(v.persistentVolumeClaim)?.claimName) || (obj(v.ephemeral) ? `${podName}-${str(v.name)}` : "");
    if (!claim) continue;
    const pvc = await lookup.get("", "persistentvolumeclaims", ns, claim);
    if (!pvc) throw listerNotFound("", "persistentvolumeclaim", claim);
    const pvName = str(specOf(pvc).volumeName);
    if (!pvName) continue; // not bound yet: no driver
    const pv = await lookup.get("", "persistentvolumes", "", pvName);
    if (!pv) throw listerNotFound("", "persistentvolume", pvName);
    const driver = driverOf(specOf(pv));
    if (driver && (await driverRequestsAudience(driver, audience, lookup))) return true;
  }
  return false;
}

async function driverRequestsAudience(driver: string, audience: string, lookup: ObjectLookup): Promise<boolean> {
  const csiDriver = await lookup.get("storage.k8s.io", "csidrivers", "", driver);
  if (!csiDriver) throw listerNotFound("storage.k8s.io", "csidriver", driver);
  return arr(specOf(csiDriver).tokenRequests).some((t) => str(t.audience) === audience);
}
