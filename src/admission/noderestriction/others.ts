// The kubelet's other writes NodeRestriction limits (upstream admitPVCStatus, admitLease,
// admitCSINode, admitResourceSlice, admitCSR): PVC status only (capacity, conditions and, with
// RecoverVolumeExpansionFailure, the allocated resources and their statuses); its own Lease in
// kube-node-lease; its own CSINode; ResourceSlices of its own node; and kubelet CSRs (client and
// serving) only for CN=system:node:<itself>.
import { goQuote } from "../../apimachinery/go-quote.js";
import { nodeLeaseNamespace } from "../../authz/node/authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import { parseCsrSubject } from "../certificates/csr-request.js";
import { admissionForbidden, semanticEqual } from "../certificates/forbidden.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { obj, specOf, str } from "./lookup.js";

export function admitPVCStatus(nodeName: string, a: AdmissionAttributes, recoveryEnabled: boolean): void {
  if (a.operation !== "UPDATE") throw admissionForbidden(a, `unexpected operation ${goQuote(a.operation)}`);
  const strip = (o: KObject) => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata as Record<string, unknown>;
    const { capacity: _c, conditions: _cd, ...status } = obj(o.status) ?? {};
    if (recoveryEnabled) {
      delete status.allocatedResourceStatuses;
      delete status.allocatedResources;
    }
    return { ...o, metadata, status };
  };
  const before = strip(a.oldObject!);
  const after = strip(a.object!);
  if (!semanticEqual(before, after)) {
    throw admissionForbidden(a, `node ${goQuote(nodeName)} is not allowed to update fields other than status.quantity and status.conditions: ${diff(before, after)}`);
  }
}

/** A short account of what differs (upstream prints a go-cmp diff, which kapi does not reproduce). */
function diff(before: unknown, after: unknown, path = ""): string {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, p: string) => {
    if (semanticEqual(x, y)) return;
    const xo = obj(x);
    const yo = obj(y);
    if (xo && yo) {
      for (const k of new Set([...Object.keys(xo), ...Object.keys(yo)])) walk(xo[k], yo[k], p ? `${p}.${k}` : k);
      return;
    }
    out.push(`${p}: ${JSON.stringify(x ?? null)} != ${JSON.stringify(y ?? null)}`);
  };
  walk(before, after, path);
  return out.join("; ");
}

export function admitLease(nodeName: string, a: AdmissionAttributes): void {
  if (a.namespace !== nodeLeaseNamespace) throw admissionForbidden(a, `can only access leases in the ${goQuote(nodeLeaseNamespace)} system namespace`);
  // On create the request may carry no name yet: the object's name is the lease's.
  const name = a.operation === "CREATE" ? (a.object?.metadata.name ?? "") : a.name;
  if (name !== nodeName) throw admissionForbidden(a, "can only access node lease with the same name as the requesting node");
}

export function admitCSINode(nodeName: string, a: AdmissionAttributes): void {
  const name = a.operation === "CREATE" ? (a.object?.metadata.name ?? "") : a.name;
  if (name !== nodeName) throw admissionForbidden(a, "can only access CSINode with the same name as the requesting node");
}

export function admitResourceSlice(nodeName: string, a: AdmissionAttributes): void {
  // The Node authorizer cannot see a create's body nor each object of a deletecollection.
  if (a.operation === "CREATE" && str(specOf(a.object).nodeName) !== nodeName) {
    throw admissionForbidden(a, "can only create ResourceSlice with the same NodeName as the requesting node");
  }
  if (a.operation === "DELETE" && str(specOf(a.oldObject).nodeName) !== nodeName) {
    throw admissionForbidden(a, "can only delete ResourceSlice with the same NodeName as the requesting node");
  }
}

const kubeletSigners = new Set(["kubernetes.io/kubelet-serving", "kubernetes.io/kube-apiserver-client-kubelet"]);

export function admitCSR(nodeName: string, a: AdmissionAttributes): void {
  if (a.operation !== "CREATE") return;
  const spec = specOf(a.object);
  if (!kubeletSigners.has(str(spec.signerName))) return;
  let commonName: string;
  try {
    commonName = parseCsrSubject(spec.request).commonName;
  } catch (e) {
    throw admissionForbidden(a, `unable to parse csr: ${(e as Error).message}`);
  }
  if (commonName !== `system:node:${nodeName}`) throw admissionForbidden(a, `can only create a node CSR with CN=system:node:${nodeName}`);
}
