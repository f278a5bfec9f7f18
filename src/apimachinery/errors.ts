// The one error type every stage throws. It becomes a metav1.Status body in exactly one place
// (the recovery filter, server/filters/recovery.ts). Reasons and codes are upstream's
// StatusReason values.
import { invalidCauses, invalidMessage, type FieldError } from "./validation.js";

export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "ServerTimeout"
  | "Timeout"
  | "TooManyRequests"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "Expired"
  | "ServiceUnavailable"
  | "StorageReadError"
  | "";

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface GroupResource {
  group: string;
  resource: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toStatus(): Record<string, unknown> {
    const status: Record<string, unknown> = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
    };
    if (this.reason) status.reason = this.reason;
    // Given empty, still written: upstream's generic answers (an unknown path, a refused method or
    // non-resource request) carry "details":{}.
    if (this.details) status.details = this.details;
    status.code = this.code;
    return status;
  }
}

/** "pods" or "deployments.apps" — how upstream names a resource in messages. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(404, "NotFound", `${qualifiedResource(gr)} "${name}" not found`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(409, "AlreadyExists", `${qualifiedResource(gr)} "${name}" already exists`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function conflict(gr: GroupResource, name: string, reason: string): ApiError {
  return new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${reason}`,
    { name, group: gr.group || undefined, kind: gr.resource },
  );
}

export const optimisticLockMessage = "the object has been modified; please apply your changes to the latest version and try again";

export function badRequest(message: string): ApiError {
  return new ApiError(400, "BadRequest", message);
}

export function forbidden(gr: GroupResource, name: string, reason: string): ApiError {
  const what = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
  return new ApiError(403, "Forbidden", `${what} is forbidden: ${reason}`, {
    name: name || undefined,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function methodNotSupported(gr: GroupResource, action: string): ApiError {
  return new ApiError(405, "MethodNotAllowed", `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, {
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function gone(message: string): ApiError {
  return new ApiError(410, "Gone", message);
}

export function expired(message: string): ApiError {
  return new ApiError(410, "Expired", message);
}

export function internalError(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  return new ApiError(500, "InternalError", `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
}

/** 422 Invalid with one cause per field error (upstream apierrors.NewInvalid). */
export function invalid(gk: { group: string; kind: string }, name: string, errs: readonly FieldError[]): ApiError {
  return new ApiError(422, "Invalid", invalidMessage(gk, name, errs), {
    name,
    group: gk.group || undefined,
    kind: gk.kind,
    causes: invalidCauses(errs),
  });
}

export function notAcceptable(accepted: string[]): ApiError {
  return new ApiError(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}

/** Upstream's NewRequestEntityTooLargeError: the message follows "Request entity too large: ". */
export function tooLarge(message: string): ApiError {
  return new ApiError(413, "RequestEntityTooLarge", `Request entity too large: ${message}`);
}

export function unauthorized(): ApiError {
  return new ApiError(401, "Unauthorized", "Unauthorized");
}
