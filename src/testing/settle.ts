// settle(): run the in-process controllers until nothing is left for them to do. Event-driven:
// it waits on the controllers' idle signals and their retries coming due, never on a clock.
//
// The fixed point it looks for: the storage revision read before waiting is still the current
// one after the server's controllers and informer handler queues went idle (whenControllersIdle
// lets a turn of the event loop pass first, so every write up to that revision has reached the
// informers), and no controller holds a failed key waiting out its backoff. A controller that
// reacts to a write is busy until its reaction is written, which moves the revision and starts
// another round.
//
// Work that waiting cannot get done ends it at once: an informer that cannot list its type (an
// object no configured key decrypts, after a key was removed) keeps the controllers that read
// through it from ever syncing, as a client-go reflector's failing list does; settle() rejects
// with a SettleBlockedError naming the type and the error (which names the object) instead of
// running into its timeout.
import type { Controller } from "../controller-runtime/controller.js";
import { InformersFailingError } from "../server/controllers-idle.js";
import { describeValue, HarnessInputError } from "./input-error.js";

export interface SettleSource {
  currentRevision(): Promise<number>;
  /** Every controller running now: whose failed keys are waited for, and named when it times out. */
  controllers(): readonly Controller[];
  /** The server's activity seam (server/controllers-idle.ts): controllers and informers. */
  controllersIdle(): boolean;
  /** Rejects with InformersFailingError when an informer cannot list its type. */
  whenControllersIdle(): Promise<void>;
  /** Starts the controllers the server starts a little after it listens, rather than waiting for them. */
  startDelayedControllers(): void;
}

export interface SettleOptions {
  /**
   * How long to wait in all (default 10 s): a controller that keeps failing, or work that never
   * ends, rejects with an error naming the controllers still busy rather than hanging a test.
   */
  timeoutMs?: number;
}

export const defaultSettleTimeoutMs = 10_000;

/** What one controller was still doing when settle() gave up. */
export interface BusyController {
  name: string;
  /** What it was doing: "working", "retrying 1 failed key: …". */
  doing: string;
}

export class SettleTimeoutError extends Error {
  override name = "SettleTimeoutError";
  constructor(
    message: string,
    /** Empty when every controller was idle but their writes kept moving the revision. */
    readonly busy: readonly BusyController[] = [],
  ) {
    super(message);
  }
}

/** An informer that cannot list its type: what settle() reports when it cannot finish. */
export interface BlockedInformer {
  /** The group-resource: "secrets", "widgets.example.com". */
  resource: string;
  /** Its last attempt's error (a corrupt object's names the object's storage key). */
  error: string;
}

export class SettleBlockedError extends Error {
  override name = "SettleBlockedError";
  constructor(
    message: string,
    readonly blockedBy: readonly BlockedInformer[],
  ) {
    super(message);
  }
}

export async function settle(src: SettleSource, opts: SettleOptions = {}): Promise<{ rounds: number; revision: number }> {
  const timeoutMs = opts.timeoutMs ?? defaultSettleTimeoutMs;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0)) throw new HarnessInputError(`settle: timeoutMs must be a positive number of ms, got ${describeValue(opts.timeoutMs)}`);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"expired">((r) => (timer = setTimeout(() => r("expired"), timeoutMs)));
  const within = async <T>(p: Promise<T>): Promise<T> => {
    const v = await Promise.race([p, expired]);
    if (v === "expired") {
      const busy = busyControllers(src.controllers());
      throw new SettleTimeoutError(`settle: not settled after ${timeoutMs} ms: ${describeBusy(busy)}`, busy);
    }
    return v as T;
  };
  try {
    return await rounds(src, within);
  } catch (e) {
    if (!(e instanceof InformersFailingError)) throw e;
    const blockedBy = e.failures.map((f) => ({ resource: f.resource, error: f.error instanceof Error ? f.error.message : String(f.error) }));
    throw new SettleBlockedError(`settle: cannot settle: ${e.message} (it retries with a growing wait; repair or remove the object)`, blockedBy);
  } finally {
    clearTimeout(timer);
  }
}

async function rounds(src: SettleSource, within: <T>(p: Promise<T>) => Promise<T>): Promise<{ rounds: number; revision: number }> {
  src.startDelayedControllers();
  for (let rounds = 1; ; rounds++) {
    const before = await src.currentRevision();
    await within(src.whenControllersIdle());
    const after = await src.currentRevision();
    if (after !== before) continue;
    const retrying = src.controllers().filter((c) => c.retrying().length > 0);
    if (retrying.length === 0) return { rounds, revision: after };
    // A failed key is work not done: wait for its retry, then look again.
    await within(Promise.race(retrying.map((c) => c.whenRetryDue())));
  }
}

function busyControllers(controllers: readonly Controller[]): BusyController[] {
  const busy: BusyController[] = [];
  for (const c of controllers) {
    const retrying = c.retrying();
    if (c.idle() && retrying.length === 0) continue;
    const what: string[] = [];
    if (!c.idle()) what.push("working");
    if (retrying.length > 0) {
      const shown = retrying.slice(0, 3).map((r) => `${r.key}${r.error ? ` (${r.error instanceof Error ? r.error.message : String(r.error)})` : ""}`);
      what.push(`retrying ${retrying.length} failed key${retrying.length > 1 ? "s" : ""}: ${shown.join(", ")}${retrying.length > 3 ? ", ..." : ""}`);
    }
    busy.push({ name: c.name, doing: what.join("; ") });
  }
  return busy;
}

function describeBusy(busy: readonly BusyController[]): string {
  return busy.length > 0 ? `still busy: ${busy.map((b) => `${b.name} ${b.doing}`).join("; ")}` : "the controllers kept writing";
}
