// The shape every stored object has. Bodies are plain JSON values; types are checked at the
// edges (decode) and by the strategies, not by TypeScript classes per kind.

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [k: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function nowTimestamp(d?: Date): string {
  if (d) return d.toISOString().replace(/\.\d{3}Z$/, "Z");
  // Many writes per second share one formatted "now".
  const sec = Math.floor(Date.now() / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastStamp = new Date(sec * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  return lastStamp;
}
let lastSecond = -1;
let lastStamp = "";

// The JSON value helpers live in apimachinery; these names stay for the generic store.
export { deepClone as clone, deepEqual, isPlainObject } from "./json-value.js";
