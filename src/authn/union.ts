// Tries each authenticator in order; the first that recognises the credential decides.
// Anonymous is last. A presented-but-invalid credential stops the chain with 401 (as upstream:
// a bad bearer token never falls back to anonymous).
import type { Authenticator, AuthnRequest } from "./authenticator.js";
import { withAuthenticatedGroup, type UserInfo } from "./user.js";

export type AuthnOutcome = { user: UserInfo } | { error: string };

export function unionAuthenticator(authenticators: Authenticator[], anonymous?: Authenticator) {
  return async function authenticate(req: AuthnRequest): Promise<AuthnOutcome> {
    const errors: string[] = [];
    for (const a of authenticators) {
      const r = await a.authenticate(req);
      if (!r) continue;
      if ("user" in r) return { user: withAuthenticatedGroup(r.user) };
      errors.push(r.error);
    }
    if (errors.length > 0) return { error: errors.join(", ") };
    if (req.headers["authorization"]) return { error: "invalid bearer token" };
    if (anonymous) {
      const r = await anonymous.authenticate(req);
      if (r && "user" in r) return { user: r.user };
    }
    return { error: "Unauthorized" };
  };
}
