// resourceVersion as clients send it: opaque strings that we parse as revisions.
import { ApiError, badRequest } from "../apimachinery/errors.js";
import { goQuote } from "../apimachinery/go-quote.js";

export function parseResourceVersion(rv: string | null | undefined, what = "resourceVersion"): number | undefined {
  if (rv === null || rv === undefined || rv === "") return undefined;
  // strconv.ParseUint(rv, 10, 64): digits only, and at most 2^64-1.
  if (!/^\d+$/.test(rv) || (rv.length >= 20 && BigInt(rv) > maxUint64)) throw invalidRV(rv, what);
  return Number(rv);
}

const maxUint64 = 2n ** 64n - 1n;

function invalidRV(rv: string, what: string): ApiError {
  return badRequest(`invalid ${what}: ${goQuote(rv)}`);
}

/** Upstream NewTooLargeResourceVersionError: 504 Timeout with the ResourceVersionTooLarge cause and Retry-After. */
export function tooLargeError(requested: number, current: number, retrySeconds = 1): ApiError {
  return tooLargeResourceVersion(`Too large resource version: ${requested}, current: ${current}`, retrySeconds);
}

/** The same 504 for a revision described in words (a storage error's message). */
export function tooLargeResourceVersion(detail: string, retrySeconds = 1): ApiError {
  return new ApiError(
    504,
    "Timeout",
    `Timeout: ${detail}`,
    { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: retrySeconds },
    { "retry-after": String(retrySeconds) },
  );
}
