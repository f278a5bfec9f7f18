// Server-side apply and update bookkeeping: merges an applied configuration
// into the live object with conflict detection and pruning, and records the
// ownership of fields changed by ordinary writes — the behaviour of
// structured-merge-diff's merge.Updater wrapped in k8s.io/apimachinery's field
// manager chain (manager identifiers, before-first-apply, time stamps,
// stripping of metadata fields, the cap of Update entries, the reset rule).

import { FieldSet, fieldElement, pathString } from "./fieldpath.js";
import type { Path } from "./fieldpath.js";
import {
  MAX_UPDATE_MANAGERS,
  buildManagerIdentifier,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  printManager,
} from "./managed-fields.js";
import type { Managed, ManagedFieldsEntry, VersionedSet } from "./managed-fields.js";
import { SchemaContext } from "./schema.js";
import type { SchemaResolver, TypeRef } from "./schema.js";
import { compare, ensureNamedFieldsAreMembers, merge, reconcileFieldSetWithSchema, removeItems, toFieldSet } from "./typed.js";
import { isObject } from "./value.js";
import { compareStrings } from "../apimachinery/go-json.js";
import { deepEqual } from "../apimachinery/json-value.js";
import type { JsonObject } from "./value.js";

/** Options shared by apply and update. */
export interface FieldManagerOptions {
  /** Group/version of the request and of the entry written, e.g. "apps/v1" or "v1". */
  apiVersion: string;
  /** Time of the operation (RFC 3339; stored with second precision). */
  now: string | Date;
  /** Definition lookup; may return undefined (schema-less data: maps granular, lists atomic). */
  schema: SchemaResolver;
  /** Definition name of the object's type (e.g. "io.k8s.api.apps.v1.Deployment"); undefined = schema-less. */
  rootRef: string | undefined;
  /** Subresource of the request ("" or absent for the main resource). */
  subresource?: string;
  /**
   * Fields whose ownership is never recorded and never conflicts (upstream's
   * reset fields of a strategy, e.g. `status` for a main-resource write or
   * everything but `status` for the status subresource).
   */
  ignoredFields?: FieldSet;
}

/** Options of apply. */
export interface ApplyOptions extends FieldManagerOptions {
  /** Take ownership of conflicting fields instead of failing. */
  force: boolean;
}

/** Options of update. */
export interface UpdateOptions extends FieldManagerOptions {
  /**
   * Treat `managedFields: []` in the new object like `[{}]` (reset). Off by
   * default: the spec says an empty list does not reset (upstream's code
   * resets on any non-nil empty list).
   */
  emptyListResets?: boolean;
  /**
   * The "empty" object a create is compared against (default `{}`). Upstream
   * compares against the zero value of the Go type, where non-pointer structs
   * (e.g. a Deployment's `spec`, `spec.template`) already exist, so they are
   * not marked as owned themselves (no `"."` entry); pass such a skeleton to
   * reproduce that exactly.
   */
  emptyObject?: object;
}

/** Result of apply / update: the object to store (with `metadata.managedFields` set) and its entries. */
export interface FieldManagerResult {
  readonly object: JsonObject;
  readonly managedFields: ManagedFieldsEntry[];
}

/** One field of an apply conflict. */
export interface ApplyConflict {
  /** Manager identifier (JSON of manager, operation, apiVersion for Update, subresource). */
  readonly managerId: string;
  /** Manager as printed, e.g. `"kubectl"` or `"kube-controller-manager" using apps/v1`. */
  readonly manager: string;
  /** Field path as printed, e.g. `.spec.replicas`. */
  readonly field: string;
}

/** A cause of the 409 Status of an apply conflict. */
export interface ApplyConflictCause {
  readonly reason: "FieldManagerConflict";
  readonly message: string;
  readonly field: string;
}

/**
 * An apply failed because other managers own fields it changes. `message`
 * is upstream's text; `causes` are the Status details (one per field and
 * manager); `status()` gives the whole 409 Status.
 */
export class ApplyConflictError extends Error {
  readonly conflicts: readonly ApplyConflict[];
  readonly causes: readonly ApplyConflictCause[];

  constructor(conflicts: readonly ApplyConflict[]) {
    super(conflictMessage(conflicts));
    this.name = "ApplyConflictError";
    this.conflicts = conflicts;
    this.causes = conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${c.manager}`, field: c.field }));
  }

  /** The HTTP status code (409). */
  get code(): 409 {
    return 409;
  }

  /** The metav1.Status body of the error. */
  status(): JsonObject {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: "Conflict",
      details: { causes: this.causes.map((c) => ({ ...c })) },
      code: 409,
    };
  }
}

function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  if (conflicts.length === 1) {
    return `Apply failed with 1 conflict: conflict with ${conflicts[0]!.manager}: ${conflicts[0]!.field}`;
  }
  const byManager = new Map<string, ApplyConflict[]>();
  for (const c of conflicts) {
    const l = byManager.get(c.managerId);
    if (l) l.push(c);
    else byManager.set(c.managerId, [c]);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort(compareStrings)) {
    const list = byManager.get(id)!;
    lines.push(`conflicts with ${list[0]!.manager}:`);
    for (const c of list) lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

/** A request that the field manager rejects before merging (a 400 Bad Request upstream). */
export class ApplyBadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApplyBadRequestError";
  }

  /** The HTTP status code (400). */
  get code(): 400 {
    return 400;
  }
}

// Fields never recorded as owned (upstream's stripMetaManager).
const STRIP_SET = FieldSet.of(
  [fieldElement("apiVersion")],
  [fieldElement("kind")],
  [fieldElement("metadata")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map(
    (f): Path => [fieldElement("metadata"), fieldElement(f)],
  ),
);

const CURRENT_OPERATION = "current-operation";
const BEFORE_FIRST_APPLY = "before-first-apply";
const ANCIENT_CHANGES = "ancient-changes";

const contexts = new WeakMap<SchemaResolver, SchemaContext>();
function contextFor(resolver: SchemaResolver): SchemaContext {
  let c = contexts.get(resolver);
  if (c === undefined) {
    c = new SchemaContext(resolver);
    contexts.set(resolver, c);
  }
  return c;
}

interface Env {
  readonly ctx: SchemaContext;
  readonly root: TypeRef;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly now: string;
  readonly ignored: FieldSet | undefined;
}

function envOf(opts: FieldManagerOptions): Env {
  return {
    ctx: contextFor(opts.schema),
    root: opts.rootRef === undefined ? undefined : { $ref: opts.rootRef },
    apiVersion: opts.apiVersion,
    subresource: opts.subresource ?? "",
    now: formatTime(opts.now),
    ignored: opts.ignoredFields !== undefined && !opts.ignoredFields.isEmpty() ? opts.ignoredFields : undefined,
  };
}

// A shallow view without metadata.managedFields: the engine only reads objects, so copying
// the top and metadata levels is enough (a deep copy of every write's object was its top cost).
function withoutManagedFields(obj: unknown): JsonObject {
  if (!isObject(obj)) return {};
  if (!isObject(obj.metadata) || !("managedFields" in obj.metadata)) return obj;
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function filterIgnored(env: Env, set: FieldSet): FieldSet {
  return env.ignored === undefined ? set : set.recursiveDifference(env.ignored);
}

function copyManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

function reconcileManagers(env: Env, managers: Map<string, VersionedSet>): void {
  for (const [id, vs] of managers) {
    const r = reconcileFieldSetWithSchema(env.ctx, vs.set, env.root);
    if (r !== undefined) managers.set(id, { ...vs, set: r });
  }
}

// Compares old and new, removes changed fields from other managers (or
// reports them as conflicts) and drops managers left empty.
function updateOthers(env: Env, oldObj: unknown, newObj: unknown, managers: Map<string, VersionedSet>, self: string, force: boolean) {
  const cmp = compare(env.ctx, oldObj, newObj, env.root);
  const added = filterIgnored(env, cmp.added);
  const modified = filterIgnored(env, cmp.modified);
  const removed = filterIgnored(env, cmp.removed);
  const changed = modified.union(added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, vs] of managers) {
    if (id === self) continue;
    const c = vs.set.intersection(changed);
    if (!c.isEmpty()) conflicts.set(id, c);
  }
  if (!force && conflicts.size > 0) {
    const list: ApplyConflict[] = [];
    for (const id of [...conflicts.keys()].sort(compareStrings)) {
      const printed = printManager(id);
      for (const p of conflicts.get(id)!.paths()) list.push({ managerId: id, manager: printed, field: pathString(p) });
    }
    throw new ApplyConflictError(list);
  }
  for (const [id, vs] of [...managers]) {
    if (id === self) continue;
    let set = vs.set;
    const c = conflicts.get(id);
    if (c !== undefined) set = set.difference(c);
    if (!removed.isEmpty()) set = set.difference(removed);
    managers.set(id, { ...vs, set });
  }
  for (const [id, vs] of [...managers]) if (vs.set.isEmpty()) managers.delete(id);
  return { added, modified, removed };
}

function stripMeta(managers: Map<string, VersionedSet>, id: string): void {
  const vs = managers.get(id);
  if (vs === undefined) return;
  const set = vs.set.difference(STRIP_SET);
  if (set.isEmpty()) managers.delete(id);
  else managers.set(id, { ...vs, set });
}

// The Update bookkeeping for manager identifier `id` (structured update under
// a temporary name, metadata stripping, merge into the manager's previous
// entry with a fresh time stamp, cap of Update entries).
function recordUpdateFields(env: Env, oldObj: JsonObject, newObj: JsonObject, managed: Managed, id: string): void {
  const managers = managed.fields;
  const before = managers.get(id)?.set;
  reconcileManagers(env, managers);
  const cmp = updateOthers(env, oldObj, newObj, managers, CURRENT_OPERATION, true);
  const prevCur = managers.get(CURRENT_OPERATION)?.set ?? new FieldSet();
  const curSet = filterIgnored(env, prevCur.difference(cmp.removed).union(cmp.modified).union(cmp.added));
  if (curSet.isEmpty()) managers.delete(CURRENT_OPERATION);
  else managers.set(CURRENT_OPERATION, { set: curSet, apiVersion: env.apiVersion, applied: false });
  stripMeta(managers, CURRENT_OPERATION);
  const cur = managers.get(CURRENT_OPERATION);
  if (cur !== undefined) {
    managers.delete(CURRENT_OPERATION);
    const prev = managers.get(id);
    const merged = prev === undefined ? cur.set : cur.set.union(prev.set);
    // The same fields as the entry held (a write of fields it already owns): its set as read, so
    // that its FieldsV1 is written as it was read, not again.
    const set = before !== undefined && merged.equals(before) ? before : merged;
    managers.set(id, { set, apiVersion: cur.apiVersion, applied: cur.applied });
    managed.times.set(id, env.now);
  }
  capUpdateManagers(managed);
}

function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const secs = (id: string): number => {
    const t = managed.times.get(id);
    const ms = t === undefined ? NaN : Date.parse(t);
    return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
  };
  updaters.sort((a, b) => (secs(a) !== secs(b) ? secs(a) - secs(b) : compareStrings(a, b)));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i]!;
    const vs = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = buildManagerIdentifier({ manager: ANCIENT_CHANGES, operation: "Update", apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const s = managed.fields.get(first)!;
      managed.fields.delete(first);
      managed.fields.set(bucket, s);
    }
    managed.fields.set(bucket, { set: vs.set.union(managed.fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(id);
    length--;
    managed.times.set(bucket, time);
  }
}

// Removes fields the applier applied last time, does not apply now, and
// nobody else owns (upstream's prune with add-back of owned and dangling items).
function prune(env: Env, merged: unknown, managers: Map<string, VersionedSet>, lastSet: FieldSet | undefined): unknown {
  if (lastSet === undefined || lastSet.isEmpty()) return merged;
  const { ctx, root } = env;
  const ensure = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(ctx, s, root);
  let pruned = removeItems(ctx, merged, ensure(lastSet), root) ?? {};
  let owned = new FieldSet();
  for (const vs of managers.values()) owned = owned.union(vs.set);
  const mergedSet = ensure(toFieldSet(ctx, merged, root));
  let prunedSet = ensure(toFieldSet(ctx, pruned, root));
  pruned = removeItems(ctx, merged, mergedSet.difference(prunedSet.union(ensure(owned))), root) ?? {};
  prunedSet = ensure(toFieldSet(ctx, pruned, root));
  return removeItems(ctx, merged, mergedSet.difference(prunedSet).intersection(ensure(lastSet)), root) ?? {};
}

// Drops null-valued keys (maps and lists emptied by pruning end up null, and
// built-in types do not keep nulls).
function stripNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripNulls);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, c] of Object.entries(v)) if (c !== null) out[k] = stripNulls(c) as JsonObject[string];
    return out;
  }
  return v;
}

function finish(obj: JsonObject, managed: Managed): FieldManagerResult {
  const entries = encodeManagedFields(managed);
  // Only metadata changes here: the rest of the object is shared with `obj`, not copied.
  const metadata: JsonObject = isObject(obj.metadata) ? { ...obj.metadata } : {};
  if (entries.length > 0) metadata.managedFields = entries as unknown as JsonObject[]; // freshly built: no copy needed
  else delete metadata.managedFields;
  const out: JsonObject = { ...obj, metadata };
  if (entries.length === 0 && !isObject(obj.metadata)) delete out.metadata;
  return { object: out, managedFields: entries };
}

/**
 * Server-side apply of `config` by `manager` onto `live` (undefined when the
 * object does not exist yet). `managedFields` are the live object's entries
 * (undefined: taken from `live.metadata.managedFields`). Returns the merged
 * object with its new `metadata.managedFields`, or throws
 * ApplyConflictError (409), ApplyBadRequestError (400: `managedFields` in the
 * configuration, wrong apiVersion), ManagedFieldsError (undecodable live
 * entries) or TypedValueError (e.g. duplicate list keys in the configuration).
 */
export function apply(
  live: object | undefined,
  config: object,
  manager: string,
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  opts: ApplyOptions,
): FieldManagerResult {
  const env = envOf(opts);
  const cfg = config as JsonObject;
  if (isObject(cfg.metadata) && cfg.metadata.managedFields !== undefined) {
    throw new ApplyBadRequestError("metadata.managedFields must be nil");
  }
  if (typeof cfg.apiVersion === "string" && cfg.apiVersion !== env.apiVersion) {
    throw new ApplyBadRequestError(
      `Incorrect version specified in apply patch. Specified patch version: ${cfg.apiVersion}, expected: ${env.apiVersion}`,
    );
  }
  const liveEntries = managedFields ?? (isObject((live as JsonObject | undefined)?.metadata) ? ((live as JsonObject).metadata as JsonObject).managedFields : undefined);
  const managed = copyManaged(decodeManagedFields(liveEntries as unknown[] | undefined));
  const liveObj = withoutManagedFields(live ?? {});
  const cfgObj = withoutManagedFields(cfg);

  // Objects without managed fields: attribute what is already set to "before-first-apply".
  if (managed.fields.size === 0) {
    const id = buildManagerIdentifier({ manager: BEFORE_FIRST_APPLY, operation: "Update", apiVersion: env.apiVersion, subresource: env.subresource });
    recordUpdateFields(env, {}, liveObj, managed, id);
  }

  const id = buildManagerIdentifier({ manager: manager === "" ? "unknown" : manager, operation: "Apply", subresource: env.subresource });
  const managers = managed.fields;
  reconcileManagers(env, managers);
  const merged = merge(env.ctx, liveObj, cfgObj, env.root) ?? {};
  const lastSet = managers.get(id)?.set;
  const configSet = filterIgnored(env, toFieldSet(env.ctx, cfgObj, env.root));
  managers.set(id, { set: configSet, apiVersion: env.apiVersion, applied: true });
  const newObj = prune(env, merged, managers, lastSet);
  updateOthers(env, liveObj, newObj, managers, id, opts.force);
  stripMeta(managers, id);
  const noop = deepEqual(liveObj, newObj);
  if (!noop) managed.times.set(id, env.now);
  const result = noop ? liveObj : (stripNulls(newObj) as JsonObject);
  return finish(result, managed);
}

/**
 * Records the ownership change of an ordinary write (create, PUT, non-apply
 * PATCH) by `manager` ("Update" entry): fields the write adds or changes
 * become the manager's and are removed from other managers; it never
 * conflicts. `oldObj` is the stored object (undefined for a create),
 * `newObj` the object about to be stored; `managedFields` are the stored
 * entries (undefined: from `oldObj`). `newObj.metadata.managedFields` may
 * replace them: `[{}]` resets them (and the writer then owns what it changed),
 * valid entries are taken as given, anything else keeps the stored ones.
 * For a subresource the request's entries are always ignored.
 */
export function update(
  oldObj: object | undefined,
  newObj: object,
  manager: string,
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  opts: UpdateOptions,
): FieldManagerResult {
  const env = envOf(opts);
  const liveEntries =
    managedFields ?? (isObject((oldObj as JsonObject | undefined)?.metadata) ? ((oldObj as JsonObject).metadata as JsonObject).managedFields : undefined);
  const decodeOrEmpty = (e: unknown): Managed => {
    try {
      return decodeManagedFields(e as unknown[] | undefined);
    } catch {
      return emptyManaged();
    }
  };
  const requested = isObject((newObj as JsonObject).metadata) ? ((newObj as JsonObject).metadata as JsonObject).managedFields : undefined;
  let managed: Managed;
  let reset = false;
  if (env.subresource !== "") managed = decodeOrEmpty(liveEntries);
  else if (isResetManagedFields(requested, opts.emptyListResets ?? false)) {
    managed = emptyManaged();
    reset = true;
  } else {
    let fromRequest: Managed | undefined;
    try {
      fromRequest = decodeManagedFields(requested as unknown[] | undefined);
    } catch {
      fromRequest = undefined;
    }
    managed = fromRequest !== undefined && fromRequest.fields.size > 0 ? fromRequest : decodeOrEmpty(liveEntries);
  }
  managed = copyManaged(managed);
  const liveObj = withoutManagedFields(oldObj ?? opts.emptyObject ?? {});
  const next = withoutManagedFields(newObj);
  const isCreate = oldObj === undefined || !isObject((oldObj as JsonObject).metadata) || !((oldObj as JsonObject).metadata as JsonObject).uid;
  // Existing objects nobody tracks stay untracked (upstream's skipNonAppliedManager);
  // after an explicit reset the writer owns what it changes (the spec's rule).
  if (managed.fields.size === 0 && !isCreate && !reset) return finish(next, managed);
  const id = buildManagerIdentifier({ manager: manager === "" ? "unknown" : manager, operation: "Update", apiVersion: env.apiVersion, subresource: env.subresource });
  recordUpdateFields(env, liveObj, next, managed, id);
  return finish(next, managed);
}
