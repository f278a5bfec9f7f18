import type { Authorizer, RulesResult } from "./authorizer.js";

/** Everything, as upstream's AlwaysAllow reports it to rules reviews. */
export const allRules = (): RulesResult => ({
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false,
});

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: "allow", reason: "" }), rulesFor: allRules };
export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: "deny", reason: "Everything is forbidden." }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
