import { describe, expect, it } from "vitest";
import { covers } from "../rbac/rules.js";
import { bootstrapPolicy, reconcileBinding, reconcileRole, type BindingObject, type PolicyRule, type RoleObject } from "./index.js";
import { readTable } from "./table.testkit.js";

const policy = bootstrapPolicy();
const table = readTable();
const allRoles = [...policy.clusterRoles, ...policy.roles];
const allBindings = [...policy.clusterRoleBindings, ...policy.roleBindings];
const id = (kind: string, ns: string | undefined, name: string) => `${kind} ${ns ? `${ns}/` : ""}${name}`;
const tuple = (r: PolicyRule) =>
  r.nonResourceURLs ? `u ${r.nonResourceURLs.join(",")}|${r.verbs.join(",")}` : `r ${r.apiGroups!.join(",")}|${r.resources!.join(",")}|${r.verbs.join(",")}|${(r.resourceNames ?? []).join(",")}`;

describe("bootstrap policy = upstream 1.34, rule by rule", () => {
  it("has exactly upstream's objects", () => {
    const ours = [...allRoles.map((r) => id(r.kind!, r.metadata.namespace, r.metadata.name!)), ...allBindings.map((b) => id(b.kind!, b.metadata.namespace, b.metadata.name!))].sort();
    const theirs = [...table.roles.map((r) => id(r.kind, r.namespace, r.name)), ...table.bindings.map((b) => id(b.kind, b.namespace, b.name))].sort();
    expect(ours).toEqual(theirs);
    expect(new Set(ours).size).toBe(ours.length);
  });

  for (const t of table.roles) {
    it(`${id(t.kind, t.namespace, t.name)}`, () => {
      const r = allRoles.find((o) => o.kind === t.kind && (o.metadata.namespace ?? "") === t.namespace && o.metadata.name === t.name)!;
      expect(r, "missing").toBeDefined();
      expect((r.rules ?? []).map(tuple)).toEqual(t.rules.map(tuple));
      expect(r.metadata.labels).toEqual({ ...t.labels, "kubernetes.io/bootstrapping": "rbac-defaults" });
      expect(r.metadata.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
      if (t.aggregate) {
        expect(r.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { [t.aggregate]: "true" } }] });
        expect(r.rules).toBeUndefined();
      } else expect(r.aggregationRule).toBeUndefined();
    });
  }

  for (const t of table.bindings) {
    it(`${id(t.kind, t.namespace, t.name)}`, () => {
      const b = allBindings.find((o) => o.kind === t.kind && (o.metadata.namespace ?? "") === t.namespace && o.metadata.name === t.name)!;
      expect(b, "missing").toBeDefined();
      expect(b.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", ...t.roleRef });
      expect(b.subjects ?? []).toEqual(t.subjects);
      expect(b.metadata.labels).toEqual({ "kubernetes.io/bootstrapping": "rbac-defaults" });
      expect(b.metadata.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
    });
  }
});

describe("aggregated user-facing roles", () => {
  // What the aggregation controller would put in admin/edit/view: the rules of every role
  // carrying the role's selector label (edit carries admin's, view carries edit's).
  const aggregated = (name: string, seen = new Set<string>()): PolicyRule[] => {
    const role = policy.clusterRoles.find((r) => r.metadata.name === name)!;
    if (!role.aggregationRule) return role.rules ?? [];
    const label = Object.keys(role.aggregationRule.clusterRoleSelectors[0].matchLabels)[0];
    return policy.clusterRoles
      .filter((r) => r.metadata.labels?.[label] === "true" && !seen.has(r.metadata.name!))
      .flatMap((r) => (seen.add(r.metadata.name!), aggregated(r.metadata.name!, seen)));
  };
  const allows = (rules: PolicyRule[], verb: string, group: string, resource: string) => covers(rules, [{ verbs: [verb], apiGroups: [group], resources: [resource] }]).covered;

  it("view never reads Secrets; edit and admin do", () => {
    for (const v of ["get", "list", "watch"]) {
      expect(allows(aggregated("view"), v, "", "secrets")).toBe(false);
      expect(allows(aggregated("edit"), v, "", "secrets")).toBe(true);
      expect(allows(aggregated("admin"), v, "", "secrets")).toBe(true);
    }
  });

  it("admin and edit read EndpointSlices and Endpoints but never write them", () => {
    for (const name of ["admin", "edit", "view"]) {
      const rules = aggregated(name);
      expect(allows(rules, "list", "discovery.k8s.io", "endpointslices")).toBe(true);
      for (const v of ["create", "update", "patch", "delete", "deletecollection"]) {
        expect(allows(rules, v, "discovery.k8s.io", "endpointslices"), `${name} ${v} endpointslices`).toBe(false);
        expect(allows(rules, v, "", "endpoints"), `${name} ${v} endpoints`).toBe(false);
      }
    }
  });

  it("only admin manages roles and bindings; edit impersonates service accounts", () => {
    expect(allows(aggregated("admin"), "create", "rbac.authorization.k8s.io", "rolebindings")).toBe(true);
    expect(allows(aggregated("edit"), "create", "rbac.authorization.k8s.io", "rolebindings")).toBe(false);
    expect(allows(aggregated("edit"), "impersonate", "", "serviceaccounts")).toBe(true);
    expect(allows(aggregated("view"), "impersonate", "", "serviceaccounts")).toBe(false);
  });
});

describe("reconciliation of one object", () => {
  const clone = <T>(x: T): T => structuredClone(x);
  const basic = policy.clusterRoles.find((r) => r.metadata.name === "system:basic-user")!;

  it("an identical object needs nothing", () => {
    for (const r of allRoles) expect(reconcileRole(r, clone(r)).role, r.metadata.name).toBeUndefined();
    for (const b of allBindings) expect(reconcileBinding(b, clone(b)).binding, b.metadata.name).toBeUndefined();
  });

  it("restores a missing rule (as broken-down tuples) and keeps extra ones", () => {
    const existing = clone(basic);
    const extra = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
    existing.rules = [existing.rules![0], extra];
    const r = reconcileRole(basic, existing);
    expect(r.role).toBeDefined();
    expect(r.role!.rules!.slice(0, 2)).toEqual([basic.rules![0], extra]);
    expect(r.missing).toEqual([{ verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] }]);
    expect(covers(r.role!.rules!, basic.rules!).covered).toBe(true);
  });

  it("a rule covered by a broader existing rule is not missing", () => {
    const existing = clone(basic);
    existing.rules = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }];
    expect(reconcileRole(basic, existing).role).toBeUndefined();
  });

  it("merges labels and annotations, the existing values winning", () => {
    const existing = clone(basic);
    existing.metadata.labels = { mine: "x" };
    existing.metadata.annotations = { [`rbac.authorization.kubernetes.io/autoupdate`]: "true", note: "kept" };
    const r = reconcileRole(basic, existing).role!;
    expect(r.metadata.labels).toEqual({ mine: "x", "kubernetes.io/bootstrapping": "rbac-defaults" });
    expect(r.metadata.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true", note: "kept" });
    const changed = clone(basic);
    changed.metadata.labels = { "kubernetes.io/bootstrapping": "mine" };
    expect(reconcileRole(basic, changed).role).toBeUndefined();
  });

  it("autoupdate=false is reported protected", () => {
    const existing = clone(basic);
    existing.rules = [];
    existing.metadata.annotations = { "rbac.authorization.kubernetes.io/autoupdate": "false" };
    expect(reconcileRole(basic, existing).protected).toBe(true);
  });

  it("aggregated roles: only the aggregationRule is reconciled, their rules are left alone", () => {
    const admin = policy.clusterRoles.find((r) => r.metadata.name === "admin")!;
    const filled: RoleObject = { ...clone(admin), rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] };
    expect(reconcileRole(admin, filled).role).toBeUndefined();
    const lost: RoleObject = clone(filled);
    delete lost.aggregationRule;
    const r = reconcileRole(admin, lost).role!;
    expect(r.aggregationRule).toEqual(admin.aggregationRule);
    expect(r.rules).toEqual(filled.rules);
    const more: RoleObject = clone(filled);
    more.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { other: "true" } }] };
    expect(reconcileRole(admin, more).role!.aggregationRule!.clusterRoleSelectors).toEqual([{ matchLabels: { other: "true" } }, ...admin.aggregationRule!.clusterRoleSelectors]);
  });

  it("bindings: missing subjects restored, extra kept; a changed roleRef means recreate", () => {
    const piv = policy.clusterRoleBindings.find((b) => b.metadata.name === "system:public-info-viewer")!;
    const existing: BindingObject = clone(piv);
    existing.subjects = [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "someone" }, piv.subjects![1]];
    const r = reconcileBinding(piv, existing);
    expect(r.recreate).toBe(false);
    expect(r.binding!.subjects).toEqual([existing.subjects[0], piv.subjects![1], piv.subjects![0]]);
    const moved: BindingObject = clone(piv);
    moved.roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" };
    const m = reconcileBinding(piv, moved);
    expect(m.recreate).toBe(true);
    expect(m.binding!.roleRef.name).toBe("system:public-info-viewer");
    // a ServiceAccount subject stored without apiGroup is the same subject
    const kd = policy.clusterRoleBindings.find((b) => b.metadata.name === "system:kube-dns")!;
    const stored: BindingObject = clone(kd);
    stored.subjects = [{ ...kd.subjects![0], apiGroup: "" }];
    expect(reconcileBinding(kd, stored).binding).toBeUndefined();
  });
});
