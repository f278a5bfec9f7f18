/**
 * RFC 6902 JSON Patch, as kube-apiserver applies `application/json-patch+json`.
 *
 * Upstream findings (kube-apiserver 1.34, k8s.io/apiserver v0.34.x endpoints/handlers/patch.go,
 * vendoring gopkg.in/evanphx/json-patch.v4 v4.12.0 — v4, not v5):
 * - Decoding the patch fails (not a JSON array, an element not an object) → 400 BadRequest with
 *   Go's encoding/json text, e.g. "json: cannot unmarshal object into Go value of type
 *   jsonpatch.Patch". A `null` patch decodes to an empty patch (no-op).
 * - More than 10000 operations → 413 (not modelled here; the handler checks).
 * - `copy` operations adding more than JSONPatchMaxCopyBytes (3 MiB) in all → 422 like any other
 *   failure (the library's AccumulatedCopySizeLimit; our size is the JSON text of each copied value).
 * - ANY error while applying (failed test, missing path, bad index, unknown op) → 422 built by
 *   NewGenericServerResponse: reason "Invalid" and the fixed message "the server rejected our
 *   request due to an error in our request"; the library's detail is dropped. We throw
 *   PatchError("UnprocessableEntity", detail) with the library's wording (pkg/errors style
 *   "context: cause"), e.g. "testing value /spec/replicas failed: test failed",
 *   "add operation does not apply: doc is missing path: \"/a/b\": missing value",
 *   "error in remove for path: '/a/5': Unable to access invalid index: 5: invalid index referenced",
 *   "Unexpected kind: bogus".
 * Behaviour kept from v4: negative array indexes count from the end; a missing `value` means
 * null; `test` of an absent member against null passes.
 * Deliberate deviations (RFC 6902 wins): `replace` of an absent object member is an error
 * (v4 silently adds it; v5 errors with the same "doc is missing key" text we use), `copy` from
 * an absent member is an error (v4 copies null), a non-empty path must start with "/", and
 * `replace` of the root with a scalar is an error (v4 ignores it).
 */
import { PatchError } from "./errors.js";
import { deepClone, deepEqual, isPlainObject as isObject } from "../apimachinery/json-value.js";
import { cannotUnmarshal } from "../apimachinery/go-json.js";
import type { JsonObject } from "./json.js";

type Container = JsonObject | unknown[];

const MISSING = "missing value";
const INVALID_INDEX = "invalid index referenced";

function fail(message: string): never {
  throw new PatchError("UnprocessableEntity", message);
}

/**
 * kube-apiserver's JSONPatchMaxCopyBytes (3 MiB, no flag): how much all `copy` operations of one
 * patch may add, counted as the JSON size of each copied value, so that a small patch cannot
 * grow an object by copying it into itself over and over.
 */
export const maxJsonPatchCopyBytes = 3 * 1024 * 1024;

/** Applies `ops` to a deep copy of `doc`; inputs are never mutated. */
export function applyJsonPatch(doc: unknown, ops: unknown, maxCopyBytes = maxJsonPatchCopyBytes): unknown {
  const patch = decodePatch(ops);
  if (!isObject(doc) && !Array.isArray(doc)) {
    fail(cannotUnmarshal(doc, "jsonpatch.partialDoc"));
  }
  // The root lives in a box so that `replace ""` can swap it.
  const box = { root: deepClone(doc) as Container, copied: 0, maxCopyBytes };
  for (const op of patch) applyOp(box, op);
  return box.root;
}

function decodePatch(ops: unknown): (JsonObject | null)[] {
  if (ops === null || ops === undefined) return [];
  if (!Array.isArray(ops)) {
    throw new PatchError("BadRequest", cannotUnmarshal(ops, "jsonpatch.Patch"));
  }
  return ops.map((op) => {
    if (op === null || isObject(op)) return op;
    throw new PatchError("BadRequest", cannotUnmarshal(op, "jsonpatch.Operation"));
  });
}

/** Reads a string member ("path"/"from"); returns an error text (upstream's inner cause) instead of throwing. */
function readString(op: JsonObject, field: "path" | "from"): { value: string } | { error: string } {
  const v = op[field];
  if (v === undefined || v === null) {
    return { error: field === "path" ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}` };
  }
  if (typeof v !== "string") return { error: cannotUnmarshal(v, "string") };
  return { value: v };
}

interface PatchState {
  root: Container;
  /** Bytes added by `copy` operations so far, and the most they may add (0: no limit). */
  copied: number;
  maxCopyBytes: number;
}

function applyOp(box: PatchState, raw: JsonObject | null): void {
  const op = raw ?? {};
  const kind = typeof op.op === "string" ? op.op : "unknown";
  // An absent value behaves as null, as in v4.
  const value = op.value === undefined ? null : op.value;
  switch (kind) {
    case "add": {
      const path = readString(op, "path");
      if ("error" in path) fail(`add operation failed to decode path: ${MISSING}`);
      const found = findParent(box.root, path.value);
      if (!found) fail(`add operation does not apply: doc is missing path: "${path.value}": ${MISSING}`);
      const err = addTo(found.con, found.key, deepClone(value));
      if (err) fail(`error in add for path: '${path.value}': ${err}`);
      return;
    }
    case "remove": {
      const path = readString(op, "path");
      if ("error" in path) fail(`remove operation failed to decode path: ${MISSING}`);
      const found = findParent(box.root, path.value);
      if (!found) fail(`remove operation does not apply: doc is missing path: "${path.value}": ${MISSING}`);
      const err = removeFrom(found.con, found.key);
      if (err) fail(`error in remove for path: '${path.value}': ${err}`);
      return;
    }
    case "replace": {
      const path = readString(op, "path");
      if ("error" in path) fail(`replace operation failed to decode path: ${path.error}`);
      if (path.value === "") {
        if (!isObject(value) && !Array.isArray(value)) fail("replace operation value must be object or array");
        box.root = deepClone(value);
        return;
      }
      const found = findParent(box.root, path.value);
      if (!found) fail(`replace operation does not apply: doc is missing path: ${path.value}: ${MISSING}`);
      const cur = getFrom(found.con, found.key);
      if (typeof cur === "string" || cur.value === undefined) {
        fail(`replace operation does not apply: doc is missing key: ${path.value}: ${MISSING}`);
      }
      setIn(found.con, found.key, deepClone(value));
      return;
    }
    case "move": {
      const from = readString(op, "from");
      if ("error" in from) fail(`move operation failed to decode from: ${from.error}`);
      const src = findParent(box.root, from.value);
      if (!src) fail(`move operation does not apply: doc is missing from path: ${from.value}: ${MISSING}`);
      const got = getFrom(src.con, src.key);
      if (typeof got === "string") fail(`error in move for path: '${src.key}': ${got}`);
      const rmErr = removeFrom(src.con, src.key);
      if (rmErr) fail(`error in move for path: '${src.key}': ${rmErr}`);
      const path = readString(op, "path");
      if ("error" in path) fail(`move operation failed to decode path: ${path.error}`);
      const dst = findParent(box.root, path.value);
      if (!dst) fail(`move operation does not apply: doc is missing destination path: ${path.value}: ${MISSING}`);
      const addErr = addTo(dst.con, dst.key, got.value);
      if (addErr) fail(`error in move for path: '${path.value}': ${addErr}`);
      return;
    }
    case "copy": {
      const from = readString(op, "from");
      if ("error" in from) fail(`copy operation failed to decode from: ${from.error}`);
      const src = findParent(box.root, from.value);
      if (!src) fail(`copy operation does not apply: doc is missing from path: ${from.value}: ${MISSING}`);
      const got = getFrom(src.con, src.key);
      if (typeof got === "string") fail(`error in copy for from: '${from.value}': ${got}`);
      if (got.value === undefined) fail(`copy operation does not apply: doc is missing from path: ${from.value}: ${MISSING}`);
      const path = readString(op, "path");
      if ("error" in path) fail(`copy operation failed to decode path: ${MISSING}`);
      const dst = findParent(box.root, path.value);
      if (!dst) fail(`copy operation does not apply: doc is missing destination path: ${path.value}: ${MISSING}`);
      box.copied += Buffer.byteLength(JSON.stringify(got.value));
      if (box.maxCopyBytes > 0 && box.copied > box.maxCopyBytes) {
        fail(`Unable to complete the copy, the accumulated size increase of copy is ${box.copied}, exceeding the limit ${box.maxCopyBytes}`);
      }
      const addErr = addTo(dst.con, dst.key, deepClone(got.value));
      if (addErr) fail(`error while adding value during copy: ${addErr}`);
      return;
    }
    case "test": {
      const path = readString(op, "path");
      if ("error" in path) fail(`test operation failed to decode path: ${path.error}`);
      const failed = `testing value ${path.value} failed: test failed`;
      if (path.value === "") {
        if (!deepEqual(box.root, value)) fail(failed);
        return;
      }
      const found = findParent(box.root, path.value);
      if (!found) fail(`test operation does not apply: is missing path: ${path.value}: ${MISSING}`);
      const got = getFrom(found.con, found.key);
      if (typeof got === "string") fail(`error in test for path: '${path.value}': ${got}`);
      // v4 treats an absent member like null here.
      if (!deepEqual(got.value === undefined ? null : got.value, value)) fail(failed);
      return;
    }
    default:
      fail(`Unexpected kind: ${kind}`);
  }
}

/** Decodes one RFC 6901 reference token: "~1" → "/", then "~0" → "~". */
function decodeToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Walks every token but the last and returns the container holding the target plus the last
 * (decoded) token, or undefined when the parent does not exist. The empty path has no parent.
 */
function findParent(root: Container, path: string): { con: Container; key: string } | undefined {
  if (!path.startsWith("/")) return undefined;
  const tokens = path.slice(1).split("/").map(decodeToken);
  const key = tokens.pop() as string;
  let cur: Container = root;
  for (const token of tokens) {
    let next: unknown;
    if (Array.isArray(cur)) {
      const idx = parseIndex(token);
      if (typeof idx === "string") return undefined;
      const i = idx < 0 ? idx + cur.length : idx;
      next = i >= 0 && i < cur.length ? cur[i] : undefined;
    } else {
      next = Object.prototype.hasOwnProperty.call(cur, token) ? cur[token] : undefined;
    }
    if (!isObject(next) && !Array.isArray(next)) return undefined;
    cur = next;
  }
  return { con: cur, key };
}

/** Go strconv.Atoi semantics: optional sign, decimal digits. Returns an error text on failure. */
function parseIndex(token: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(token)) return `strconv.Atoi: parsing "${token}": invalid syntax`;
  const n = Number(token);
  if (!Number.isSafeInteger(n)) return `strconv.Atoi: parsing "${token}": value out of range`;
  return n;
}

const badIndex = (idx: number): string => `Unable to access invalid index: ${idx}: ${INVALID_INDEX}`;

/** Returns the member (undefined when an object lacks it) or an error text for bad array indexes. */
function getFrom(con: Container, key: string): { value: unknown } | string {
  if (!Array.isArray(con)) {
    return { value: Object.prototype.hasOwnProperty.call(con, key) ? con[key] : undefined };
  }
  const idx = parseIndex(key);
  if (typeof idx === "string") return idx;
  if (idx < -con.length || idx >= con.length) return badIndex(idx);
  return { value: con[idx < 0 ? idx + con.length : idx] };
}

/** Only called after getFrom succeeded, so the index is valid. */
function setIn(con: Container, key: string, value: unknown): void {
  if (Array.isArray(con)) {
    const idx = parseIndex(key) as number;
    con[idx < 0 ? idx + con.length : idx] = value;
  } else {
    con[key] = value;
  }
}

function addTo(con: Container, key: string, value: unknown): string | undefined {
  if (!Array.isArray(con)) {
    con[key] = value;
    return undefined;
  }
  if (key === "-") {
    con.push(value);
    return undefined;
  }
  const idx = parseIndex(key);
  if (typeof idx === "string") return `value was not a proper array index: '${key}': ${idx}`;
  // Inserting is allowed at 0..len; negative indexes count from the end of the grown array.
  const size = con.length + 1;
  if (idx >= size || idx < -size) return badIndex(idx);
  con.splice(idx < 0 ? idx + size : idx, 0, value);
  return undefined;
}

function removeFrom(con: Container, key: string): string | undefined {
  if (!Array.isArray(con)) {
    if (!Object.prototype.hasOwnProperty.call(con, key)) return `Unable to remove nonexistent key: ${key}: ${MISSING}`;
    delete con[key];
    return undefined;
  }
  const idx = parseIndex(key);
  if (typeof idx === "string") return idx;
  if (idx >= con.length || idx < -con.length) return badIndex(idx);
  con.splice(idx < 0 ? idx + con.length : idx, 1);
  return undefined;
}
