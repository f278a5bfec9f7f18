// An informer: an in-process, decoded, read-only view of one resource type, kept current from
// the type's watch cache, with handlers told of every change (upstream: client-go's shared
// informer). In process there is no HTTP between us and the cache: the initial list and the
// watch from its revision are taken from the cache in one synchronous step, so nothing can fall
// between them, and nothing is read from storage.
//
// Shared, read-only objects: everything handed out (get, list, handler arguments) is the cache's
// own decoded entry, shared with every HTTP list and watch. Nobody may mutate it: copy it
// (deepClone) before editing. The apiVersion/kind it carries are those of whichever version
// of the type created the cache; use the metadata, or stamp the version you serve.
//
// Order and timing: the view is updated at once, inside the cache's fan-out; handlers are called
// later, from a queue drained on the event loop, so a slow or throwing handler never holds up the
// cache's HTTP watchers. The queue is unbounded (as client-go's per-listener buffer): handlers
// must be quick (record the change, queue the work) rather than do the work themselves.
//
// When the cache's feed ends (its storage watch broke, or it was dropped) the informer lists and
// watches a fresh cache — if its type is still served; otherwise it stops. Until it is attached
// again it is not quiet (quiet()): the differences a relist finds are work on its way to the
// handlers. A cache that cannot load (an object no key decrypts) is retried with a growing wait,
// as client-go's reflector retries a failed list; failure() says why meanwhile.
import type { WatchSink } from "../storage/cacher/cache-watcher.js";
import type { WatchCache } from "../storage/cacher/watch-cache.js";
import type { Delivery, Entry } from "../storage/cacher/types.js";
import { HandlerQueues } from "./handler-queues.js";

/** Called for every change; the objects are shared and read-only (see the header). */
export interface InformerHandler<O> {
  added?(obj: O): void;
  updated?(oldObj: O, newObj: O): void;
  deleted?(obj: O): void;
}

/** Where an informer's objects come from: one type's watch cache. */
export interface InformerSource<O> {
  /** The type's key prefix (ending in "/"). */
  prefix: string;
  /** Keys are <prefix><namespace>/<name> rather than <prefix><name>. */
  namespaced: boolean;
  /** The type's watch cache, loaded (a fresh one once the previous one stopped). */
  cache(): Promise<WatchCache<O>>;
  /** Whether the type is still served: a feed that ends is resumed only then. */
  exists(): boolean;
  /** A handler threw (the other handlers still get the change). */
  onHandlerError?(err: unknown): void;
  /** An attempt to list failed (the cache could not load); the informer tries again later. */
  onListError?(err: unknown): void;
}

const firstRetryMs = 50;
const maxRetryMs = 5000;

export class Informer<O> {
  /** storage key → entry (keyed by the entry's own key string: no per-object strings of ours) */
  private readonly view = new Map<string, Entry<O>>();
  private readonly handlers: HandlerQueues<O>;
  private watcher: { stop(): void } | undefined;
  /** The revision the view is at (the list's, then each delivery's): where a reconnect resumes. */
  private revision = 0;
  private stopped = false;
  private listed = false;
  private isSynced = false;
  private resolveSynced!: () => void;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The attempt retryTimer will make. */
  private retryAttempt: (() => void) | undefined;
  /** Not attached to a cache's feed: from start until the first list, and from a broken feed to the next list. */
  private connecting = true;
  private connectedWaiters: (() => void)[] = [];
  /** Why the last attempt to list failed, until one succeeds. */
  private lastFailure: { error: unknown } | undefined;
  /**
   * Resolves once the view holds the initial list and every handler registered by then has been
   * called for it — or once the informer stopped (hasSynced() tells which). Never rejects.
   */
  readonly synced: Promise<void>;

  constructor(private readonly source: InformerSource<O>) {
    this.synced = new Promise((r) => (this.resolveSynced = r));
    this.handlers = new HandlerQueues<O>(() => {
      this.isSynced = true;
      this.resolveSynced();
    }, (err) => source.onHandlerError?.(err));
  }

  /** Starts listing and watching; the informer keeps itself current until stop(). */
  start(): this {
    void this.connect(firstRetryMs);
    return this;
  }

  hasSynced(): boolean {
    return this.isSynced;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Every change the view has taken has reached every handler (true once stopped). */
  handlersIdle(): boolean {
    return this.handlers.idle();
  }

  /** Resolves once handlersIdle() holds (event-driven: when the handlers' queues drain). */
  whenHandlersIdle(): Promise<void> {
    return this.handlers.whenIdle();
  }

  /**
   * Nothing is on its way to the handlers: the view has listed and is attached to its cache's feed
   * (not between a broken feed and the next list), and every change it took has reached every
   * handler. True once stopped.
   */
  quiet(): boolean {
    return this.stopped || (this.isSynced && !this.connecting && this.handlers.idle());
  }

  /** Resolves once quiet() holds (event-driven); stays pending while every attempt to list fails. */
  async whenQuiet(): Promise<void> {
    while (!this.quiet()) {
      await this.synced;
      if (this.connecting && !this.stopped) await new Promise<void>((r) => this.connectedWaiters.push(r));
      await this.handlers.whenIdle();
    }
  }

  /** Why the informer cannot list its type, while its last attempt failed (it tries again later). */
  failure(): { error: unknown } | undefined {
    return this.stopped ? undefined : this.lastFailure;
  }

  /**
   * Calls `h` for every later change and, first, `added` for every object already in the view
   * (as client-go does for a handler added to a running informer). Returns the remover.
   */
  addHandler(h: InformerHandler<O>): () => void {
    return this.handlers.add(h, this.objects());
  }

  get(namespace: string, name: string): O | undefined {
    const { prefix, namespaced } = this.source;
    return this.view.get(namespaced ? `${prefix}${namespace}/${name}` : prefix + name)?.object;
  }

  /** Every object, or those of one namespace. */
  list(namespace?: string): O[] {
    const within = namespace !== undefined && this.source.namespaced ? `${this.source.prefix}${namespace}/` : "";
    const out: O[] = [];
    for (const [key, e] of this.view) if (key.startsWith(within)) out.push(e.object);
    return out;
  }

  get size(): number {
    return this.view.size;
  }

  private *objects(): Iterable<O> {
    for (const e of this.view.values()) yield e.object;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.watcher?.stop();
    this.watcher = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.handlers.close();
    this.resolveSynced(); // waiters must not hang on an informer that will never sync
    this.connected();
  }

  private connected(): void {
    this.connecting = false;
    for (const w of this.connectedWaiters.splice(0)) w();
  }

  /** Lists and watches the current cache; on failure retries later with a longer wait. */
  private async connect(retryMs: number): Promise<void> {
    if (this.stopped) return;
    // An attempt under way is not a failure (yet): who asked for one hears how it ends.
    this.lastFailure = undefined;
    let attached = false;
    try {
      attached = this.attach(await this.source.cache());
    } catch (error) {
      // The cache could not load (storage closing, an unreadable object): try again later.
      if (this.stopped) return;
      this.lastFailure = { error };
      this.source.onListError?.(error);
    }
    if (!attached) this.retry(Math.min(retryMs * 2, maxRetryMs), retryMs);
  }

  private retry(nextRetryMs: number, waitMs: number): void {
    if (this.stopped) return;
    const attempt = () => {
      this.retryTimer = undefined;
      this.retryAttempt = undefined;
      // Checked after the wait: a type's removal and its cache's drop may come in either order.
      if (!this.source.exists()) this.stop();
      else void this.connect(nextRetryMs);
    };
    this.retryAttempt = attempt;
    this.retryTimer = setTimeout(attempt, waitMs);
    this.retryTimer.unref();
  }

  /**
   * An informer whose last attempt to list failed tries again now rather than after its wait (a
   * test kit's settle(): a repair made since is found at once); the wait after a new failure
   * still grows.
   */
  retryNow(): void {
    if (!this.lastFailure || !this.retryAttempt) return;
    clearTimeout(this.retryTimer);
    this.retryAttempt();
  }

  /** One synchronous step: the cache's state becomes the view, then its changes follow. */
  private attach(cache: WatchCache<O>): boolean {
    if (this.stopped) return true;
    if (cache.isStopped) return false;
    const pred = { prefix: this.source.prefix, namespace: "", name: "" };
    // After a broken feed (its cache dropped or replaced), resume from the last revision seen when
    // the new cache still holds the events since: what happened in the gap arrives as events —
    // even an object created and deleted meanwhile, which a relist would never show. Otherwise
    // relist, and handlers hear the differences.
    const resumeFrom = this.listed && this.revision >= cache.horizon ? this.revision : undefined;
    let start: { from: "revision"; revision: number };
    if (resumeFrom !== undefined) start = { from: "revision", revision: resumeFrom };
    else {
      const state = cache.list(pred);
      this.replace(state.items);
      this.revision = state.revision;
      start = { from: "revision", revision: state.revision };
    }
    const sink: WatchSink<O> = {
      send: (d) => {
        this.apply(d);
        return true; // never "full": handlers are queued here, not in the cache
      },
      closed: () => {
        if (this.watcher !== watcher) return;
        this.watcher = undefined;
        this.connecting = true;
        this.retry(firstRetryMs * 2, firstRetryMs);
      },
    };
    const watcher = cache.watch(pred, sink, start, false);
    this.watcher = watcher;
    this.lastFailure = undefined;
    this.connected();
    if (!this.listed) {
      this.listed = true;
      this.handlers.listed();
    }
    return true;
  }

  /** The view becomes `items`; handlers hear what changed (a relist after a broken feed). */
  private replace(items: readonly Entry<O>[]): void {
    const hadAny = this.view.size > 0;
    const seen = new Set<Entry<O>>();
    for (const e of items) {
      const old = this.put(e);
      if (hadAny) seen.add(e);
      if (!old) this.handlers.notify({ kind: "added", obj: e.object });
      else if (old.modRevision !== e.modRevision) this.handlers.notify({ kind: "updated", old: old.object, obj: e.object });
    }
    if (!hadAny) return;
    for (const [key, e] of this.view) {
      if (seen.has(e)) continue;
      this.view.delete(key);
      this.handlers.notify({ kind: "deleted", obj: e.object });
    }
  }

  private apply(d: Delivery<O>): void {
    if (d.revision > this.revision) this.revision = d.revision;
    const e = d.entry;
    if (!e || this.stopped) return; // bookmarks are not asked for
    if (d.type === "DELETED") {
      this.view.delete(e.key);
      this.handlers.notify({ kind: "deleted", obj: e.object });
      return;
    }
    const old = this.put(e);
    this.handlers.notify(old ? { kind: "updated", old: old.object, obj: e.object } : { kind: "added", obj: e.object });
  }

  /** Puts an entry in the view; returns the one it replaced. */
  private put(e: Entry<O>): Entry<O> | undefined {
    const old = this.view.get(e.key);
    this.view.set(e.key, e);
    return old;
  }
}
