// Members of a privileged group (system:masters) are allowed everything, ahead of every configured
// mode. It is an authorizer only, never a rule resolver: what such a user may do, as a
// SelfSubjectRulesReview lists it, is what the configured modes (RBAC's cluster-admin binding) grant.
import type { Authorizer } from "./authorizer.js";

export function privilegedGroups(...groups: string[]): Authorizer {
  return {
    authorize: (a) => (a.user.groups.some((g) => groups.includes(g)) ? { decision: "allow", reason: "" } : { decision: "no-opinion", reason: "" }),
  };
}
