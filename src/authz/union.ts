// Authorizers asked in order; the first allow or deny ends it; all no-opinion → deny.
// system:masters is allowed before any configured mode (upstream's privileged-group authorizer).
import { mastersGroup } from "../authn/user.js";
import type { Attributes, Authorizer, AuthzResult, RulesResult } from "./authorizer.js";
import type { UserInfo } from "../authn/user.js";
import { allRules, alwaysAllow, alwaysDeny } from "./always.js";

export const supportedModes = ["AlwaysAllow", "AlwaysDeny", "RBAC"] as const;
const knownUpstreamModes = ["ABAC", "Node", "Webhook"];

/** Authorizers built by the server's assembly (RBAC needs its informers). */
export interface ModeAuthorizers {
  rbac?: Authorizer;
}

export function authorizerForModes(modes: string[], built: ModeAuthorizers = {}): Authorizer {
  const chain: Authorizer[] = modes.map((m) => {
    if (m === "AlwaysAllow") return alwaysAllow;
    if (m === "AlwaysDeny") return alwaysDeny;
    if (m === "RBAC" && built.rbac) return built.rbac;
    if (knownUpstreamModes.includes(m)) throw new Error(`--authorization-mode: ${m} is not supported yet by kapi (supported: ${supportedModes.join(", ")})`);
    throw new Error(`--authorization-mode: unknown authorization mode "${m}"`);
  });
  if (new Set(modes).size !== modes.length) throw new Error(`--authorization-mode: authorization modes may not be repeated: ${modes.join(",")}`);
  return unionAuthorizer(chain);
}

export function unionAuthorizer(chain: Authorizer[]): Authorizer {
  return {
    async authorize(a: Attributes): Promise<AuthzResult> {
      if (a.user.groups.includes(mastersGroup)) return { decision: "allow", reason: "" };
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const z of chain) {
        const r = await z.authorize(a);
        if (r.decision !== "no-opinion") return r;
        if (r.reason) reasons.push(r.reason);
        if (r.error) errors.push(r.error);
      }
      const out: AuthzResult = { decision: "deny", reason: reasons.join("\n"), defaultDeny: true };
      const error = aggregateErrors(errors);
      if (error) out.error = error;
      return out;
    },
    async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
      if (user.groups.includes(mastersGroup)) return allRules();
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const z of chain) {
        if (!z.rulesFor) {
          out.incomplete = true;
          continue;
        }
        const r = await z.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        if (r.evaluationError) out.evaluationError = [out.evaluationError, r.evaluationError].filter(Boolean).join("; ");
      }
      return out;
    },
  };
}

/** Errors joined as upstream's error aggregate prints them (one: itself; several: "[a, b]", duplicates once). */
export function aggregateErrors(errors: string[]): string {
  const seen = [...new Set(errors.filter((e) => e !== ""))];
  if (seen.length === 0) return "";
  if (seen.length === 1) return seen[0]!;
  return `[${seen.join(", ")}]`;
}
