// Watchers indexed by the namespace and name they are scoped to (as upstream indexes its
// watchers), so dispatching an event costs O(watchers that could match it): an event for
// ns/name looks at four buckets — exact ns+name, ns only, name only, and unscoped.
import type { CacheWatcher } from "./cache-watcher.js";

export class WatcherIndex<O> {
  private readonly buckets = new Map<string, Set<CacheWatcher<O>>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(w: CacheWatcher<O>): void {
    const k = bucketKey(w.pred.namespace, w.pred.name);
    let b = this.buckets.get(k);
    if (!b) this.buckets.set(k, (b = new Set()));
    b.add(w);
    this.count++;
    w.detach = () => {
      if (b!.delete(w)) this.count--;
      if (b!.size === 0 && this.buckets.get(k) === b) this.buckets.delete(k);
    };
  }

  /** Calls fn for each watcher whose scope admits an object in namespace ns named name. */
  forCandidates(ns: string, name: string, fn: (w: CacheWatcher<O>) => void): void {
    this.each(bucketKey("", ""), fn);
    if (ns) this.each(bucketKey(ns, ""), fn);
    this.each(bucketKey("", name), fn);
    if (ns) this.each(bucketKey(ns, name), fn);
  }

  all(fn: (w: CacheWatcher<O>) => void): void {
    for (const b of [...this.buckets.values()]) for (const w of [...b]) fn(w);
  }

  private each(k: string, fn: (w: CacheWatcher<O>) => void): void {
    const b = this.buckets.get(k);
    if (!b) return;
    // A watcher may detach itself while we iterate (slow-consumer termination); Set iteration
    // tolerates deletion of the current element.
    for (const w of b) fn(w);
  }
}

function bucketKey(ns: string, name: string): string {
  return `${ns}\u0000${name}`;
}
