// The one controller runtime (upstream's model: controller-runtime's reconcile.Reconciler over
// client-go's workqueue). A controller declares its name, the informer changes that queue work
// and under which key, and a reconcile function for one key; the runtime owns the rest — the
// queue (each key once while it waits, one at a time), retries with backoff after a failure,
// the periodic resync, stop, and whether any work is queued (`idle()`, `whenIdle()`), which is
// what a test kit's settle() waits on.
import type { Informer, InformerHandler } from "../registry/informer.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.js";
import { KeyQueue } from "./work-queue.js";

/** The keys a change queues: one, several, or none. */
export type Keys = string | readonly string[] | undefined | null | false;

/** An informer to follow, and the keys each kind of change queues. */
export interface Watch<O> {
  informer: Informer<O>;
  added?(obj: O): Keys;
  updated?(oldObj: O, newObj: O): Keys;
  deleted?(obj: O): Keys;
}

/** What a reconcile may ask for beyond success: to look at the key again later. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** What the runtime offers a controller's own code. */
export interface ControllerContext {
  enqueue(key: string): void;
  enqueueAfter(key: string, ms: number): void;
  /** Follows one more informer (one that only becomes known later); removed at stop. */
  watch<O>(w: Watch<O>): () => void;
  /**
   * Follows an informer with plain handlers that keep an in-memory view current (a graph, the
   * type registry) and queue keys themselves if at all; removed at stop, counted by idle().
   */
  follow<O>(informer: Informer<O>, handler: InformerHandler<O>): () => void;
  /** Runs `fn` at stop (an unsubscribe the runtime cannot know of). */
  onStop(fn: () => void): void;
  /**
   * Keys are queued but not worked until `ready` settles (informers the workers judge by);
   * only during setup.
   */
  holdUntil(ready: Promise<unknown>): void;
}

export interface ControllerDefinition {
  /** The controller's name (its --controllers name, where it has one): logs and tests. */
  name: string;
  /** The informers it follows from the start. */
  watches?: readonly Watch<any>[];
  /** Further event sources (type registry subscriptions, informers found later). */
  setup?(ctx: ControllerContext): void;
  /**
   * Brings the world in line for one key; throws to have it retried. A controller that only
   * keeps an in-memory view current from its informers' changes (the Node authorizer's graph)
   * queues no keys and has none.
   */
  reconcile?(key: string, ctx: ControllerContext): Promise<ReconcileResult | void>;
  /** Every `everyMs`, `keys()` are queued again (what failed silently, what takes time). */
  resync?: { everyMs: number; keys(): Iterable<string> };
  /**
   * The wait before a failed key is retried (default: client-go's default controller rate
   * limiter); false for a controller that leaves failures to its resync or next event.
   */
  retry?: RateLimiter | false;
  /** Whether a failure is retried at all (default: every failure). */
  retryIf?(err: unknown): boolean;
  /** Told of every failure (logging). */
  onError?(key: string, err: unknown): void;
}

/** A running controller. */
export interface Controller {
  readonly name: string;
  /**
   * No key queued or being reconciled, and the informers it follows are quiet (listed, attached
   * to their caches, no change held back from its handlers).
   */
  idle(): boolean;
  /** Resolves once idle() holds (at once when it does; at once after stop). */
  whenIdle(): Promise<void>;
  /** The keys a failure left to retry (waiting out the backoff or being retried), with the error each last met. */
  retrying(): { key: string; error: unknown }[];
  /** Resolves when the next of those retries comes due (at once after stop). */
  whenRetryDue(): Promise<void>;
  stop(): void;
}

const asList = (k: Keys): readonly string[] => (!k ? [] : typeof k === "string" ? [k] : k);

export function runController(def: ControllerDefinition): Controller {
  const limiter = def.retry === undefined ? defaultControllerRateLimiter() : def.retry;
  const stops: (() => void)[] = [];
  /** One entry per handler added (an informer may be followed twice); gone with its handler. */
  const followed = new Set<{ informer: Informer<unknown> }>();
  let stopped = false;
  /** The last failure of each key that failed (gone once it succeeds): what settle() reports. */
  const failures = new Map<string, unknown>();

  const queue = new KeyQueue(
    async (key) => {
      try {
        const result = await def.reconcile?.(key, ctx);
        if (limiter) limiter.forget(key);
        failures.delete(key);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        def.onError?.(key, err);
        failures.set(key, err);
        if (limiter && (def.retryIf?.(err) ?? true)) queue.addAfter(key, limiter.when(key), true);
      }
    },
    undefined,
    true, // held until setup is done and what it asked to wait for has settled
  );
  const holds: Promise<unknown>[] = [];

  const ctx: ControllerContext = {
    enqueue: (key) => queue.add(key),
    enqueueAfter: (key, ms) => queue.addAfter(key, ms),
    watch<O>(w: Watch<O>) {
      const queueAll = (k: Keys) => {
        for (const key of asList(k)) queue.add(key);
      };
      const h: InformerHandler<O> = {};
      if (w.added) h.added = (o) => queueAll(w.added!(o));
      if (w.updated) h.updated = (old, o) => queueAll(w.updated!(old, o));
      if (w.deleted) h.deleted = (o) => queueAll(w.deleted!(o));
      return ctx.follow(w.informer, h);
    },
    follow<O>(informer: Informer<O>, handler: InformerHandler<O>) {
      const entry = { informer: informer as Informer<unknown> };
      followed.add(entry);
      const removeHandler = informer.addHandler(handler);
      const remove = () => {
        followed.delete(entry);
        removeHandler();
      };
      stops.push(remove);
      return remove;
    },
    onStop: (fn) => void (stopped ? fn() : stops.push(fn)),
    holdUntil: (ready) => void holds.push(ready),
  };

  for (const w of def.watches ?? []) ctx.watch(w);
  def.setup?.(ctx);
  if (def.resync) {
    const { everyMs, keys } = def.resync;
    const timer = setInterval(() => {
      for (const key of keys()) queue.add(key);
    }, everyMs);
    timer.unref();
    stops.push(() => clearInterval(timer));
  }
  if (holds.length === 0) queue.release();
  else void Promise.allSettled(holds).then(() => queue.release());

  // A change an informer took but has not yet handed to our handler is work on its way: until it
  // arrives the queue cannot show it, so the informers' handler queues count as ours — and so
  // does an informer between a broken feed and its relist, whose differences are still to come.
  const informersQuiet = () => [...followed].every(({ informer: i }) => i.quiet());
  const controller: Controller = {
    name: def.name,
    idle: () => stopped || (queue.idle() && informersQuiet()),
    async whenIdle() {
      // An informer's initial list and each change it delivers can queue keys: wait for the
      // lists, the handler queues, then our queue, until all hold at once.
      while (!controller.idle()) {
        await Promise.all([...followed].map(({ informer: i }) => i.whenQuiet()));
        await queue.whenIdle();
      }
    },
    retrying: () => queue.retrying().map((key) => ({ key, error: failures.get(key) })),
    whenRetryDue: () => queue.whenRetryDue(),
    stop() {
      if (stopped) return;
      stopped = true;
      queue.stop();
      for (const s of stops.splice(0)) s();
    },
  };
  return controller;
}
