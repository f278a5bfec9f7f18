// GET one object, LIST a collection.
import { listObjects } from "../registry/list.js";
import { parseListOptions, validateListOptions } from "../registry/list-options.js";
import type { ResourceRequest } from "./context.js";
import { negotiateRead, writeList, writeOne } from "./output.js";

export async function handleGet(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const obj = await r.parts.store.get(r.type, r.info.namespace, r.info.name, r.ex.query.get("resourceVersion"));
  writeOne(r, n, 200, obj);
}

export async function handleList(r: ResourceRequest): Promise<void> {
  const n = negotiateRead(r);
  const opts = parseListOptions(r.ex.query);
  validateListOptions(opts, r.parts.gates.enabled("WatchList"));
  const list = await listObjects(r.parts.store, r.type, r.info.namespace, opts);
  writeList(r, n, list);
}
