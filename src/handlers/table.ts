// Server-side Table (meta.k8s.io/v1 and v1beta1) for get, list and watch.
import { badRequest } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceRequest } from "./context.js";
import { goQuote } from "../apimachinery/go-quote.js";

export interface TableList {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

type IncludeObject = "None" | "Metadata" | "Object";

export function includeObjectPolicy(q: URLSearchParams): IncludeObject {
  const v = q.get("includeObject") ?? "Metadata";
  if (v !== "None" && v !== "Metadata" && v !== "Object") {
    throw badRequest(`includeObject: Unsupported value: ${goQuote(v)}: supported values: "Metadata", "None", "Object"`);
  }
  return v;
}

function partialMetadata(obj: KObject, version: string): Record<string, unknown> {
  return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function tableRow(r: ResourceRequest, version: string, obj: KObject, withColumns: boolean, now = new Date()): Record<string, unknown> {
  return toTable(r, version, [obj], undefined, now, withColumns);
}

export function toTable(r: ResourceRequest, version: string, items: KObject[], list: TableList | undefined, now = new Date(), withColumns = true): Record<string, unknown> {
  const printer = r.type.printer;
  const include = includeObjectPolicy(r.ex.query);
  const rows = items.map((obj) => {
    const row: Record<string, unknown> = { cells: printer.cells(obj, now) };
    if (include === "Object") row.object = obj;
    else if (include === "Metadata") row.object = partialMetadata(obj, version);
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (list) {
    metadata.resourceVersion = list.resourceVersion;
    if (list.continue) metadata.continue = list.continue;
    if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
  } else if (items[0]) {
    metadata.resourceVersion = items[0].metadata.resourceVersion;
  }
  const table: Record<string, unknown> = { kind: "Table", apiVersion: `meta.k8s.io/${version}`, metadata };
  // Watch events after the first carry no column definitions (as upstream).
  table.columnDefinitions = withColumns ? printer.columns : [];
  table.rows = rows;
  return table;
}
