// Parses what the request asks for (verb, group, version, resource, namespace, name) once, for
// every later stage: the deadline (long-running or not), authorization, flow control, routing.
import { badRequest } from "../../apimachinery/errors.js";
import { MalformedPathError, parseRequestInfo, type RequestInfoOptions } from "../../http/request-info.js";
import type { Filter } from "./filter.js";

export function requestInfoFilter(opts: RequestInfoOptions = {}): Filter {
  return (ctx, next) => {
    const ex = ctx.ex;
    try {
      ctx.info = parseRequestInfo(ex.method, ex.path, ex.query, opts);
    } catch (e) {
      return Promise.reject(e instanceof MalformedPathError ? badRequest(e.message) : e);
    }
    return next(ctx);
  };
}
