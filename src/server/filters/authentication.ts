// Who is asking: the authenticators (client certificate, tokens, anonymous last) look at the
// request's headers, path and verified client certificate chain. No one recognised → 401.
// Each pass is counted by result (authentication_attempts, authentication_duration_seconds).
import { unauthorized } from "../../apimachinery/errors.js";
import type { AuthnRequest } from "../../authn/authenticator.js";
import type { AuthnOutcome } from "../../authn/union.js";
import type { AuthenticationMetrics } from "../../observability/authn-metrics.js";
import { clientCertificate } from "../client-certificate.js";
import type { Filter } from "./filter.js";

export type Authenticate = (req: AuthnRequest) => Promise<AuthnOutcome>;

export function authenticationFilter(authenticate: Authenticate, metrics?: AuthenticationMetrics): Filter {
  return async (ctx, next) => {
    const ex = ctx.ex;
    const started = metrics ? performance.now() : 0;
    const outcome = await authenticate({ path: ex.path, headers: ex.headers, ...(ex.rawHeaders ? { rawHeaders: ex.rawHeaders } : {}), peerCertificate: clientCertificate(ex.socket) });
    if (metrics) {
      const seconds = (performance.now() - started) / 1000;
      // Upstream's results: a refused credential is an error, nothing recognised a failure.
      if ("error" in outcome) metrics.observe(outcome.unrecognised ? "failure" : "error", seconds);
      else metrics.observe("success", seconds, outcome.user.name);
    }
    if ("error" in outcome) throw unauthorized();
    ctx.user = outcome.user;
    if (outcome.warnings) ctx.warnings.push(...outcome.warnings);
    return next();
  };
}
