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

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
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

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as object);
  const bk = Object.keys(b as object);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual((a as any)[k], (b as any)[k])) return false;
  return true;
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}
