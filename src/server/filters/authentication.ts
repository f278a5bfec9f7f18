// Who is asking: the authenticators (client certificate, tokens, anonymous last) look at the
// request's headers, path and verified client certificate chain. No one recognised → 401.
import { unauthorized } from "../../apimachinery/errors.js";
import type { AuthnRequest } from "../../authn/authenticator.js";
import type { AuthnOutcome } from "../../authn/union.js";
import { clientCertificate } from "../client-certificate.js";
import type { Filter } from "./filter.js";

export type Authenticate = (req: AuthnRequest) => Promise<AuthnOutcome>;

export function authenticationFilter(authenticate: Authenticate): Filter {
  return async (ctx, next) => {
    const ex = ctx.ex;
    const outcome = await authenticate({ path: ex.path, headers: ex.headers, ...(ex.rawHeaders ? { rawHeaders: ex.rawHeaders } : {}), peerCertificate: clientCertificate(ex.socket) });
    if ("error" in outcome) throw unauthorized();
    ctx.user = outcome.user;
    if (outcome.warnings) ctx.warnings.push(...outcome.warnings);
    return next();
  };
}
