// Authorizers asked in order; the first allow or deny ends it; all no-opinion → deny.
// system:masters is allowed before any configured mode (upstream's privileged-group authorizer).
import { mastersGroup } from "../authn/user.js";
import type { Attributes, Authorizer, AuthzResult } from "./authorizer.js";
import { alwaysAllow, alwaysDeny } from "./always.js";

export const supportedModes = ["AlwaysAllow", "AlwaysDeny"] as const;
const knownUpstreamModes = ["ABAC", "RBAC", "Node", "Webhook"];

export function authorizerForModes(modes: string[]): Authorizer {
  const chain: Authorizer[] = modes.map((m) => {
    if (m === "AlwaysAllow") return alwaysAllow;
    if (m === "AlwaysDeny") return alwaysDeny;
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
      for (const z of chain) {
        const r = await z.authorize(a);
        if (r.decision !== "no-opinion") return r;
        if (r.reason) reasons.push(r.reason);
      }
      return { decision: "deny", reason: reasons.join("\n") };
    },
  };
}
