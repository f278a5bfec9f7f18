// How many watches a write will send events to (upstream: flowcontrol/watch_tracker.go): open
// watches counted by group, resource, namespace and name. Watches of pods narrowed to one node
// (fieldSelector spec.nodeName=...) are not counted: a write reaches few of them.
import { parseFieldSelector } from "../../apimachinery/fields.js";
import type { RequestInfo } from "../../http/request-info.js";

const readOnlyVerbs = new Set(["get", "list", "watch", "proxy"]);
const indexedFields: Record<string, string> = { pods: "spec.nodeName" };

const keyOf = (group: string, resource: string, namespace: string, name: string) => `${group}\u0000${resource}\u0000${namespace}\u0000${name}`;

export class WatchTracker {
  private readonly counts = new Map<string, number>();

  /** Counts a watch; the returned function forgets it (undefined: not a counted watch). */
  register(info: RequestInfo, fieldSelector: string | null): (() => void) | undefined {
    if (info.verb !== "watch") return undefined;
    const indexField = indexedFields[info.resource];
    if (indexField && indexedValue(fieldSelector, indexField)) return undefined;
    const key = keyOf(info.apiGroup, info.resource, info.namespace, info.name);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let forgotten = false;
    return () => {
      if (forgotten) return;
      forgotten = true;
      const n = (this.counts.get(key) ?? 1) - 1;
      if (n <= 0) this.counts.delete(key);
      else this.counts.set(key, n);
    };
  }

  /** The watches a write of this request reaches: of the whole resource, its namespace, the object. */
  interestedWatches(info: RequestInfo): number {
    if (readOnlyVerbs.has(info.verb) || this.counts.size === 0) return 0;
    let n = this.counts.get(keyOf(info.apiGroup, info.resource, "", "")) ?? 0;
    if (info.namespace) n += this.counts.get(keyOf(info.apiGroup, info.resource, info.namespace, "")) ?? 0;
    if (info.name) n += this.counts.get(keyOf(info.apiGroup, info.resource, info.namespace, info.name)) ?? 0;
    return n;
  }
}

function indexedValue(selector: string | null, field: string): string | undefined {
  if (!selector) return undefined;
  try {
    return parseFieldSelector(selector).requiresExactMatch(field) || undefined;
  } catch {
    return undefined;
  }
}
