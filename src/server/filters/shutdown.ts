// Requests that arrive while the server drains (after --shutdown-delay-duration has passed): the
// server no longer takes new work, so that what is in flight can finish and its clients go to
// another server. As kube-apiserver's two filters:
// - with --shutdown-send-retry-after (WithRetryAfter): every request is answered 429 in plain
//   text with Retry-After: 5 and its connection closed, while the server keeps listening until
//   the requests in flight have finished;
// - without it (WithWaitGroup): a request that is not long-running is answered 503 with a
//   ServiceUnavailable Status and Retry-After: 1 (the server stopped listening; these arrive on
//   connections still open); long-running ones pass.
// Health probes and metrics scrapes, and the server's own loopback client, are always served.
import { ApiError } from "../../apimachinery/errors.js";
import { header } from "../../http/exchange.js";
import { requestInfoOf } from "../../http/context.js";
import { writeBytes, writeText } from "../../http/respond.js";
import type { LongRunningCheck } from "../long-running.js";
import type { Filter } from "./filter.js";

export interface ShutdownFilterOptions {
  /** True once the shutdown delay has passed and the server drains. */
  draining(): boolean;
  /** --shutdown-send-retry-after. */
  sendRetryAfter: boolean;
  isLongRunning: LongRunningCheck;
}

const exemptPrefixes = ["/readyz", "/livez", "/healthz", "/metrics"];

/** Served while draining: what tells the world how the server is doing, and the server itself. */
export function exemptFromShutdown(path: string, userAgent: string | undefined): boolean {
  return (userAgent ?? "").startsWith("kube-apiserver/") || exemptPrefixes.some((p) => path.startsWith(p));
}

const shuttingDown = new ApiError(503, "ServiceUnavailable", "apiserver is shutting down");

export function shutdownFilter(o: ShutdownFilterOptions): Filter {
  // While serving, the one check is draining(): no promise of its own.
  const whileDraining: Filter = async (ctx, next) => {
    if (exemptFromShutdown(ctx.ex.path, header(ctx.ex.headers, "user-agent"))) return next(ctx);
    if (o.sendRetryAfter) {
      ctx.ex.closeConnection();
      writeText(ctx.ex, 429, "The apiserver is shutting down, please try again later.\n", { "retry-after": "5" });
      return;
    }
    if (o.isLongRunning(requestInfoOf(ctx))) return next(ctx);
    const body = Buffer.from(JSON.stringify(shuttingDown.toStatus()) + "\n");
    writeBytes(ctx.ex, 503, body, "application/json", { headers: { "x-content-type-options": "nosniff", "retry-after": "1" } });
  };
  return (ctx, next) => (o.draining() ? whileDraining(ctx, next) : next(ctx));
}
