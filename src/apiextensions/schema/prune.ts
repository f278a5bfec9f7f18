// Pruning of unknown fields (upstream pkg/apiserver/schema/pruning): fields a structural schema
// does not declare are removed in place, except below x-kubernetes-preserve-unknown-fields;
// apiVersion/kind/metadata stay at embedded-resource levels (and at the resource root).
import { additionalPropertiesOf, isObject, itemsSchema, propertyOf, type JSONSchemaProps } from "./types.js";

const metaFields = new Set(["apiVersion", "kind", "metadata"]);

interface PathTracker {
  parent: string[];
  unknown: string[];
}

function appendKey(t: PathTracker, k: string): void {
  if (t.parent.length > 0) t.parent.push(".");
  t.parent.push(k);
}
function appendIndex(t: PathTracker, i: number): void {
  t.parent.push("[", String(i), "]");
}
function recordUnknown(t: PathTracker, k: string): void {
  const l = t.parent.length;
  appendKey(t, k);
  t.unknown.push(t.parent.join(""));
  t.parent.length = l;
}

/**
 * Removes undeclared fields from `obj` in place and returns their paths sorted
 * (`spec.foo`, `spec.items[0].bar`; a metadata field at the root is not reported).
 * With isResourceRoot, the root is treated as an embedded resource (apiVersion, kind and
 * metadata are kept for the ObjectMeta handling).
 */
export function prune(obj: unknown, schema: JSONSchemaProps | undefined, opts: { isResourceRoot: boolean }): string[] {
  let s = schema;
  if (opts.isResourceRoot) {
    s = { ...(s ?? {}), "x-kubernetes-embedded-resource": true };
  }
  const t: PathTracker = { parent: [], unknown: [] };
  pruneNode(obj, s, t);
  return t.unknown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function pruneNode(x: unknown, s: JSONSchemaProps | undefined, t: PathTracker): void {
  if (s && s["x-kubernetes-preserve-unknown-fields"] === true) {
    skipPrune(x, s, t);
    return;
  }
  const l = t.parent.length;
  if (Array.isArray(x)) {
    const items = s ? itemsSchema(s) : undefined;
    x.forEach((v, i) => {
      appendIndex(t, i);
      pruneNode(v, items, t);
      t.parent.length = l;
    });
    return;
  }
  if (!isObject(x)) return;
  if (s === undefined) {
    for (const k of Object.keys(x)) {
      recordUnknown(t, k);
      delete x[k];
    }
    return;
  }
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  const ap = additionalPropertiesOf(s);
  for (const k of Object.keys(x)) {
    if (embedded && metaFields.has(k)) continue;
    const prop = propertyOf(s, k);
    if (prop !== undefined) {
      appendKey(t, k);
      pruneNode(x[k], prop, t);
      t.parent.length = l;
    } else if (ap) {
      appendKey(t, k);
      pruneNode(x[k], ap.schema, t);
      t.parent.length = l;
    } else {
      if (!metaFields.has(k) || t.parent.length > 0) recordUnknown(t, k);
      delete x[k];
    }
  }
}

function skipPrune(x: unknown, s: JSONSchemaProps | undefined, t: PathTracker): void {
  if (s === undefined) return;
  const l = t.parent.length;
  if (Array.isArray(x)) {
    const items = itemsSchema(s);
    x.forEach((v, i) => {
      appendIndex(t, i);
      skipPrune(v, items, t);
      t.parent.length = l;
    });
    return;
  }
  if (!isObject(x)) return;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  const ap = additionalPropertiesOf(s);
  for (const k of Object.keys(x)) {
    if (embedded && metaFields.has(k)) continue;
    const prop = propertyOf(s, k);
    if (prop !== undefined) {
      appendKey(t, k);
      pruneNode(x[k], prop, t);
      t.parent.length = l;
    } else if (ap) {
      appendKey(t, k);
      pruneNode(x[k], ap.schema, t);
      t.parent.length = l;
    }
  }
}
