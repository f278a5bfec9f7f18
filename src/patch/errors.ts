/**
 * Errors raised by the patch engines.
 *
 * What kube-apiserver 1.34 answers (mapped by toApiError, src/handlers/errors.ts) (k8s.io/apiserver endpoints/handlers/patch.go, which vendors
 * gopkg.in/evanphx/json-patch.v4 v4.12.0 — not v5 — and k8s.io/apimachinery strategicpatch):
 *
 * - "BadRequest" → 400, reason BadRequest, Status.message is our message verbatim.
 *   Used for patch documents that cannot be decoded (JSON patch not a list of objects,
 *   merge patch that is null/a scalar: "Invalid JSON Patch", strategic patch that is not an
 *   object) and for the malformed strategic-merge-patch directives upstream maps to 400
 *   ("invalid patch format of primitive list", "... of retainKeys", "... of setElementOrder
 *   list"). Other malformed directives (e.g. "unknown patch type: x in map: map[...]") reach
 *   upstream's client as a bare 500; we deliberately answer 400 for them too.
 * - "UnprocessableEntity" → 422, reason Invalid. Upstream builds it with
 *   NewGenericServerResponse(422, ...), which DISCARDS the detail: the Status.message is always
 *   "the server rejected our request due to an error in our request" (see
 *   UNPROCESSABLE_MESSAGE). Every failure while applying a JSON patch (failed test, missing
 *   path, bad index, unknown op) and "lists of lists are not supported" for SMP land here; our
 *   message keeps the evanphx-style detail for logs.
 * - "Invalid" → 422, reason Invalid, message kept (for callers building field errors).
 * - "Conflict" → 409, reason Conflict (three-way patch conflicts).
 */
export type PatchErrorKind = "BadRequest" | "Invalid" | "Conflict" | "UnprocessableEntity";

export class PatchError extends Error {
  constructor(
    readonly kind: PatchErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "PatchError";
  }
}

/** The fixed Status.message kube-apiserver sends with a 422 built by NewGenericServerResponse. */
export const UNPROCESSABLE_MESSAGE = "the server rejected our request due to an error in our request";
