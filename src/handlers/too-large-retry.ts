// kube-apiserver's create, update and patch handlers try a write once more without managedFields
// when storage refused it as too large (etcd's "request is too large", or its client's message
// size limit): managedFields can be most of an object's size and are safe to lose, the object is
// not. Server-side apply is not retried (upstream leaves apply patches out: the entries are what
// an apply is about). A write too large on its own fails the second time with storage's error.
import type { WriteOptions, WriteResult } from "../registry/store.js";
import { StorageError } from "../storage/interface.js";

export async function retriedWithoutManagedFields<O extends WriteOptions>(opts: O, write: (opts: O) => Promise<WriteResult>): Promise<WriteResult> {
  try {
    return await write(opts);
  } catch (e) {
    if (!(e instanceof StorageError && e.code === "TooLarge")) throw e;
    return write({ ...opts, withoutManagedFields: true });
  }
}
