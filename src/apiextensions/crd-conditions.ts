// CRD status conditions (upstream apiextensions helpers SetCRDCondition / FindCRDCondition).
import type { KObject } from "../apimachinery/object.js";

export interface CRDCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

export function findCRDCondition(crd: KObject | undefined, type: string): CRDCondition | undefined {
  const conds = (crd?.status as { conditions?: CRDCondition[] } | undefined)?.conditions;
  return Array.isArray(conds) ? conds.find((c) => c?.type === type) : undefined;
}

export function isCRDConditionTrue(crd: KObject | undefined, type: string): boolean {
  return findCRDCondition(crd, type)?.status === "True";
}

/**
 * Sets a condition in place: the transition time changes only when the status does; reason and
 * message are replaced. Returns whether anything changed.
 */
export function setCRDCondition(crd: KObject, cond: CRDCondition): boolean {
  const status = ((crd.status as Record<string, unknown> | undefined) ??= {}) as { conditions?: CRDCondition[] };
  const conds = Array.isArray(status.conditions) ? status.conditions : (status.conditions = []);
  const i = conds.findIndex((c) => c?.type === cond.type);
  if (i < 0) {
    conds.push({ type: cond.type, status: cond.status, lastTransitionTime: cond.lastTransitionTime ?? now(), reason: cond.reason, message: cond.message });
    return true;
  }
  const cur = conds[i]!;
  if (cur.status === cond.status && cur.reason === cond.reason && cur.message === cond.message) return false;
  conds[i] = {
    type: cond.type,
    status: cond.status,
    lastTransitionTime: cur.status === cond.status ? cur.lastTransitionTime : cond.lastTransitionTime ?? now(),
    reason: cond.reason,
    message: cond.message,
  };
  return true;
}

export function removeCRDCondition(crd: KObject, type: string): boolean {
  const status = crd.status as { conditions?: CRDCondition[] } | undefined;
  if (!Array.isArray(status?.conditions)) return false;
  const n = status.conditions.length;
  status.conditions = status.conditions.filter((c) => c?.type !== type);
  return status.conditions.length !== n;
}
