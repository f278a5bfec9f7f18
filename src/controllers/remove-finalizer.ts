// Removing one finalizer from a stored object, the last step of every finalizing controller.
import { ApiError, notFound } from "../apimachinery/errors.js";
import { deepClone } from "../apimachinery/json-value.js";
import type { GenericStore } from "../registry/store.js";

/** Removes `finalizer` (re-read after a lost race); false when the object is gone. */
export async function removeFinalizer(store: GenericStore, ns: string, name: string, finalizer: string): Promise<boolean> {
  try {
    await store.update(ns, name, {
      subresource: "",
      createIfMissing: false,
      desired: (stored) => {
        if (!stored) throw notFound(store.type.gr, name);
        const next = deepClone(stored);
        next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
        return next;
      },
    }, { dryRun: false });
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return false;
    throw e;
  }
}
