// Continue tokens, in upstream's shape: unpadded base64url of
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the list prefix>\u0000"}. The token
// names the snapshot revision and where to resume; rv -1 means "continue at the latest revision"
// (what a 410 for a compacted token hands back).
import { badRequest } from "../apimachinery/errors.js";
import { posix } from "node:path";

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

export function decodeContinue(token: string, prefix: string): ContinueState {
  const bad = (why: string) => badRequest(`invalid continue token: continue key is not valid${why ? `: ${why}` : ""}`);
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(token)) throw bad("illegal base64 data");
  let parsed: any;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (!parsed || typeof parsed !== "object") throw bad("");
  if (parsed.v !== "meta.k8s.io/v1") throw badRequest(`invalid continue token: continue key is not valid: server does not recognize this encoded version ${parsed.v}`);
  if (typeof parsed.rv !== "number" || !Number.isInteger(parsed.rv) || parsed.rv === 0) {
    throw badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (typeof parsed.start !== "string" || parsed.start === "") {
    throw badRequest("invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
  }
  // Path traversal defence as upstream: the start key must already be clean.
  const key = parsed.start.startsWith("/") ? parsed.start : "/" + parsed.start;
  if (posix.normalize(key) !== key && posix.normalize(key) + "/" !== key) throw bad(parsed.start);
  if (key.split("/").includes("..")) throw bad(parsed.start);
  const start: string = key.slice(1);
  // Our tokens are "last key + NUL" (resume strictly after the last key); we issue no other form.
  if (!start.endsWith("\u0000")) throw bad(parsed.start);
  return { rv: parsed.rv, after: prefix + start.slice(0, -1) };
}
