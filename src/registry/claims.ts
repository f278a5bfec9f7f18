// Values taken from a pool every server over the storage shares (Service cluster IPs, node ports)
// are claimed in storage itself before the object holding them is written, so replicas over one
// etcd never hand out one value twice (upstream: an IPAddress object per cluster IP, created only
// if absent; the node port bitmap in one key, compare-and-swapped). One write's claims are undone
// when the write is not stored; what the write gave up is released once it is.
import { StorageError, type KeyValue, type Storage } from "../storage/interface.js";

export interface Claims {
  /**
   * Creates `key` unless it exists: true when the value is ours now (created, or held already by
   * the same owner as `sameOwner` judges the stored value), false when another holds it.
   */
  createOnce(key: string, value: string, sameOwner?: (stored: string) => boolean): Promise<boolean>;
  /**
   * A read-modify-write of one key, retried on a lost race: `change` gets the stored value and
   * returns the new one (undefined: leave it) and a result.
   */
  modify<T>(key: string, change: (stored: string | undefined) => { value?: string; result: T }): Promise<T>;
  /** Deletes `key` when `owned` says the stored value is ours to delete. */
  remove(key: string, owned: (stored: string) => boolean): Promise<void>;
  /** Runs if the write is not stored (a claim's undo). */
  onFailure(undo: () => Promise<unknown>): void;
  /** Runs once the write is stored (the release of values it gave up). */
  onStored(release: () => Promise<unknown>): void;
}

const maxAttempts = 32;
const isCode = (e: unknown, code: StorageError["code"]) => e instanceof StorageError && e.code === code;

/** The claims of one write over `storage`. */
export class WriteClaims implements Claims {
  private readonly undos: (() => Promise<unknown>)[] = [];
  private readonly releases: (() => Promise<unknown>)[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly log: (msg: string) => void = () => undefined,
  ) {}

  async createOnce(key: string, value: string, sameOwner?: (stored: string) => boolean): Promise<boolean> {
    try {
      const kv = await this.storage.create(key, value);
      this.onFailure(() => this.storage.delete(key, kv.modRevision).catch((e) => (isCode(e, "KeyNotFound") || isCode(e, "Conflict") ? undefined : Promise.reject(e))));
      return true;
    } catch (e) {
      if (!isCode(e, "KeyExists")) throw e;
      const stored = await this.storage.get(key);
      // Deleted meanwhile: the value is free again, try once more.
      if (!stored) return this.createOnce(key, value, sameOwner);
      return sameOwner?.(stored.value) ?? false;
    }
  }

  async modify<T>(key: string, change: (stored: string | undefined) => { value?: string; result: T }): Promise<T> {
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const kv: KeyValue | undefined = await this.storage.get(key);
      const { value, result } = change(kv?.value);
      if (value === undefined || value === kv?.value) return result;
      try {
        if (kv) await this.storage.update(key, value, kv.modRevision);
        else await this.storage.create(key, value);
        return result;
      } catch (e) {
        if (!isCode(e, "Conflict") && !isCode(e, "KeyExists") && !isCode(e, "KeyNotFound")) throw e;
      }
    }
    throw new Error(`too many concurrent writes of ${key}`);
  }

  async remove(key: string, owned: (stored: string) => boolean): Promise<void> {
    const kv = await this.storage.get(key);
    if (!kv || !owned(kv.value)) return;
    await this.storage.delete(key, kv.modRevision).catch((e) => (isCode(e, "KeyNotFound") || isCode(e, "Conflict") ? undefined : Promise.reject(e)));
  }

  onFailure(undo: () => Promise<unknown>): void {
    this.undos.push(undo);
  }

  onStored(release: () => Promise<unknown>): void {
    this.releases.push(release);
  }

  /** The write's outcome: stored, its releases run; not stored, its claims are undone. Failures are logged (a repair finds leaks). */
  async settle(stored: boolean): Promise<void> {
    const todo = stored ? this.releases.splice(0) : this.undos.splice(0);
    this.undos.length = 0;
    this.releases.length = 0;
    for (const r of await Promise.allSettled(todo.map((f) => f()))) {
      if (r.status === "rejected") this.log(`kapi: releasing an allocated value failed: ${(r.reason as Error)?.message ?? String(r.reason)}`);
    }
  }
}
