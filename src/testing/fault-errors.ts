// The Status each injectable code is answered with: upstream's constructor for that reason
// (apimachinery's NewConflict, NewResourceExpired, NewInvalid, NewTooManyRequests,
// NewInternalError, NewServiceUnavailable, NewTimeoutError), so a client's own handling of the
// reason (retry on conflict, relist on expiry, back off on Retry-After) is what gets exercised.
import { ApiError, conflict, expired, internalError, invalid, optimisticLockMessage } from "../apimachinery/errors.js";
import { forbidden } from "../apimachinery/validation.js";
import type { RequestInfo } from "../http/request-info.js";
import { requestTimeoutError } from "../server/filters/deadline.js";
import type { FaultAction } from "./faults.js";

export interface FaultErrorContext {
  info: RequestInfo;
  /** The request's kind (Deployment), for a 422's message. */
  kind: string;
  /** For a 410's message: the resourceVersion asked for and the store's current one. */
  requestedRevision: string;
  currentRevision: number;
}

export function faultError(a: Extract<FaultAction, { kind: "error" }>, c: FaultErrorContext): ApiError {
  const gr = { group: c.info.apiGroup, resource: c.info.resource };
  const name = c.info.name;
  const retry = a.retryAfterSeconds;
  switch (a.code) {
    case 409:
      return conflict(gr, name, a.message ?? optimisticLockMessage);
    case 410:
      return tooOld(a.message, c.requestedRevision, c.currentRevision);
    case 422:
      return invalid({ group: c.info.apiGroup, kind: c.kind }, name, [forbidden(a.field ?? "metadata", a.message ?? "refused by an injected fault")]);
    case 429:
      return new ApiError(429, "TooManyRequests", a.message ?? "Too many requests, please try again later.", { retryAfterSeconds: retry ?? 1 });
    case 500:
      return internalError(a.message ?? "an injected fault");
    case 503:
      return new ApiError(503, "ServiceUnavailable", a.message ?? "the server is currently unable to handle the request", retry ? { retryAfterSeconds: retry } : undefined);
    case 504: {
      const e = a.message === undefined ? requestTimeoutError() : new ApiError(504, "Timeout", `Timeout: ${a.message}`);
      return retry ? new ApiError(504, "Timeout", e.message, { retryAfterSeconds: retry }) : e;
    }
  }
}

/** 410 Expired as the watch cache words it for a resourceVersion older than its history. */
export function tooOld(message: string | undefined, requested: string, current: number): ApiError {
  return expired(message ?? `too old resource version: ${requested || "0"} (${current})`);
}
