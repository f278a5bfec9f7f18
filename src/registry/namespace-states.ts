// Namespace states for create admission (upstream NamespaceLifecycle reads an informer): taken
// from the namespace informer, so a namespaced create costs no storage read. A namespace the
// informer does not hold is read live through the store: it may be newer than the cache.
import { ApiError } from "../apimachinery/errors.js";
import type { ObjectInformer } from "./informer-factory.js";
import type { KObject } from "../apimachinery/object.js";

export type NamespaceState = "active" | "terminating" | "missing";

/** The namespace store's single-object read, as far as namespace states need it. */
export interface NamespaceReader {
  get(ns: string, name: string): Promise<KObject>;
}

export function namespaceStateOf(ns: KObject): NamespaceState {
  return ns.metadata.deletionTimestamp ? "terminating" : "active";
}

export class NamespaceStates {
  constructor(
    private readonly informer: ObjectInformer,
    private readonly store: NamespaceReader,
  ) {}

  async get(ns: string): Promise<NamespaceState> {
    const found = await this.lookup(ns);
    return found ? namespaceStateOf(found) : "missing";
  }

  /** A namespace's labels (admission namespace selectors); undefined when it does not exist. */
  async labels(ns: string): Promise<Record<string, string> | undefined> {
    const found = await this.lookup(ns);
    return found ? (found.metadata.labels ?? {}) : undefined;
  }

  private async lookup(ns: string): Promise<KObject | undefined> {
    const known = this.informer.get("", ns);
    if (known) return known;
    try {
      return await this.store.get("", ns);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }
}
