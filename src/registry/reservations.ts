// Reserve, then commit: types that take values from a shared pool (Service cluster IPs and node
// ports) choose them under a short per-type lock, against the stored objects plus the writes
// still in flight that reserved values. The lock is released before validating admission and the
// write, so a slow webhook never blocks other writes of the type; the reservation is released
// once the write is stored (the stored object then holds the values) or has failed.
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";
import type { StrategyContext } from "./strategy.js";
import type { FieldError } from "../apimachinery/validation.js";

export interface Reservation {
  errors: FieldError[];
  /** Drops the in-flight hold; call when the write was stored or failed. */
  release(): void;
}

const nothingReserved: Reservation = { errors: [], release() {} };

export class Reservations {
  private readonly locks = new Map<string, Promise<void>>();
  private readonly inFlight = new Map<string, Set<KObject>>();

  constructor(private readonly stored: (t: ResourceType) => Promise<KObject[]>) {}

  async reserve(t: ResourceType, obj: KObject, old: KObject | undefined, ctx: StrategyContext): Promise<Reservation> {
    const allocate = t.strategy.allocate;
    if (!allocate) return nothingReserved;
    const held = this.heldFor(t.keyPrefix);
    return this.locked(t.keyPrefix, async () => {
      const errors = await allocate(obj, old, ctx, async () => [...(await this.stored(t)), ...held]);
      held.add(obj);
      return { errors, release: () => held.delete(obj) };
    });
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
