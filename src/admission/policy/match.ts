// Which policies and bindings apply to a request (upstream: policy/matching Matcher): a policy by
// its matchConstraints, a binding by its matchResources (none: every request the policy
// matched). Empty resourceRules match every resource, as upstream's policy matcher has it.
import type { AdmissionAttributes } from "../../registry/admission.js";
import { criteriaOfMatchResources, matchRequest, NamespaceNotFound, type MatchDeps, type MatchedResource, type MatchResources, type NamedRuleWithOperations } from "../matching/index.js";

const everything: NamedRuleWithOperations = { operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], scope: "*" };

export class PolicyConfigurationError extends Error {}

/** The resource the request matched as, undefined when it does not apply; PolicyConfigurationError on a broken configuration. */
export async function matchResources(mr: MatchResources | undefined, a: AdmissionAttributes, deps: MatchDeps): Promise<MatchedResource | undefined> {
  const c = criteriaOfMatchResources(mr);
  if (c.rules.length === 0) c.rules = [everything];
  try {
    return await matchRequest(c, a, deps);
  } catch (e) {
    if (e instanceof NamespaceNotFound) throw new PolicyConfigurationError(e.message);
    throw e;
  }
}

/** A policy without matchConstraints never applies; upstream reports it as a configuration error. */
export async function policyMatches(mr: MatchResources | undefined, a: AdmissionAttributes, deps: MatchDeps): Promise<MatchedResource | undefined> {
  if (!mr) throw new PolicyConfigurationError("policy contained no match constraints, a required field");
  return matchResources(mr, a, deps);
}
