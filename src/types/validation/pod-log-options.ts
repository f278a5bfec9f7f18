// The query of GET pods/<name>/log read as a PodLogOptions, and the checks kube-apiserver makes
// on it before it looks for the pod's node. Pure: no I/O.
import { badRequest } from "../../apimachinery/errors.js";
import { forbidden, invalid, type FieldError } from "../../apimachinery/validation.js";
import { queryBool } from "../../apimachinery/booleans.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  insecureSkipTLSVerifyBackend: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

/** An optional int64 parameter; blank is unset, anything else must be a decimal integer. */
function queryInt(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const v = raw.trim();
  // The parameter codec's parse error is Go's, and clients show it as the server's message.
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  return Number(v);
}

/** RFC 3339 with an optional fraction and a Z or numeric offset (metav1.Time's query form). */
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function queryTime(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  // Older clients wrote an unset time as JSON's null.
  if (v === null || v === "" || v === "null") return undefined;
  // Go's time.Parse words its error by the layout element that failed; this names the layout only.
  if (!rfc3339.test(v) || Number.isNaN(Date.parse(v))) throw badRequest(`parsing time ${goQuote(v)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time`);
  return v;
}

export function parsePodLogOptions(q: URLSearchParams): PodLogOptions {
  return {
    container: q.get("container") ?? "",
    follow: queryBool(q, "follow"),
    previous: queryBool(q, "previous"),
    timestamps: queryBool(q, "timestamps"),
    insecureSkipTLSVerifyBackend: queryBool(q, "insecureSkipTLSVerifyBackend"),
    sinceSeconds: queryInt(q, "sinceSeconds"),
    sinceTime: queryTime(q, "sinceTime"),
    tailLines: queryInt(q, "tailLines"),
    limitBytes: queryInt(q, "limitBytes"),
  };
}

export function validatePodLogOptions(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(invalid("tailLines", o.tailLines, "must be greater than or equal to 0"));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(invalid("limitBytes", o.limitBytes, "must be greater than 0"));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errs.push(forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) errs.push(invalid("sinceSeconds", o.sinceSeconds, "must be greater than 0"));
  return errs;
}
