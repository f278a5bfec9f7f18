// A Storage that transforms values on their way to and from another Storage: encryption at rest
// over any backend (memory, SQLite, etcd), below the watch cache as upstream's transformer sits
// inside its etcd3 store. Keys, revisions and every guarantee of the backend pass through as they
// are; only values change. A value no configured provider can read fails the read with
// CorruptValueError (a range names every such key), never with a partial answer.
import {
  CorruptValueError,
  StorageError,
  type CorruptValue,
  type KeyValue,
  type PutOptions,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type WatchEvent,
  type WatchOptions,
  type Watcher,
  type WriteOp,
} from "../interface.js";
import { TransformError, type ValueTransformer } from "./transformer.js";

/** The transformer of a key, or undefined for keys kept as they are (no resource behind them). */
export type TransformerOf = (key: string) => ValueTransformer | undefined;

export class TransformingStorage implements Storage {
  constructor(
    private readonly backend: Storage,
    /** Asked on every value, so a reloaded configuration applies from the next read or write. */
    private readonly transformerOf: TransformerOf,
  ) {
    // A remote backend's health check (etcd) stays visible through the encryption layer.
    if (backend.health) this.health = (timeoutMs) => backend.health!(timeoutMs);
  }

  readonly health?: (timeoutMs: number) => Promise<string | undefined>;

  currentRevision(key?: string): Promise<number> {
    return this.backend.currentRevision(key);
  }

  currentRevisionNow(key?: string): number | undefined {
    return this.backend.currentRevisionNow?.(key);
  }

  compactedRevision(key?: string): number {
    return this.backend.compactedRevision(key);
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.backend.get(key, opts);
    if (!kv) return undefined;
    const read = this.read(kv);
    if ("message" in read) throw new CorruptValueError([read]);
    return read;
  }

  async range(prefix: string, opts?: RangeOptions): Promise<RangeResult> {
    const res = await this.backend.range(prefix, opts);
    const corrupt: CorruptValue[] = [];
    const items: KeyValue[] = [];
    for (const kv of res.items) {
      const read = this.read(kv);
      if ("message" in read) corrupt.push(read);
      else items.push(read);
    }
    if (corrupt.length > 0) throw new CorruptValueError(corrupt);
    return { ...res, items };
  }

  count(prefix: string): Promise<number> {
    return this.backend.count(prefix);
  }

  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher {
    let failed = false;
    const inner: Watcher = this.backend.watch(
      prefix,
      opts,
      (ev) => {
        if (failed) return;
        const kv = this.read(ev.kv);
        const prevKv = ev.prevKv && this.read(ev.prevKv);
        const bad = [kv, prevKv].filter((r): r is CorruptValue => r !== undefined && "message" in r);
        if (bad.length > 0) {
          // A watcher cannot skip an event: it ends, as upstream's watch ends on a transform error.
          failed = true;
          inner.stop();
          onError?.(new CorruptValueError(bad));
          return;
        }
        onEvent({ ...ev, kv: kv as KeyValue, ...(prevKv ? { prevKv: prevKv as KeyValue } : {}) });
      },
      onError,
    );
    return inner;
  }

  async create(key: string, value: string, opts?: PutOptions): Promise<KeyValue> {
    const kv = await this.backend.create(key, this.write(key, value), opts).catch((e: unknown) => this.rethrow(e));
    return { ...kv, value };
  }

  async update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue> {
    const kv = await this.backend.update(key, this.write(key, value), expectedModRevision, opts).catch((e: unknown) => this.rethrow(e));
    return { ...kv, value };
  }

  /** The deleted value, read back; one that cannot be read (an unsafe delete of it) is returned as stored. */
  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const kv = await this.backend.delete(key, expectedModRevision).catch((e: unknown) => this.rethrow(e));
    return this.readOrRaw(kv);
  }

  async transaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    const stored = ops.map((op): WriteOp => (op.kind === "delete" ? op : { ...op, value: this.write(op.key, op.value) }));
    const results = await this.backend.transaction(stored).catch((e: unknown) => this.rethrow(e));
    return results.map((kv, i) => {
      const op = ops[i]!;
      return op.kind === "delete" ? this.readOrRaw(kv) : { ...kv, value: op.value };
    });
  }

  compact(revision: number): Promise<void> {
    return this.backend.compact(revision);
  }

  close(): Promise<void> {
    return this.backend.close();
  }

  /** A lost compare-and-swap carries the current value: read back, as every other value above the backend. */
  private rethrow(e: unknown): never {
    if (e instanceof StorageError && e.current) throw new StorageError(e.code, e.key, e.message, this.readOrRaw(e.current), e.revision);
    throw e;
  }

  private readOrRaw(kv: KeyValue): KeyValue {
    const read = this.read(kv);
    return "message" in read ? kv : read;
  }

  private write(key: string, value: string): string {
    const t = this.transformerOf(key);
    return t ? t.toStorage(value, key) : value;
  }

  private read(kv: KeyValue): KeyValue | CorruptValue {
    const t = this.transformerOf(kv.key);
    if (!t) return kv;
    try {
      const { data, stale } = t.fromStorage(kv.value, kv.key);
      return stale ? { ...kv, value: data, stale } : { ...kv, value: data };
    } catch (e) {
      if (!(e instanceof TransformError)) throw e;
      return { key: kv.key, modRevision: kv.modRevision, message: e.message };
    }
  }
}
