// Writing objects and lists in the form the client negotiated: as-is, or as a Table.
import { negotiateOutput, type Negotiated } from "../encoding/negotiate.js";
import type { KObject } from "../apimachinery/object.js";
import { writeBytes, writeObject } from "../http/respond.js";
import type { WriteResult } from "../registry/store.js";
import { toTable, type TableList } from "./table.js";
import type { ResourceRequest } from "./context.js";
import { codecsFor } from "./codecs.js";

const readTransforms = new Set(["Table"] as const);

export function negotiateRead(r: ResourceRequest): Negotiated {
  return negotiateOutput(r.ex.headers["accept"] as string | undefined, codecsFor(r), readTransforms);
}

export function negotiateWrite(r: ResourceRequest): Negotiated {
  return negotiateOutput(r.ex.headers["accept"] as string | undefined, codecsFor(r));
}

export function writeResult(r: ResourceRequest, n: Negotiated, status: number, obj: unknown, warnings: string[] = r.warnings): void {
  writeObject(r.ex, status, obj, n.codec, { pretty: r.pretty, warnings });
}

/** One object; `json` is its served JSON when the caller already has it (stored bytes). */
export function writeOne(r: ResourceRequest, n: Negotiated, status: number, obj: KObject, json?: string): void {
  if (json !== undefined && !n.target && !r.pretty && n.codec.mediaType === "application/json") {
    writeBytes(r.ex, status, Buffer.from(json + "\n"), "application/json", { warnings: r.warnings });
    return;
  }
  if (n.target?.as === "Table") {
    writeResult(r, n, status, toTable(r, n.target.version, [obj], undefined));
    return;
  }
  writeResult(r, n, status, obj);
}

/** The outcome of a write: 201 when it created the object, else `status`. */
export function writeWritten(r: ResourceRequest, n: Negotiated, result: WriteResult, status = 200): void {
  writeOne(r, n, result.created ? 201 : status, result.object, result.json);
}

export function writeList(r: ResourceRequest, n: Negotiated, list: TableList): void {
  if (n.target?.as === "Table") {
    writeResult(r, n, 200, toTable(r, n.target.version, list.items, list));
    return;
  }
  const metadata: Record<string, unknown> = { resourceVersion: list.resourceVersion };
  if (list.continue) metadata.continue = list.continue;
  if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
  writeResult(r, n, 200, { kind: r.type.listKind, apiVersion: r.type.apiVersion, metadata, items: list.items.map(withoutTypeMeta) });
}

/** A typed list's items carry no kind/apiVersion (upstream encodes them with empty TypeMeta). */
export function withoutTypeMeta(obj: KObject): KObject {
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return rest as KObject;
}
