// The conformance harness of the etcd3 backend: one real etcd per test file (test/support/etcd.ts),
// a fresh key prefix per store so tests never see each other's keys. etcd's revision counter is
// the cluster's, starts at 1 and keeps counting across tests, while the suite states revisions
// from an empty store (the first write is 1); the harness therefore shows each test the store's
// revisions minus the revision current when the test opened it. Only that constant offset is
// applied (in both directions, to every revision in and out), so gaps, order and equality are
// etcd's own.
import { randomBytes } from "node:crypto";
import { StorageError, type KeyValue, type PutOptions, type Storage, type WatchEvent, type Watcher, type WriteOp } from "../interface.js";
import type { StorageFactory } from "../conformance.testkit.js";
import { Etcd3Storage } from "./etcd3-storage.js";

export function etcd3Harness(endpoint: () => string): StorageFactory {
  return async (opts) => {
    const prefix = `/kapi-conformance/${randomBytes(6).toString("hex")}`;
    const open = () =>
      Etcd3Storage.open({
        endpoints: [endpoint()],
        prefix,
        keyRoot: "",
        callTimeoutMs: 5000,
        compactionIntervalMs: opts?.historyWindowMs ?? 0,
      });
    let inner = await open();
    const base = await inner.currentRevision();
    let view = new RebasedStorage(inner, base);
    return {
      storage: view,
      // etcd expires leases on its own clock (at least its minimum TTL, about 2 s by default).
      passTime: (ms) => new Promise((r) => setTimeout(r, ms)),
      reopen: async () => {
        await inner.close();
        inner = await open();
        view = new RebasedStorage(inner, base);
        return view;
      },
      cleanup: () => inner.close(),
    };
  };
}

/** A store seen with every revision shifted down by `base` (see the header). */
class RebasedStorage implements Storage {
  constructor(
    private readonly s: Storage,
    private readonly base: number,
  ) {}

  private out = (rev: number) => Math.max(0, rev - this.base);
  private in = (rev: number | undefined) => (rev ? rev + this.base : rev);
  private kv = (kv: KeyValue): KeyValue => ({ ...kv, createRevision: this.out(kv.createRevision), modRevision: this.out(kv.modRevision) });
  private ev = (ev: WatchEvent): WatchEvent => ({
    type: ev.type,
    kv: this.kv(ev.kv),
    ...(ev.prevKv ? { prevKv: this.kv(ev.prevKv) } : {}),
    revision: this.out(ev.revision),
  });
  private err = (e: unknown): unknown =>
    e instanceof StorageError
      ? new StorageError(e.code, e.key, e.message, e.current && this.kv(e.current), e.revision === undefined ? undefined : this.out(e.revision))
      : e;
  private async wrap<T>(p: () => Promise<T>): Promise<T> {
    try {
      return await p();
    } catch (e) {
      throw this.err(e);
    }
  }

  currentRevision = () => this.wrap(async () => this.out(await this.s.currentRevision()));
  compactedRevision = () => this.out(this.s.compactedRevision());
  get = (key: string, o?: { revision?: number }) =>
    this.wrap(async () => {
      const kv = await this.s.get(key, { revision: this.in(o?.revision) });
      return kv && this.kv(kv);
    });
  range = (prefix: string, o: Parameters<Storage["range"]>[1] = {}) =>
    this.wrap(async () => {
      const r = await this.s.range(prefix, { ...o, revision: this.in(o.revision) });
      return { ...r, items: r.items.map(this.kv), revision: this.out(r.revision) };
    });
  count = (prefix: string) => this.wrap(() => this.s.count(prefix));
  create = (key: string, value: string, opts?: PutOptions) => this.wrap(async () => this.kv(await this.s.create(key, value, opts)));
  update = (key: string, value: string, expected: number, opts?: PutOptions) => this.wrap(async () => this.kv(await this.s.update(key, value, this.in(expected) ?? 0, opts)));
  delete = (key: string, expected?: number) => this.wrap(async () => this.kv(await this.s.delete(key, this.in(expected))));
  transaction = (ops: readonly WriteOp[]) =>
    this.wrap(async () => (await this.s.transaction(ops.map((op) => (op.kind === "create" ? op : { ...op, expectedModRevision: this.in(op.expectedModRevision) ?? 0 })))).map(this.kv));
  compact = (rev: number) => this.wrap(() => this.s.compact(rev + this.base));
  close = () => this.s.close();

  watch(prefix: string, o: { afterRevision: number }, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher {
    let w: Watcher;
    try {
      w = this.s.watch(prefix, { afterRevision: o.afterRevision + this.base }, (ev) => onEvent(this.ev(ev)), (e) => onError?.(this.err(e) as Error));
    } catch (e) {
      throw this.err(e);
    }
    return { stop: () => w.stop(), ...(w.progress ? { progress: async () => this.out(await w.progress!()) } : {}) };
  }
}
