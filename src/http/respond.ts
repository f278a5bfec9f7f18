// Writing responses: objects in the negotiated encoding, and ApiErrors as metav1.Status bodies
// (writeStatus; the recovery filter is the one caller for errors that leave the chain).
import type { ApiError } from "../apimachinery/errors.js";
import type { Codec } from "../encoding/codec.js";
import { jsonCodec } from "../encoding/codec.js";
import { gzipBody, gzipThresholdBytes } from "../encoding/gzip.js";
import { negotiateOutput, type CodecSet } from "../encoding/negotiate.js";
import { header, type Exchange } from "./exchange.js";

export interface WriteOptions {
  pretty?: boolean;
  warnings?: string[];
  headers?: Record<string, string>;
  /** Media type to put in Content-Type when it differs from the codec's (e.g. with parameters). */
  contentType?: string;
}

export function warningHeader(warnings: string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}

/** Encoded bytes; JSON ones are shown to the exchange's observer (the audit log) as they are. */
export function writeBytes(ex: Exchange, status: number, body: Buffer, contentType: string, opts: WriteOptions = {}): void {
  if (ex.observeResponse && contentType.startsWith("application/json")) ex.observeResponse({ json: body });
  sendBytes(ex, status, body, contentType, opts);
}

/**
 * JSON bytes in pieces (a list's envelope and its items' memoised bytes), written as they are:
 * no page-sized copy per request. Gzipped responses are joined first (the compressor wants one).
 */
export function writeJsonChunks(ex: Exchange, status: number, chunks: readonly Buffer[], opts: WriteOptions = {}): void {
  ex.observeResponse?.({ json: chunks });
  let size = 0;
  for (const c of chunks) size += c.length;
  if (ex.responseEncoding === "gzip" && size > gzipThresholdBytes) return sendBytes(ex, status, Buffer.concat(chunks, size), "application/json", opts);
  const h = responseHeaders("application/json", opts);
  h["content-length"] = size;
  ex.head(status, h);
  if (ex.method === "HEAD") return ex.end();
  for (const c of chunks) ex.write(c);
  ex.end();
}

function responseHeaders(contentType: string, opts: WriteOptions): Record<string, string | number | string[]> {
  const h: Record<string, string | number | string[]> = { "content-type": contentType, "cache-control": "no-cache, private", ...(opts.headers ?? {}) };
  if (opts.warnings && opts.warnings.length > 0) h["warning"] = warningHeader(opts.warnings);
  return h;
}

function sendBytes(ex: Exchange, status: number, body: Buffer, contentType: string, opts: WriteOptions): void {
  const h = responseHeaders(contentType, opts);
  const payload = encodeBody(ex, body, h);
  h["content-length"] = payload.length;
  ex.head(status, h);
  ex.end(ex.method === "HEAD" ? undefined : payload);
}

/**
 * The body as it goes on the wire: gzipped when the exchange may compress and the body is large
 * enough, with Content-Encoding and Vary added to `h`.
 */
export function encodeBody(ex: Exchange, body: Buffer, h: Record<string, string | number | string[]>): Buffer {
  if (ex.responseEncoding !== "gzip" || body.length <= gzipThresholdBytes) return body;
  h["content-encoding"] = "gzip";
  h["vary"] = h["vary"] ? `${h["vary"]}, Accept-Encoding` : "Accept-Encoding";
  return gzipBody(body);
}

export function writeObject(ex: Exchange, status: number, obj: unknown, codec: Codec, opts: WriteOptions = {}): void {
  ex.observeResponse?.({ object: obj });
  let body: Buffer;
  try {
    body = codec.encode(obj, opts.pretty);
  } catch (e) {
    // Kinds without a protobuf message (Table, custom resources) go out as JSON, which every
    // client that asks for protobuf also accepts.
    if (!(e instanceof Error && e.name === "ProtobufNotSupportedError")) throw e;
    codec = jsonCodec;
    body = codec.encode(obj, opts.pretty);
  }
  sendBytes(ex, status, body, opts.contentType ?? codec.mediaType, opts);
}

/**
 * An error as a metav1.Status in the encoding the client's Accept negotiates (JSON, YAML,
 * protobuf). When Accept names nothing served, the Status goes out as JSON: as upstream, the
 * original error is never hidden behind a 406. Headers must not have been sent.
 */
export function writeStatus(ex: Exchange, e: ApiError, codecs: CodecSet, opts: Pick<WriteOptions, "pretty" | "warnings"> = {}): void {
  let codec: Codec;
  try {
    codec = negotiateOutput(header(ex.headers, "accept"), codecs).codec;
  } catch {
    codec = jsonCodec;
  }
  writeObject(ex, e.code, e.toStatus(), codec, { ...opts, headers: { ...retryAfter(e), ...e.headers } });
}

/** A Status that asks the client to wait also says so in Retry-After (upstream does both). */
function retryAfter(e: ApiError): Record<string, string> {
  const seconds = e.details?.retryAfterSeconds;
  return seconds && seconds > 0 ? { "retry-after": String(seconds) } : {};
}

export function writeText(ex: Exchange, status: number, text: string, headers: Record<string, string> = {}): void {
  sendBytes(ex, status, Buffer.from(text), "text/plain; charset=utf-8", { headers: { "x-content-type-options": "nosniff", ...headers } });
}
