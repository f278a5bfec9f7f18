// POST (create) and PUT (update, also of /status).
import { methodNotSupported } from "../apimachinery/errors.js";
import type { ResourceRequest } from "./context.js";
import { readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { resolveFieldManager } from "./field-manager.js";
import { negotiateWrite, writeOne } from "./output.js";
import { withApiErrors } from "./errors.js";

export const handleCreate = withApiErrors(async (r: ResourceRequest): Promise<void> => {
  const n = negotiateWrite(r);
  const dryRun = parseDryRun(r.ex.query, "CreateOptions");
  const fieldManager = resolveFieldManager(r, "CreateOptions");
  const body = await readObject(r);
  const obj = await r.parts.store.create(r.type, r.info.namespace, body, { dryRun, fieldManager });
  writeOne(r, n, 201, obj);
});

export const handleUpdate = withApiErrors(async (r: ResourceRequest): Promise<void> => {
  const sub = r.info.subresource;
  const finalize = sub === "finalize" && r.type.group === "" && r.type.resource === "namespaces";
  if (sub && sub !== "status" && !finalize) throw methodNotSupported(r.type.gr, "update");
  const n = negotiateWrite(r);
  const dryRun = parseDryRun(r.ex.query, "UpdateOptions");
  const fieldManager = resolveFieldManager(r, "UpdateOptions");
  const body = await readObject(r);
  const { obj, created } = await r.parts.store.update(r.type, r.info.namespace, r.info.name, body, sub, { dryRun, fieldManager });
  writeOne(r, n, created ? 201 : 200, obj);
});
