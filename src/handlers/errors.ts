// Every domain error as the ApiError kube-apiserver 1.34 answers for it — the one conversion from
// the engines' and storage's own errors to HTTP terms, made by the recovery filter for every
// request (and by the watch handler for an error inside an opened stream). ApiErrors pass through
// unchanged; anything unknown is a 500 InternalError that keeps the original as its `cause`.
import { ApplyBadRequestError, ApplyConflictError, ManagedFieldsError, TypedValueError } from "../apply/index.js";
import { ApiError, badRequest, expired, internalError } from "../apimachinery/errors.js";
import { SelectorParseError } from "../apimachinery/labels.js";
import { DecodeError } from "../encoding/decode-error.js";
import { PatchError, UNPROCESSABLE_MESSAGE } from "../patch/errors.js";
import { tooLargeError, tooLargeResourceVersion } from "../registry/resource-version.js";
import { CacheError } from "../storage/cacher/types.js";
import { StorageError } from "../storage/interface.js";

export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof PatchError) return patchApiError(e);
  if (e instanceof ApplyConflictError) return new ApiError(409, "Conflict", e.message, { causes: e.causes.map((c) => ({ ...c })) });
  if (e instanceof ApplyBadRequestError || e instanceof ManagedFieldsError) return badRequest(e.message);
  if (e instanceof TypedValueError) return new ApiError(422, "Invalid", e.message);
  if (e instanceof DecodeError) return badRequest(`error decoding request body: ${e.message}`);
  if (e instanceof SelectorParseError) return badRequest(e.message);
  if (e instanceof CacheError) return cacheApiError(e);
  if (e instanceof StorageError) return storageApiError(e);
  const unknown = internalError(e);
  Object.defineProperty(unknown, "cause", { value: e });
  return unknown;
}

/** Upstream's patch handler: see PatchError's kinds (src/patch/errors.ts). */
function patchApiError(e: PatchError): ApiError {
  switch (e.kind) {
    case "BadRequest":
      return badRequest(e.message);
    case "UnprocessableEntity":
      // NewGenericServerResponse(422, ...) drops the detail.
      return new ApiError(422, "Invalid", UNPROCESSABLE_MESSAGE);
    case "Invalid":
      return new ApiError(422, "Invalid", e.message);
    case "Conflict":
      return new ApiError(409, "Conflict", e.message);
  }
}

/** Upstream's watch cache: NewTooLargeResourceVersionError, NewResourceExpired, NewServiceUnavailable. */
function cacheApiError(e: CacheError): ApiError {
  if (e.code === "TooLarge") return tooLargeError(e.requested, e.bound);
  if (e.code === "TooOld") return expired(e.message);
  return new ApiError(503, "ServiceUnavailable", e.message);
}

/**
 * A storage error the registry did not interpret with its resource (upstream's storeerr does so
 * on every path): the status it would get there, named by the key's last segment.
 */
function storageApiError(e: StorageError): ApiError {
  const details = { name: e.key.slice(e.key.lastIndexOf("/") + 1) || undefined };
  switch (e.code) {
    case "KeyNotFound":
      return new ApiError(404, "NotFound", e.message, details);
    case "KeyExists":
      return new ApiError(409, "AlreadyExists", e.message, details);
    case "Conflict":
      return new ApiError(409, "Conflict", e.message, details);
    case "Compacted":
      return expired(e.message);
    case "FutureRevision":
      return tooLargeResourceVersion(e.message);
    case "Closed":
      return new ApiError(503, "ServiceUnavailable", e.message);
    case "Corrupt":
      return internalError(e.message);
    case "TooLarge":
    case "Unavailable":
      // kube-apiserver's etcd3 store returns its etcd client's error as it is (a request too
      // large included), which no storage error interpretation knows: the Status writer's 500,
      // no reason, the error's text.
      return new ApiError(500, "", e.message);
    case "Timeout":
      // kube-apiserver waits on an unreachable etcd until the request's deadline: its 504.
      return new ApiError(504, "Timeout", "Timeout: request did not complete within the allotted timeout");
  }
}
