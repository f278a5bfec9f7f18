// Whether the server's in-process control loops have work at hand: the seam a test kit's
// settle() waits on. Work is at hand while a controller has a key queued or being reconciled, an
// informer holds a change not yet handed to its handlers (the RBAC index, namespace states and
// every controller read through them), or a controller that starts once the server serves has
// not started yet. Keys waiting out a retry's backoff or a scheduled re-examination are not work
// at hand (controller-runtime/work-queue.ts).
//
// A write's events reach the watch caches, and from them the informers, as microtasks of the
// commit (storage/cacher/watch-cache.ts): after a write has returned and one turn of the event
// loop has passed, its changes are in the queues these functions look at.
import type { Controller } from "../controller-runtime/controller.js";

export interface ControllerActivity {
  /** Nothing at hand for any in-process controller or informer handler. */
  controllersIdle(): boolean;
  /**
   * Resolves once controllersIdle() holds, waiting on the queues' own signals (no polling); the
   * first check comes after one turn of the event loop, so writes already made are counted.
   */
  whenControllersIdle(): Promise<void>;
}

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
  /** Every informer's handler queues. */
  informers: { handlersIdle(): boolean; whenHandlersIdle(): Promise<void> };
  /** The controllers still to start. */
  later: PendingStart;
}

const turn = () => new Promise<void>((r) => setImmediate(r));

export function controllerActivity(s: ActivitySources): ControllerActivity {
  const idle = () => s.later.settled() && s.informers.handlersIdle() && s.controllers().every((c) => c.idle());
  return {
    controllersIdle: idle,
    async whenControllersIdle() {
      await turn();
      // A reconcile writes, its write reaches an informer, another controller queues a key: keep
      // waiting until every part holds at once.
      while (!idle()) {
        await s.later.whenSettled();
        await s.informers.whenHandlersIdle();
        await Promise.all(s.controllers().map((c) => c.whenIdle()));
        await turn();
      }
    },
  };
}
