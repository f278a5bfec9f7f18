// Upstream's errors.NewGenericServerResponse: the Status kube-apiserver answers when a backend it
// read from (a kubelet's containerLogs) answered an error that is not a Status of its own — the
// reason and message by code, the resource and name appended, the backend's text kept where
// upstream keeps it (403, 406, 415, 5xx).
import { ApiError, type StatusReason } from "./errors.js";
import { goQuote } from "./go-quote.js";

const byCode: Record<number, [StatusReason, string]> = {
  409: ["Conflict", "the server reported a conflict"],
  404: ["NotFound", "the server could not find the requested resource"],
  400: ["BadRequest", "the server rejected our request for an unknown reason"],
  401: ["Unauthorized", "the server has asked for the client to provide credentials"],
  405: ["MethodNotAllowed", "the server does not allow this method on the requested resource"],
  422: ["Invalid", "the server rejected our request due to an error in our request"],
  503: ["ServiceUnavailable", "the server is currently unable to handle the request"],
  504: ["Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"],
  429: ["TooManyRequests", "the server has received too many requests and has asked us to try again later"],
};

/** `resource` is the qualified resource ("pods/log"); the request's verb is left empty, as the log streamer leaves it. */
export function genericServerResponse(code: number, gr: { group: string; resource: string }, name: string, serverMessage: string): ApiError {
  let reason = "" as StatusReason;
  let message = `the server responded with the status code ${code} but did not return more information`;
  const known = byCode[code];
  if (known) [reason, message] = known;
  else if (code === 403) [reason, message] = ["Forbidden", serverMessage];
  else if (code === 406) [reason, message] = ["NotAcceptable", serverMessage === "" || serverMessage === "unknown" ? "the server was unable to respond with a content type that the client supports" : serverMessage];
  else if (code === 415) [reason, message] = ["UnsupportedMediaType", serverMessage];
  else if (code >= 500) [reason, message] = ["InternalError", `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`];
  const qualified = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
  message = name ? `${message} ( ${qualified} ${name})` : `${message} ( ${qualified})`;
  return new ApiError(code, reason, message, { group: gr.group, kind: gr.resource, name });
}
