// Who is asking: the authenticators (client certificate, tokens, anonymous last) look at the
// request's headers, path and verified client certificate chain. No one recognised → 401.
// Each pass is counted by result (authentication_attempts, authentication_duration_seconds).
import { unauthorized } from "../../apimachinery/errors.js";
import type { AuthnRequest } from "../../authn/authenticator.js";
import type { AuthnOutcome } from "../../authn/union.js";
import type { AuthenticationMetrics } from "../../observability/authn-metrics.js";
import type { RequestContext } from "../../http/context.js";
import { clientCertificate } from "../client-certificate.js";
import type { Filter, Handler } from "./filter.js";

export type Authenticate = (req: AuthnRequest) => AuthnOutcome | Promise<AuthnOutcome>;

export function authenticationFilter(authenticate: Authenticate, metrics?: AuthenticationMetrics): Filter {
  // Not async: an outcome known at once (a connection's client certificate) hands the request on
  // in the same turn, with no promise or closure of this stage's own.
  return (ctx, next) => {
    try {
      const ex = ctx.ex;
      const started = metrics ? performance.now() : 0;
      const outcome = authenticate({ path: ex.path, headers: ex.headers, rawHeaders: ex.rawHeaders, peerCertificate: clientCertificate(ex.socket) });
      if (outcome instanceof Promise) return outcome.then((o) => authenticated(ctx, next, o, started, metrics));
      return authenticated(ctx, next, outcome, started, metrics);
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

function authenticated(ctx: RequestContext, next: Handler, o: AuthnOutcome, started: number, metrics: AuthenticationMetrics | undefined): Promise<void> {
  if (metrics) {
    const seconds = (performance.now() - started) / 1000;
    // Upstream's results: a refused credential is an error, nothing recognised a failure.
    if ("error" in o) metrics.observe(o.unrecognised ? "failure" : "error", seconds);
    else metrics.observe("success", seconds, o.user.name);
  }
  if ("error" in o) return Promise.reject(unauthorized());
  ctx.user = o.user;
  if (o.warnings) ctx.warnings.push(...o.warnings);
  return next(ctx);
}
