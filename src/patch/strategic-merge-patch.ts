/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for built-in types, driven by
 * the x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key markers of the OpenAPI v2
 * definitions (upstream reads the same markers from Go struct tags). Semantics follow
 * k8s.io/apimachinery/pkg/util/strategicpatch (v0.34) as applied server-side
 * (MergeParallelList and IgnoreUnmatchedNulls both on).
 *
 * Upstream behaviour kept on purpose, because clients observe it:
 * - `{"$patch":"delete"}` on an existing map leaves an empty map `{}` (upstream test "delete map
 *   from nested map"); on a map that does not exist the field stays absent.
 * - Merge-list ordering: patch items keep the patch's order, items only on the server keep
 *   theirs, and the two are interleaved using the server's order; an item that is new (not on
 *   the server) is therefore placed before the server items that follow it in the merge, which
 *   for a single new item means the front of the list. `$setElementOrder/<f>` overrides the patch
 *   order.
 * - `$retainKeys` is honoured wherever it appears (the schema's retainKeys strategy is what makes
 *   clients send it); patch fields missing from the list are rejected.
 * - Null inside new content is dropped; `null` on a field deletes it.
 * Deviations: directive keys never survive into the result (upstream leaves some for the typed
 * decoder to drop); `$patch: merge` on a map is accepted as the documented default (upstream
 * rejects it; on a list element it is still rejected); every malformed directive is a 400
 * (upstream returns some of them as a bare 500).
 */
import { PatchError } from "./errors.js";
import { deepClone, isPlainObject as isObject } from "../apimachinery/json-value.js";
import { cannotUnmarshal } from "../apimachinery/go-json.js";
import { goFormat, goTypeName, type JsonObject } from "./json.js";
import { fieldMeta, itemSchema, resolveSchema, type FieldPatchMeta, type SchemaDef, type SchemaResolver } from "./schema.js";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER = "$setElementOrder";

// mergepatch's sentinel texts; kube-apiserver answers these four with 400 BadRequest.
const ERR_PRIMITIVE_LIST = "invalid patch format of primitive list";
const ERR_RETAIN_KEYS = "invalid patch format of retainKeys";
const ERR_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list";
const ERR_BAD_JSON_DOC = "invalid JSON document";

const badRequest = (message: string): PatchError => new PatchError("BadRequest", message);
const noMergeKey = (m: unknown, key: string): PatchError =>
  badRequest(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
const badArgType = (expected: string, actual: unknown): PatchError =>
  badRequest(`expected a ${expected}, but received a ${goTypeName(actual)}`);
const badPatchType = (t: unknown, m: unknown): PatchError => badRequest(`unknown patch type: ${goFormat(t)} in map: ${goFormat(m)}`);

interface Ctx {
  resolver: SchemaResolver;
}

/**
 * Applies `patch` to `doc` (the live object) using the definition `rootRef` (e.g.
 * "io.k8s.api.apps.v1.Deployment"). Returns a new object; inputs are never mutated.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: SchemaResolver, rootRef: string): unknown {
  // kube-apiserver decodes the body into map[string]interface{}: null is an empty patch.
  if (patch === null || patch === undefined) return deepClone(doc);
  if (!isObject(patch)) {
    throw badRequest(cannotUnmarshal(patch, "map[string]interface {}"));
  }
  if (doc !== null && doc !== undefined && !isObject(doc)) throw badRequest(ERR_BAD_JSON_DOC);
  const ctx: Ctx = { resolver: schema };
  const root = resolveSchema(schema, { $ref: rootRef });
  // Work on private copies: the merge below mutates freely, like upstream's.
  return mergeMap(ctx, isObject(doc) ? deepClone(doc) : {}, deepClone(patch), root);
}

/** Merges `patch` into `original` (both private copies, mutated) and returns the result. */
function mergeMap(ctx: Ctx, original: JsonObject, patch: JsonObject, schema: SchemaDef | undefined): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === "delete") return {};
    if (directive === "replace") {
      delete patch[DIRECTIVE];
      // Merging into nothing strips the remaining directives and nulls.
      return mergeMap(ctx, {}, patch, schema);
    }
    if (directive !== "merge") throw badPatchType(directive, patch);
    delete patch[DIRECTIVE];
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(ctx, original, patch, schema);

  for (const [rawKey, patchValue] of Object.entries(patch)) {
    let key = rawKey;
    // "$deleteFromPrimitiveList/<f>": a parallel list of values to drop from list <f>.
    const isDeleteList = rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST, ERR_PRIMITIVE_LIST);

    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const meta = fieldMeta(ctx.resolver, schema, key);
    const current = Object.prototype.hasOwnProperty.call(original, key) ? original[key] : null;
    if (current === null || valueType(current) !== valueType(patchValue)) {
      // Absent, or a different shape: the patch value wins (a delete list has nothing to act on).
      if (!isDeleteList) setOrDrop(original, key, cleanNew(ctx, patchValue, meta));
      continue;
    }
    if (isObject(current)) {
      original[key] =
        meta.strategy === "replace"
          ? mergeMap(ctx, {}, patchValue as JsonObject, meta.schema)
          : mergeMap(ctx, current, patchValue as JsonObject, meta.schema);
    } else if (Array.isArray(current)) {
      original[key] =
        meta.strategy === "merge" || isDeleteList
          ? mergeSlice(ctx, current, patchValue as unknown[], meta, key, isDeleteList)
          : cleanList(ctx, patchValue as unknown[], itemSchema(ctx.resolver, meta.schema));
    } else {
      original[key] = patchValue;
    }
  }
  return original;
}

function valueType(v: unknown): string {
  return Array.isArray(v) ? "array" : v === null ? "null" : typeof v;
}

function setOrDrop(target: JsonObject, key: string, cleaned: { value: unknown } | undefined): void {
  if (cleaned) target[key] = cleaned.value;
  else delete target[key];
}

/**
 * Content that has nothing to merge with: directives are resolved against emptiness and nulls
 * dropped. Returns undefined when the value itself asks to be deleted.
 */
function cleanNew(ctx: Ctx, value: unknown, meta: FieldPatchMeta): { value: unknown } | undefined {
  if (isObject(value)) {
    if (value[DIRECTIVE] === "delete") return undefined;
    return { value: mergeMap(ctx, {}, value, meta.schema) };
  }
  if (Array.isArray(value)) return { value: cleanList(ctx, value, itemSchema(ctx.resolver, meta.schema)) };
  return { value };
}

/** A list taken as-is: elements carrying `$patch` are directives, not data (upstream removeDirectives). */
function cleanList(ctx: Ctx, list: unknown[], items: SchemaDef | undefined): unknown[] {
  const out: unknown[] = [];
  for (const el of list) {
    if (isObject(el)) {
      if (!Object.prototype.hasOwnProperty.call(el, DIRECTIVE)) out.push(mergeMap(ctx, {}, el, items));
    } else if (Array.isArray(el)) {
      out.push(cleanList(ctx, el, undefined));
    } else {
      out.push(el);
    }
  }
  return out;
}

/** "$prefix/field" → "field"; anything else is the directive's format error. */
function extractKey(key: string, prefix: string, formatError: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) throw badRequest(formatError);
  return key.slice(slash + 1);
}

/** `$retainKeys: [...]`: drop every field of the original not listed; the patch may only set listed ones. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badRequest(ERR_RETAIN_KEYS);
  const keep = new Set(list.filter((k): k is string => typeof k === "string"));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw badRequest(ERR_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * `$setElementOrder/<f>: [...]` carries the full desired order of list <f> (merge keys, or the
 * values of a primitive list). The list is merged here (with its patch list, if any) and then
 * reordered; the patch list is consumed so the main loop does not merge it twice.
 */
function applySetElementOrder(ctx: Ctx, original: JsonObject, patch: JsonObject, schema: SchemaDef | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType("[]interface {}", order);
    const field = extractKey(key, SET_ELEMENT_ORDER, ERR_SET_ELEMENT_ORDER);
    const origValue = original[field] ?? null;
    const patchValue = patch[field];
    // An explicit null deletes the list; leave that to the main loop.
    if (patchValue === null) continue;
    if (origValue !== null && !Array.isArray(origValue)) throw badArgType("[]interface {}", origValue);
    if (patchValue !== undefined && !Array.isArray(patchValue)) throw badArgType("[]interface {}", patchValue);
    const origList = origValue as unknown[] | null;
    const patchList = patchValue as unknown[] | undefined;
    const meta = fieldMeta(ctx.resolver, schema, field);
    validatePatchAgainstOrder(patchList ?? [], order, meta.mergeKey);

    let merged: unknown[];
    if (origList && !patchList) merged = origList;
    else if (!origList && patchList) merged = cleanList(ctx, patchList, itemSchema(ctx.resolver, meta.schema));
    else if (origList && patchList) {
      merged =
        meta.strategy === "merge"
          ? mergeSlice(ctx, origList, patchList, meta, field, false)
          : cleanList(ctx, patchList, itemSchema(ctx.resolver, meta.schema));
    } else continue;

    original[field] = orderBySetElementOrder(merged, order, origList ?? [], meta.mergeKey);
    delete patch[field];
  }
}

/** The non-deleting items of the patch list must appear in the $setElementOrder list, in the same relative order. */
function validatePatchAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) {
    for (const el of patchList) if (!isObject(el)) throw badArgType("map[string]interface {}", el);
    items = patchList.filter((el) => (el as JsonObject)[DIRECTIVE] !== "delete");
  }
  let p = 0;
  let s = 0;
  while (p < items.length && s < order.length) {
    const item = items[p];
    if (isObject(item) && Object.prototype.hasOwnProperty.call(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length) {
    throw badRequest(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isObject(left)) throw badArgType("map[string]interface {}", left);
  if (!isObject(right)) throw badArgType("map[string]interface {}", right);
  if (!Object.prototype.hasOwnProperty.call(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.prototype.hasOwnProperty.call(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function orderBySetElementOrder(merged: unknown[], order: unknown[], serverOrder: unknown[], mergeKey: string): unknown[] {
  if (merged.length === 0) return merged;
  const isMap = isObject(merged[0]);
  // A list of maps without a merge key has no identity to order by; keep it as merged.
  if (isMap && !mergeKey) return merged;
  if (isMap) for (const el of order) requireMergeKey(el, mergeKey);
  const { inPatch, serverOnly } = partition(merged, order, mergeKey, isMap);
  return normalizeElementOrder(inPatch, serverOnly, order, serverOrder, mergeKey, isMap);
}

function requireMergeKey(el: unknown, mergeKey: string): JsonObject {
  if (!isObject(el)) throw badArgType("map[string]interface {}", el);
  if (!Object.prototype.hasOwnProperty.call(el, mergeKey)) throw noMergeKey(el, mergeKey);
  return el;
}

/** Kind shared by all elements: "map" or a scalar kind; lists of lists and mixed kinds are errors. */
function elementKind(original: unknown[], patch: unknown[]): string {
  let kind: string | undefined;
  for (const el of [...original, ...patch]) {
    const t = isObject(el) ? "map" : valueType(el);
    if (kind === undefined) {
      if (t === "array") throw new PatchError("UnprocessableEntity", "lists of lists are not supported");
      kind = t;
    } else if (kind !== t) {
      throw badRequest(`list element types are not identical: ${goFormat([original, patch])}`);
    }
  }
  return kind ?? "null";
}

/** Merges a list whose strategy is "merge" (or a $deleteFromPrimitiveList parallel list). */
function mergeSlice(ctx: Ctx, original: unknown[], patch: unknown[], meta: FieldPatchMeta, field: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const isMap = elementKind(original, patch) === "map";
  let serverOrder = original;
  let patchItems = patch;
  let merged: unknown[];
  if (!isMap) {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    // Set semantics: union, first occurrence wins; order is fixed below.
    merged = [...new Set([...original, ...patch])];
  } else {
    if (!meta.mergeKey) throw badRequest(`cannot merge lists without merge key for ${field}`);
    const items = itemSchema(ctx.resolver, meta.schema);
    ({ original: serverOrder, patch: patchItems } = applySpecialElements(ctx, original, patch, meta.mergeKey, items));
    merged = [...serverOrder];
    for (const el of patchItems) {
      const elMap = el as JsonObject;
      if (!Object.prototype.hasOwnProperty.call(elMap, meta.mergeKey)) throw noMergeKey(elMap, meta.mergeKey);
      const idx = findByMergeKey(merged, meta.mergeKey, elMap[meta.mergeKey]);
      if (idx >= 0) merged[idx] = mergeMap(ctx, merged[idx] as JsonObject, elMap, items);
      else merged.push(mergeMap(ctx, {}, elMap, items));
    }
  }
  const { inPatch, serverOnly } = partition(merged, patchItems, meta.mergeKey, isMap);
  return normalizeElementOrder(inPatch, serverOnly, patchItems, serverOrder, meta.mergeKey, isMap);
}

/**
 * Handles list elements carrying `$patch`: `delete` removes every original element with that
 * merge key, a `{"$patch":"replace"}` element makes the rest of the patch list the whole list.
 */
function applySpecialElements(
  ctx: Ctx,
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  items: SchemaDef | undefined,
): { original: unknown[]; patch: unknown[] } {
  const plain: unknown[] = [];
  let replace = false;
  let remaining = original;
  for (const el of patch) {
    const m = el as JsonObject;
    if (!Object.prototype.hasOwnProperty.call(m, DIRECTIVE)) {
      plain.push(m);
      continue;
    }
    switch (m[DIRECTIVE]) {
      case "delete": {
        if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw noMergeKey(m, mergeKey);
        remaining = remaining.filter((o, i) => {
          if (!isObject(o)) throw badRequest(`value for key ${i} is not a map`);
          return !(Object.prototype.hasOwnProperty.call(o, mergeKey) && o[mergeKey] === m[mergeKey]);
        });
        break;
      }
      case "replace":
        replace = true; // keep scanning so other directive elements are still validated
        break;
      case "merge":
        throw badRequest("merging lists cannot yet be specified in the patch");
      default:
        throw badPatchType(m[DIRECTIVE], m);
    }
  }
  if (replace) return { original: plain.map((el) => mergeMap(ctx, {}, el as JsonObject, items)), patch: [] };
  return { original: remaining, patch: plain };
}

function findByMergeKey(list: unknown[], mergeKey: string, value: unknown): number {
  return list.findIndex((o, i) => {
    if (!isObject(o)) throw badRequest(`value for key ${i} is not a map`);
    return Object.prototype.hasOwnProperty.call(o, mergeKey) && o[mergeKey] === value;
  });
}

/** Identity of a list element: its merge-key value for maps, the value itself for primitives. */
function identity(el: unknown, mergeKey: string, isMap: boolean): unknown {
  return isMap ? (isObject(el) ? el[mergeKey] : undefined) : el;
}

/** Splits `merged` into the elements named by `by` and the server-only rest, keeping order. */
function partition(merged: unknown[], by: unknown[], mergeKey: string, isMap: boolean): { inPatch: unknown[]; serverOnly: unknown[] } {
  const named = new Set(by.map((el) => identity(el, mergeKey, isMap)));
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const el of merged) {
    if (isMap) requireMergeKey(el, mergeKey);
    (named.has(identity(el, mergeKey, isMap)) ? inPatch : serverOnly).push(el);
  }
  return { inPatch, serverOnly };
}

function indexIn(list: unknown[], el: unknown, mergeKey: string, isMap: boolean): number {
  const id = identity(el, mergeKey, isMap);
  return list.findIndex((x) => identity(x, mergeKey, isMap) === id);
}

/** Stable sort of `items` by their position in `order` (items not in it go last). */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, isMap: boolean): unknown[] {
  const pos = (el: unknown): number => {
    const i = indexIn(order, el, mergeKey, isMap);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return items
    .map((el, i) => ({ el, i, p: pos(el) }))
    .sort((a, b) => a.p - b.p || a.i - b.i)
    .map((x) => x.el);
}

/**
 * Upstream's normalizeElementOrder + mergeSortedSlice: patch items in patch order, server-only
 * items in server order, then interleaved — a server item is emitted before the next patch item
 * only when both are on the server and the server has it first.
 */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  isMap: boolean,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, isMap);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, isMap);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, isMap);
      const ri = indexIn(serverOrder, right[j], mergeKey, isMap);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
