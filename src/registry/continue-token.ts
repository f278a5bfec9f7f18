// Continue tokens: base64 of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after prefix>\u0000"},
// the same shape upstream uses, so a token names the snapshot revision and the resume position.
import { badRequest } from "../apimachinery/errors.js";

export interface ContinueState {
  rv: number;
  /** Key suffix (relative to the list prefix) to resume strictly after. */
  after: string;
}

export function encodeContinue(rv: number, lastKeySuffix: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start: lastKeySuffix + "\u0000" })).toString("base64");
}

export function decodeContinue(token: string): ContinueState {
  let parsed: any;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
  } catch {
    throw badRequest("continue key is not valid: invalid continue token format");
  }
  if (!parsed || parsed.v !== "meta.k8s.io/v1") throw badRequest("continue key is not valid: server does not recognize this encoded version");
  if (typeof parsed.rv !== "number" || parsed.rv <= 0 || typeof parsed.start !== "string" || !parsed.start.endsWith("\u0000")) {
    throw badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  const after = parsed.start.slice(0, -1);
  if (after.includes("..") || after.startsWith("/")) throw badRequest("continue key is not valid: path traversal");
  return { rv: parsed.rv, after };
}
