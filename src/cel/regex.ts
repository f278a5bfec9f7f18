// Regular expressions as CEL has them: RE2 syntax and linear-time matching (re2js), so a
// user-written pattern cannot stall the server. Patterns are compiled once and kept in a
// bounded cache, since rules apply the same few patterns to every object.
import type { RE2JS } from "re2js";
import { lazyPackage } from "../apimachinery/package-files.js";
import { CelEvalError } from "./value.js";

/** The RE2 engine, loaded by the first pattern compiled (not at start-up). */
export const re2 = lazyPackage<typeof import("re2js")>("re2js");

const cache = new Map<string, RE2JS>();
const maxCached = 1000;

/** The compiled pattern; a bad one is a CelEvalError with RE2's message (`error parsing regexp: …`). */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = re2().RE2JS.compile(pattern);
  } catch (e) {
    throw new CelEvalError((e as Error).message);
  }
  if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, re);
  return re;
}
