// Anonymous access, optionally restricted to paths (upstream: `anonymous.conditions` of the
// structured AuthenticationConfiguration). Conditions match the request path exactly.
import type { Authenticator } from "./authenticator.js";
import { anonymousUser, unauthenticatedGroup } from "../apimachinery/user.js";

export interface AnonymousOptions {
  enabled: boolean;
  /** When non-empty, anonymous is allowed only for these exact paths. */
  paths?: string[];
}

export function anonymousAuthenticator(opts: AnonymousOptions): Authenticator | undefined {
  if (!opts.enabled) return undefined;
  const allowed = opts.paths && opts.paths.length > 0 ? new Set(opts.paths) : undefined;
  return {
    name: "anonymous",
    authenticate(req) {
      if (allowed && !allowed.has(req.path)) return undefined;
      return { user: { name: anonymousUser, groups: [unauthenticatedGroup] } };
    },
  };
}
