// The call journal: what every request asked and was answered, kept for a test to read
// (`find`), dump (`toJSON`) or wait for (`waitFor`). Bounded: past `capacity` the oldest entries
// go, and a watch keeps at most `eventCapacity` of its events, so a long test cannot grow memory
// without bound.
import type { WatchEventNote } from "../http/watch-tap.js";
import { describeValue, HarnessInputError } from "./input-error.js";
import { matches, parseMatch, requestMatchKeys, type MatchKeys, type OneOrMore, type RequestFacts } from "./request-matcher.js";

export interface JournalEntry extends RequestFacts {
  /** Counts every entry recorded by this journal, from 1; clear() does not restart it. */
  seq: number;
  /** When the request arrived (ISO 8601). */
  time: string;
  method: string;
  path: string;
  apiVersion: string;
  /** The HTTP status answered (a watch: the status its stream opened with; 0: no answer sent). */
  code: number;
  /** Arrival to answer in ms (a watch: to the opening of its stream). */
  durationMs: number;
  dryRun: boolean;
  /** A PATCH's media type (application/merge-patch+json, ...), "" otherwise. */
  patchType: string;
  /** The fault injected into this request, if any. */
  fault?: unknown;
  /** A watch's events, in the order sent (the stream keeps adding while open). */
  events?: WatchEventNote[];
  /** Events not kept past eventCapacity. */
  eventsDropped?: number;
}

export type JournalMatch = { [K in keyof RequestFacts | "method" | "path" | "apiVersion" | "patchType"]?: OneOrMore<string> } & {
  code?: OneOrMore<number>;
  dryRun?: boolean;
};

export const journalMatchKeys: MatchKeys = { ...requestMatchKeys, method: "string", path: "string", apiVersion: "string", patchType: "string", code: "number", dryRun: "boolean" };

export type JournalPredicate = (e: JournalEntry) => boolean;

export interface JournalOptions {
  /** Entries kept (default 10,000); older ones are dropped first. */
  capacity?: number;
  /** Events kept per watch entry (default 1,000). */
  eventCapacity?: number;
}

export interface WaitOptions {
  /** ms (default 10,000). */
  timeout?: number;
}

interface Waiter {
  test: JournalPredicate;
  resolve: (e: JournalEntry) => void;
}

export class Journal {
  readonly capacity: number;
  readonly eventCapacity: number;
  private ring: JournalEntry[] = [];
  /** Where the oldest entry is once the ring is full. */
  private oldest = 0;
  private seq = 0;
  private evicted = 0;
  private readonly waiters = new Set<Waiter>();

  constructor(o: JournalOptions = {}) {
    this.capacity = positiveInteger(o.capacity ?? 10_000, "journal capacity");
    this.eventCapacity = positiveInteger(o.eventCapacity ?? 1_000, "journal eventCapacity");
  }

  /** Adds an entry (its `seq` is assigned here) and wakes the waiters it satisfies. */
  record(entry: Omit<JournalEntry, "seq">): JournalEntry {
    const e = entry as JournalEntry;
    e.seq = ++this.seq;
    if (this.ring.length < this.capacity) this.ring.push(e);
    else {
      this.ring[this.oldest] = e;
      this.oldest = (this.oldest + 1) % this.capacity;
      this.evicted++;
    }
    if (this.waiters.size > 0) this.changed(e);
    return e;
  }

  /** An entry already recorded changed (a watch sent another event): waiters look again. */
  changed(e: JournalEntry): void {
    for (const w of this.waiters) if (w.test(e)) w.resolve(e);
  }

  /** Every entry kept, oldest first. */
  entries(): JournalEntry[] {
    return [...this.ring.slice(this.oldest), ...this.ring.slice(0, this.oldest)];
  }

  /** The entries matching a matcher (`{ verb: "update", resource: "deployments" }`) or a predicate, oldest first. */
  find(query: JournalMatch | JournalPredicate = {}): JournalEntry[] {
    return this.entries().filter(predicateOf(query));
  }

  /** Entries dropped because the journal was full, since it was made or cleared. */
  get dropped(): number {
    return this.evicted;
  }

  clear(): void {
    this.ring = [];
    this.oldest = 0;
    this.evicted = 0;
  }

  toJSON(): JournalEntry[] {
    return this.entries();
  }

  /**
   * The first entry, already recorded or still to come, that matches; rejects after `timeout` ms
   * naming what it waited for. Woken by each record, never by polling.
   */
  waitFor(query: JournalMatch | JournalPredicate, o: WaitOptions = {}): Promise<JournalEntry> {
    const test = predicateOf(query);
    const timeout = o.timeout ?? 10_000;
    if (!(Number.isFinite(timeout) && timeout >= 0)) return Promise.reject(new HarnessInputError(`waitFor: timeout must be a number of ms ≥ 0, got ${describeValue(o.timeout)}`));
    const found = this.entries().find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        test,
        resolve: (e) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const what = typeof query === "function" ? "the predicate" : JSON.stringify(query);
        reject(new Error(`waitFor: no journal entry matched ${what} within ${timeout} ms (${this.seq} requests recorded)`));
      }, timeout);
      this.waiters.add(waiter);
    });
  }
}

function predicateOf(query: JournalMatch | JournalPredicate): JournalPredicate {
  if (typeof query === "function") return query;
  const m = parseMatch<JournalMatch>(query, journalMatchKeys);
  return (e) => matches(m, e);
}

function positiveInteger(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new HarnessInputError(`${what} must be a whole number ≥ 1, got ${describeValue(n)}`);
  return n;
}
