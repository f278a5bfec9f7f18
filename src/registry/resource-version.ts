// resourceVersion as clients send it: opaque strings that we parse as revisions.
import { ApiError, badRequest } from "../apimachinery/errors.js";

export function parseResourceVersion(rv: string | null | undefined, what = "resourceVersion"): number | undefined {
  if (rv === null || rv === undefined || rv === "") return undefined;
  if (!/^\d+$/.test(rv)) throw invalidRV(rv, what);
  return Number(rv);
}

function invalidRV(rv: string, what: string): ApiError {
  return badRequest(`invalid ${what}: ${JSON.stringify(rv)}`);
}

export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError(
    504,
    "Timeout",
    `Too large resource version: ${requested}, current: ${current}`,
    { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
    { "retry-after": "1" },
  );
}
