// DELETE one object and DELETE a collection, with DeleteOptions from the body or the query.
import { badRequest } from "../apimachinery/errors.js";
import { listObjects } from "../registry/list.js";
import { parseListOptions, validateListOptions } from "../registry/list-options.js";
import type { DeleteOptions } from "../registry/store.js";
import type { ResourceRequest } from "./context.js";
import { maxBodyBytes } from "./body.js";
import { parseDryRun } from "./options.js";
import { negotiateWrite, writeResult } from "./output.js";
import { DecodeError } from "../encoding/decode-error.js";
import { negotiateInput } from "../encoding/negotiate.js";
import { isPlainObject } from "../registry/object.js";

async function deleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const q = r.ex.query;
  const raw = await r.ex.body(maxBodyBytes);
  let body: Record<string, any> = {};
  if (raw.length > 0) {
    const codec = negotiateInput(r.ex.headers["content-type"] as string | undefined, r.parts.codecs);
    try {
      const decoded = codec.decode(raw);
      if (decoded !== null && !isPlainObject(decoded)) throw new DecodeError("DeleteOptions must be an object");
      body = (decoded as Record<string, any>) ?? {};
    } catch (e) {
      if (e instanceof DecodeError) throw badRequest(`error decoding request body: ${e.message}`);
      throw e;
    }
  }
  const dryRun = parseDryRun(q, "DeleteOptions") || (Array.isArray(body.dryRun) && body.dryRun.includes("All"));
  const grace = q.get("gracePeriodSeconds") ?? body.gracePeriodSeconds;
  return {
    dryRun,
    preconditions: body.preconditions ?? undefined,
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
    propagationPolicy: q.get("propagationPolicy") ?? body.propagationPolicy ?? undefined,
  };
}

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const n = negotiateWrite(r);
  const opts = await deleteOptions(r);
  const { obj, deleted } = await r.parts.store.delete(r.type, r.info.namespace, r.info.name, opts);
  if (!deleted || r.type.strategy.returnDeletedObject) {
    writeResult(r, n, 200, obj);
    return;
  }
  writeResult(r, n, 200, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { name: obj.metadata.name, group: r.type.group || undefined, kind: r.type.resource, uid: obj.metadata.uid },
  });
}

export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const n = negotiateWrite(r);
  const opts = await deleteOptions(r);
  const listOpts = parseListOptions(r.ex.query);
  validateListOptions(listOpts, false);
  const list = await listObjects(r.parts.store, r.type, r.info.namespace, listOpts);
  const results = [];
  for (const item of list.items) {
    try {
      const { obj } = await r.parts.store.delete(r.type, item.metadata.namespace ?? "", item.metadata.name!, opts);
      results.push(obj);
    } catch (e) {
      if (!(e instanceof Error && "code" in e && (e as any).code === 404)) throw e;
    }
  }
  writeResult(r, n, 200, { kind: r.type.listKind, apiVersion: r.type.apiVersion, metadata: { resourceVersion: list.resourceVersion }, items: results });
}
