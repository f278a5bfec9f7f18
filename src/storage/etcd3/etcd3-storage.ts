// Storage on a real etcd cluster through its v3 API, as kube-apiserver's etcd3 store does it:
// a key's mod_revision is its revision (an object's resourceVersion); a create is a transaction
// on create_revision = 0, an update or delete one on the expected mod_revision; reads at a past
// revision and continued pages read etcd at that revision; watches start at a revision with the
// previous value attached (a delete carries the object it removed). etcd's global revision
// moves with every write under any prefix, so revisions seen through one store may skip numbers.
import { countedEvents, type StorageRequestObserver, type StorageWatchObserver } from "../common/observed-storage.js";
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
import { checkWatchRevision, compactedError } from "../common/revisions.js";
import { EtcdCallError } from "./call-error.js";
import { EtcdClient, tooLargeMessage, type EtcdClientOptions, type RawKeyValue, type RawTxnResponse } from "./client.js";
import { EtcdWatch } from "./etcd-watch.js";
import { rangeCount } from "./checked-progress.js";
import { KeyMap, keyAfter } from "./key-map.js";
import { Compactor } from "./compactor.js";
import { HealthProbe } from "./health-probe.js";
import { LeaseManager } from "./lease-manager.js";

export interface Etcd3StorageOptions extends EtcdClientOptions {
  /** --etcd-prefix: where the keys live in etcd. */
  prefix: string;
  /** The root of kapi's keys the prefix replaces ("/registry"; "" to prepend the prefix). */
  keyRoot: string;
  /** --etcd-compaction-interval (0: never compact; another process may). */
  compactionIntervalMs: number;
  /** How long opening waits for etcd to answer (default: callTimeoutMs). */
  connectTimeoutMs?: number;
  /** Where to say that a watch went on from another member. */
  log?: (msg: string) => void;
}

const closeDrainMs = 2000;
/** etcd's default --max-txn-ops: the most writes one transaction may carry. */
const maxTxnOps = 128;
const compactedMessage = "required revision has been compacted";
const futureMessage = "required revision is a future revision";

export class Etcd3Storage implements Storage {
  private readonly client: EtcdClient;
  private readonly keys: KeyMap;
  private compacted = 0;
  /** Told of each etcd call (the etcd request metrics): kube-apiserver's operation name, the key or prefix, how long it took, whether it failed. */
  onRequest: StorageRequestObserver | undefined;
  /** Told of what each watch receives, by the watched prefix (the storage watch metrics). */
  onWatch: ((prefix: string) => StorageWatchObserver | undefined) | undefined;
  /** Told of each lease granted: the keys the previous one carried (etcd_lease_object_counts). */
  onLeaseGranted: ((attachedObjects: number) => void) | undefined;
  /** The etcd server's version (Maintenance.Status). */
  version = "";
  private closed = false;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly watches = new Set<EtcdWatch>();
  private readonly compactor: Compactor;
  private readonly probes = new Map<number, HealthProbe>();
  private readonly currentRevisionKey: Buffer;
  private readonly leases: LeaseManager;

  private constructor(private readonly opts: Etcd3StorageOptions) {
    this.client = new EtcdClient(opts);
    this.leases = new LeaseManager({ leaseGrant: (ttl) => this.timed("grant", () => this.client.leaseGrant(ttl)) }, Date.now, (n) => this.onLeaseGranted?.(n));
    this.keys = new KeyMap(opts.prefix, opts.keyRoot);
    this.currentRevisionKey = Buffer.from(opts.prefix + "/health");
    this.compactor = new Compactor(this.client, opts.compactionIntervalMs, (rev) => this.noteCompacted(rev));
  }

  /** Connects (within the call timeout), learns how far etcd has compacted, and starts the compactor. */
  static async open(opts: Etcd3StorageOptions): Promise<Etcd3Storage> {
    const s = new Etcd3Storage(opts);
    try {
      const status = await s.timed("status", () => s.client.status(opts.connectTimeoutMs));
      s.version = status.version;
      s.compacted = await s.probeCompacted();
    } catch (e) {
      s.client.close();
      throw s.translate(e, "");
    }
    s.compactor.start();
    return s;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.readRevision();
  }

  /** etcd's revision; open to the watches while close() drains them. */
  private async readRevision(): Promise<number> {
    // Any single-key read answers with the current revision in its header.
    const r = await this.run("get", "", () => this.client.range({ key: this.currentRevisionKey, keys_only: true }));
    return r.header.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** The first of the cluster's endpoints (what the deprecated per-endpoint size metric names). */
  get endpoint(): string {
    return this.opts.endpoints[0] ?? "";
  }

  /** The size of the database etcd allocated (Maintenance.Status within a second, as upstream's monitor asks). */
  async dbSize(): Promise<number> {
    this.checkOpen();
    return (await this.client.status(1000)).dbSize;
  }

  /** kube-apiserver's etcd check within `timeoutMs` (see HealthProbe): undefined when healthy, else why not. */
  async health(timeoutMs: number): Promise<string | undefined> {
    if (this.closed) return "closed";
    let probe = this.probes.get(timeoutMs);
    if (!probe) {
      const key = Buffer.from(this.opts.prefix + "/health");
      probe = new HealthProbe(timeoutMs, async (ms) => void (await this.timed("get", () => this.client.range({ key, keys_only: true }, ms))));
      this.probes.set(timeoutMs, probe);
    }
    return probe.check();
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    this.checkOpen();
    const r = await this.run("get", key, () => this.client.range({ key: this.keys.toEtcd(key), revision: opts?.revision ?? 0 }));
    return r.kvs[0] && this.kv(r.kvs[0]);
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    this.checkOpen();
    const span = this.keys.rangeOf(prefix);
    let start = span.key;
    if (opts.startAfter !== undefined && opts.startAfter >= prefix) start = keyAfter(this.keys.toEtcd(opts.startAfter));
    const r = await this.run("list", prefix, () =>
      this.client.range({ key: start, range_end: span.range_end, revision: opts.revision ?? 0, limit: opts.limit ?? 0 }),
    );
    const items = r.kvs.map((kv) => this.kv(kv));
    const remaining = r.more ? r.count - items.length : 0;
    return { items, revision: opts.revision || r.header.revision, more: r.more, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    const r = await this.run("listWithCount", prefix, () => this.client.range({ ...this.keys.rangeOf(prefix), count_only: true }));
    return r.count;
  }

  async create(key: string, value: string, opts?: PutOptions): Promise<KeyValue> {
    this.checkOpen();
    const k = this.keys.toEtcd(key);
    // Only a put with a TTL waits for a lease (close() waits for the writes under way).
    const lease = opts?.ttlSeconds ? await this.leaseFor(key, opts.ttlSeconds) : undefined;
    const r = await this.write("create", key, {
      compare: [{ key: k, target: "CREATE", result: "EQUAL", create_revision: 0 }],
      success: [{ request_put: { key: k, value: Buffer.from(value, "utf8"), ...lease } }],
    });
    if (!r.succeeded) throw new StorageError("KeyExists", key);
    const rev = r.header.revision;
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue> {
    this.checkOpen();
    const k = this.keys.toEtcd(key);
    const lease = opts?.ttlSeconds ? await this.leaseFor(key, opts.ttlSeconds) : undefined;
    const r = await this.write("update", key, {
      compare: [this.precondition(k, expectedModRevision)],
      success: [{ request_put: { key: k, value: Buffer.from(value, "utf8"), prev_kv: true, ...lease } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!r.succeeded) throw this.failedPrecondition(key, r.responses[0]?.response_range?.kvs[0], expectedModRevision);
    const prev = r.responses[0]!.response_put!.prev_kv!;
    return { key, value, createRevision: prev.create_revision, modRevision: r.header.revision };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const k = this.keys.toEtcd(key);
    const r = await this.write("delete", key, {
      compare: [this.precondition(k, expectedModRevision ?? 0)],
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!r.succeeded) throw this.failedPrecondition(key, r.responses[0]?.response_range?.kvs[0], expectedModRevision ?? 0);
    const prev = r.responses[0]!.response_delete_range!.prev_kvs[0]!;
    return { ...this.kv(prev), modRevision: r.header.revision };
  }

  /**
   * One etcd transaction: every check against the state before it, then every write. etcd gives
   * the writes of one transaction one revision (each its own event at that revision), and takes
   * each key at most once per transaction, and at most --max-txn-ops (128 by default) writes: a
   * longer list is written as consecutive transactions of that size, each all or nothing, so a
   * check failing in a later one leaves the earlier ones written.
   */
  async transaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    this.checkOpen();
    const seen = new Set<string>();
    for (const op of ops) {
      if (seen.has(op.key)) throw new Error(`etcd3 storage: a transaction writes each key once (${op.key} is written twice)`);
      seen.add(op.key);
    }
    const done: KeyValue[] = [];
    for (let i = 0; i < ops.length; i += maxTxnOps) done.push(...(await this.oneTransaction(ops.slice(i, i + maxTxnOps))));
    return done;
  }

  private async oneTransaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    const keys = ops.map((op) => this.keys.toEtcd(op.key));
    const leased = ops.some((op) => op.kind !== "delete" && op.ttlSeconds);
    const leases = leased ? await Promise.all(ops.map((op) => (op.kind === "delete" ? undefined : this.leaseFor(op.key, op.ttlSeconds)))) : [];
    const r = await this.write("txn", ops[0]!.key, {
      compare: ops.map((op, i) => (op.kind === "create" ? { key: keys[i], target: "CREATE", result: "EQUAL", create_revision: 0 } : this.precondition(keys[i]!, op.expectedModRevision))),
      success: ops.map((op, i) =>
        op.kind === "delete" ? { request_delete_range: { key: keys[i], prev_kv: true } } : { request_put: { key: keys[i], value: Buffer.from(op.value, "utf8"), prev_kv: true, ...leases[i] } },
      ),
      failure: keys.map((key) => ({ request_range: { key } })),
    });
    if (!r.succeeded) throw this.failedTransaction(ops, r);
    const rev = r.header.revision;
    return ops.map((op, i) => {
      const res = r.responses[i]!;
      if (op.kind === "delete") return { ...this.kv(res.response_delete_range!.prev_kvs[0]!), modRevision: rev };
      const prev = res.response_put!.prev_kv;
      return { key: op.key, value: op.value, createRevision: prev?.create_revision || rev, modRevision: rev };
    });
  }

  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher {
    this.checkOpen();
    checkWatchRevision(opts.afterRevision, this.compacted, prefix);
    const range = this.keys.rangeOf(prefix);
    const seen = this.onWatch?.(prefix);
    const w = new EtcdWatch(this.client, {
      range,
      orderedProgress: orderedProgress(this.version),
      count: rangeCount(range, (req) => this.run("listWithCount", prefix, () => this.client.range(req))),
      currentRevision: () => this.readRevision(),
      afterRevision: opts.afterRevision,
      toKeyValue: (kv) => this.kv(kv),
      onEvent: countedEvents(seen, onEvent),
      ...(seen ? { onProgressNotify: () => seen.bookmark() } : {}),
      onError: (err) => {
        this.watches.delete(w);
        onError?.(this.translate(err, prefix));
      },
      onCompacted: (rev) => {
        this.noteCompacted(rev);
        return compactedError(prefix, opts.afterRevision, rev);
      },
      onResumed: (endpoint, from, why) => this.opts.log?.(`kapi: etcd watch of ${prefix} resumed on ${endpoint} from revision ${from} (${why})`),
    });
    this.watches.add(w);
    return {
      stop: () => {
        this.watches.delete(w);
        w.stop();
      },
      progress: () => w.progress(),
    };
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compacted) return;
    try {
      await this.track(this.timed("compact", () => this.client.compact(revision)));
    } catch (e) {
      const err = this.translate(e, "");
      // Someone compacted further already: nothing left to do but learn how far.
      if (err instanceof StorageError && err.code === "Compacted") {
        this.noteCompacted(await this.probeCompacted());
        return;
      }
      throw err;
    }
    this.noteCompacted(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor.stop();
    await Promise.allSettled([...this.pending]);
    // Watchers get the events of every acknowledged write before they are told the store closed.
    const last = await this.client.status(closeDrainMs).then((s) => s.header.revision, () => 0);
    await Promise.all([...this.watches].map((w) => w.drainTo(last, closeDrainMs)));
    const closed = new StorageError("Closed", "", "storage closed");
    for (const w of [...this.watches]) w.end(closed);
    this.watches.clear();
    this.client.close();
  }

  /** The lease a put with this TTL carries (none without one): a put without a lease makes the key last. */
  private async leaseFor(key: string, ttlSeconds: number | undefined): Promise<{ lease?: string }> {
    if (!ttlSeconds || ttlSeconds <= 0) return {};
    try {
      return { lease: await this.track(this.leases.lease(ttlSeconds)) };
    } catch (e) {
      throw this.translate(e, key);
    }
  }

  private precondition(key: Buffer, expectedModRevision: number): object {
    // mod_revision of a missing key is 0, so "== expected" also fails for a key that is gone.
    return expectedModRevision
      ? { key, target: "MOD", result: "EQUAL", mod_revision: expectedModRevision }
      : { key, target: "CREATE", result: "GREATER", create_revision: 0 };
  }

  /** Why a compare on `expected` failed, from the key's current value (read by the failure branch). */
  private failedPrecondition(key: string, cur: RawKeyValue | undefined, expected: number): StorageError {
    if (!cur) return new StorageError("KeyNotFound", key);
    const current = this.kv(cur);
    return new StorageError("Conflict", key, `modRevision is ${current.modRevision}, expected ${expected}`, current);
  }

  /** The error of the first write whose check failed (the failure branch read every key). */
  private failedTransaction(ops: readonly WriteOp[], r: RawTxnResponse): StorageError {
    for (const [i, op] of ops.entries()) {
      const cur = r.responses[i]?.response_range?.kvs[0];
      if (op.kind === "create") {
        if (cur) return new StorageError("KeyExists", op.key);
        continue;
      }
      if (!cur) return new StorageError("KeyNotFound", op.key);
      if (op.expectedModRevision && cur.mod_revision !== op.expectedModRevision) {
        return this.failedPrecondition(op.key, cur, op.expectedModRevision);
      }
    }
    return new StorageError("Conflict", ops[0]!.key, "transaction refused by etcd");
  }

  private kv(raw: RawKeyValue): KeyValue {
    return {
      key: this.keys.fromEtcd(raw.key),
      value: raw.value.toString("utf8"),
      createRevision: raw.create_revision,
      modRevision: raw.mod_revision,
    };
  }

  private noteCompacted(rev: number): void {
    if (rev > this.compacted) this.compacted = rev;
  }

  /**
   * etcd does not report its compacted revision; a read at a revision fails exactly when the
   * revision is older than it, so a binary search over [1, current] finds it (0: never compacted).
   */
  private async probeCompacted(): Promise<number> {
    const readable = async (rev: number) => {
      try {
        await this.timed("get", () => this.client.range({ key: Buffer.from([0]), revision: rev, count_only: true }));
        return true;
      } catch (e) {
        const err = this.translate(e, "");
        if (err instanceof StorageError && err.code === "Compacted") return false;
        throw e;
      }
    };
    if (await readable(1)) return 0;
    let lo = 2;
    let hi = (await this.client.status()).header.revision;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private write(operation: string, key: string, txn: object): Promise<RawTxnResponse> {
    return this.run(operation, key, () => this.client.txn(txn));
  }

  private async run<T>(operation: string, key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await this.track(this.timed(operation, call, key));
    } catch (e) {
      throw this.translate(e, key);
    }
  }

  private async timed<T>(operation: string, call: () => Promise<T>, key = ""): Promise<T> {
    const start = process.hrtime.bigint();
    let failed = true;
    try {
      const r = await call();
      failed = false;
      return r;
    } finally {
      this.onRequest?.(operation, key, Number(process.hrtime.bigint() - start) / 1e9, failed);
    }
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  /** etcd's and gRPC's failures as storage errors; anything else unchanged. */
  private translate(e: unknown, key: string): Error {
    if (e instanceof StorageError) return e;
    const msg = (e as Error)?.message ?? String(e);
    if (msg.includes(compactedMessage)) return compactedError(key, 0, this.compacted);
    if (msg.includes(futureMessage)) return new StorageError("FutureRevision", key, msg);
    const tooLarge = tooLargeMessage(e);
    if (tooLarge) return new StorageError("TooLarge", key, tooLarge);
    if (e instanceof EtcdCallError) {
      if (e.timedOut) return new StorageError("Timeout", key, e.message);
      if (e.unavailable) return new StorageError("Unavailable", key, e.message);
    }
    return e instanceof Error ? e : new Error(msg);
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError("Closed", "", "storage closed");
  }
}

/** Whether this etcd version answers progress requests in order (kube-apiserver's own threshold). */
export function orderedProgress(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split(".").map((x) => Number.parseInt(x, 10) || 0);
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
