// What a request's audit event records of its body, at the point upstream's handlers record it
// (audit.LogRequestObject, LogRequestPatch): a create's or update's object as decoded — pruned,
// defaulted (upstream's decoder applies the type's defaults), kind and apiVersion first as its
// encoder writes them — before admission or the type's preparation touch it; a patch's bytes as
// sent (compacted, as Go embeds raw JSON); DeleteOptions as upstream's meta codec encodes the
// decoded options. Only the metadata is read below Request level: nothing is copied then.
import { deepClone, isPlainObject } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceRequest } from "./context.js";

/** A create's or update's decoded body of kind `expected` (the request's type or a subresource's kind). */
export function auditRequestObject(r: ResourceRequest, body: Record<string, unknown>, expected: { apiVersion: string; kind: string }): void {
  const audit = r.ctx.audit;
  if (!audit) return;
  if (!audit.wantsRequestBody) return audit.requestObject(body);
  const { kind: _k, apiVersion: _a, ...rest } = deepClone(body);
  const obj = { kind: expected.kind, apiVersion: expected.apiVersion, ...rest } as KObject;
  // The request type's defaults, as its decoder applies them (a subresource's kind has none here).
  if (expected.kind === r.type.kind && expected.apiVersion === r.type.apiVersion && isPlainObject(obj.metadata ?? {})) {
    try {
      r.type.strategy.default(obj);
    } catch {
      // A body the store refuses: recorded as decoded.
    }
  }
  audit.requestObject(obj);
}

/** A patch: its bytes when they are JSON (every patch type but a YAML apply or CBOR body), else what they decoded to. */
export function auditRequestPatch(r: ResourceRequest, raw: Buffer, decoded: unknown): void {
  const audit = r.ctx.audit;
  if (!audit?.wantsRequestBody) return;
  const text = raw.toString("utf8");
  audit.requestPatch(isJSON(text) ? { json: compactJSON(text) } : { object: decoded });
}

/** The DeleteOptions of a body: upstream decodes them to the unversioned meta type, whose encoding names meta.k8s.io/__internal, fields in the struct's order. */
export function auditDeleteOptions(r: ResourceRequest, body: Record<string, unknown>): void {
  const audit = r.ctx.audit;
  if (!audit) return;
  const out: Record<string, unknown> = { kind: "DeleteOptions", apiVersion: "meta.k8s.io/__internal" };
  for (const f of ["gracePeriodSeconds", "preconditions", "orphanDependents", "propagationPolicy", "dryRun", "ignoreStoreReadErrorWithClusterBreakingPotential"]) {
    const v = body[f];
    if (v === undefined || v === null || (f === "dryRun" && Array.isArray(v) && v.length === 0)) continue;
    if (f === "preconditions" && isPlainObject(v)) {
      const p: Record<string, unknown> = {};
      if (typeof v.uid === "string") p.uid = v.uid;
      if (typeof v.resourceVersion === "string") p.resourceVersion = v.resourceVersion;
      out[f] = p;
    } else out[f] = v;
  }
  audit.requestObject(out);
}

function isJSON(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON text without the whitespace between tokens (Go's json.Compact): strings, numbers and key order as sent. */
export function compactJSON(text: string): string {
  let out = "";
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      out += text.slice(start, i);
      start = i + 1;
    }
  }
  return out + text.slice(start);
}
