// Writing objects and lists in the form the client negotiated: as-is, or as a Table.
import { negotiateOutput, type Negotiated } from "../encoding/negotiate.js";
import type { KObject } from "../registry/object.js";
import { writeBytes, writeObject } from "../server/respond.js";
import { writtenJsonOf } from "../registry/codec.js";
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

export function writeOne(r: ResourceRequest, n: Negotiated, status: number, obj: KObject, warnings: string[] = r.warnings): void {
  const written = !n.target && !r.pretty && n.codec.mediaType === "application/json" ? writtenJsonOf(obj) : undefined;
  if (written !== undefined) {
    writeBytes(r.ex, status, Buffer.from(written + "\n"), "application/json", { warnings });
    return;
  }
  if (n.target?.as === "Table") {
    writeResult(r, n, status, toTable(r, n.target.version, [obj], undefined), warnings);
    return;
  }
  writeResult(r, n, status, obj, warnings);
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
