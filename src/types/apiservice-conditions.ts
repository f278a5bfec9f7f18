// The Available condition of APIServices, as the aggregator's helpers set it: a changed status
// moves lastTransitionTime, a changed reason or message alone does not.
import { nowTimestamp } from "../apimachinery/object.js";

export interface APIServiceCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export function localAvailableCondition(): APIServiceCondition {
  return { type: "Available", status: "True", lastTransitionTime: nowTimestamp(), reason: "Local", message: "Local APIServices are always available" };
}

/** `conditions` with `next` set in place of the condition of its type (upstream SetAPIServiceCondition). */
export function withCondition(conditions: readonly APIServiceCondition[], next: APIServiceCondition): APIServiceCondition[] {
  const i = conditions.findIndex((c) => c.type === next.type);
  if (i < 0) return [...conditions, next];
  const old = conditions[i]!;
  const merged = { ...old, reason: next.reason, message: next.message, ...(old.status !== next.status ? { status: next.status, lastTransitionTime: next.lastTransitionTime } : {}) };
  return conditions.map((c, j) => (j === i ? merged : c));
}
