// The generic REST store: one implementation of get/create/update/delete for every type,
// parameterised by the type's strategy (upstream: generic/registry.Store). Every write runs
// upstream's stages in upstream's order:
//   default → mutating admission → prepare → validate → validating admission → storage.
import type { CelTimings } from "../cel/timings.js";
import { randomBytes } from "node:crypto";
import { newUUID } from "../apimachinery/uuid.js";
import { alreadyExists, ApiError, badRequest, conflict, invalid, notFound, optimisticLockMessage } from "../apimachinery/errors.js";
import { invalid as fieldInvalid, type FieldError } from "../apimachinery/validation.js";
import type { Admission, AdmissionAttributes, AdmissionOperation } from "./admission.js";
import { CorruptValueError, StorageError, type KeyValue, type PutOptions, type RangeOptions, type Storage, type WriteOp } from "../storage/interface.js";
import { corruptListError, corruptObjectError, type CorruptObject } from "./corrupt-object.js";
import { decodedJson, decodeFromStorage, encodeForStorage, servedJson, spliceResourceVersion } from "./codec.js";
import { clone, deepEqual, isPlainObject, nowTimestamp, type KObject } from "../apimachinery/object.js";
import { convertsOnRead, storageKey, storagePrefix, type ResourceType } from "./resource-type.js";
import { definitionNameOf } from "./type-schema.js";
import { zeroValue } from "../encoding/schema/null-facts.js";
import { servedOne, servedVersionOf, storageVersionOf } from "./conversion.js";
import { parseResourceVersion, tooLargeError } from "./resource-version.js";
import type { StrategyContext } from "./strategy.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "./validate-meta.js";
import { withUpdateOwnership } from "./field-ownership.js";
import type { Reservation, Reservations } from "./reservations.js";
import { withPropagationFinalizers, type DeleteOptions } from "./deletion.js";
import { dropEmptyMetadata } from "./empty-metadata.js";
import { withoutMetaAndStatus } from "./subresource-writes.js";
import { listObjects, type ListResult, type ObjectCacher } from "./list.js";
import { currentFromCache, currentJsonFromCache, getBody } from "./cached-get.js";
import type { ListOptions } from "./list-options.js";
import { prepareWatch, type PreparedWatch } from "./watch.js";
import type { SubresourceCreate, WriteOptions, WriteRequest } from "./write-options.js";
import { interpretError } from "../apimachinery/go-interpret.js";

export { foregroundFinalizer, orphanFinalizer, withPropagationFinalizers, type DeleteOptions, type PropagationPolicy } from "./deletion.js";

export type { SkippedStages, SubresourceCreate, WriteOptions, WriteRequest } from "./write-options.js";

/** Server settings that strategies see through their context. */
export interface StoreConfig {
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  /** --event-ttl in seconds (strategies with a TTL read it). */
  eventTtlSeconds?: number;
  /** The AllowUnsafeMalformedObjectDeletion gate: how unreadable objects are reported (corrupt-object.ts). */
  allowUnsafeMalformedObjectDeletion?: boolean;
  /** Told how long strategies' CEL work took (custom resources' validation rules). */
  celTimings?: CelTimings;
}

/** What a write produced: the object, and its JSON as served when the stored bytes allow it. */
export interface WriteResult {
  object: KObject;
  /** The stored bytes with the resourceVersion spliced in (absent on dry run or when not spliceable). */
  json?: string;
  /** The write created the object (PUT or apply of a missing object). */
  created: boolean;
}

/** A stored object, decoded, with its storage key (lists page by key). */
export interface StoredObject {
  key: string;
  object: KObject;
}

/** One read of stored objects: at `revision`; `more` when a limit cut it short, `remaining` keys after it. */
export interface StoredPage {
  items: StoredObject[];
  revision: number;
  more: boolean;
  remaining: number;
}

/** A create ready to be written in a transaction with others (GenericStore.prepareCreate). */
export interface PreparedCreate {
  op: WriteOp & { kind: "create" };
  /** Drops what the create reserved (shared-pool values) once written (claims kept) or failed (claims undone). */
  release(written: boolean): Promise<void>;
}

export interface DeleteResult {
  object: KObject;
  /** Gone from storage (false: deletion requested, finalizers or a grace period pending). */
  deleted: boolean;
  /** Removed unread by the unsafe option: there is no object to answer with. */
  unread?: boolean;
}

/** How an update computes what it stores. One shape for PUT, PATCH, apply, scale and controllers. */
export interface UpdateSpec {
  /**
   * "" for the object itself, else the subresource written through ("status", "scale",
   * "finalize", ...): admission's and managedFields' subresource. What a write through a view of
   * the object takes is the type's to say (Strategy.subresourceWrites).
   */
  subresource: string;
  /**
   * The desired object from the stored one (undefined when absent). Called again after a
   * concurrent write. The stored object is shared: edit a copy. A metadata.resourceVersion in the
   * result is a precondition (409 when it is not the stored one).
   */
  desired(current: KObject | undefined): KObject | Promise<KObject>;
  /** A missing object is created (apply; PUT of types that allow it). Never for subresources. */
  createIfMissing: boolean;
  /** Before such a create: may the requester create it? (upstream authorizes create-on-update as `create`). Throws to refuse. */
  authorizeCreate?: () => Promise<void>;
}

/** How long a read of a future resourceVersion waits before 504. */
const futureRevisionWaitMs = 3000;
const maxGenerateNameAttempts = 8;
const maxUpdateAttempts = 16;

/** What the stores of every type share: one backend, one admission chain, one set of watch caches. */
export interface StoreParts {
  readonly storage: Storage;
  readonly admission: Admission;
  /** Server settings strategies read (service ranges). */
  readonly config: StoreConfig;
  /** The watch caches lists and watches are served from (absent: lists read storage, no watches). */
  readonly cacher?: ObjectCacher;
  /** Values taken from a pool shared by every version of a type (held per storage prefix). */
  readonly reservations: Reservations;
  /** Told of what the stores read from storage (metrics). */
  readonly observers: StoreObservers;
}

export interface StoreObservers {
  /** Each list served from storage rather than the watch cache (the storage list metrics). */
  storageList?: StorageListObserver;
  /** A stored value of this group and resource that did not decode. */
  decodeFailed?: (group: string, resource: string) => void;
}

/** What one list from storage read (fetched), tested against its selectors (evaluated) and returned. */
export type StorageListObserver = (group: string, resource: string, counts: { fetched: number; evaluated: number; returned: number }) => void;

/**
 * The store of one served type (upstream: a genericregistry.Store per resource): the only way to
 * read or write its objects. Handed out by Stores; every version of a type has its own store over
 * the same storage prefix.
 */

/** What a GET answers: JSON bytes, or an object to encode (another encoding, or no stored bytes). */
export type GotJson = { json: Buffer } | { obj: KObject };

/** A cached GET's answer: its bytes, or NotFound when the cache knows no such key. */
function cachedJson(t: ResourceType, name: string, json: Buffer | null): GotJson {
  if (json === null) throw notFound(t.gr, name);
  return { json };
}
export class GenericStore {
  constructor(
    readonly type: ResourceType,
    private readonly parts: StoreParts,
  ) {}

  private get storage(): Storage {
    return this.parts.storage;
  }

  private putOpts: PutOptions | undefined;
  /** What every put of this type carries: the type's TTL (Events), else nothing. */
  private get put(): PutOptions | undefined {
    if (this.putOpts === undefined) {
      const ttlSeconds = this.type.strategy.ttlSeconds?.({ namespace: "", subresource: "", ...this.parts.config });
      this.putOpts = ttlSeconds ? { ttlSeconds } : {};
    }
    return this.putOpts.ttlSeconds ? this.putOpts : undefined;
  }

  private get admission(): Admission {
    return this.parts.admission;
  }

  /**
   * A connect request (exec, attach, port-forward, proxy) passes admission as CONNECT before it
   * connects, its options object (PodExecOptions, ...) as the object (upstream's ConnectResource).
   */
  async admitConnect(namespace: string, name: string, subresource: string, options: KObject, request: WriteRequest): Promise<void> {
    const a = this.attributes("CONNECT", namespace, name, subresource, { dryRun: false, request }, options);
    await this.admission.admit(a);
    await this.admission.validate(a);
  }

  async get(ns: string, name: string, rv?: string | null, signal?: AbortSignal): Promise<KObject> {
    const t = this.type;
    return servedOne(t, this.decode(await this.read(ns, name, rv, signal)));
  }

  /**
   * GET as a JSON body (newline included): the stored bytes with the resourceVersion spliced in
   * when possible. Served from the watch cache without a promise when it can be (memory, SQLite);
   * may throw (the caller's promise rejects).
   */
  getJson(ns: string, name: string, rv?: string | null, signal?: AbortSignal): GotJson | Promise<GotJson> {
    const t = this.type;
    if (parseResourceVersion(rv) === undefined) {
      const json = currentJsonFromCache(this.parts.cacher, t, storageKey(t, ns, name));
      if (json instanceof Promise) return json.then((j) => (j === undefined ? this.getJsonStored(ns, name, rv, signal) : cachedJson(t, name, j)));
      if (json !== undefined) return cachedJson(t, name, json);
    }
    return this.getJsonStored(ns, name, rv, signal);
  }

  private async getJsonStored(ns: string, name: string, rv: string | null | undefined, signal: AbortSignal | undefined): Promise<GotJson> {
    const t = this.type;
    const kv = await this.read(ns, name, rv, signal);
    if (t.onDecode) {
      try {
        return { json: getBody(decodedJson(kv, t)) };
      } catch (e) {
        throw this.decodeFailed(e);
      }
    }
    const json = servedJson(kv, t);
    return json !== undefined ? { json: getBody(json) } : { obj: await servedOne(t, this.decode(kv)) };
  }

  /** A stored value as an object (one that does not decode is counted, as upstream's etcd3 store counts it). */
  private decode(kv: KeyValue): KObject {
    try {
      return decodeFromStorage(kv, this.type);
    } catch (e) {
      throw this.decodeFailed(e);
    }
  }

  private decodeFailed(e: unknown): unknown {
    this.parts.observers.decodeFailed?.(this.type.group, this.type.resource);
    return e;
  }

  /**
   * A list as a client asks for it (upstream: the store's List): from the watch cache when it can
   * serve it, else from storage. `signal` stops a wait for a revision not reached yet.
   */
  list(ns: string, opts: ListOptions, signal?: AbortSignal): Promise<ListResult> {
    return listObjects(this, ns, opts, this.parts.cacher, signal);
  }

  /** A list was served from storage (list.ts). */
  listedFromStorage(counts: { fetched: number; evaluated: number; returned: number }): void {
    this.parts.observers.storageList?.(this.type.group, this.type.resource, counts);
  }

  /** A watch as a client asks for it, from the watch cache; everything that may fail before the stream opens fails here. */
  watch(ns: string, opts: ListOptions): Promise<PreparedWatch> {
    const { cacher } = this.parts;
    if (!cacher) throw new Error("this store has no watch cache to serve watches from");
    return prepareWatch(cacher, this.type, ns, opts);
  }

  /**
   * The type's stored objects in `namespace` ("" all), decoded and in the type's version: the
   * lists the watch cache cannot serve (an exact or continued revision, paged by key), and
   * in-process readers that must see storage rather than an informer. A revision outside the
   * history window throws StorageError "Compacted".
   */
  async listStored(namespace: string, opts?: RangeOptions): Promise<StoredPage> {
    const t = this.type;
    const res = await this.storage.range(storagePrefix(t, namespace), opts).catch((e: unknown) => {
      throw e instanceof CorruptValueError ? this.corruptListError(e) : e;
    });
    const objects = await servedVersionOf(t, res.items.map((kv) => this.decode(kv)));
    return { items: res.items.map((kv, i) => ({ key: kv.key, object: objects[i]! })), revision: res.revision, more: res.more, remaining: res.remaining };
  }

  /**
   * The names of the type's stored objects in `namespace` ("" all), nothing decoded: relative to
   * the list's key prefix, so a namespaced type listed across namespaces gives "namespace/name".
   */
  async storedNames(namespace: string): Promise<string[]> {
    const t = this.type;
    const prefix = storagePrefix(t, namespace);
    return (await this.storage.range(prefix)).items.map((kv) => kv.key.slice(prefix.length));
  }

  /** The revision of the storage that holds this type (split storage keeps one per etcd cluster). */
  async currentRevision(): Promise<number> {
    return this.storage.currentRevision(this.type.keyPrefix);
  }

  /** One object's stored bytes, not older than `rv` when given (else 504 after a wait). */
  private async read(ns: string, name: string, rv?: string | null, signal?: AbortSignal): Promise<KeyValue> {
    const t = this.type;
    const requested = parseResourceVersion(rv);
    if (requested !== undefined && requested > 0) await this.waitForRevision(requested, signal);
    const kv = await this.getKv(storageKey(t, ns, name));
    if (!kv) throw notFound(t.gr, name);
    return kv;
  }

  /** Waits until the store has reached `rev` (NotOlderThan reads), else 504; stops when `signal` aborts. */
  async waitForRevision(rev: number, signal?: AbortSignal): Promise<number> {
    const deadline = Date.now() + futureRevisionWaitMs;
    for (;;) {
      signal?.throwIfAborted();
      const current = await this.storage.currentRevision(this.type.keyPrefix);
      if (current >= rev) return current;
      if (Date.now() >= deadline) throw tooLargeError(rev, current);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  // ---- create

  /** A create; with `subresource`, the admission of a subresource's object only (see SubresourceCreate). */
  async create(ns: string, body: unknown, opts: WriteOptions & { subresource?: SubresourceCreate }): Promise<WriteResult> {
    const t = this.type;
    if (opts.subresource) return { object: await this.admitSubresourceCreate(ns, body as KObject, opts.subresource, opts), created: false };
    const admitted = await this.admitCreate(ns, body, opts);
    const nameWasGenerated = !admitted.metadata.name && !!admitted.metadata.generateName;
    // A generated name that collides is retried with a fresh name, from the admitted body.
    const pristine = nameWasGenerated ? clone(admitted) : admitted;
    for (let attempt = 0; ; attempt++) {
      const obj = attempt === 0 ? admitted : clone(pristine);
      if (nameWasGenerated) obj.metadata.name = generateName(obj.metadata.generateName!);
      try {
        return await this.createOnce(ns, obj, opts);
      } catch (e) {
        if (e instanceof StorageError && e.code === "KeyExists") {
          if (nameWasGenerated && attempt < maxGenerateNameAttempts) continue;
          throw alreadyExists(t.gr, obj.metadata.name!);
        }
        throw e;
      }
    }
  }

  /**
   * A create's stages up to the storage write, for a batch written in one transaction
   * (Stores.createAll): the object must be named. The caller writes `op` and then calls `release`.
   */
  async prepareCreate(ns: string, body: unknown, opts: WriteOptions): Promise<PreparedCreate> {
    const obj = await this.admitCreate(ns, body, opts);
    if (!obj.metadata.name) throw badRequest("a batched create needs a name");
    const reservation = await this.stageCreate(ns, obj, opts);
    try {
      const key = storageKey(this.type, ns, obj.metadata.name);
      return { op: { kind: "create", key, value: encodeForStorage(await storageVersionOf(this.type, obj)), ...this.put }, release: (written) => reservation.release(written) };
    } catch (e) {
      await reservation.release(false);
      throw e;
    }
  }

  /** Decoding checks, defaulting and mutating admission of a create; the admitted object. */
  private async admitCreate(ns: string, body: unknown, opts: WriteOptions): Promise<KObject> {
    const t = this.type;
    const input = checkBody(t, ns, body);
    t.strategy.default(input);
    // The writer owns what it sent, recorded before mutating admission as upstream does: fields a
    // webhook or policy adds are nobody's.
    const owned = tracksOwnership(opts) ? ownedFields(t, "", undefined, input, opts.fieldManager!) : undefined;
    const attrs = this.attributes("CREATE", ns, input.metadata.name ?? "", "", opts, input);
    if (!opts.skip?.admission) await this.admission.admit(attrs);
    const admitted = checkBody(t, ns, attrs.object);
    if (owned) withOwnedFields(admitted, owned);
    // Cleared after mutating admission, as upstream's retry clears them on the admitted object.
    if (opts.withoutManagedFields) delete admitted.metadata.managedFields;
    return admitted;
  }

  /**
   * Server-owned metadata, values from shared pools, the type's preparation, validation and
   * validating admission: what stands between an admitted create and its write. The reservation
   * is held until the caller has written (or failed to write) the object.
   */
  private async stageCreate(ns: string, obj: KObject, opts: WriteOptions): Promise<Reservation> {
    const t = this.type;
    const meta = obj.metadata;
    const ctx = this.context(ns, "", opts);
    // Server-owned metadata: clients cannot set these on create.
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    meta.uid = newUUID();
    meta.creationTimestamp = nowTimestamp();
    if (t.strategy.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (t.namespaced) meta.namespace = ns;
    else delete meta.namespace;
    // Status is the server's and controllers' to write, never set on create (nodes excepted):
    // upstream resets it to the zero status struct, which Go writes as `{}` or with the fields it
    // always writes (a ReplicaSet's `replicas: 0`). A custom resource's is removed.
    if (t.hasStatus && t.strategy.resetStatusOnCreate) {
      const name = definitionNameOf(t.schema, t.apiVersion, t.kind);
      const zero = name === undefined ? undefined : zeroValue(name, "status");
      if (zero === undefined) delete obj.status;
      else obj.status = zero as KObject["status"];
    }
    const reservation = await this.parts.reservations.reserve(t, obj, undefined, ctx, opts.dryRun);
    try {
      t.strategy.prepareForCreate(obj, ctx);
      const errs = [...reservation.errors, ...validateObjectMeta(obj, t), ...t.strategy.validate(obj, ctx)];
      if (errs.length > 0) throw invalidObject(t, obj, errs);
      if (!opts.skip?.admission) await this.admission.validate(this.attributes("CREATE", ns, meta.name!, "", opts, obj));
      return reservation;
    } catch (e) {
      await reservation.release(false);
      throw e;
    }
  }

  private async createOnce(ns: string, obj: KObject, opts: WriteOptions): Promise<WriteResult> {
    const t = this.type;
    const meta = obj.metadata;
    const reservation = await this.stageCreate(ns, obj, opts);
    let written = false;
    try {
      const key = storageKey(t, ns, meta.name!);
      if (opts.dryRun) {
        if (await this.storage.get(key)) throw new StorageError("KeyExists", key);
        return { object: obj, created: true };
      }
      const toStore = await storageVersionOf(t, obj);
      const encoded = encodeForStorage(toStore);
      stillWanted(opts);
      const kv = await this.storage.create(key, encoded, this.put);
      written = true;
      meta.resourceVersion = String(kv.modRevision);
      return { object: await this.servedAfterWrite(obj, toStore, kv.modRevision), json: spliceResourceVersion(t, encoded, kv.modRevision), created: true };
    } finally {
      await reservation.release(written);
    }
  }

  /** Both admission stages of a subresource's object, `sub.validate` between them; the admitted object. */
  private async admitSubresourceCreate(ns: string, object: KObject, sub: SubresourceCreate, opts: WriteOptions): Promise<KObject> {
    const attrs = this.attributes("CREATE", ns, sub.name, sub.subresource, opts, object);
    await this.admission.admit(attrs);
    const admitted = attrs.object ?? object;
    await sub.validate?.(admitted);
    await this.admission.validate(this.attributes("CREATE", ns, sub.name, sub.subresource, opts, admitted));
    return admitted;
  }

  // ---- update: the one read-modify-write loop (upstream: GuaranteedUpdate)

  async update(ns: string, name: string, spec: UpdateSpec, opts: WriteOptions): Promise<WriteResult> {
    const t = this.type;
    if (opts.skip?.typeRules) return this.updateWithoutTypeRules(ns, name, spec, opts);
    const key = storageKey(t, ns, name);
    const { subresource } = spec;
    const ctx = this.context(ns, subresource, opts);
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      // The first attempt starts from the watch cache's object when the cache provably holds the
      // current state; after a lost race the loop reads storage.
      const cached = attempt === 0 ? await currentFromCache(this.parts.cacher, t, key) : undefined;
      let kv: Pick<KeyValue, "modRevision" | "stale"> | undefined;
      let current: KObject | undefined;
      if (cached) ({ kv, object: current } = cached);
      else if (cached === undefined) {
        const stored = await this.getKv(key);
        kv = stored;
        current = stored ? await servedOne(t, this.decode(stored)) : undefined;
      }
      const desired = checkBody(t, ns, await spec.desired(current));
      checkNameMatches(desired, name);
      desired.metadata.name = name;
      if (!current) {
        if (subresource || !spec.createIfMissing) throw notFound(t.gr, name);
        await spec.authorizeCreate?.();
        try {
          return await this.create(ns, desired, opts);
        } catch (e) {
          if (e instanceof ApiError && e.reason === "AlreadyExists") continue; // created meanwhile: update it
          throw e;
        }
      }
      checkResourceVersion(t, desired, current);
      const outcome = await this.updateOnce(ns, key, kv!, desired, current, ctx, opts, Boolean(cached));
      if (outcome !== "retry" && outcome !== "reread") return outcome;
    }
    throw conflict(t.gr, name, optimisticLockMessage);
  }

  private async updateOnce(
    ns: string,
    key: string,
    { modRevision, stale }: Pick<KeyValue, "modRevision" | "stale">,
    desired: KObject,
    current: KObject,
    ctx: StrategyContext,
    opts: WriteOptions,
    /** `current` is the watch cache's: a no-op is confirmed against storage, and worked again from it ("reread") when storage has moved on. */
    cachedCurrent = false,
  ): Promise<WriteResult | "retry" | "reread"> {
    const t = this.type;
    const name = current.metadata.name!;
    t.strategy.default(desired);
    const owned = tracksOwnership(opts) ? ownedFields(t, ctx.subresource, current, desired, opts.fieldManager!) : undefined;
    const attrs = this.attributes("UPDATE", ns, name, ctx.subresource, opts, desired, current);
    if (!opts.skip?.admission) await this.admission.admit(attrs);
    const admitted = checkBody(t, ns, attrs.object);
    const reservation = ctx.subresource === "" ? await this.parts.reservations.reserve(t, admitted, current, ctx, opts.dryRun) : undefined;
    let outcome: WriteResult | "retry" | "reread" | undefined;
    try {
      const allocationErrors = reservation?.errors ?? [];
      let obj = prepareUpdate(t, admitted, current, ctx);
      // After prepareUpdate: a view (status) keeps the stored object's managedFields otherwise.
      if (opts.withoutManagedFields) delete obj.metadata.managedFields;
      // A write that changes nothing is still validated and admitted (upstream decides it is a
      // no-op only when storage compares the bytes), then answered without storing or an event.
      // A value read through a key that writes no longer use is stored again all the same (key
      // rotation rewrites objects by replacing them unchanged).
      let noop = !stale && allocationErrors.length === 0 && deepEqual(withoutResourceVersion(obj), withoutResourceVersion(current));
      if (noop && cachedCurrent) {
        // Found on the watch cache's state: confirmed against storage before a write is skipped
        // (upstream's GuaranteedUpdate with a cached object): a value changed since is worked
        // again from storage; one read through an old encryption key is written all the same.
        const stored = await this.getKv(key);
        if (!stored || stored.modRevision !== modRevision) return (outcome = "reread");
        noop = !stored.stale;
      }
      if (!noop && owned) withOwnedFields(obj, owned);
      const errs = [...allocationErrors, ...validateObjectMetaUpdate(obj, current, t), ...t.strategy.validateUpdate(obj, current, ctx)];
      if (errs.length > 0) throw invalidObject(t, obj, errs);
      if (!opts.skip?.admission) await this.admission.validate(this.attributes("UPDATE", ns, name, ctx.subresource, opts, obj, current));
      if (noop) return (outcome = { object: current, created: false });
      if (opts.dryRun) return { object: obj, created: false };
      return (outcome = await this.writeUpdate(key, modRevision, obj, opts));
    } finally {
      await reservation?.release(outcome !== undefined && outcome !== "retry" && outcome !== "reread");
    }
  }

  /** Stores an update (or, for a deleting object that lost its last finalizer, removes it). */
  private async writeUpdate(key: string, modRevision: number, obj: KObject, opts: WriteOptions): Promise<WriteResult | "retry"> {
    const t = this.type;
    stillWanted(opts);
    try {
      if (obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).length === 0 && !t.strategy.pendingFinalization(obj)) {
        const deleted = await this.storage.delete(key, modRevision);
        obj.metadata.resourceVersion = String(deleted.modRevision);
        await this.parts.reservations.released(t, obj);
        return { object: obj, created: false };
      }
      const toStore = await storageVersionOf(t, obj);
      const stored = encodeForStorage(toStore);
      const written = await this.storage.update(key, stored, modRevision, this.put);
      obj.metadata.resourceVersion = String(written.modRevision);
      return { object: await this.servedAfterWrite(obj, toStore, written.modRevision), json: spliceResourceVersion(t, stored, written.modRevision), created: false };
    } catch (e) {
      if (isLostRace(e)) return "retry"; // re-read; a resourceVersion precondition then answers 409
      throw e;
    }
  }

  /**
   * An update with `skip.typeRules` (upstream: Storage.GuaranteedUpdate): what `spec.desired`
   * returns from a copy of the stored object is stored as it is — no strategy, no admission, no
   * ownership, no resourceVersion precondition — retried after a lost race; `desired` throws to
   * refuse. Never creates.
   */
  private async updateWithoutTypeRules(ns: string, name: string, spec: UpdateSpec, opts: WriteOptions): Promise<WriteResult> {
    const t = this.type;
    const key = storageKey(t, ns, name);
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      const kv = await this.storage.get(key);
      if (!kv) throw notFound(t.gr, name);
      const next = await spec.desired(clone(await servedOne(t, this.decode(kv))));
      delete next.metadata.resourceVersion;
      if (opts.dryRun) return { object: next, created: false };
      const value = encodeForStorage(await storageVersionOf(t, next));
      stillWanted(opts);
      try {
        const written = await this.storage.update(key, value, kv.modRevision, this.put);
        next.metadata.resourceVersion = String(written.modRevision);
        return { object: next, created: false };
      } catch (e) {
        if (!isLostRace(e)) throw e;
      }
    }
    throw conflict(t.gr, name, optimisticLockMessage);
  }

  // ---- delete

  /**
   * DELETE with upstream's semantics: preconditions; propagation finalizers (Orphan adds
   * "orphan", Foreground adds "foregroundDeletion"; the garbage collector removes them);
   * graceful deletion for types with a grace period policy (pods); objects with finalizers get
   * deletionTimestamp and stay; everything else goes at once. With the unsafe option (and its
   * gate), an object that cannot be decoded is removed from storage as it is.
   */
  async delete(ns: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const t = this.type;
    const key = storageKey(t, ns, name);
    for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
      let kv: KeyValue | undefined;
      let current: KObject;
      try {
        kv = await this.storage.get(key);
        if (!kv) throw notFound(t.gr, name);
        current = this.decode(kv);
      } catch (e) {
        const corrupt = corruptObjectOf(e, kv);
        if (!corrupt) throw e;
        const removed = await this.deleteUnreadable(corrupt, opts);
        if (removed) return removed;
        continue;
      }
      // The unsafe option is for objects that cannot be read only (upstream's corrupt object deleter).
      if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
        throw invalid({ group: t.group, kind: t.resource }, name, [fieldInvalid("ignoreStoreReadErrorWithClusterBreakingPotential", true, "is exclusively used to delete corrupt object(s), try again by removing this option")]);
      }
      current = await servedOne(t, current);
      checkDeletePreconditions(t, current, opts);
      if (!opts.skip?.admission) {
        const attrs = this.attributes("DELETE", ns, name, "", opts, undefined, current);
        await this.admission.admit(attrs);
        await this.admission.validate(attrs);
      }
      const outcome = await this.deleteOnce(key, kv.modRevision, current, opts);
      if (outcome !== "retry") return outcome;
    }
    throw conflict(t.gr, name, optimisticLockMessage);
  }

  private async deleteOnce(key: string, modRevision: number, current: KObject, opts: DeleteOptions): Promise<DeleteResult | "retry"> {
    const t = this.type;
    const finalizers = withPropagationFinalizers(current.metadata.finalizers ?? [], opts.propagationPolicy);
    const grace = t.gracePeriod ? t.gracePeriod(current, opts.gracePeriodSeconds) : 0;
    try {
      if (finalizers.length === 0 && !t.strategy.pendingFinalization(current) && grace === 0) {
        if (opts.dryRun) return { object: current, deleted: true };
        stillWanted(opts);
        const removed = await this.storage.delete(key, modRevision);
        current.metadata.resourceVersion = String(removed.modRevision);
        await this.parts.reservations.released(t, current);
        return { object: current, deleted: true };
      }
      const next = clone(current);
      const m = next.metadata;
      const deadline = Date.now() + grace * 1000;
      const existing = m.deletionTimestamp ? Date.parse(m.deletionTimestamp) : undefined;
      // A later DELETE may only shorten a pending grace period, never extend it.
      if (existing === undefined || deadline < existing) {
        m.deletionTimestamp = nowTimestamp(new Date(deadline));
        m.deletionGracePeriodSeconds = grace;
      }
      if (finalizers.length > 0) m.finalizers = finalizers;
      else delete m.finalizers;
      t.strategy.prepareForDelete(next);
      if (deepEqual(next.metadata, current.metadata) && deepEqual(next.status, current.status)) return { object: current, deleted: false };
      if (opts.dryRun) return { object: next, deleted: false };
      const value = encodeForStorage(await storageVersionOf(t, next));
      stillWanted(opts);
      const written = await this.storage.update(key, value, modRevision, this.put);
      next.metadata.resourceVersion = String(written.modRevision);
      return { object: next, deleted: false };
    } catch (e) {
      if (isLostRace(e)) return "retry";
      throw e;
    }
  }

  /** The unsafe deletion of an object that cannot be read; undefined when it changed meanwhile. */
  private async deleteUnreadable(corrupt: CorruptObject, opts: DeleteOptions): Promise<DeleteResult | undefined> {
    const t = this.type;
    if (!opts.ignoreStoreReadErrorWithClusterBreakingPotential) throw corruptObjectError(corrupt, this.unsafeDeletion);
    // No preconditions, admission or finalizers: nothing of the object can be read to apply them.
    stillWanted(opts);
    try {
      const removed = await this.storage.delete(corrupt.key, corrupt.modRevision);
      const name = corrupt.key.slice(corrupt.key.lastIndexOf("/") + 1);
      return { object: { kind: t.kind, apiVersion: t.apiVersion, metadata: { name, resourceVersion: String(removed.modRevision) } }, deleted: true, unread: true };
    } catch (e) {
      if (isLostRace(e)) return undefined;
      throw e;
    }
  }

  private get unsafeDeletion(): boolean {
    return this.parts.config.allowUnsafeMalformedObjectDeletion === true;
  }

  /** A read of one key, an unreadable value answered as upstream answers a corrupt object. */
  private async getKv(key: string): Promise<KeyValue | undefined> {
    try {
      return await this.storage.get(key);
    } catch (e) {
      throw e instanceof CorruptValueError ? corruptObjectError(e.values[0]!, this.unsafeDeletion) : e;
    }
  }

  /** A list that met unreadable values (list.ts asks too, for the watch cache's). */
  corruptListError(e: CorruptValueError): ApiError {
    return corruptListError(this.type.gr, e.values, this.unsafeDeletion);
  }

  // ---- helpers

  /**
   * A written object as the response shows it: what was stored, read back in the request's
   * version (through the converter again when it is not the storage version, as upstream's
   * storage decodes what it wrote).
   */
  private async servedAfterWrite(obj: KObject, stored: KObject, revision: number): Promise<KObject> {
    const t = this.type;
    if (stored === obj || !convertsOnRead(t)) return obj;
    const back = await servedOne(t, { ...stored, metadata: { ...stored.metadata, resourceVersion: String(revision) } });
    return { ...back, kind: t.kind, apiVersion: t.apiVersion };
  }

  private attributes(operation: AdmissionOperation, namespace: string, name: string, subresource: string, opts: WriteOptions | DeleteOptions, object?: KObject, oldObject?: KObject): AdmissionAttributes {
    const request = opts.request ?? ownWrite();
    let options: KObject | null | undefined;
    return {
      operation, type: this.type, namespace, name, subresource, object, oldObject, dryRun: opts.dryRun, user: request.user,
      // Read on use only (see handlers/write-options.ts).
      get signal() {
        return request.signal;
      },
      // Made on first read: most writes meet no plugin that looks at their options.
      get options() {
        return (options ??= admissionOptions(operation, opts));
      },
      warnings: request.warnings,
      annotate: request.annotate,
      ...(request.latency ? { latency: request.latency } : {}),
      // Each mutating stage starts afresh (an update retried after a lost race runs it again).
      reinvocation: { isReinvoke: false, shouldReinvoke: false, values: new Map() },
    };
  }

  private context(namespace: string, subresource: string, opts: WriteOptions): StrategyContext {
    const ctx: StrategyContext = { namespace, subresource, ...this.parts.config };
    if (opts.request) {
      ctx.warnings = opts.request.warnings;
      if (opts.request.user) ctx.user = opts.request.user;
    }
    return ctx;
  }
}

/**
 * The server's own write (a controller's, bootstrap's): no user, no deadline, and warning and
 * audit slots nobody reads, fresh for each admission call.
 */
function ownWrite(): WriteRequest {
  return { warnings: [], annotate: () => undefined };
}

/** The write's options as the AdmissionReview carries them (upstream: CreateOptions, UpdateOptions, DeleteOptions). */
function admissionOptions(operation: AdmissionOperation, opts: WriteOptions | DeleteOptions): KObject | null {
  if (operation === "CONNECT") return null;
  const dryRun = opts.dryRun ? { dryRun: ["All"] } : {};
  if (operation === "DELETE") {
    const d = opts as DeleteOptions;
    return {
      kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1",
      ...(d.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: d.gracePeriodSeconds } : {}),
      ...(d.preconditions ? { preconditions: d.preconditions } : {}),
      ...(d.propagationPolicy ? { propagationPolicy: d.propagationPolicy } : {}),
      ...dryRun,
    } as unknown as KObject;
  }
  const kind = operation === "CREATE" ? "CreateOptions" : "UpdateOptions";
  return { kind, apiVersion: "meta.k8s.io/v1", ...dryRun, ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}) } as unknown as KObject;
}

/** The managedFields a writer's request gives it (computed on the request, before admission). */
interface OwnedFields {
  /** What the request itself carried (a plugin that rewrites them keeps its version). */
  sent: unknown;
  fields: unknown;
}

/** Whether this write records its manager's managedFields entry (not apply's, nor a retry without them). */
function tracksOwnership(opts: WriteOptions): boolean {
  return opts.fieldManager !== undefined && !opts.ownershipRecorded && !opts.withoutManagedFields;
}

function ownedFields(t: ResourceType, subresource: string, prev: KObject | undefined, request: KObject, manager: string): OwnedFields {
  const sent = request.metadata.managedFields;
  return { sent: sent === undefined ? undefined : clone(sent as unknown as KObject), fields: withUpdateOwnership(t, subresource, prev, { ...request, metadata: { ...request.metadata } }, manager).metadata.managedFields };
}

function withOwnedFields(obj: KObject, owned: OwnedFields): void {
  if (!deepEqual(obj.metadata.managedFields, owned.sent)) return; // admission set them deliberately
  if (owned.fields === undefined) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = owned.fields as KObject["metadata"]["managedFields"];
}

/** Common checks of a write body: an object, matching namespace, metadata present. */
function checkBody(t: ResourceType, ns: string, body: unknown): KObject {
  if (!isPlainObject(body)) throw badRequest(`the body of the request was not a ${t.kind} object`);
  const { kind: _k, apiVersion: _a, metadata, ...rest } = body as KObject;
  // Field order as upstream serialises: kind, apiVersion, metadata, then the rest.
  const obj: KObject = { kind: t.kind, apiVersion: t.apiVersion, metadata: metadata ?? {}, ...rest };
  if (!isPlainObject(obj.metadata)) throw badRequest("metadata must be an object");
  dropEmptyMetadata(obj.metadata);
  if (t.namespaced) {
    const bodyNs = obj.metadata.namespace;
    if (bodyNs !== undefined && bodyNs !== "" && bodyNs !== ns) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  }
  return obj;
}

/** An update's body names the object of its URL (or none). */
export function checkNameMatches(obj: { metadata?: { name?: string } }, name: string): void {
  const bodyName = obj.metadata?.name;
  if (bodyName !== undefined && bodyName !== name) {
    throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  }
}

/** The resourceVersion precondition of an update (upstream: the store's Update). */
function checkResourceVersion(t: ResourceType, desired: KObject, current: KObject): void {
  const rv = desired.metadata.resourceVersion;
  if (rv === undefined || rv === "") {
    if (!t.strategy.allowUnconditionalUpdate) {
      throw invalid(t, current.metadata.name!, [fieldInvalid("metadata.resourceVersion", 0, "must be specified for an update")]);
    }
    return;
  }
  if (rv !== current.metadata.resourceVersion) throw conflict(t.gr, current.metadata.name!, optimisticLockMessage);
}

function checkDeletePreconditions(t: ResourceType, current: KObject, opts: DeleteOptions): void {
  const pre = opts.preconditions;
  const name = current.metadata.name!;
  if (pre?.uid && pre.uid !== current.metadata.uid) {
    throw conflict(t.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(t.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
  }
}

/** Keeps server-owned fields, applies status-subresource rules and generation. */
function prepareUpdate(t: ResourceType, obj: KObject, current: KObject, ctx: StrategyContext): KObject {
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
  // A view of the object (status, ...) takes only its part of the written object.
  const view = ctx.subresource ? t.strategy.subresourceWrites[ctx.subresource] : undefined;
  if (view) return view(obj, current, ctx, t.strategy);
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

function invalidObject(t: ResourceType, obj: KObject, errs: FieldError[]): ApiError {
  return invalid(t, obj.metadata.name ?? "", errs);
}

/**
 * A write whose request has ended — answered 504 at its deadline, or its client gone — is not
 * made: what the client was told (the write did not complete) stays true. Checked right before
 * each storage write, as upstream's storage calls fail on the request's cancelled context.
 */
function stillWanted(opts: WriteOptions | DeleteOptions): void {
  const reason = opts.request?.cancelReason?.();
  if (reason !== undefined) throw reason;
}

/** A concurrent write or delete got there first: read again and retry. */
function isLostRace(e: unknown): boolean {
  return e instanceof StorageError && (e.code === "Conflict" || e.code === "KeyNotFound");
}

function withoutResourceVersion(o: KObject): KObject {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: meta };
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

/** The unreadable object behind a read's failure: a value no key decrypts, or bytes that do not decode. */
function corruptObjectOf(e: unknown, kv: KeyValue | undefined): CorruptObject | undefined {
  if (e instanceof CorruptValueError) return e.values[0];
  // Not JSON: the words of upstream's decoder, whose first step (finding the kind) fails on it.
  if (kv && e instanceof SyntaxError) return { key: kv.key, modRevision: kv.modRevision, message: interpretError(kv.value) ?? e.message, undecodable: true };
  return undefined;
}
