// The errors of webhook admission, with upstream's texts (webhook/errors, util/webhook):
// a webhook that could not be called (or answered nonsense) is a CallingWebhookError, which the
// failurePolicy turns into a 500 (Fail) or nothing (Ignore); a webhook that said no is the
// Status it answered, its message prefixed with `admission webhook "<name>" denied the request`
// and its code at least 400, whatever the webhook put there.
import { ApiError, badRequest, internalError, type StatusDetails, type StatusReason } from "../../apimachinery/errors.js";

/**
 * The webhook could not be called, or its answer could not be used. failurePolicy decides.
 * `code` is the status upstream gives the failure (its metrics report it): the webhook's HTTP
 * status when it answered one, else 503, or 500/400 for what failed before the call.
 */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhookName: string,
    readonly reason: string,
    readonly code = 503,
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

/** A webhook's own "no" (upstream: ErrWebhookRejection), told apart from the server's failures by the metrics. */
export class WebhookDenial extends ApiError {}

/** A denial: the webhook's Status (code, reason, details kept) with upstream's message. */
export function deniedError(webhookName: string, result: unknown): WebhookDenial {
  const r = isObj(result) ? result : {};
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const message = typeof r.message === "string" && r.message ? `${deniedBy}: ${r.message}` : typeof r.reason === "string" && r.reason ? `${deniedBy}: ${r.reason}` : `${deniedBy} without explanation`;
  const code = denialCode(r.code);
  const reason = (typeof r.reason === "string" ? r.reason : "") as StatusReason;
  const details = isObj(r.details) ? (r.details as StatusDetails) : undefined;
  return new WebhookDenial(code, reason, message, details);
}

/**
 * The HTTP status of a denial. A refusal must read as one to every client: a missing code or
 * one below 400 (a 2xx would be taken for success, a 3xx followed) becomes 400 Bad Request.
 * Above 999 no status line can carry it; upstream's writer fails there, which is answered 500.
 */
function denialCode(code: unknown): number {
  const n = typeof code === "number" && Number.isInteger(code) ? code : 0;
  if (n < 400) return 400;
  return n > 999 ? 500 : n;
}

/** A dry run that would reach a webhook with side effects (upstream: NewDryRunUnsupportedErr). */
export function dryRunUnsupported(webhookName: string): ApiError {
  return badRequest(`admission webhook "${webhookName}" does not support dry run`);
}
