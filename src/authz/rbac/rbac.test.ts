import { describe, expect, it } from "vitest";
import type { Attributes } from "../authorizer.js";
import { authorizerConformance } from "../conformance.testkit.js";
import type { KObject } from "../../apimachinery/object.js";
import { decide, rulesFromIndex } from "./authorizer.js";
import { conformancePolicy, rbacConformanceCases } from "./conformance-cases.js";
import { confirmNoEscalation, onlyGCFields } from "./escalation.js";
import { aggregatedRules } from "./aggregation.js";
import { RbacIndex } from "./index.js";
import { compactRules, compactString, covers, ruleAllows } from "./rules.js";

const full = (a: Partial<Attributes> & { user: Attributes["user"] }): Attributes => ({
  verb: "get", isResourceRequest: true, path: "", namespace: "", apiGroup: "", apiVersion: "v1", resource: "", subresource: "", name: "", ...a,
});

authorizerConformance({
  name: "RBAC",
  make: () => {
    const ix = conformancePolicy();
    return { authorize: (a) => decide(ix, a), rulesFor: (u, ns) => rulesFromIndex(ix, u, ns) };
  },
  cases: rbacConformanceCases,
});

describe("RBAC: index follows changes", () => {
  const crb = (name: string, role: string, subjects: object[]) => ({ metadata: { name }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role }, subjects }) as unknown as KObject;
  it("a binding's subjects, role and deletion take effect at once", () => {
    const ix = new RbacIndex();
    const a = full({ user: { name: "u", groups: [] }, verb: "list", resource: "secrets" });
    ix.putClusterRole({ metadata: { name: "r" }, rules: [{ verbs: ["list"], apiGroups: [""], resources: ["secrets"] }] } as unknown as KObject);
    expect(decide(ix, a).decision).toBe("no-opinion");
    ix.putClusterRoleBinding(crb("b", "r", [{ kind: "User", name: "u" }]));
    expect(decide(ix, a)).toEqual({ decision: "allow", reason: 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "u"' });
    ix.putClusterRoleBinding(crb("b", "r", [{ kind: "User", name: "someone-else" }]));
    expect(decide(ix, a).decision).toBe("no-opinion");
    ix.putClusterRoleBinding(crb("b", "r", [{ kind: "Group", name: "g" }, { kind: "User", name: "u" }]));
    expect(decide(ix, { ...a, user: { name: "u", groups: ["g"] } }).reason).toBe('RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "g"');
    ix.deleteClusterRole({ metadata: { name: "r" } } as KObject);
    expect(decide(ix, a)).toEqual({ decision: "no-opinion", reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "r" not found' });
    ix.deleteClusterRoleBinding({ metadata: { name: "b" } } as KObject);
    expect(decide(ix, a)).toEqual({ decision: "no-opinion", reason: "" });
    expect(ix.stats()).toEqual({ clusterRoles: 0, roles: 0, clusterRoleBindings: 0, roleBindings: 0 });
  });

  it("rulesFor splits resource and non-resource rules, cluster then namespace", () => {
    const ix = conformancePolicy();
    const r = rulesFromIndex(ix, { name: "bob", groups: ["ops"] }, "team-a");
    expect(r).toEqual({
      resourceRules: [
        { verbs: ["create", "delete"], apiGroups: ["apps"], resources: ["deployments"] },
        { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] },
      ],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/logs/*"] }],
      incomplete: false,
    });
    expect(rulesFromIndex(ix, { name: "gina", groups: [] }, "team-a").evaluationError).toBe(
      '[clusterrole.rbac.authorization.k8s.io "missing-role" not found, role.rbac.authorization.k8s.io "nope" not found]',
    );
  });
});

describe("RBAC: rule matching details", () => {
  it("the core group is the empty string; * in apiGroups matches it", () => {
    const a = full({ user: { name: "u", groups: [] }, verb: "get", resource: "pods" });
    expect(ruleAllows(a, { verbs: ["get"], apiGroups: [""], resources: ["pods"] })).toBe(true);
    expect(ruleAllows(a, { verbs: ["get"], apiGroups: ["*"], resources: ["pods"] })).toBe(true);
    expect(ruleAllows(a, { verbs: ["get"], apiGroups: ["apps"], resources: ["pods"] })).toBe(false);
    expect(ruleAllows(a, { verbs: ["get"], resources: ["pods"] })).toBe(false);
  });
});

describe("RBAC: escalation comparison", () => {
  it("covers breaks rules down and reports what is missing", () => {
    const owner = [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "*/status"] }, { verbs: ["get"], nonResourceURLs: ["/api/*"] }];
    expect(covers(owner, [{ verbs: ["get"], apiGroups: [""], resources: ["pods", "services/status"] }]).covered).toBe(true);
    expect(covers(owner, [{ verbs: ["get"], nonResourceURLs: ["/api/v1"] }]).covered).toBe(true);
    const r = covers(owner, [{ verbs: ["get", "delete"], apiGroups: ["", "apps"], resources: ["pods"], resourceNames: ["a"] }]);
    expect(r.missing).toEqual([
      { verbs: ["delete"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] },
      { verbs: ["get"], apiGroups: ["apps"], resources: ["pods"], resourceNames: ["a"] },
      { verbs: ["delete"], apiGroups: ["apps"], resources: ["pods"], resourceNames: ["a"] },
    ]);
    expect(compactRules(r.missing).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["delete"]}',
      '{APIGroups:["apps"], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "delete"]}',
    ]);
    // a resourceNames-restricted owner rule does not cover an unrestricted one
    expect(covers([{ verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: ["a"] }], [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]).covered).toBe(false);
  });

  it("confirmNoEscalation words the 403 as upstream", () => {
    const ix = conformancePolicy();
    const msg = confirmNoEscalation(ix, { name: "alice", groups: ["system:authenticated"] }, "", [
      { verbs: ["get", "list", "create"], apiGroups: [""], resources: ["pods", "secrets"] },
      { verbs: ["get"], nonResourceURLs: ["/metrics"] },
    ]);
    expect(msg).toBe(
      'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["create"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "create"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
    expect(confirmNoEscalation(ix, { name: "alice", groups: [] }, "", [{ verbs: ["watch"], apiGroups: [""], resources: ["pods"] }])).toBeUndefined();
    expect(confirmNoEscalation(ix, { name: "gina", groups: [] }, "", [{ verbs: ["watch"], apiGroups: [""], resources: ["pods"] }])).toBe(
      'user "gina" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "missing-role" not found]',
    );
  });

  it("only ownerReferences/finalizers changing is the garbage collector's update", () => {
    const old = { metadata: { name: "r", resourceVersion: "1" }, rules: [] } as unknown as KObject;
    expect(onlyGCFields({ metadata: { name: "r", resourceVersion: "2", finalizers: ["x"] }, rules: [] } as unknown as KObject, old)).toBe(true);
    expect(onlyGCFields({ metadata: { name: "r", labels: { a: "b" } }, rules: [] } as unknown as KObject, old)).toBe(false);
    expect(onlyGCFields({ metadata: { name: "r" }, rules: [{ verbs: ["get"] }] } as unknown as KObject, old)).toBe(false);
  });
});

describe("RBAC: aggregation", () => {
  const cr = (name: string, labels: Record<string, string>, rules: object[], sel?: object[]) =>
    ({ metadata: { name, labels }, rules, ...(sel ? { aggregationRule: { clusterRoleSelectors: sel } } : {}) }) as unknown as KObject;
  it("selectors in order, roles by name, each rule once, itself excluded", () => {
    const agg = cr("agg", { x: "1" }, [{ verbs: ["old"] }], [{ matchLabels: { x: "1" } }, { matchExpressions: [{ key: "y", operator: "Exists" }] }]);
    const all = [
      agg,
      cr("b", { x: "1" }, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]),
      cr("a", { x: "1", y: "" }, [{ verbs: ["list"], apiGroups: [""], resources: ["pods"] }]),
      cr("c", { y: "z" }, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"], resourceNames: [] }, { verbs: ["watch"], apiGroups: [""], resources: ["pods"] }]),
      cr("d", {}, [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]),
    ];
    expect(aggregatedRules(agg, all)).toEqual([
      { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["watch"], apiGroups: [""], resources: ["pods"] },
    ]);
  });
});
