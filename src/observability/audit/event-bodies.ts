// Request and response bodies as an audit event embeds them: JSON text (Go's escaping), managed
// fields dropped when the policy says so (from the object, each list item, each Table row's
// object), and the bounded Status fields of an error or delete response.
import { goEscapeJSON } from "./event-record.js";
import type { ResponseStatus } from "./types.js";

/**
 * The response as its writer had it: an object, or JSON bytes — in pieces made on demand when it
 * was written in pieces (a list from the cache, streamed: the pieces are made again only when the
 * body is logged).
 */
export type ResponseBody = { object: unknown } | { json: Buffer | string | readonly Buffer[] | (() => Iterable<Buffer>) };

type Obj = Record<string, unknown>;

export function encodeBody(body: ResponseBody, omitManagedFields: boolean): string {
  if ("object" in body) return goEscapeJSON(JSON.stringify(omitManagedFields ? withoutManagedFields(body.object) : body.object) ?? "null");
  const j = body.json;
  const text = (typeof j === "string" || Buffer.isBuffer(j) ? String(j) : Buffer.concat(typeof j === "function" ? [...j()] : j).toString()).trimEnd();
  if (!omitManagedFields) return goEscapeJSON(text);
  return goEscapeJSON(JSON.stringify(withoutManagedFields(JSON.parse(text) as unknown)));
}

/** The Status fields upstream keeps of a metav1.Status response (absent when the body is not one). */
export function statusOf(body: ResponseBody): ResponseStatus | undefined {
  if (!("object" in body)) return undefined;
  const o = body.object as Obj | null;
  if (!o || typeof o !== "object" || o.kind !== "Status") return undefined;
  const st: ResponseStatus = { metadata: {}, code: typeof o.code === "number" ? o.code : 0 };
  if (typeof o.status === "string") st.status = o.status;
  if (typeof o.message === "string") st.message = o.message;
  if (typeof o.reason === "string") st.reason = o.reason;
  if (o.details !== undefined) st.details = o.details;
  return st;
}

/** A copy without metadata.managedFields; lists and Tables lose their items' and rows' (upstream's copyWithoutManagedFields). */
export function withoutManagedFields(v: unknown): unknown {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  let o = v as Obj;
  if (isObj(o.metadata) && "managedFields" in o.metadata) {
    const { managedFields: _drop, ...metadata } = o.metadata;
    o = { ...o, metadata };
  }
  if (Array.isArray(o.items)) o = { ...o, items: o.items.map(withoutManagedFields) };
  if (o.kind === "Table" && Array.isArray(o.rows)) o = { ...o, rows: (o.rows as unknown[]).map((r) => (isObj(r) && isObj(r.object) ? { ...r, object: withoutManagedFields(r.object) } : r)) };
  return o;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
