// The contract every storage backend (memory, sqlite, etcd3) fulfils, and the watch cache in front
// of one (cacher/cached-storage.ts) as well. Storage knows keys, byte values and revisions; it
// knows nothing of HTTP or Kubernetes objects.
//
// Revisions follow etcd's model: one global counter, strictly increasing by one on every
// successful write (create, update, delete). A key's modRevision is the revision of its last
// write; createRevision the revision of the write that created it.

export interface KeyValue {
  key: string;
  /** The stored bytes (for kapi: an object's JSON), as a string. */
  value: string;
  createRevision: number;
  modRevision: number;
  /**
   * Read through an encryption provider or key that writes no longer use: a write of the same
   * object must store it again even when nothing changed (upstream's stale transform).
   */
  stale?: boolean;
}

export type WatchEventType = "put" | "delete";

export interface WatchEvent {
  type: WatchEventType;
  /** For put: the new value. For delete: the value as it was before deletion, with modRevision = the deleting revision. */
  kv: KeyValue;
  /** The value before this event, when there was one. */
  prevKv?: KeyValue;
  /** The revision of this event (== kv.modRevision). */
  revision: number;
}

export interface RangeOptions {
  /** Read at this revision (must be inside the history window). 0/undefined = current. */
  revision?: number;
  /** Only keys strictly greater than this (for paging). */
  startAfter?: string;
  /** At most this many items; `more` tells if there were more. 0/undefined = no limit. */
  limit?: number;
  /**
   * false: the caller only pages through (a cache filling) and needs no `remaining`; a backend
   * that counts it separately (SQLite: a count per page, O(n²) over a whole prefix) may leave it 0.
   */
  countRemaining?: boolean;
}

export interface RangeResult {
  items: KeyValue[];
  /** The revision the range was read at. */
  revision: number;
  /** True when limit cut the result short. */
  more: boolean;
  /** How many keys under the prefix remain after the returned items (only when more). */
  remaining: number;
}

export interface WatchOptions {
  /** Deliver every event with revision > afterRevision. Must be inside the history window. */
  afterRevision: number;
}

export interface Watcher {
  stop(): void;
  /**
   * For a backend whose events reach watchers later than its writes are acknowledged (etcd):
   * resolves with a revision R once every event of this watch up to R has been passed to onEvent
   * (etcd's progress notification). Backends that deliver a commit's events with the commit have
   * no need of it (see cacher/watch-cache.ts).
   */
  progress?(): Promise<number>;
}

export type StorageErrorCode =
  | "KeyExists" // create of an existing key
  | "KeyNotFound" // update/delete of a missing key
  | "Conflict" // compare-and-swap failed: modRevision differs
  | "Compacted" // revision older than the history window
  | "FutureRevision" // revision newer than the store has
  | "Closed" // store is closed
  | "Corrupt" // a stored value cannot be read back (no configured key decrypts it)
  | "Unavailable" // a remote store (etcd) could not be reached, lost the call, or refused it for now (the message is its client's)
  | "Timeout" // a remote store's call outlived its deadline (the request's)
  | "TooLarge"; // a write request larger than the store takes (common/request-size.ts)

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message?: string,
    /** For Conflict: the current value; for Compacted: the compacted revision is in `revision`. */
    readonly current?: KeyValue,
    readonly revision?: number,
  ) {
    super(message ?? `${code}: ${key}`);
    this.name = "StorageError";
  }
}

/**
 * Everything a reader of storage needs. Every backend offers it, and so does the watch cache
 * (cacher/cached-storage.ts), so code that only reads can be handed either one.
 */
/** One stored value that cannot be read back, and why. */
export interface CorruptValue {
  key: string;
  modRevision: number;
  message: string;
}

/** Reading one or more stored values failed (upstream: a corrupt object). `values` names each. */
export class CorruptValueError extends StorageError {
  constructor(readonly values: readonly CorruptValue[]) {
    super("Corrupt", values[0]?.key ?? "", values.map((v) => `${v.key}: ${v.message}`).join("; "), undefined, values[0]?.modRevision);
    this.name = "CorruptValueError";
  }
}

export interface StorageReader {
  /**
   * The latest revision committed (0 for an empty store). Storage split among etcd clusters
   * (--etcd-servers-overrides) has one revision counter per cluster: `key` (a key or a prefix
   * of one resource) names the cluster asked; without it, the main one.
   */
  currentRevision(key?: string): Promise<number>;
  /**
   * currentRevision() without a promise, from a backend that holds it in memory (memory, SQLite;
   * not etcd): a read served from the watch cache checks it on every GET. Absent, or undefined,
   * when it cannot be told so; `key` as for currentRevision.
   */
  currentRevisionNow?(key?: string): number | undefined;
  /** The oldest revision still readable (revisions below it are compacted); `key` as for currentRevision. */
  compactedRevision(key?: string): number;

  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /** All keys with the given prefix, sorted by key (byte order). */
  range(prefix: string, opts?: RangeOptions): Promise<RangeResult>;
  /** Number of live keys under the prefix at the current revision. */
  count(prefix: string): Promise<number>;

  /** Events under prefix after opts.afterRevision, in revision order, no gap and no duplicate. Throws Compacted. */
  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher;
}

/**
 * What a write that puts a value may add (etcd: a lease on the put).
 *
 * `ttlSeconds`: the key expires that long after this write — it is deleted as by a delete (a
 * revision, and a delete event for watchers) — unless written again first; a later put without
 * it makes the key last. Keys written with a TTL keep no history of their own (kapi's backends,
 * so that short-lived objects such as Events do not grow the store): a put replaces the key's
 * previous value at once, so reads at a past revision and watches resumed from one see only its
 * latest value (as if that past were compacted); its deletion is kept, as every key's, until
 * compaction. etcd keeps its usual history (compacted on its own schedule).
 */
export interface PutOptions {
  ttlSeconds?: number;
}

/** One write of a transaction (the same checks as the single-write calls). */
export type WriteOp =
  | ({ kind: "create"; key: string; value: string } & PutOptions)
  | ({ kind: "update"; key: string; value: string; expectedModRevision: number } & PutOptions)
  | { kind: "delete"; key: string; expectedModRevision: number };

/** The writes, each of which moves the global revision by one, and history maintenance. */
export interface StorageWriter {
  /** Create-if-absent. Throws StorageError KeyExists. Resolves once durable. */
  create(key: string, value: string, opts?: PutOptions): Promise<KeyValue>;
  /** Compare-and-swap on modRevision (expectedModRevision 0 = unconditional). Throws KeyNotFound / Conflict. */
  update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue>;
  /** Delete, optionally guarded by modRevision. Returns the deleted value with modRevision = the delete revision. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * The writes in order, each its own revision (so watchers see ordinary events, one per write).
   * memory and sqlite commit them all at once: when any check fails nothing is written and that
   * write's StorageError is thrown. etcd commits at most --max-txn-ops (128) writes at once, and
   * storage split among etcd clusters (--etcd-servers-overrides) commits each cluster's writes
   * apart: a longer or split list is several commits, each all or nothing, and one failing leaves
   * the earlier ones written; and a commit whose answer was lost with its etcd member may have
   * been applied or not. A caller therefore never relies on more than one commit: it reads back
   * what it needs to know, or retries in a way that finds its own writes (kapi's callers:
   * Stores.createAll, restoreSnapshot). Resolves with each write's result once durable.
   */
  transaction(ops: readonly WriteOp[]): Promise<KeyValue[]>;

  /** Drop history older than revision (keys' current values are kept). */
  compact(revision: number): Promise<void>;
}

export interface Storage extends StorageReader, StorageWriter {
  /** Finish pending writes, end every watcher with StorageError Closed, then refuse everything. */
  close(): Promise<void>;
  /** For a remote store: a round trip within timeoutMs; undefined when healthy, else why not. */
  health?(timeoutMs: number): Promise<string | undefined>;
}
