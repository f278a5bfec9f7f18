// The one place the server's stores come from: one GenericStore per served type, made on first
// use (start-up pays nothing for types nobody reads or writes) over the parts every type shares.
import type { KObject } from "../apimachinery/object.js";
import type { Storage } from "../storage/interface.js";
import type { Admission } from "./admission.js";
import { decodeFromStorage } from "./codec.js";
import type { ObjectCacher } from "./list.js";
import { Reservations } from "./reservations.js";
import { WriteClaims } from "./claims.js";
import { storageKey, type ResourceType } from "./resource-type.js";
import type { PreparedCreates } from "./prepared-creates.js";
import type { ReconciledBatches } from "./reconciled-batches.js";
import { GenericStore, type PreparedCreate, type StoreConfig, type StoreObservers, type StoreParts, type WriteOptions } from "./store.js";

/** One object of a batched create. */
export interface BatchItem {
  type: ResourceType;
  namespace: string;
  object: KObject;
}

export class Stores {
  // Keyed by the type's declaration: a type updated in the registry (a CRD's new schema) is a new
  // declaration and gets a fresh store, and a removed one's store goes with it.
  private readonly byType = new WeakMap<ResourceType, GenericStore>();
  private readonly parts: StoreParts;
  /**
   * While set (the server's bootstrap into an empty store), createAll writes the stored form an
   * earlier start kept for a create asked alike, and records the forms it computes.
   */
  preparedForms: PreparedCreates | undefined;
  /**
   * While set (the server's bootstrap into a store that holds objects), what reconciliations of
   * bootstrap batches found with nothing to do, for a reconciler to skip one unchanged since.
   */
  reconciledBatches: ReconciledBatches | undefined;

  constructor(storage: Storage, admission: Admission, config: StoreConfig = {}, cacher?: ObjectCacher, observers: StoreObservers = {}) {
    this.parts = { storage, admission, config, cacher, reservations: new Reservations(storage, (t) => storedObjects(storage, t)), observers };
  }

  /** The settings every store shares. */
  get config(): StoreConfig {
    return this.parts.config;
  }

  /** The store of `t`. */
  for(t: ResourceType): GenericStore {
    let store = this.byType.get(t);
    if (!store) this.byType.set(t, (store = new GenericStore(t, this.parts)));
    return store;
  }

  /**
   * The server's own creates (bootstrap objects) in one storage transaction: each object passes
   * every stage a create() passes, then all are written together, each with its own revision
   * and watch event, so informers and controllers see them as any other creates. On a store that
   * commits the whole transaction at once (memory, sqlite) it is all or nothing. etcd commits at
   * most --max-txn-ops (128) writes at once, so a longer batch is several commits, and a commit
   * whose answer was lost with its member may have been applied or not: when the transaction
   * fails, each object is read back, and one that is stored keeps what it claimed (a Service's
   * cluster IP) as a create that succeeded does, the others give theirs back. The error is thrown
   * (KeyExists when one existed already, or a stage's); callers go on object by object, creating
   * what is still missing (upstream writes each of these objects alone).
   */
  async createAll(items: readonly BatchItem[], opts: WriteOptions): Promise<void> {
    await this.writeAll(items, opts, true);
  }

  /**
   * createAll() of the objects `build` makes, a pure function of the build and the configuration
   * (the default RBAC policy), named `id`: while the server bootstraps an empty store from kept
   * forms (preparedForms), the batch kept under `id` is written as it is, its objects neither
   * built nor staged; otherwise the objects are built and created, and the batch kept for the
   * next start when none of them is a plain value's exception (a shared pool's claim, a TTL).
   * Answers how many objects were written.
   */
  async createBatch(id: string, build: () => readonly BatchItem[], opts: WriteOptions): Promise<number> {
    const forms = opts.dryRun ? undefined : this.preparedForms;
    const kept = forms?.takeBatch(id);
    if (kept) {
      if (kept.length) await this.parts.storage.transaction(kept.map(({ key, value }) => ({ kind: "create", key, value })));
      return kept.length;
    }
    const items = build();
    const written = await this.writeAll(items, opts, false);
    if (forms && written.every((w) => w.plain)) forms.recordBatch(id, written);
    return items.length;
  }

  /** createAll(), answering what was written; `recordForms`: each create's stored form kept. */
  private async writeAll(items: readonly BatchItem[], opts: WriteOptions, recordForms: boolean): Promise<{ key: string; value: string; plain: boolean }[]> {
    const prepared: PreparedCreate[] = [];
    const forms = opts.dryRun || !recordForms ? undefined : this.preparedForms;
    const toRecord: { input: string; op: PreparedCreate["op"] }[] = [];
    let stored: (p: PreparedCreate) => Promise<boolean> = async () => false;
    try {
      for (const i of items) {
        // A type that takes values from a shared pool claims them in its stages: never skipped.
        const input = forms && !i.type.strategy.allocate ? forms.inputOf(i.type, i.namespace, i.object, opts) : undefined;
        const value = input === undefined ? undefined : forms!.take(input);
        if (value !== undefined) {
          prepared.push({ op: { kind: "create", key: storageKey(i.type, i.namespace, i.object.metadata.name!), value }, release: async () => undefined });
          continue;
        }
        const p = await this.for(i.type).prepareCreate(i.namespace, i.object, opts);
        prepared.push(p);
        // A put with options (an Event's TTL) is not a plain value: not kept.
        if (input !== undefined && Object.keys(p.op).length === 3) toRecord.push({ input, op: p.op });
      }
      if (opts.dryRun || prepared.length === 0) return [];
      try {
        await this.parts.storage.transaction(prepared.map((p) => p.op));
        stored = async () => true;
      } catch (e) {
        stored = (p) => this.holdsOwn(p);
        throw e;
      }
    } finally {
      await Promise.all(prepared.map(async (p) => p.release(await stored(p))));
    }
    for (const { input, op } of toRecord) forms!.record(input, op.value);
    // A put with options (an Event's TTL) or a claim from a shared pool is not a plain value.
    return prepared.map((p, i) => ({ key: p.op.key, value: p.op.value, plain: Object.keys(p.op).length === 3 && !items[i]!.type.strategy.allocate }));
  }

  /**
   * Whether a batched create of ours is stored: its key holds exactly its value (uid and creation
   * time make it ours). Unknown when etcd does not answer: then it keeps its claims, as a value
   * held by no object is found and given back by the claims' repair, and one given back while
   * its object is stored could be handed out twice.
   */
  private async holdsOwn(p: PreparedCreate): Promise<boolean> {
    const { op } = p;
    return this.parts.storage.get(op.key).then(
      (kv) => kv?.value === op.value,
      () => true,
    );
  }

  /** Claims in storage of values from a shared pool, outside any write (a repair of the claims). */
  claims(log?: (msg: string) => void): WriteClaims {
    return new WriteClaims(this.parts.storage, log);
  }

  /** The storage's revision: what a watch or bookmark that has seen no event yet starts from. */
  currentRevision(): Promise<number> {
    return this.parts.storage.currentRevision();
  }
}

/** Every stored object of the type, across namespaces (what allocation checks against). */
async function storedObjects(storage: Storage, t: ResourceType): Promise<KObject[]> {
  const res = await storage.range(t.keyPrefix);
  return res.items.map((kv) => decodeFromStorage(kv, t));
}
