// Writing responses: objects in the negotiated encoding, and ApiErrors as metav1.Status bodies
// (writeStatus; the recovery filter is the one caller for errors that leave the chain).
import type { ApiError } from "../apimachinery/errors.js";
import { goQuote } from "../apimachinery/go-quote.js";
import type { Codec } from "../encoding/codec.js";
import { jsonCodec } from "../encoding/codec.js";
import { gzipBody, gzipThresholdBytes } from "../encoding/gzip.js";
import { negotiateOutput, type CodecSet } from "../encoding/negotiate.js";
import { header, type Exchange } from "./exchange.js";
import { streamBody } from "./stream-body.js";

export interface WriteOptions {
  pretty?: boolean;
  warnings?: string[];
  headers?: Record<string, string>;
  /** Media type to put in Content-Type when it differs from the codec's (e.g. with parameters). */
  contentType?: string;
}

/**
 * Warning header values as upstream writes them (`299 - ` and strconv.Quote of the text), in
 * UTF-8: a field name from the body (an unknown field named in another script, or in bytes that
 * are not UTF-8) goes out as Go sends it, not as a character Node refuses to put in a header.
 */
export function warningHeader(warnings: string[]): string[] {
  return warnings.map((w) => headerText(`299 - ${goQuote(w)}`));
}

/** A header value's UTF-8 bytes as the Latin-1 text Node writes byte for byte. */
function headerText(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(value) ? value : Buffer.from(value, "utf8").toString("latin1");
}

/** Encoded bytes; JSON ones are shown to the exchange's observer (the audit log) as they are. */
export function writeBytes(ex: Exchange, status: number, body: Buffer, contentType: string, opts: WriteOptions = {}): void {
  if (ex.observeResponse && contentType.startsWith("application/json")) ex.observeResponse({ json: body });
  sendBytes(ex, status, body, contentType, opts);
}

/**
 * A body this large or smaller is sent whole, with its Content-Length; a larger one is streamed.
 * A page of 500 pods (~2.2 MB, mostly memoised bytes the cache keeps anyway) still goes whole:
 * streaming it costs ~15% more server CPU per page for no memory saved.
 */
export const wholeBodyBytes = 4 << 20;

/**
 * JSON bytes in pieces (a list's envelope and its items' memoised bytes), written as they are: no
 * body-sized copy per request. Pieces are taken until they pass wholeBodyBytes: a body that ends
 * before is sent as before (Content-Length; gzipped as one when large enough); a larger one goes
 * out as the client takes it (stream-body.ts), its remaining pieces made only as the socket drains.
 * `pieces` may be called again: the audit log reads the body from it at RequestResponse level.
 */
export async function writeJsonPieces(ex: Exchange, status: number, pieces: () => Iterable<Buffer>, opts: WriteOptions = {}): Promise<void> {
  ex.observeResponse?.({ json: pieces });
  const it = pieces()[Symbol.iterator]();
  const first: Buffer[] = [];
  let size = 0;
  let next = it.next();
  for (; !next.done && size <= wholeBodyBytes; next = it.next()) {
    first.push(next.value);
    size += next.value.length;
  }
  const h = responseHeaders("application/json", opts);
  if (next.done) {
    if (ex.responseEncoding === "gzip" && size > gzipThresholdBytes) return sendBytes(ex, status, Buffer.concat(first, size), "application/json", opts);
    h["content-length"] = size;
    ex.head(status, h);
    if (ex.method === "HEAD") return ex.end();
    ex.cork?.();
    for (const c of first) ex.write(c);
    ex.uncork?.();
    ex.end();
    return;
  }
  // Larger than wholeBodyBytes, so past the gzip threshold too.
  const gzip = ex.responseEncoding === "gzip";
  if (gzip) gzipHeaders(h);
  ex.head(status, h);
  if (ex.method === "HEAD") return ex.end();
  first.push(next.value);
  await streamBody(ex, first, it, gzip);
}

function responseHeaders(contentType: string, opts: WriteOptions): Record<string, string | number | string[]> {
  const h: Record<string, string | number | string[]> = opts.headers ? { "content-type": contentType, "cache-control": "no-cache, private", ...opts.headers } : { "content-type": contentType, "cache-control": "no-cache, private" };
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
  gzipHeaders(h);
  return gzipBody(body);
}

function gzipHeaders(h: Record<string, string | number | string[]>): void {
  h["content-encoding"] = "gzip";
  h["vary"] = h["vary"] ? `${h["vary"]}, Accept-Encoding` : "Accept-Encoding";
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
