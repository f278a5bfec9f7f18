// Response compression as kube-apiserver negotiates it: gzip only, only when the client names
// the bare `gzip` token in Accept-Encoding, and only for bodies above a size where it pays.
// node:zlib is loaded on the first body compressed, not at start (~1.5 ms of CPU).

/** Bodies of this size or less are sent as they are, whatever the client accepts. */
export const gzipThresholdBytes = 128 * 1024;

/**
 * "gzip" when Accept-Encoding lists it as a bare token. Like upstream, parameters are not read:
 * `gzip;q=0` is another token and does not count, nor does `x-gzip`.
 */
export function negotiateContentEncoding(acceptEncoding: string | undefined): "gzip" | undefined {
  if (!acceptEncoding) return undefined;
  return acceptEncoding.split(",").some((token) => token.trim() === "gzip") ? "gzip" : undefined;
}

// Cached bodies (discovery, OpenAPI) go out again and again; their compressed form is kept with them.
const compressed = new WeakMap<Buffer, Buffer>();

/** The body gzipped at level 1 (upstream's choice: least CPU for nearly the same size). */
export function gzipBody(body: Buffer): Buffer {
  let z = compressed.get(body);
  if (!z) {
    z = process.getBuiltinModule("node:zlib").gzipSync(body, { level: 1 });
    compressed.set(body, z);
  }
  return z;
}

/** A gzip stream at the same level, for a body sent as it is made (a large list). */
export function gzipStream(): import("node:zlib").Gzip {
  return process.getBuiltinModule("node:zlib").createGzip({ level: 1 });
}
