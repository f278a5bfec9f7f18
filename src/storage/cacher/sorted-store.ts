// The cache's current state: entries sorted by key (storage byte order) plus a key index.
// A sorted array keeps prefix ranges and continue positions to a binary search, and makes a
// point-in-time snapshot a shared reference: the array is copied on the next write only
// (copy-on-write), so a paged list costs nothing while no write happens in between.
import { compareKeys, prefixEnd } from "../common/keys.js";
import type { Entry } from "./types.js";

export class SortedStore<O> {
  private entries: Entry<O>[] = [];
  private readonly byKey = new Map<string, Entry<O>>();
  /** True while `entries` is referenced by a snapshot and must not be mutated in place. */
  private shared = false;

  get size(): number {
    return this.entries.length;
  }

  get(key: string): Entry<O> | undefined {
    return this.byKey.get(key);
  }

  put(e: Entry<O>): Entry<O> | undefined {
    const prev = this.byKey.get(e.key);
    this.byKey.set(e.key, e);
    const arr = this.writable();
    const i = lowerBound(arr, e.key);
    if (prev) arr[i] = e;
    else arr.splice(i, 0, e);
    return prev;
  }

  delete(key: string): Entry<O> | undefined {
    const prev = this.byKey.get(key);
    if (!prev) return undefined;
    this.byKey.delete(key);
    const arr = this.writable();
    arr.splice(lowerBound(arr, key), 1);
    return prev;
  }

  /** How many entries have a key starting with `prefix`. */
  countPrefix(prefix: string): number {
    const [from, to] = this.prefixBounds(prefix);
    return to - from;
  }

  /** A copy of the entries whose key starts with `prefix`, sorted. Unlike snapshot(), the next write copies nothing. */
  copyPrefix(prefix: string): Entry<O>[] {
    const [from, to] = this.prefixBounds(prefix);
    return this.entries.slice(from, to);
  }

  private prefixBounds(prefix: string): [number, number] {
    const endKey = prefixEnd(prefix);
    return [lowerBound(this.entries, prefix), endKey === undefined ? this.entries.length : lowerBound(this.entries, endKey)];
  }

  /** The current entries, sorted; valid until the caller drops it (never mutated afterwards). */
  snapshot(): readonly Entry<O>[] {
    this.shared = true;
    return this.entries;
  }

  private writable(): Entry<O>[] {
    if (this.shared) {
      this.entries = this.entries.slice();
      this.shared = false;
    }
    return this.entries;
  }
}

/** Index of the first entry whose key is >= key. */
export function lowerBound<O>(arr: readonly Entry<O>[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(arr[mid]!.key, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first entry whose key is > key. */
export function upperBound<O>(arr: readonly Entry<O>[], key: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(arr[mid]!.key, key) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
