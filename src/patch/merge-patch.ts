/**
 * RFC 7386 JSON Merge Patch (`application/merge-patch+json`), also the fallback semantics the
 * strategic merge patch uses where no schema is known.
 *
 * Upstream (kube-apiserver 1.34 via evanphx/json-patch v4 MergePatch): a patch that is `null` or
 * a scalar is rejected with 400 BadRequest "Invalid JSON Patch"; an array patch replaces the
 * document (the later decode into an object then fails). applyMergePatch itself follows the RFC
 * (any non-object patch replaces the target); the HTTP layer calls assertMergePatchDocument first.
 */
import { PatchError } from "./errors.js";
import { deepClone, deepEqual, isPlainObject as isObject } from "../apimachinery/json-value.js";
import type { JsonObject } from "./json.js";

/** Rejects what kube-apiserver rejects before merging: a null or scalar merge patch. */
export function assertMergePatchDocument(patch: unknown): void {
  if (!isObject(patch) && !Array.isArray(patch)) throw new PatchError("BadRequest", "Invalid JSON Patch");
}

/** RFC 7386 MergePatch(target, patch); returns a new value, inputs are never mutated. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepClone(patch);
  const out: JsonObject = isObject(doc) ? { ...doc } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else {
      // Recursing also strips nulls from objects that are new in the target, as the RFC does.
      out[key] = applyMergePatch(out[key], value);
    }
  }
  // Untouched members are shared with `doc` above; copy them so the result is independent.
  for (const key of Object.keys(out)) {
    if (!Object.prototype.hasOwnProperty.call(patch, key)) out[key] = deepClone(out[key]);
  }
  return out;
}

/**
 * Two-way merge patch: the smallest patch P with applyMergePatch(original, P) == modified.
 * Nulls inside `modified` cannot be expressed by RFC 7386 (null means delete) and are emitted as
 * deletions, as upstream's jsonmergepatch does.
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isObject(original) || !isObject(modified)) return deepClone(modified);
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!Object.prototype.hasOwnProperty.call(modified, key)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(modified)) {
    const before = original[key];
    if (!Object.prototype.hasOwnProperty.call(original, key)) {
      patch[key] = deepClone(value);
    } else if (isObject(before) && isObject(value)) {
      const sub = createMergePatch(before, value) as JsonObject;
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else if (!deepEqual(before, value)) {
      patch[key] = deepClone(value);
    }
  }
  return patch;
}
