// Shapes shared by the watch cache's parts. The cache is generic over the decoded object type O:
// storage knows keys, bytes and revisions; the registry injects how a stored value becomes an
// object plus the labels and fields that selectors look at.
import type { KeyValue } from "../interface.js";

/** What the registry extracts from a stored value once, when it enters the cache. */
export interface Decoded<O> {
  object: O;
  labels: Readonly<Record<string, string>> | undefined;
  /**
   * The attributes field selectors read, made from the object the first time an entry is asked
   * for them and kept from then on. Most cached objects, and every older version the history
   * holds, are never matched against a field selector: a record made for each at decode cost
   * ~140 bytes per version (issue 26). One function per type, shared by its entries.
   */
  fieldsOf: (object: O) => Readonly<Record<string, string>>;
}

/**
 * `prev` is the object the value replaces in the cache, when there is one: a decoder may share the
 * parts that did not change with it (both are read-only once cached).
 */
export type Decoder<O> = (kv: KeyValue, prev?: O) => Decoded<O>;

/**
 * One object as the cache holds it. Read-only once built: the same entry is shared by lists,
 * by every watcher and by the cache's history, so nobody may mutate `object`.
 */
export interface Entry<O> {
  key: string;
  modRevision: number;
  readonly object: O;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** The attributes field selectors read (Decoded.fieldsOf of the object, made when first asked for). */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * Lazily filled per-encoding byte cache (e.g. "application/json|v1" → bytes), shared by all
   * readers. It may decline to keep bytes (memo-budget.ts): a reader uses what it made either way.
   */
  memo: Map<string, unknown>;
  /** The stored value's length, which the object was decoded from (the resource size estimate). */
  readonly size: number;
}

export type CacheEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One change under the cache's prefix, kept in the history ring and dispatched to watchers. */
export interface CacheEvent<O> {
  type: CacheEventType;
  revision: number;
  key: string;
  /** For ADDED/MODIFIED the new entry; for DELETED the last state (modRevision = the deleting revision). */
  cur: Entry<O>;
  /** The entry before this event (absent for ADDED). */
  prev?: Entry<O>;
  /** When the cache recorded it (for the history window). */
  time: number;
  /**
   * What its watchers share while it is sent (see EventDispatch). Made by the first watcher that
   * sends it; dropped once the cache has handed it to every watcher, unless a delivery holds
   * encoded bytes that later senders (a watcher behind, one resuming) reuse. An event in the
   * history ring is its seven fields, not thirteen, and no delivery objects (issue 26: the ring
   * keeps two events per object a controller wrote once).
   */
  dispatch: EventDispatch<O> | undefined;
}

/** What the watchers of one event share: its deliveries and the last predicate's answers. */
export interface EventDispatch<O> {
  /**
   * The deliveries made of the event, one per way a watcher sees it (ADDED, MODIFIED, DELETED,
   * or DELETED on leaving its selector — "L"), made by the first watcher and shared by every
   * other: one object and one byte memo per variant, not per watcher.
   */
  deliveryA: Delivery<O> | undefined;
  deliveryM: Delivery<O> | undefined;
  deliveryD: Delivery<O> | undefined;
  deliveryL: Delivery<O> | undefined;
  /**
   * The predicate the event was last matched against and its answers for `cur` and `prev`:
   * watchers sharing a predicate (one scope, no selectors) match an event once between them.
   */
  matchedBy: Predicate | undefined;
  curPasses: boolean;
  prevPasses: boolean;
}

/** What selectors read of an entry. */
export type Selectable = Pick<Entry<unknown>, "labels" | "fields">;

/** Which objects a list or watch wants: the key scope plus an attribute filter. */
export interface Predicate {
  /** Key prefix of the request (type prefix, or type prefix + namespace + "/"). */
  prefix: string;
  /** Exact namespace / name required (from the path or from `metadata.namespace=` / `metadata.name=`); "" = any. */
  namespace: string;
  name: string;
  /**
   * Label/field filter; undefined = everything under the prefix. It is handed the entry, not its
   * attributes: an entry makes its field attributes only when a field selector reads them.
   */
  matches?: (e: Selectable) => boolean;
}

/** What a watcher hands its sink: the event type as this watcher sees it and the object to send. */
export interface Delivery<O> {
  type: CacheEventType | "BOOKMARK";
  /** Absent for BOOKMARK. */
  entry?: Entry<O>;
  /** The entry this event replaced, when there was one (absent for initial events and BOOKMARK). */
  readonly prev?: Entry<O>;
  /** The resourceVersion the sent object must carry. */
  revision: number;
  /** Shared by every watcher getting this same delivery; the encoder caches bytes here. */
  memo: Map<string, unknown>;
  /** BOOKMARK that ends the initial events of a streaming list. */
  initialEventsEnd?: boolean;
}

export type CacheErrorCode = "TooOld" | "TooLarge" | "Stopped";

export class CacheError extends Error {
  constructor(
    readonly code: CacheErrorCode,
    /** The revision asked for. */
    readonly requested: number,
    /** TooOld: the oldest revision still served; TooLarge: the cache's current revision. */
    readonly bound: number,
    message?: string,
  ) {
    super(message ?? `${code}: requested ${requested}, bound ${bound}`);
    this.name = "CacheError";
  }
}

/**
 * What a watch cache reports about itself (upstream's cacher metrics), told as it happens; the
 * server turns it into metric families. Every method is cheap: some run for every event.
 */
export interface WatchCacheObserver {
  /** The cache loaded its state and follows storage (again, after a broken feed). */
  initialized(): void;
  /** The most events its history keeps. */
  capacity(events: number): void;
  /** One event arrived from storage and was sent on to the watchers it concerns. */
  event(): void;
  /** The revision the cache is at now. */
  resourceVersion(revision: number): void;
  /** A value read from storage did not decode. */
  decodeFailed?(): void;
  /** A read waited this long for the cache to reach its revision. */
  readWait(seconds: number): void;
  /** A list served from the cache: entries it looked at, and how many of them it returned. */
  listed(fetched: number, returned: number): void;
  /** A watcher sent this many events from the initial state or replayed history (when more than none). */
  initEvents(count: number): void;
  /** A watcher was ended for not keeping up with its events. */
  terminatedWatcher(): void;
  /** A consistent list asked of the cache: whether it was answered, and whether storage answered it for a cache that did not catch up. */
  consistentRead(success: boolean, fallback: boolean): void;
}
