// Storage split among several stores by key prefix: kube-apiserver's --etcd-servers-overrides,
// where a resource's objects live in an etcd cluster of their own. Each store keeps its own
// revision counter, as each etcd cluster does, so the resourceVersions of a resource come from
// the store that holds it and are never compared with another's: calls that take a key or a
// prefix inside one route go to its store (revisions included), the rest to the main store.
//
// What no single upstream storage does, because each of kube-apiserver's serves one resource,
// is answered here for a prefix that spans stores (kapi's own readers of every resource):
// a range merges the stores' keys (at their current revisions only), a count adds them up, and a
// watch follows every store, the main one from the given revision, the others from their
// current revision when the watch starts. A transaction whose keys are in several stores is
// written as one transaction per store, in the order the stores first appear in it: each all or
// nothing, not all together, so one refused leaves the earlier stores' writes in place (as the
// storage contract allows; kapi's callers read a failed batch back, see Stores.createAll).
import {
  StorageError,
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

export interface StorageRoute {
  /** Every key under this prefix is in `storage` (and no key of `storage` is read outside it). */
  prefix: string;
  storage: Storage;
}

export class RoutedStorage implements Storage {
  /** Longest prefix first, so the most specific route wins. */
  private readonly routes: readonly StorageRoute[];
  readonly health?: (timeoutMs: number) => Promise<string | undefined>;

  constructor(
    private readonly main: Storage,
    routes: readonly StorageRoute[],
  ) {
    this.routes = [...routes].sort((a, b) => b.prefix.length - a.prefix.length);
    // The main store's health is the server's storage check; each other store has a check of its own.
    if (main.health) this.health = (timeoutMs) => main.health!(timeoutMs);
  }

  /** The store that holds `key`. */
  private storeOf(key: string): Storage {
    return this.routes.find((r) => key.startsWith(r.prefix))?.storage ?? this.main;
  }

  /** The routes inside `prefix` (a prefix that spans stores has some). */
  private routesUnder(prefix: string): StorageRoute[] {
    return this.routes.filter((r) => r.prefix.startsWith(prefix) && !prefix.startsWith(r.prefix));
  }

  /** Keys of the main store under `prefix` that belong to a route (left there before it was set) are not its own. */
  private ownedByMain(key: string): boolean {
    return !this.routes.some((r) => key.startsWith(r.prefix));
  }

  currentRevision(key?: string): Promise<number> {
    return key === undefined ? this.main.currentRevision() : this.storeOf(key).currentRevision(key);
  }

  currentRevisionNow(key?: string): number | undefined {
    return key === undefined ? this.main.currentRevisionNow?.() : this.storeOf(key).currentRevisionNow?.(key);
  }

  compactedRevision(key?: string): number {
    return key === undefined ? this.main.compactedRevision() : this.storeOf(key).compactedRevision(key);
  }

  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    return this.storeOf(key).get(key, opts);
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const under = this.routesUnder(prefix);
    if (under.length === 0) return this.storeOf(prefix).range(prefix, opts);
    if (opts.revision) throw new StorageError("FutureRevision", prefix, `a read at revision ${opts.revision} cannot span the keys of several etcd clusters (${prefix})`);
    // Each store's first `limit` keys after the start, merged; the first `limit` of those are the answer.
    const parts = await Promise.all([
      this.main.range(prefix, { startAfter: opts.startAfter, limit: 0 }).then((r) => ({ ...r, items: r.items.filter((kv) => this.ownedByMain(kv.key)) })),
      ...under.map((r) => r.storage.range(r.prefix, { startAfter: opts.startAfter, limit: opts.limit })),
    ]);
    const all = parts.flatMap((p) => p.items).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const limit = opts.limit ?? 0;
    const items = limit > 0 ? all.slice(0, limit) : all;
    const remaining = all.length - items.length + parts.slice(1).reduce((n, p) => n + p.remaining, 0);
    return { items, revision: parts[0]!.revision, more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    const under = this.routesUnder(prefix);
    if (under.length === 0) return this.storeOf(prefix).count(prefix);
    const [all, ...counts] = await Promise.all([this.main.count(prefix), ...under.map((r) => this.main.count(r.prefix)), ...under.map((r) => r.storage.count(r.prefix))]);
    const leftInMain = counts.slice(0, under.length).reduce((a, b) => a + b, 0);
    return all! - leftInMain + counts.slice(under.length).reduce((a, b) => a + b, 0);
  }

  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher {
    const under = this.routesUnder(prefix);
    if (under.length === 0) return this.storeOf(prefix).watch(prefix, opts, onEvent, onError);
    let ended = false;
    const watchers: Watcher[] = [];
    const stop = () => {
      ended = true;
      for (const w of watchers.splice(0)) w.stop();
    };
    const fail = (err: Error) => {
      if (ended) return;
      stop();
      onError?.(err);
    };
    const deliver = (own: (key: string) => boolean) => (ev: WatchEvent) => {
      if (!ended && own(ev.kv.key)) onEvent(ev);
    };
    watchers.push(this.main.watch(prefix, opts, deliver((key) => this.ownedByMain(key)), fail));
    for (const r of under) {
      r.storage
        .currentRevision(r.prefix)
        .then((rev) => {
          if (!ended) watchers.push(r.storage.watch(r.prefix, { afterRevision: rev }, deliver(() => true), fail));
        })
        .catch((e: Error) => fail(e));
    }
    return { stop };
  }

  create(key: string, value: string, opts?: PutOptions): Promise<KeyValue> {
    return this.storeOf(key).create(key, value, opts);
  }

  update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue> {
    return this.storeOf(key).update(key, value, expectedModRevision, opts);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.storeOf(key).delete(key, expectedModRevision);
  }

  async transaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    const byStore = new Map<Storage, number[]>();
    ops.forEach((op, i) => {
      const s = this.storeOf(op.key);
      byStore.set(s, [...(byStore.get(s) ?? []), i]);
    });
    const out: KeyValue[] = new Array(ops.length);
    for (const [s, at] of byStore) {
      const done = await s.transaction(at.map((i) => ops[i]!));
      at.forEach((i, j) => (out[i] = done[j]!));
    }
    return out;
  }

  /** Compacts the main store (each etcd cluster's own compactor keeps the others'). */
  compact(revision: number): Promise<void> {
    return this.main.compact(revision);
  }

  async close(): Promise<void> {
    await Promise.all([this.main, ...new Set(this.routes.map((r) => r.storage))].map((s) => s.close()));
  }
}
