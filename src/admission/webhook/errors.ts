// The errors of webhook admission, with upstream's texts (webhook/errors, util/webhook):
// a webhook that could not be called (or answered nonsense) is a CallingWebhookError, which the
// failurePolicy turns into a 500 (Fail) or nothing (Ignore); a webhook that said no is the
// Status it answered, its message prefixed with `admission webhook "<name>" denied the request`.
import { ApiError, badRequest, internalError, type StatusDetails, type StatusReason } from "../../apimachinery/errors.js";

/** The webhook could not be called, or its answer could not be used. failurePolicy decides. */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook "${webhookName}": ${reason}`);
    this.name = "CallingWebhookError";
  }
}

/** failurePolicy Fail: the failure as the client sees it (upstream: NewInternalError). */
export function failedClosed(e: CallingWebhookError): ApiError {
  return internalError(e);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** A denial: the webhook's Status (code, reason, details kept) with upstream's message. */
export function deniedError(webhookName: string, result: unknown): ApiError {
  const r = isObj(result) ? result : {};
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const message = typeof r.message === "string" && r.message ? `${deniedBy}: ${r.message}` : typeof r.reason === "string" && r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  // A Status without a code is written as a failure: 500 (upstream's response writer).
  const code = typeof r.code === "number" && Number.isInteger(r.code) && r.code >= 100 && r.code <= 599 ? r.code : 500;
  const reason = (typeof r.reason === "string" ? r.reason : "") as StatusReason;
  const details = isObj(r.details) ? (r.details as StatusDetails) : undefined;
  return new ApiError(code, reason, message, details);
}

/** A dry run that would reach a webhook with side effects (upstream: NewDryRunUnsupportedErr). */
export function dryRunUnsupported(webhookName: string): ApiError {
  return badRequest(`admission webhook "${webhookName}" does not support dry run`);
}
