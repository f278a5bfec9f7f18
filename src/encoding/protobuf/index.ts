// The protobuf codec (`application/vnd.kubernetes.protobuf`) for built-in types: JSON
// objects in, upstream-compatible envelope bytes out, and back. Kinds without a protobuf
// message (custom resources, Table) throw ProtobufNotSupportedError on encode so the
// caller can answer 406 or fall back to JSON, as upstream does.
import type { Codec } from "../codec.js";
import { DecodeError } from "../decode-error.js";
import { hasMagic, messageForTypeMeta, readEnvelope, writeEnvelope } from "./envelope.js";
import { planFor, readMessage, writeMessage } from "./message-codec.js";
import { readWatchFrames, watchEventFrame } from "./watch.js";
import { Reader, Writer } from "./wire.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
export const PROTOBUF_WATCH_CONTENT_TYPE = "application/vnd.kubernetes.protobuf;stream=watch";

/** The object has no protobuf form (upstream answers 406 NotAcceptable for it). */
export class ProtobufNotSupportedError extends Error {
  constructor(readonly apiVersion: string, readonly kind: string) {
    super(`object ${apiVersion}, Kind=${kind} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`);
    this.name = "ProtobufNotSupportedError";
  }
}

/** Whether objects of this apiVersion/kind have a protobuf encoding (built-in types only). */
export function isProtobufAvailable(apiVersion: string, kind: string): boolean {
  return messageForTypeMeta(apiVersion, kind) !== undefined;
}

// One scratch writer reused across calls (encoding is synchronous); results are copied out.
let scratch: Writer | undefined;
const SCRATCH_KEEP = 8 << 20;

function encodeObject(obj: unknown): Buffer {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw new TypeError("protobuf: can only encode an object");
  const o = obj as Record<string, unknown>;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const kind = typeof o.kind === "string" ? o.kind : "";
  const message = messageForTypeMeta(apiVersion, kind);
  if (message === undefined) throw new ProtobufNotSupportedError(apiVersion, kind);
  const plan = planFor(message);
  const w = scratch ?? new Writer(64 * 1024);
  scratch = undefined; // not reentrant-safe otherwise
  try {
    w.pos = 0;
    writeEnvelope(w, apiVersion, kind, (w2) => writeMessage(w2, plan, o));
    const out = Buffer.allocUnsafe(w.pos);
    w.buf.copy(out, 0, 0, w.pos);
    return out;
  } finally {
    if (w.buf.length <= SCRATCH_KEEP) scratch = w;
  }
}

function decodeObject(body: Buffer): Record<string, unknown> {
  const env = readEnvelope(body);
  if (env.kind === "") throw new DecodeError(`Object 'Kind' is missing in protobuf envelope (apiVersion ${goQuote(env.apiVersion)})`);
  if (env.apiVersion === "") throw new DecodeError(`Object 'apiVersion' is missing in protobuf envelope (kind ${goQuote(env.kind)})`);
  const message = messageForTypeMeta(env.apiVersion, env.kind);
  if (message === undefined) {
    throw new DecodeError(`no kind ${goQuote(env.kind)} is registered for version ${goQuote(env.apiVersion)} in protobuf`);
  }
  const out: Record<string, unknown> = { apiVersion: env.apiVersion, kind: env.kind };
  const r = new Reader(env.raw);
  return readMessage(r, env.raw.length, planFor(message), out, decodeEmbedded);
}

function decodeEmbedded(raw: Buffer): unknown {
  return decodeObject(raw);
}

/** Decodes a protobuf body; any failure is a DecodeError. */
export function decodeProtobuf(body: Buffer): Record<string, unknown> {
  try {
    return decodeObject(body);
  } catch (e) {
    if (e instanceof DecodeError) throw e;
    // Stack exhaustion on absurd nesting, or any other surprise: still a bad request.
    throw new DecodeError(`protobuf: cannot decode body: ${(e as Error).message}`);
  }
}

/** Decodes a `;stream=watch` body into its events. */
export function decodeWatchStream(buf: Buffer): { type: string; object: unknown }[] {
  return readWatchFrames(buf).map((ev) => ({
    type: ev.type,
    object: ev.raw === undefined || ev.raw.length === 0 ? null : hasMagic(ev.raw) ? decodeProtobuf(ev.raw) : parseJsonRaw(ev.raw),
  }));
}

function parseJsonRaw(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (e) {
    throw new DecodeError(`protobuf watch: event object is neither protobuf nor JSON: ${(e as Error).message}`);
  }
}

export const protobufCodec: Codec = {
  mediaType: PROTOBUF_MEDIA_TYPE,
  encode(obj) {
    return encodeObject(obj);
  },
  decode(body) {
    return decodeProtobuf(body);
  },
  encodeWatchEvent(type, object) {
    return watchEventFrame(type, encodeObject(object));
  },
  streamContentType: PROTOBUF_WATCH_CONTENT_TYPE,
};
