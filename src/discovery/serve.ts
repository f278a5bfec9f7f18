// Writing pre-encoded discovery/OpenAPI documents. Our own writer (not http/respond.ts)
// because these answers need exact control of ETag, Vary and Cache-Control, and a 304 path.
import { createHash } from "node:crypto";
import { header, type Exchange } from "../http/exchange.js";
import { encodeBody } from "../http/respond.js";

/** A document encoded once; the ETag is the quoted upper-case hex SHA-512 of `hashed`. */
export interface Encoded {
  bytes: Buffer;
  /** Unquoted content hash (upstream: SHA-512, upper-case hex). */
  hash: string;
  etag: string;
}

export function sha512Hex(data: Buffer | string): string {
  return createHash("sha512").update(data).digest("hex").toUpperCase();
}

/** Encodes as upstream's Go JSON encoder does (compact, trailing newline); hash over the compact JSON. */
export function encodeJson(obj: unknown, newline = true): Encoded {
  const compact = JSON.stringify(obj);
  const hash = sha512Hex(compact);
  return { bytes: Buffer.from(newline ? compact + "\n" : compact), hash, etag: `"${hash}"` };
}

/** True (and a bare 304 sent) when the client's If-None-Match names this ETag. */
export function notModified(ex: Exchange, etag: string, headers: Record<string, string>): boolean {
  const inm = header(ex.headers, "if-none-match");
  if (!inm) return false;
  const tags = inm.split(",").map((t) => t.trim().replace(/^W\//, ""));
  if (!tags.includes(etag) && !tags.includes("*")) return false;
  ex.head(304, { etag, ...headers });
  ex.end();
  return true;
}

/** Sends bytes with the given headers; gzip for large bodies when the client accepts it. */
export function sendBytes(ex: Exchange, status: number, body: Buffer, headers: Record<string, string>): void {
  const h: Record<string, string | number> = { ...headers };
  const payload = encodeBody(ex, body, h);
  h["content-length"] = payload.length;
  ex.head(status, h);
  ex.end(ex.method === "HEAD" ? undefined : payload);
}
