// Authorizers asked in order; the first allow or deny ends it (with its own error); all no-opinion
// → deny, carrying every reason and error met on the way. Rule resolvers are a union of their own:
// every resolver's rules, concatenated.
import type { Attributes, Authorizer, AuthzResult, RuleResolver, RulesResult } from "./authorizer.js";
import type { UserInfo } from "../apimachinery/user.js";

export function unionAuthorizer(chain: Authorizer[]): Authorizer {
  return {
    // Synchronous while every authorizer asked answers at once (system:masters, RBAC): most
    // requests are decided without a promise, a microtask turn or a closure per authorizer.
    authorize(a: Attributes): AuthzResult | Promise<AuthzResult> {
      try {
        return askFrom(chain, a, 0, undefined);
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}

/** What the authorizers with no opinion said so far (made at the first of them). */
interface NoOpinions {
  reasons: string[];
  errors: string[];
}

function askFrom(chain: readonly Authorizer[], a: Attributes, first: number, seen: NoOpinions | undefined): AuthzResult | Promise<AuthzResult> {
  for (let i = first; i < chain.length; i++) {
    const r = chain[i]!.authorize(a);
    if (r instanceof Promise) return r.then((x) => (x.decision !== "no-opinion" ? x : askFrom(chain, a, i + 1, noted(seen, x))));
    if (r.decision !== "no-opinion") return r;
    seen = noted(seen, r);
  }
  const out: AuthzResult = { decision: "deny", reason: seen ? seen.reasons.join("\n") : "", defaultDeny: true };
  const error = seen ? aggregateErrors(seen.errors) : "";
  if (error) out.error = error;
  return out;
}

function noted(seen: NoOpinions | undefined, r: AuthzResult): NoOpinions {
  const s = seen ?? { reasons: [], errors: [] };
  if (r.reason) s.reasons.push(r.reason);
  if (r.error) s.errors.push(r.error);
  return s;
}

/** An authorizer without a rule resolver makes the answer incomplete. */
export function unionRuleResolver(chain: Partial<RuleResolver>[]): RuleResolver {
  return {
    async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const z of chain) {
        if (!z.rulesFor) {
          out.incomplete = true;
          continue;
        }
        const r = await z.rulesFor(user, namespace);
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        if (r.evaluationError) errors.push(r.evaluationError);
      }
      const error = aggregateErrors(errors);
      if (error) out.evaluationError = error;
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
