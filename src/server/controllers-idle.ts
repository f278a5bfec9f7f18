// Whether the server's in-process control loops have work at hand: the seam a test kit's
// settle() waits on. Work is at hand while a controller has a key queued or being reconciled, an
// informer holds a change not yet handed to its handlers (the RBAC index, namespace states and
// every controller read through them) or is between a broken feed and its next list (what the
// relist finds is on its way), or a controller that starts once the server serves has not
// started yet. Keys waiting out a retry's backoff or a scheduled re-examination are not work at
// hand (controller-runtime/work-queue.ts). An informer that cannot list its type at all (an
// object no configured key decrypts) holds its controllers until someone repairs the data:
// waiting cannot end that, so the wait fails at once naming it (InformersFailingError).
//
// A write's events reach the watch caches, and from them the informers, as microtasks of the
// commit (storage/cacher/watch-cache.ts): after a write has returned and one turn of the event
// loop has passed, its changes are in the queues these functions look at.
import type { Controller } from "../controller-runtime/controller.js";
import type { InformerFactory, InformerFailure } from "../registry/informer-factory.js";

export interface ControllerActivity {
  /** Nothing at hand for any in-process controller or informer handler. */
  controllersIdle(): boolean;
  /**
   * Resolves once controllersIdle() holds, waiting on the queues' own signals (no polling); the
   * first check comes after one turn of the event loop, so writes already made are counted.
   * Informers that failed to list try again first; rejects with InformersFailingError when, while
   * work is at hand, an informer's attempt to list its type fails.
   */
  whenControllersIdle(): Promise<void>;
}

/** Work is at hand that cannot be done: informers cannot list their types (each retries later). */
export class InformersFailingError extends Error {
  override name = "InformersFailingError";
  constructor(readonly failures: readonly InformerFailure[]) {
    super(failures.map((f) => `the informer of ${f.resource} cannot list them: ${errorText(f.error)}`).join("; "));
  }
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Controllers started a while after the server listens (so a large store does not delay readiness). */
export interface DelayedStart {
  /** They have started, or never will (the server stopped first). */
  settled(): boolean;
  whenSettled(): Promise<void>;
  /** They will not start (the server stops). */
  cancel(): void;
  /** They start now, unless started or cancelled already (settle() does not wait out the delay). */
  startNow(): void;
}

/** What activity needs of controllers still to start. */
export type PendingStart = Pick<DelayedStart, "settled" | "whenSettled">;

export function delayedStart(start: () => void, delayMs: number): DelayedStart {
  let settled = false;
  let settle!: () => void;
  const whenSettled = new Promise<void>((r) => (settle = r));
  const done = () => {
    settled = true;
    settle();
  };
  const run = () => {
    clearTimeout(timer);
    if (settled) return;
    try {
      start();
    } finally {
      done();
    }
  };
  const timer = setTimeout(run, delayMs);
  return {
    settled: () => settled,
    whenSettled: () => whenSettled,
    cancel() {
      clearTimeout(timer);
      done();
    },
    startNow: run,
  };
}

export interface ActivitySources {
  /** The controllers running now (a list that grows as phases start more). */
  controllers(): readonly Controller[];
  /** Every informer: listed, attached to its cache, its handler queues drained; or failing to list. */
  informers: Pick<InformerFactory, "quiet" | "whenQuiet" | "failing" | "whenFailing" | "retryFailing">;
  /** The controllers still to start. */
  later: PendingStart;
}

const turn = () => new Promise<void>((r) => setImmediate(r));

export function controllerActivity(s: ActivitySources): ControllerActivity {
  const idle = () => s.later.settled() && s.informers.quiet() && s.controllers().every((c) => c.idle());
  /** `p`, unless an informer fails to list first. */
  const unlessFailing = async (p: Promise<unknown>) => {
    for (;;) {
      const failing = s.informers.failing();
      if (failing.length > 0) throw new InformersFailingError(failing);
      const which = await Promise.race([p.then(() => "done" as const), s.informers.whenFailing().then(() => "failing" as const)]);
      if (which === "done") return;
    }
  };
  return {
    controllersIdle: idle,
    async whenControllersIdle() {
      // An informer that failed to list tries again at once: a repair made since its last attempt
      // is found now, and a failure is a fresh one, not one from before the repair.
      s.informers.retryFailing();
      await turn();
      // A reconcile writes, its write reaches an informer, another controller queues a key: keep
      // waiting until every part holds at once.
      while (!idle()) {
        await unlessFailing(
          (async () => {
            await s.later.whenSettled();
            await s.informers.whenQuiet();
            await Promise.all(s.controllers().map((c) => c.whenIdle()));
          })(),
        );
        await turn();
      }
    },
  };
}
