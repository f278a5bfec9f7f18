// Expiry of keys written with a TTL (PutOptions.ttlSeconds) in the backends that keep their own
// state (memory, SQLite; etcd expires its leases itself): a sweep, every second, deletes the keys
// whose time has come, each with a delete guarded by the revision the sweep saw, so a key written
// again meanwhile (which moved its expiry) is left alone. Deletes are ordinary ones: a revision
// each and a delete event for watchers, as etcd's lease expiry gives.
import { StorageError } from "../interface.js";

/** How often the sweep runs; a key lives at most this much past its TTL. */
export const expirySweepIntervalMs = 1000;
/** How many keys one sweep deletes at most (the rest wait for the next one). */
const sweepBatch = 1000;

export interface DueKey {
  key: string;
  /** The key's revision when its expiry was read: its delete is guarded by it. */
  modRevision: number;
}

export interface ExpiryBackend {
  /** Keys whose expiry is at or before `now` (ms since the epoch), soonest first, at most `limit`. */
  due(now: number, limit: number): DueKey[];
  delete(key: string, expectedModRevision: number): Promise<unknown>;
}

/** The expiry of a write's TTL (ms since the epoch), or undefined when it has none. */
export function expiryOf(ttlSeconds: number | undefined, now = Date.now()): number | undefined {
  return ttlSeconds !== undefined && ttlSeconds > 0 ? now + ttlSeconds * 1000 : undefined;
}

export class ExpirySweeper {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<number> | undefined;

  constructor(private readonly backend: ExpiryBackend, intervalMs = expirySweepIntervalMs) {
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), intervalMs);
    this.timer.unref(); // expiry must never keep a process alive
  }

  /** Deletes the keys due now; resolves with how many it deleted. One sweep at a time. */
  sweep(now = Date.now()): Promise<number> {
    this.running ??= this.sweepOnce(now).finally(() => (this.running = undefined));
    return this.running;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sweepOnce(now: number): Promise<number> {
    const due = this.backend.due(now, sweepBatch);
    const results = await Promise.allSettled(due.map((d) => this.backend.delete(d.key, d.modRevision)));
    let deleted = 0;
    for (const r of results) {
      if (r.status === "fulfilled") deleted++;
      // Written again or deleted meanwhile: its new state decides. Closed: the store is going.
      else if (!(r.reason instanceof StorageError)) throw r.reason;
    }
    return deleted;
  }
}
