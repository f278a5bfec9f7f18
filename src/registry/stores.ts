// The one place the server's stores come from: one GenericStore per served type, made on first
// use (start-up pays nothing for types nobody reads or writes) over the parts every type shares.
import type { KObject } from "../apimachinery/object.js";
import type { Storage } from "../storage/interface.js";
import type { Admission } from "./admission.js";
import { decodeFromStorage } from "./codec.js";
import type { ObjectCacher } from "./list.js";
import { Reservations } from "./reservations.js";
import { WriteClaims } from "./claims.js";
import type { ResourceType } from "./resource-type.js";
import { GenericStore, type PreparedCreate, type StorageListObserver, type StoreConfig, type StoreParts, type WriteOptions } from "./store.js";

export class Stores {
  // Keyed by the type's declaration: a type updated in the registry (a CRD's new schema) is a new
  // declaration and gets a fresh store, and a removed one's store goes with it.
  private readonly byType = new WeakMap<ResourceType, GenericStore>();
  private readonly parts: StoreParts;

  constructor(storage: Storage, admission: Admission, config: StoreConfig = {}, cacher?: ObjectCacher, onStorageList?: StorageListObserver) {
    this.parts = { storage, admission, config, cacher, reservations: new Reservations(storage, (t) => storedObjects(storage, t)), ...(onStorageList ? { onStorageList } : {}) };
  }

  /** The store of `t`. */
  for(t: ResourceType): GenericStore {
    let store = this.byType.get(t);
    if (!store) this.byType.set(t, (store = new GenericStore(t, this.parts)));
    return store;
  }

  /**
   * The server's own creates (bootstrap objects) in one storage transaction: each object passes
   * every stage a create() passes, then all are written in one commit, each with its own revision
   * and watch event, so informers and controllers see them as any other creates. All or nothing:
   * when one exists already (KeyExists) or fails a stage, nothing is written and that error is thrown.
   */
  async createAll(items: readonly { type: ResourceType; namespace: string; object: KObject }[], opts: WriteOptions): Promise<void> {
    const prepared: PreparedCreate[] = [];
    let written = false;
    try {
      for (const i of items) prepared.push(await this.for(i.type).prepareCreate(i.namespace, i.object, opts));
      if (!opts.dryRun && prepared.length > 0) await this.parts.storage.transaction(prepared.map((p) => p.op));
      written = !opts.dryRun;
    } finally {
      await Promise.all(prepared.map((p) => p.release(written)));
    }
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
