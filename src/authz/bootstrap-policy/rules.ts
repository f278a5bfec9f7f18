// Building blocks of the bootstrap policy: a policy-rule builder (verbs, groups, resources, names
// and URLs sorted and deduplicated, as upstream's builder does) and the object
// constructors that stamp every default object with upstream's label and annotation.
import type { KObject } from "../../apimachinery/object.js";
import type { PolicyRule } from "../rbac/rules.js";

export const rbacGroup = "rbac.authorization.k8s.io";
export const bootstrapLabel = "kubernetes.io/bootstrapping";
export const bootstrapLabelValue = "rbac-defaults";
export const autoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate";

export type { PolicyRule };

export interface Subject {
  kind: "User" | "Group" | "ServiceAccount";
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: "Role" | "ClusterRole";
  name: string;
}

export interface RoleObject extends KObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] };
}

export interface BindingObject extends KObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}

/** Verb sets used throughout the policy. */
export const Read = ["get", "list", "watch"];
export const Write = ["create", "update", "patch", "delete", "deletecollection"];
export const ReadWrite = [...Read, ...Write];
export const ReadUpdate = ["get", "list", "watch", "update", "patch"];

const sorted = (xs: readonly string[]) => [...new Set(xs)].sort();

/** `rule("get").groups("").resources("pods").build()`; builds fail loudly on a malformed rule. */
export class RuleBuilder {
  private g: string[] = [];
  private r: string[] = [];
  private n: string[] = [];
  private u: string[] = [];
  constructor(private readonly v: readonly string[]) {}
  groups(...g: string[]): this {
    this.g.push(...g);
    return this;
  }
  resources(...r: string[]): this {
    this.r.push(...r);
    return this;
  }
  names(...n: string[]): this {
    this.n.push(...n);
    return this;
  }
  urls(...u: string[]): this {
    this.u.push(...u);
    return this;
  }
  build(): PolicyRule {
    if (this.v.length === 0) throw new Error("bootstrap policy: a rule needs verbs");
    if (this.u.length > 0) {
      if (this.g.length || this.r.length || this.n.length) throw new Error("bootstrap policy: a non-resource rule names no groups, resources or names");
      return { verbs: sorted(this.v), nonResourceURLs: sorted(this.u) };
    }
    if (this.g.length === 0 || this.r.length === 0) throw new Error("bootstrap policy: a resource rule needs groups and resources");
    const out: PolicyRule = { verbs: sorted(this.v), apiGroups: sorted(this.g), resources: sorted(this.r) };
    if (this.n.length) out.resourceNames = sorted(this.n);
    return out;
  }
}

export const rule = (...verbs: string[]) => new RuleBuilder(verbs);

/** The events rule every controller carries (core and events.k8s.io). */
export const eventsRule = () => rule("create", "update", "patch").groups("", "events.k8s.io").resources("events").build();

function defaultMetadata(name: string, namespace?: string, labels: Record<string, string> = {}) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...labels, [bootstrapLabel]: bootstrapLabelValue },
    annotations: { [autoUpdateAnnotation]: "true" },
  };
}

export function clusterRole(name: string, rules: PolicyRule[], opts: { labels?: Record<string, string>; aggregateFrom?: string } = {}): RoleObject {
  const role: RoleObject = { apiVersion: `${rbacGroup}/v1`, kind: "ClusterRole", metadata: defaultMetadata(name, undefined, opts.labels) };
  if (opts.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [opts.aggregateFrom]: "true" } }] };
  else role.rules = rules;
  return role;
}

export function role(namespace: string, name: string, rules: PolicyRule[]): RoleObject {
  return { apiVersion: `${rbacGroup}/v1`, kind: "Role", metadata: defaultMetadata(name, namespace), rules };
}

export const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: "User", apiGroup: rbacGroup, name }));
export const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: "Group", apiGroup: rbacGroup, name }));
export const serviceAccount = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", name, namespace });

export function clusterRoleBinding(roleName: string, subjects: Subject[], name = roleName): BindingObject {
  const b: BindingObject = {
    apiVersion: `${rbacGroup}/v1`,
    kind: "ClusterRoleBinding",
    metadata: defaultMetadata(name),
    roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name: roleName },
  };
  if (subjects.length) b.subjects = subjects;
  return b;
}

export function roleBinding(namespace: string, roleName: string, subjects: Subject[], name = roleName): BindingObject {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: "RoleBinding",
    metadata: defaultMetadata(name, namespace),
    roleRef: { apiGroup: rbacGroup, kind: "Role", name: roleName },
    subjects,
  };
}
