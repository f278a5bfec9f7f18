// The RBAC authorizer (upstream plugin/pkg/auth/authorizer/rbac): allow when a rule bound to the
// user allows the request — reason `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r"
// to User "u"` — else no opinion, the reason listing the roles that could not be resolved
// (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`) or empty. Decisions read only
// the index; it is built on first use from the four informers and kept current by them.
import type { UserInfo } from "../../apimachinery/user.js";
import type { Attributes, Authorizer, AuthzResult, NonResourceRule, ResourceRule, RulesResult } from "../authorizer.js";
import { aggregateMessage, describeSource, followInformers, RbacIndex, type RbacInformers, type RuleSource } from "./index.js";
import { ruleAllows } from "./rules.js";

export interface RbacAuthorizerDeps {
  /** The informers of roles, clusterroles, rolebindings and clusterrolebindings (called on first use). */
  informers(): RbacInformers;
}

export interface RbacAuthorizer extends Authorizer {
  readonly index: RbacIndex;
  /** Starts following the informers (once); resolves when the index holds what they held. */
  ready(): Promise<void>;
  /** True once ready() resolved. */
  isReady(): boolean;
  rulesFor(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult>;
  stop(): void;
}

/** A decision from the index alone (exported for the unit tests and the benchmark). */
export function decide(index: RbacIndex, a: Attributes): AuthzResult {
  let allowedBy: RuleSource | undefined;
  let errors: string[] | undefined;
  index.visitRulesFor(a.user, a.namespace, (source, rule, err) => {
    if (rule && source && ruleAllows(a, rule)) {
      allowedBy = source;
      return false;
    }
    if (err) (errors ??= []).push(err);
    return true;
  });
  if (allowedBy) return { decision: "allow", reason: `RBAC: allowed by ${describeSource(allowedBy)}` };
  return { decision: "no-opinion", reason: errors ? `RBAC: ${aggregateMessage(errors)}` : "" };
}

/** SelfSubjectRulesReview's view of the index (upstream RBACAuthorizer.RulesFor). */
export function rulesFromIndex(index: RbacIndex, user: UserInfo, namespace: string): RulesResult {
  const { rules, errors } = index.rulesFor(user, namespace);
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const r of rules) {
    if ((r.resources ?? []).length > 0) {
      const rr: ResourceRule = { verbs: r.verbs };
      if ((r.apiGroups ?? []).length > 0) rr.apiGroups = r.apiGroups;
      rr.resources = r.resources;
      if ((r.resourceNames ?? []).length > 0) rr.resourceNames = r.resourceNames;
      resourceRules.push(rr);
    }
    if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
  }
  const out: RulesResult = { resourceRules, nonResourceRules, incomplete: false };
  if (errors.length > 0) out.evaluationError = aggregateMessage(errors);
  return out;
}

export function createRbacAuthorizer(deps: RbacAuthorizerDeps): RbacAuthorizer {
  const index = new RbacIndex();
  let readyP: Promise<void> | undefined;
  let ready = false;
  let stopFollowing: (() => void) | undefined;
  const start = () =>
    (readyP ??= (async () => {
      const f = followInformers(index, deps.informers());
      stopFollowing = f.stop;
      await f.ready;
      ready = true;
    })());
  return {
    index,
    ready: start,
    isReady: () => ready,
    authorize(a: Attributes): AuthzResult | Promise<AuthzResult> {
      if (ready) return decide(index, a);
      return start().then(() => decide(index, a));
    },
    rulesFor(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult> {
      if (ready) return rulesFromIndex(index, user, namespace);
      return start().then(() => rulesFromIndex(index, user, namespace));
    },
    stop: () => stopFollowing?.(),
  };
}
