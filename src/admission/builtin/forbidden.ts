// admission.NewForbidden as upstream words it: `<resource> "<name>" is forbidden: <reason>`, where
// the name is the request's, else the object's name or generateName (a create whose name is not
// generated yet), else "Unknown". A reason that already is a 403 is passed through unwrapped.
import { ApiError, forbidden } from "../../apimachinery/errors.js";
import type { AdmissionAttributes } from "../../registry/admission.js";

export function admissionForbidden(a: AdmissionAttributes, reason: string | ApiError): ApiError {
  if (reason instanceof ApiError && reason.code === 403) return reason;
  const message = reason instanceof ApiError ? reason.message : reason;
  const meta = a.object?.metadata;
  const name = a.name || meta?.name || meta?.generateName || "Unknown";
  return forbidden(a.type.gr, name, message);
}

/** Go's utilerrors.NewAggregate(errs).Error(): one message alone, several in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
}
