// Continue tokens, in upstream's shape: unpadded base64url of
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the list prefix>\u0000"}. The token
// names the snapshot revision and where to resume; rv -1 means "continue at the latest revision"
// (what a 410 for a compacted token hands back).
import { posix } from "node:path";
import { badRequest } from "../apimachinery/errors.js";
import { goRawUrlBase64Decode } from "../apimachinery/go-base64.js";
import { goUnmarshalStruct, type GoStruct } from "../apimachinery/go-json-struct.js";

export interface ContinueState {
  /** Snapshot revision; negative = latest. */
  rv: number;
  /** Full key (list prefix + start without its trailing NUL) to resume strictly after. */
  after: string;
}

export function encodeContinue(rv: number, lastKey: string, prefix: string): string {
  const json = JSON.stringify({ v: "meta.k8s.io/v1", rv, start: lastKey.slice(prefix.length) + "\u0000" });
  return Buffer.from(json).toString("base64url");
}

/** The token's fields as upstream's continueToken struct declares them. */
const continueToken: GoStruct = {
  type: "storage.continueToken",
  name: "continueToken",
  fields: [
    { json: "v", type: "string" },
    { json: "rv", type: "int64" },
    { json: "start", type: "string" },
  ],
};

/**
 * Reads a token as upstream's DecodeContinue does, with its errors: Go's base64 (RawURLEncoding)
 * and encoding/json words for a token that is not one, then the version, revision and start key
 * checks. kapi's own tokens end their start key with a NUL (resume strictly after the key), and
 * no other form is taken.
 */
export function decodeContinue(token: string, prefix: string): ContinueState {
  const invalid = (why: string) => badRequest(`invalid continue token: continue key is not valid${why}`);
  const decoded = goRawUrlBase64Decode(token);
  if ("error" in decoded) throw invalid(`: ${decoded.error}`);
  const { values, error } = goUnmarshalStruct(decoded.bytes, continueToken);
  if (error !== undefined) throw invalid(`: ${error}`);
  const version = (values.get("v") as string | undefined) ?? "";
  if (version !== "meta.k8s.io/v1") throw invalid(`: server does not recognize this encoded version ${version}`);
  const rv = (values.get("rv") as bigint | undefined) ?? 0n;
  if (rv === 0n) throw invalid(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  const start = (values.get("start") as string | undefined) ?? "";
  if (start === "") throw invalid(": encoded start key empty (version meta.k8s.io/v1)");
  // Path traversal defence as upstream: the start key must already be clean (path.Clean of it
  // with a leading slash gives it back), so it cannot reach above the list's prefix.
  const key = start.startsWith("/") ? start : "/" + start;
  if (goPathClean(key) !== key) throw invalid(`: ${start}`);
  if (!key.endsWith("\u0000")) throw invalid(`: ${start}`);
  return { rv: Number(rv), after: prefix + key.slice(1, -1) };
}

/** Go's path.Clean of a rooted path: node's normalize, without a trailing slash. */
function goPathClean(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}
