// Revision checks and the time→revision map that every backend needs for reads at a revision
// and for periodic compaction of history older than the window.
import { StorageError } from "../interface.js";

export const DEFAULT_HISTORY_WINDOW_MS = 5 * 60 * 1000;

/**
 * Resolve the revision a read should use: 0/undefined means current. Throws FutureRevision or
 * Compacted (with the compacted revision attached) for revisions outside what the store holds.
 */
export function resolveReadRevision(
  requested: number | undefined,
  current: number,
  compacted: number,
  key: string,
): number {
  if (!requested) return current;
  if (requested > current) {
    throw new StorageError("FutureRevision", key, `revision ${requested} is newer than current ${current}`);
  }
  if (requested < compacted) throw compactedError(key, requested, compacted);
  return requested;
}

/** A watch delivering events after `afterRevision` needs history from afterRevision+1 on. */
export function checkWatchRevision(afterRevision: number, compacted: number, prefix: string): void {
  if (afterRevision + 1 < compacted) throw compactedError(prefix, afterRevision, compacted);
}

export function compactedError(key: string, requested: number, compacted: number): StorageError {
  return new StorageError(
    "Compacted",
    key,
    `revision ${requested} has been compacted (oldest readable ${compacted})`,
    undefined,
    compacted,
  );
}

/**
 * Remembers which revision was current at which time, so the compactor can find "the revision
 * that was current one window ago". Samples in the same `resolutionMs` bucket are merged into one
 * entry stamped with the later time; an entry therefore never claims a revision was current before
 * it was committed, so compaction can only keep slightly more history than the window, never less.
 */
export class RevisionClock {
  private times: number[] = [];
  private revs: number[] = [];
  private head = 0; // entries before head are older than one already returned; dropped lazily

  constructor(private readonly resolutionMs = 50) {}

  record(revision: number, now = Date.now()): void {
    const last = this.times.length - 1;
    const sameBucket =
      last >= this.head &&
      Math.floor(now / this.resolutionMs) === Math.floor(this.times[last]! / this.resolutionMs);
    if (sameBucket) {
      this.revs[last] = revision;
      this.times[last] = now;
    } else {
      this.times.push(now);
      this.revs.push(revision);
    }
  }

  /** The newest recorded revision that was current at or before `time`, or undefined. */
  revisionAt(time: number): number | undefined {
    if (this.head >= this.times.length || this.times[this.head]! > time) return undefined;
    while (this.head + 1 < this.times.length && this.times[this.head + 1]! <= time) this.head++;
    const found = this.revs[this.head];
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.revs = this.revs.slice(this.head);
      this.head = 0;
    }
    return found;
  }
}

/** How often to look for history to compact: often enough that the window is honoured closely. */
export function compactionInterval(windowMs: number): number {
  return Math.min(60_000, Math.max(10, Math.floor(windowMs / 4)));
}
