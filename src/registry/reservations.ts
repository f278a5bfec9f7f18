// Reserve, then commit: types that take values from a shared pool (Service cluster IPs and node
// ports) choose them under a short per-type lock, against the stored objects plus the writes
// still in flight that reserved values. The lock is released before validating admission and the
// write, so a slow webhook never blocks other writes of the type; the reservation is released
// once the write is stored (the stored object then holds the values) or has failed. Other
// servers over the same storage have their own locks: the values are also claimed in storage
// (./claims.ts), undone when the write fails.
import type { KObject } from "../apimachinery/object.js";
import type { Storage } from "../storage/interface.js";
import { WriteClaims } from "./claims.js";
import type { ResourceType } from "./resource-type.js";
import type { StrategyContext } from "./strategy.js";
import type { FieldError } from "../apimachinery/validation.js";

export interface Reservation {
  errors: FieldError[];
  /** Drops the in-flight hold once the write was stored (the claims stay) or failed (they are undone). */
  release(stored: boolean): Promise<void>;
}

const nothingReserved: Reservation = { errors: [], release: async () => undefined };

export class Reservations {
  private readonly locks = new Map<string, Promise<void>>();
  private readonly inFlight = new Map<string, Set<KObject>>();

  constructor(
    private readonly storage: Storage,
    private readonly stored: (t: ResourceType) => Promise<KObject[]>,
  ) {}

  /** A dry run claims nothing: it only checks against what is held. */
  async reserve(t: ResourceType, obj: KObject, old: KObject | undefined, ctx: StrategyContext, dryRun = false): Promise<Reservation> {
    const allocate = t.strategy.allocate;
    if (!allocate) return nothingReserved;
    const held = this.heldFor(t.keyPrefix);
    const claims = dryRun ? undefined : new WriteClaims(this.storage);
    return this.locked(t.keyPrefix, async () => {
      let errors;
      try {
        errors = await allocate(obj, old, ctx, async () => [...(await this.stored(t)), ...held], claims);
      } catch (e) {
        await claims?.settle(false);
        throw e;
      }
      held.add(obj);
      return {
        errors,
        release: async (stored) => {
          held.delete(obj);
          await claims?.settle(stored && errors.length === 0);
        },
      };
    });
  }

  /** The values a removed object held go back to the pool. */
  async released(t: ResourceType, obj: KObject): Promise<void> {
    if (!t.strategy.released) return;
    const claims = new WriteClaims(this.storage);
    await t.strategy.released(obj, claims);
    await claims.settle(true);
  }

  private heldFor(prefix: string): Set<KObject> {
    let held = this.inFlight.get(prefix);
    if (!held) this.inFlight.set(prefix, (held = new Set()));
    return held;
  }

  private locked<T>(prefix: string, work: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(prefix) ?? Promise.resolve();
    const run = prev.then(work, work);
    this.locks.set(prefix, run.then(() => undefined, () => undefined));
    return run;
  }
}
