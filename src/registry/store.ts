// The generic REST store: one implementation of get/list/create/update/delete for every type,
// parameterised by the type's strategy (upstream: generic/registry.Store).
import { randomBytes, randomUUID } from "node:crypto";
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  forbidden,
  gone,
  invalid,
  notFound,
  optimisticLockMessage,
} from "../apimachinery/errors.js";
import { invalid as fieldInvalid, type FieldError } from "../apimachinery/validation.js";
import { StorageError, type KeyValue, type RangeOptions, type RangeResult, type Storage } from "../storage/interface.js";
import { decodeFromStorage, encodeForStorage, rememberWrittenJson, servedJson } from "./codec.js";
import { clone, deepEqual, isPlainObject, nowTimestamp, type KObject } from "./object.js";
import { storageKey, type ResourceType } from "./resource-type.js";
import { parseResourceVersion, tooLargeError } from "./resource-version.js";
import type { StrategyContext } from "./strategy.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "./validate-meta.js";
import { withUpdateOwnership } from "./field-ownership.js";

export interface WriteOptions {
  dryRun: boolean;
  /** The field manager of this write; its managedFields entry is updated (none: untracked). */
  fieldManager?: string;
  /** The object's managedFields were already computed (server-side apply). */
  ownershipRecorded?: boolean;
}

/** Server settings that strategies see through their context. */
export interface StoreConfig {
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
}

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface DeleteOptions extends WriteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  /** Remove an object that cannot be decoded (only with the AllowUnsafeMalformedObjectDeletion gate). */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export const orphanFinalizer = "orphan";
export const foregroundFinalizer = "foregroundDeletion";

/** The object's finalizers after a DELETE with this propagation policy (upstream's rules). */
export function withPropagationFinalizers(finalizers: string[], policy: PropagationPolicy | undefined): string[] {
  if (policy === undefined) return finalizers;
  const rest = finalizers.filter((f) => f !== orphanFinalizer && f !== foregroundFinalizer);
  if (policy === "Orphan") return [...rest, orphanFinalizer];
  if (policy === "Foreground") return [...rest, foregroundFinalizer];
  return rest;
}

/**
 * Gets the stored object (undefined if absent) and returns the desired one. The stored object
 * is shared: a mutation that edits it in place must copy it first (PUT just returns the body).
 */
export type Mutation = (current: KObject | undefined) => KObject | Promise<KObject>;

/** How long a read of a future resourceVersion waits before 504. */
const futureRevisionWaitMs = 3000;
const maxGenerateNameAttempts = 8;

export class GenericStore {
  private readonly allocationLocks = new Map<string, Promise<void>>();

  constructor(
    readonly storage: Storage,
    /** Looks up a namespace's state for create admission (NamespaceLifecycle). */
    private readonly namespaceState: (ns: string) => Promise<"active" | "terminating" | "missing">,
    /** Server settings strategies read (service ranges). */
    private readonly config: StoreConfig = {},
  ) {}

  async get(t: ResourceType, ns: string, name: string, rv?: string | null): Promise<KObject> {
    return decodeFromStorage(await this.read(t, ns, name, rv), t);
  }

  /** GET as JSON text: the stored bytes with the resourceVersion spliced in when possible. */
  async getJson(t: ResourceType, ns: string, name: string, rv?: string | null): Promise<{ json: string } | { obj: KObject }> {
    const kv = await this.read(t, ns, name, rv);
    const json = servedJson(kv, t);
    return json !== undefined ? { json } : { obj: decodeFromStorage(kv, t) };
  }

  /** One object's stored bytes, not older than `rv` when given (else 504 after a wait). */
  private async read(t: ResourceType, ns: string, name: string, rv?: string | null): Promise<KeyValue> {
    const requested = parseResourceVersion(rv);
    if (requested !== undefined && requested > 0) await this.waitForRevision(requested);
    const kv = await this.storage.get(storageKey(t, ns, name));
    if (!kv) throw notFound(t.gr, name);
    return kv;
  }

  /** Waits until the store has reached `rev` (NotOlderThan reads), else 504. */
  async waitForRevision(rev: number): Promise<number> {
    const deadline = Date.now() + futureRevisionWaitMs;
    for (;;) {
      const current = await this.storage.currentRevision();
      if (current >= rev) return current;
      if (Date.now() >= deadline) throw tooLargeError(rev, current);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async create(t: ResourceType, ns: string, body: KObject, opts: WriteOptions): Promise<KObject> {
    const input = this.checkBody(t, ns, body);
    if (t.namespaced) await this.admitNamespace(t, ns, input.metadata.name ?? input.metadata.generateName ?? "");
    const nameWasGenerated = !input.metadata.name && !!input.metadata.generateName;
    // A generated name that collides is retried with a fresh name, from the original body.
    const pristine = nameWasGenerated ? clone(input) : input;
    for (let attempt = 0; ; attempt++) {
      const obj = attempt === 0 ? input : clone(pristine);
      if (nameWasGenerated) obj.metadata.name = generateName(obj.metadata.generateName!);
      try {
        return await this.createOnce(t, ns, obj, opts);
      } catch (e) {
        if (e instanceof StorageError && e.code === "KeyExists") {
          if (nameWasGenerated && attempt < maxGenerateNameAttempts) continue;
          throw alreadyExists(t.gr, obj.metadata.name!);
        }
        throw e;
      }
    }
  }

  private async createOnce(t: ResourceType, ns: string, obj: KObject, opts: WriteOptions): Promise<KObject> {
    const meta = obj.metadata;
    const ctx = this.context(ns, "");
    // Server-owned metadata: clients cannot set these on create.
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    if (t.strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (t.namespaced) meta.namespace = ns;
    else delete meta.namespace;
    // Status is the server's and controllers' to write, never set on create (nodes excepted).
    if (t.hasStatus && t.strategy.resetStatusOnCreate) delete obj.status;
    return this.allocating(t, async () => {
      const allocationErrors = t.strategy.allocate ? await t.strategy.allocate(obj, undefined, ctx, () => this.allOf(t)) : [];
      t.strategy.prepareForCreate(obj, ctx);
      const errs = [...allocationErrors, ...validateObjectMeta(obj, t), ...t.strategy.validate(obj, ctx)];
      if (errs.length > 0) throw this.invalid(t, obj, errs);
      if (opts.fieldManager !== undefined && !opts.ownershipRecorded) {
        const owned = withUpdateOwnership(t, "", undefined, obj, opts.fieldManager);
        obj.metadata.managedFields = owned.metadata.managedFields;
        if (obj.metadata.managedFields === undefined) delete obj.metadata.managedFields;
      }
      if (opts.dryRun) {
        if (await this.storage.get(storageKey(t, ns, meta.name!))) throw new StorageError("KeyExists", storageKey(t, ns, meta.name!));
        return obj;
      }
      const stored = encodeForStorage(obj);
      const kv = await this.storage.create(storageKey(t, ns, meta.name!), stored);
      meta.resourceVersion = String(kv.modRevision);
      rememberWrittenJson(t, obj, stored, kv.modRevision);
      return obj;
    });
  }

  /**
   * Types that allocate from a shared pool (Service IPs and ports) run allocation and the write
   * under one lock per type, so two writes cannot take the same value.
   */
  private allocating<T>(t: ResourceType, work: () => Promise<T>): Promise<T> {
    if (!t.strategy.allocate) return work();
    const prev = this.allocationLocks.get(t.keyPrefix) ?? Promise.resolve();
    const run = prev.then(work, work);
    this.allocationLocks.set(t.keyPrefix, run.then(() => undefined, () => undefined));
    return run;
  }

  /** Every stored object of the type, across namespaces (for allocation). */
  private async allOf(t: ResourceType): Promise<KObject[]> {
    const res = await this.storage.range(t.keyPrefix);
    return res.items.map((kv) => decodeFromStorage(kv, t));
  }

  private context(namespace: string, subresource: string): StrategyContext {
    return { namespace, subresource, ...this.config };
  }

  /** PUT: replace the object (or the status) with the body. */
  async update(t: ResourceType, ns: string, name: string, body: KObject, subresource: string, opts: WriteOptions): Promise<{ obj: KObject; created: boolean }> {
    const obj = this.checkBody(t, ns, body);
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    obj.metadata.name = name;
    const preconditionRV = obj.metadata.resourceVersion;
    return this.guaranteedUpdate(t, ns, name, subresource, opts, (current) => {
      if (current === undefined) return obj;
      if (preconditionRV === undefined || preconditionRV === "") {
        if (!t.strategy.allowUnconditionalUpdate) {
          throw invalid(t, name, [fieldInvalid("metadata.resourceVersion", 0, "must be specified for an update")]);
        }
      } else if (preconditionRV !== current.metadata.resourceVersion) {
        throw conflict(t.gr, name, optimisticLockMessage);
      }
      return obj;
    }, preconditionRV !== undefined && preconditionRV !== "");
  }

  /**
   * Read-modify-write with retry on a concurrent write (upstream: GuaranteedUpdate). `mutate`
   * gets the stored object (undefined if absent) and returns the desired one. With
   * `failOnConflict` a concurrent write is a 409 (the caller pinned a resourceVersion).
   */
  async guaranteedUpdate(
    t: ResourceType,
    ns: string,
    name: string,
    subresource: string,
    opts: WriteOptions,
    mutate: Mutation,
    failOnConflict = false,
  ): Promise<{ obj: KObject; created: boolean }> {
    const key = storageKey(t, ns, name);
    const ctx = this.context(ns, subresource);
    for (let attempt = 0; attempt < 16; attempt++) {
      const kv = await this.storage.get(key);
      const current = kv ? decodeFromStorage(kv, t) : undefined;
      if (!current) {
        if (subresource || !t.strategy.allowCreateOnUpdate) throw notFound(t.gr, name);
        const desired = await mutate(undefined);
        desired.metadata.name = name;
        try {
          return { obj: await this.create(t, ns, desired, opts), created: true };
        } catch (e) {
          if (e instanceof ApiError && e.reason === "AlreadyExists") continue;
          throw e;
        }
      }
      const desired = this.checkBody(t, ns, await mutate(current));
      const outcome = await this.allocating(t, async () => {
        const allocationErrors = t.strategy.allocate && subresource === "" ? await t.strategy.allocate(desired, current, ctx, () => this.allOf(t)) : [];
        let obj = this.prepareUpdate(t, desired, current, ctx);
        if (allocationErrors.length === 0 && deepEqual(stripRV(obj), stripRV(current))) {
          return { obj: current, created: false }; // no-op write: nothing stored, no event
        }
        if (opts.fieldManager !== undefined && !opts.ownershipRecorded) obj = withUpdateOwnership(t, subresource, current, obj, opts.fieldManager);
        const errs = [...allocationErrors, ...validateObjectMetaUpdate(obj, current, t), ...t.strategy.validateUpdate(obj, current, ctx)];
        if (errs.length > 0) throw this.invalid(t, obj, errs);
        if (opts.dryRun) return { obj, created: false };
        return this.writeUpdate(t, key, kv!.modRevision, obj, name, failOnConflict);
      });
      if (outcome !== "retry") return outcome;
    }
    throw conflict(t.gr, name, optimisticLockMessage);
  }

  /** Stores an update (or, for a deleting object that lost its last finalizer, removes it). */
  private async writeUpdate(t: ResourceType, key: string, modRevision: number, obj: KObject, name: string, failOnConflict: boolean): Promise<{ obj: KObject; created: boolean } | "retry"> {
    // A deleting object whose last finalizer is gone is removed instead of updated.
    if (obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).length === 0) {
      try {
        const deleted = await this.storage.delete(key, modRevision);
        obj.metadata.resourceVersion = String(deleted.modRevision);
        return { obj, created: false };
      } catch (e) {
        if (e instanceof StorageError && (e.code === "Conflict" || e.code === "KeyNotFound")) return "retry";
        throw e;
      }
    }
    try {
      const stored = encodeForStorage(obj);
      const written = await this.storage.update(key, stored, modRevision);
      obj.metadata.resourceVersion = String(written.modRevision);
      rememberWrittenJson(t, obj, stored, written.modRevision);
      return { obj, created: false };
    } catch (e) {
      if (e instanceof StorageError && (e.code === "Conflict" || e.code === "KeyNotFound")) {
        if (failOnConflict) throw conflict(t.gr, name, optimisticLockMessage);
        return "retry";
      }
      throw e;
    }
  }

  /** Keeps server-owned fields, applies status-subresource rules and generation. */
  private prepareUpdate(t: ResourceType, obj: KObject, current: KObject, ctx: StrategyContext): KObject {
    const m = obj.metadata;
    const c = current.metadata;
    m.uid = c.uid;
    m.creationTimestamp = c.creationTimestamp;
    m.resourceVersion = c.resourceVersion;
    if (t.namespaced) m.namespace = c.namespace;
    if (c.deletionTimestamp) {
      m.deletionTimestamp = c.deletionTimestamp;
      m.deletionGracePeriodSeconds = c.deletionGracePeriodSeconds;
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    if (ctx.subresource === "status") {
      // Only status changes through /status; metadata and spec stay as stored.
      const next = clone(current);
      next.status = obj.status;
      if (obj.status === undefined) delete next.status;
      t.strategy.prepareForUpdate(next, current, ctx);
      return next;
    }
    if (t.hasStatus) {
      if (current.status === undefined) delete obj.status;
      else obj.status = clone(current.status);
    }
    if (c.generation !== undefined) m.generation = c.generation;
    t.strategy.prepareForUpdate(obj, current, ctx);
    if (t.strategy.tracksGeneration) {
      if (m.generation === undefined) m.generation = 1;
      if (!deepEqual(withoutMetaAndStatus(obj), withoutMetaAndStatus(current))) m.generation = (c.generation ?? 0) + 1;
    }
    return obj;
  }

  /**
   * DELETE with upstream's semantics: preconditions; propagation finalizers (Orphan adds
   * "orphan", Foreground adds "foregroundDeletion"; the garbage collector removes them);
   * graceful deletion for types with a grace period policy (pods); objects with finalizers get
   * deletionTimestamp and stay; everything else goes at once. With the unsafe option (and its
   * gate), an object that cannot be decoded is removed from storage as it is.
   */
  async delete(t: ResourceType, ns: string, name: string, opts: DeleteOptions): Promise<{ obj: KObject; deleted: boolean }> {
    const key = storageKey(t, ns, name);
    for (let attempt = 0; attempt < 16; attempt++) {
      const kv = await this.storage.get(key);
      if (!kv) throw notFound(t.gr, name);
      let current: KObject;
      try {
        current = decodeFromStorage(kv, t);
      } catch (e) {
        if (!opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
          throw new ApiError(500, "InternalError", `Internal error occurred: failed to decode the stored object ${key}: ${(e as Error).message}; it can be removed with the delete option ignoreStoreReadErrorWithClusterBreakingPotential (feature gate AllowUnsafeMalformedObjectDeletion)`, { name, group: t.group || undefined, kind: t.resource });
        }
        const removed = await this.storage.delete(key, kv.modRevision).catch((err) => {
          if (err instanceof StorageError && (err.code === "Conflict" || err.code === "KeyNotFound")) return undefined;
          throw err;
        });
        if (!removed) continue;
        const stub: KObject = { kind: t.kind, apiVersion: t.apiVersion, metadata: { name, ...(t.namespaced ? { namespace: ns } : {}), resourceVersion: String(removed.modRevision) } };
        return { obj: stub, deleted: true };
      }
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== current.metadata.uid) {
        throw conflict(t.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw conflict(t.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
      }
      const finalizers = withPropagationFinalizers(current.metadata.finalizers ?? [], opts.propagationPolicy);
      const isNamespace = t.resource === "namespaces" && t.group === "";
      const nsFinalizers = isNamespace && ((current.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0;
      const grace = t.gracePeriod ? t.gracePeriod(current, opts.gracePeriodSeconds) : 0;
      if (finalizers.length === 0 && !nsFinalizers && grace === 0) {
        if (opts.dryRun) return { obj: current, deleted: true };
        try {
          const removed = await this.storage.delete(key, kv.modRevision);
          current.metadata.resourceVersion = String(removed.modRevision);
          return { obj: current, deleted: true };
        } catch (e) {
          if (e instanceof StorageError && (e.code === "Conflict" || e.code === "KeyNotFound")) continue;
          throw e;
        }
      }
      const next = clone(current);
      const m = next.metadata;
      const now = Date.now();
      const deadline = now + grace * 1000;
      const existing = m.deletionTimestamp ? Date.parse(m.deletionTimestamp) : undefined;
      // A later DELETE may only shorten a pending grace period, never extend it.
      if (existing === undefined || deadline < existing) {
        m.deletionTimestamp = nowTimestamp(new Date(deadline));
        m.deletionGracePeriodSeconds = grace;
      }
      if (finalizers.length > 0) m.finalizers = finalizers;
      else delete m.finalizers;
      if (isNamespace) next.status = { ...(next.status as object), phase: "Terminating" };
      if (deepEqual(next.metadata, current.metadata) && deepEqual(next.status, current.status)) return { obj: current, deleted: false };
      if (opts.dryRun) return { obj: next, deleted: false };
      try {
        const written = await this.storage.update(key, encodeForStorage(next), kv.modRevision);
        next.metadata.resourceVersion = String(written.modRevision);
        return { obj: next, deleted: false };
      } catch (e) {
        if (e instanceof StorageError && (e.code === "Conflict" || e.code === "KeyNotFound")) continue;
        throw e;
      }
    }
    throw conflict(t.gr, name, optimisticLockMessage);
  }

  /** Common checks of a write body: an object, matching namespace, metadata present. */
  private checkBody(t: ResourceType, ns: string, body: unknown): KObject {
    if (!isPlainObject(body)) throw badRequest(`the body of the request was not a ${t.kind} object`);
    const { kind: _k, apiVersion: _a, metadata, ...rest } = body as KObject;
    // Field order as upstream serialises: kind, apiVersion, metadata, then the rest.
    const obj: KObject = { kind: t.kind, apiVersion: t.apiVersion, metadata: metadata ?? {}, ...rest };
    if (!isPlainObject(obj.metadata)) throw badRequest("metadata must be an object");
    if (t.namespaced) {
      const bodyNs = obj.metadata.namespace;
      if (bodyNs !== undefined && bodyNs !== "" && bodyNs !== ns) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
    }
    return obj;
  }

  private async admitNamespace(t: ResourceType, ns: string, name: string): Promise<void> {
    const state = await this.namespaceState(ns);
    if (state === "missing") throw notFound({ group: "", resource: "namespaces" }, ns);
    if (state === "terminating") {
      const e = forbidden(t.gr, name, `unable to create new content in namespace ${ns} because it is being terminated`);
      e.details!.causes = [{ reason: "NamespaceTerminating", message: `namespace ${ns} is being terminated`, field: "metadata.namespace" }];
      throw e;
    }
  }

  private invalid(t: ResourceType, obj: KObject, errs: FieldError[]): ApiError {
    return invalid(t, obj.metadata.name ?? "", errs);
  }

  async currentRevision(): Promise<number> {
    return this.storage.currentRevision();
  }

  /** Stored objects under a key prefix: lists the watch cache cannot answer (list.ts). */
  rangeStored(prefix: string, opts?: RangeOptions): Promise<RangeResult> {
    return this.storage.range(prefix, opts);
  }

  compactedError(): ApiError {
    return gone("The resourceVersion for the provided list is too old.");
  }
}

function stripRV(o: KObject): KObject {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

function withoutMetaAndStatus(o: KObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/** generateName + 5 random characters from upstream's consonant-digit alphabet. */
export function generateName(prefix: string): string {
  const base = prefix.length > 63 - 5 ? prefix.slice(0, 63 - 5) : prefix;
  const bytes = randomBytes(5);
  let suffix = "";
  for (const b of bytes) suffix += suffixAlphabet[b % suffixAlphabet.length];
  return base + suffix;
}
