// Reading and writing the fields a type's scale declaration names (".spec.replicas"): dot paths
// into the object, as a CRD's `subresources.scale` declares them (no indices, no wildcards).
import { labelSelectorFromObject } from "../apimachinery/labels.js";
import { isPlainObject } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { ScaleDeclaration } from "./resource-type.js";

function segments(path: string): string[] {
  return path.replace(/^\./, "").split(".").filter((s) => s !== "");
}

export function valueAt(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const s of segments(path)) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[s];
  }
  return cur;
}

/** Sets the value at `path`, creating the objects on the way (a non-object on the way is replaced). */
export function setValueAt(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = segments(path);
  let cur = obj;
  for (const s of parts.slice(0, -1)) {
    const next = cur[s];
    cur = cur[s] = isPlainObject(next) ? { ...next } : {};
  }
  cur[parts[parts.length - 1]!] = value;
}

/**
 * The selector as Scale's status.selector carries it (a string): a string is taken as it is; a
 * LabelSelector (matchLabels/matchExpressions) or a plain label map (ReplicationController's
 * spec.selector: every value a string) is written in selector syntax.
 */
export function selectorString(v: unknown): string {
  if (typeof v === "string") return v;
  if (!isPlainObject(v)) return "";
  const values = Object.values(v);
  const labelMap = values.length > 0 && values.every((x) => typeof x === "string");
  return labelSelectorFromObject((labelMap ? { matchLabels: v } : v) as never).toString();
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isInteger(v) ? v : 0;
}

/** The autoscaling/v1 Scale view of an object, from its type's scale declaration. */
export function toScale(obj: KObject, decl: ScaleDeclaration): KObject {
  const selector = decl.labelSelectorPath ? selectorString(valueAt(obj, decl.labelSelectorPath)) : "";
  const m = obj.metadata;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: count(valueAt(obj, decl.specReplicasPath)) },
    status: { replicas: count(valueAt(obj, decl.statusReplicasPath)), ...(selector ? { selector } : {}) },
  };
}
