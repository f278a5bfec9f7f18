// Progress of a watch on an etcd that answers progress requests out of order (before 3.4.31 and
// 3.5.13, etcd#15220): such an etcd answers with its current revision at once, through a channel
// that overtakes the events it has not sent yet — all of them while a new watch is still catching
// up with history — so its answer says nothing about what the watch has delivered. Taken as it
// is, a watch cache would claim revisions whose events are still to come and lose them.
//
// Instead the claim is checked against etcd's state under the watched range: read the current
// revision R and the number of keys at R; the watch has delivered everything up to R once, from
// the revision D it has delivered, (1) no key at R was written after D, and (2) as many keys exist
// at R as at D (a delete lowers the count, unless a later put raises it again, which (1) sees).
// Only a key both created and deleted after D escapes both checks; its events then arrive after
// the claim, and the watch ends rather than pass them on late (EtcdWatch.receive).

import { StorageError } from "../interface.js";
import type { RawRangeResponse } from "./client.js";

/** Where a watch stands, as the check reads it. */
export interface WatchPosition {
  /** The newest revision whose events have all been delivered. */
  delivered(): number;
  /** The keys under the range at delivered() (undefined until known). */
  liveKeys(): number | undefined;
  /** Resolves at the next delivered event, or after `ms`. */
  settle(ms: number): Promise<void>;
  /** Throws once the watch has ended. */
  checkLive(): void;
}

/** Counts the keys under the watched range at `revision` (0: current) written at or after `minModRevision`. */
export type RangeCount = (o: { revision?: number; minModRevision?: number }) => Promise<{ count: number; revision: number }>;

const recheckMs = 50;

/** A RangeCount over `range`, reading through `read` (a Range call). */
export function rangeCount(range: { key: Buffer; range_end: Buffer }, read: (req: object) => Promise<RawRangeResponse>): RangeCount {
  return async ({ revision = 0, minModRevision = 0 }) => {
    // etcd applies min_mod_revision to the keys it returns, not to count_only's count.
    const filter = minModRevision ? { keys_only: true, min_mod_revision: minModRevision } : { count_only: true };
    const r = await read({ ...range, revision, ...filter });
    return { count: minModRevision ? r.kvs.length : r.count, revision: r.header.revision };
  };
}

/**
 * A revision up to which the watch has delivered every event (at least etcd's current revision
 * when called). `currentRevision` reads etcd's revision cheaply: a watch that has delivered it
 * (the usual case for a quiet range) needs no count, which walks the range.
 */
export async function checkedProgress(pos: WatchPosition, count: RangeCount, currentRevision: () => Promise<number>): Promise<number> {
  const revision = await currentRevision();
  pos.checkLive();
  if (pos.delivered() >= revision) return pos.delivered();
  let now = await count({});
  for (;;) {
    pos.checkLive();
    const from = pos.delivered();
    if (from >= now.revision) return from;
    try {
      const live = pos.liveKeys() ?? (await count({ revision: from })).count;
      if (live === now.count) {
        const written = await count({ revision: now.revision, minModRevision: from + 1 });
        // Events delivered during the reads moved the position: check again from there.
        if (written.count === 0 && pos.delivered() === from) return now.revision;
        if (pos.delivered() !== from) continue;
      }
    } catch (e) {
      // Compaction passed the revisions being compared: compare again from the current one
      // (`from` stays unreadable until the next event moves it).
      if (!(e instanceof StorageError && e.code === "Compacted")) throw e;
      now = await count({});
    }
    await pos.settle(recheckMs);
  }
}

/**
 * Runs `round` for callers in rounds: a caller joins the round that starts after its call (one
 * already under way read its revision before the call, so it cannot answer it), and every caller
 * waiting for the next round shares it.
 */
export class Rounds<T> {
  private current: Promise<T> | undefined;
  private next: Promise<T> | undefined;

  constructor(private readonly round: () => Promise<T>) {}

  run(): Promise<T> {
    if (!this.current) return this.start();
    this.next ??= this.current.then(
      () => this.afterCurrent(),
      () => this.afterCurrent(),
    );
    return this.next;
  }

  private afterCurrent(): Promise<T> {
    this.next = undefined;
    return this.start();
  }

  private start(): Promise<T> {
    const p = this.round();
    this.current = p;
    const clear = () => {
      if (this.current === p) this.current = undefined;
    };
    p.then(clear, clear);
    return p;
  }
}
