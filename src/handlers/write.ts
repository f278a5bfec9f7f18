// POST (create) and PUT (update, also of the subresources that are views of the stored object:
// status, a namespace's finalize, ...; which ones is for their REST storages to say).
import type { ResourceRequest } from "./context.js";
import { readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { resolveFieldManager } from "./field-manager.js";
import { negotiateWrite, writeWritten } from "./output.js";
import { writeOptions } from "./write-options.js";
import { createAuthorization } from "./create-on-update.js";
import { retriedWithoutManagedFields } from "./too-large-retry.js";

export async function handleCreate(r: ResourceRequest): Promise<void> {
  const refused = r.type.createRefused?.();
  if (refused) throw refused;
  const n = negotiateWrite(r);
  const dryRun = parseDryRun(r.ex.query, "CreateOptions");
  const fieldManager = resolveFieldManager(r, "CreateOptions");
  const body = await readObject(r);
  const written = await retriedWithoutManagedFields(writeOptions(r, { dryRun, fieldManager }), (opts) => r.store.create(r.info.namespace, body, opts));
  writeWritten(r, n, written, 201);
}

export async function handleUpdate(r: ResourceRequest): Promise<void> {
  const sub = r.info.subresource;
  const n = negotiateWrite(r);
  const dryRun = parseDryRun(r.ex.query, "UpdateOptions");
  const fieldManager = resolveFieldManager(r, "UpdateOptions");
  const body = await readObject(r);
  const spec = { subresource: sub, createIfMissing: r.type.strategy.allowCreateOnUpdate, desired: () => body, authorizeCreate: createAuthorization(r) };
  const result = await retriedWithoutManagedFields(writeOptions(r, { dryRun, fieldManager }), (opts) => r.store.update(r.info.namespace, r.info.name, spec, opts));
  writeWritten(r, n, result);
}
