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

/**
 * Prunes `x` against `s`. Under x-kubernetes-preserve-unknown-fields (`keep`, inherited by list
 * items) undeclared fields stay, but declared ones are still pruned below, as upstream's skipPrune.
 */
function pruneNode(x: unknown, s: JSONSchemaProps | undefined, t: PathTracker, keepUnknown = false): void {
  const keep = keepUnknown || (s !== undefined && s["x-kubernetes-preserve-unknown-fields"] === true);
  if (s === undefined && keep) return;
  const l = t.parent.length;
  if (Array.isArray(x)) {
    const items = s ? itemsSchema(s) : undefined;
    x.forEach((v, i) => {
      appendIndex(t, i);
      pruneNode(v, items, t, keep);
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
    const child = propertyOf(s, k) ?? ap?.schema;
    if (child !== undefined || ap) {
      appendKey(t, k);
      pruneNode(x[k], child, t);
      t.parent.length = l;
    } else if (!keep) {
      if (!metaFields.has(k) || t.parent.length > 0) recordUnknown(t, k);
      delete x[k];
    }
  }
}
