// The storages served by the generic verb handlers over the generic store: a stored type's own
// verbs, and the subresources that are views of the stored object (what a write through one may
// change is the type's to say: ResourceType.subresourceWrites).
import { handleDelete, handleDeleteCollection } from "../delete.js";
import { handlePatch } from "../patch.js";
import { handleGet, handleList } from "../read.js";
import { handleWatch } from "../watch.js";
import { handleCreate, handleUpdate } from "../write.js";
import type { Getter, Patcher, RestStorage, Updater } from "./capabilities.js";

/** Every verb of a stored type (the type's declared verbs say which ones it serves). */
export const resourceStorage: RestStorage = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deleteCollection: handleDeleteCollection,
};

/** /status, and views like it (a CSR's approval, a pod's ephemeral containers): read, replaced, patched. */
export const objectViewStorage: Getter & Updater & Patcher = {
  get: handleGet,
  update: handleUpdate,
  patch: handlePatch,
};

/** A namespace's /finalize: replaced only (upstream's FinalizeREST has no Get and no Patch). */
export const replaceOnlyStorage: Updater = {
  update: handleUpdate,
};
