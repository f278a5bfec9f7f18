import type { Authorizer, RulesResult } from "./authorizer.js";

/** Everything, as upstream's AlwaysAllow reports it to rules reviews. */
export const allRules = (): RulesResult => ({
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false,
});

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: "allow", reason: "" }), rulesFor: allRules };
// As upstream: no opinion (so a later mode may still allow), with the reason the 403 carries.
export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: "no-opinion", reason: "Everything is forbidden." }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
