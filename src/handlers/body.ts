// Reading and decoding a write request's body into an object of the request's type.
import { badRequest } from "../apimachinery/errors.js";
import { negotiateInput } from "../encoding/negotiate.js";
import type { Codec } from "../encoding/codec.js";
import { duplicateJsonKeys, JsonSyntaxError } from "../encoding/json.js";
import { duplicateYamlKeys } from "../encoding/yaml-lazy.js";
import { decodeAgainstSchema, decodeTarget, fieldValidationOutcome, parseFieldValidation, typeMismatchError } from "../registry/field-validation.js";
import { isPlainObject } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceRequest } from "./context.js";
import { codecsFor } from "./codecs.js";
import { auditRequestObject } from "./audit-request.js";
import type { RequestBodyVerb } from "../observability/request-path-metrics.js";

/** Upstream's request body limit (3 MiB). */
export const maxBodyBytes = 3 * 1024 * 1024;

/** A write handler's body, up to the limit; its size is counted once read in full (apiserver_request_body_size_bytes). */
export async function readBody(r: ResourceRequest, verb: RequestBodyVerb): Promise<Buffer> {
  const raw = await r.ex.body(maxBodyBytes);
  r.parts.requestPathMetrics?.bodyRead(r.type, verb, raw.length);
  return raw;
}

/**
 * Reads the body as an object of the expected type, applying field validation: undeclared
 * fields are dropped, and reported (Warn, into r.warnings) or refused (Strict) with duplicates.
 */
export async function readObject(r: ResourceRequest, accepts: { apiVersion: string; kind: string } | readonly { apiVersion: string; kind: string }[] = r.type): Promise<KObject> {
  const codec = negotiateInput(header(r, "content-type"), codecsFor(r));
  const mode = parseFieldValidation(r.ex.query, r.ex.method === "PUT" ? "UpdateOptions" : "CreateOptions");
  const raw = await readBody(r, r.ex.method === "PUT" ? "update" : "create");
  // Several accepted versions (an Eviction in policy/v1 or v1beta1): the body's own, else the first.
  const list = Array.isArray(accepts) ? accepts : [accepts as { apiVersion: string; kind: string }];
  const body = decodeBody(codec, raw, list[0].kind);
  const expected = list.find((e) => isPlainObject(body) && body.apiVersion === e.apiVersion) ?? list[0];
  if (!isPlainObject(body)) throw badRequest(`the body of the request could not be decoded into a ${expected.kind} object`);
  checkTypeMeta(body, expected);
  // Protobuf bodies cannot carry unknown or duplicate fields.
  const duplicates = mode === "Ignore" ? [] : duplicateKeys(codec.mediaType, raw, body);
  const { unknown, mismatch, unstructured } = decodeAgainstSchema(body, decodeTarget(r.type.schema, expected));
  if (mismatch) throw typeMismatchError(versionedKind(expected), mismatch);
  r.warnings.push(...fieldValidationOutcome(mode, versionedKind(expected), unknown, duplicates, unstructured));
  auditRequestObject(r, body, expected);
  return body as KObject;
}

/**
 * The body decoded; a JSON text Go's scanner refuses is answered as upstream's create and update
 * handlers answer it (transformDecodeError): the type's kind, the scanner's words as the JSON
 * serializer's kind lookup wraps them, and the start of the body.
 */
function decodeBody(codec: Codec, raw: Buffer, kind: string): unknown {
  try {
    return codec.decode(raw);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${e.message} (${summarizeBody(raw)})`);
  }
}

/** Upstream's summarizeData: the first 30 bytes, as text when the body starts as an object, else in hex. */
function summarizeBody(raw: Buffer): string {
  const maxBytes = 30;
  if (raw.length === 0) return "<empty>";
  const head = raw.subarray(0, maxBytes);
  const text = raw[0] === 0x7b /* { */ ? head.toString("utf8") : head.toString("hex");
  return raw.length > maxBytes ? `${text} ...` : text;
}

/** Duplicate keys of a JSON or YAML body (what a plain parse silently collapses); `parsed`: the JSON body as decoded, untouched since. */
export function duplicateKeys(mediaType: string, raw: Buffer, parsed?: unknown): string[] {
  if (mediaType === "application/json") return duplicateJsonKeys(raw.toString("utf8"), parsed);
  if (mediaType === "application/yaml" || mediaType === "application/apply-patch+yaml") return duplicateYamlKeys(raw.toString("utf8"));
  return [];
}

export function versionedKind(tm: { apiVersion: string; kind: string }): { kind: string; version: string } {
  return { kind: tm.kind, version: tm.apiVersion.includes("/") ? tm.apiVersion.split("/")[1] : tm.apiVersion };
}

export function checkTypeMeta(body: Record<string, unknown>, expected: { apiVersion: string; kind: string }): void {
  const av = body.apiVersion;
  const kind = body.kind;
  if (av !== undefined && av !== "" && av !== expected.apiVersion) {
    throw badRequest(`the API version in the data (${String(av)}) does not match the expected API version (${expected.apiVersion})`);
  }
  if (kind !== undefined && kind !== "" && kind !== expected.kind) {
    throw badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${expected.kind})`);
  }
}

export function header(r: ResourceRequest, name: string): string | undefined {
  const v = r.ex.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
