// The RBAC index: roles, cluster roles and bindings of rbac.authorization.k8s.io, kept current
// by informer events (no store read per decision). Bindings are indexed by subject (user name,
// group, service account), so a decision looks only at the bindings naming the user.
//
// Visiting follows upstream's rule resolver (pkg/registry/rbac/validation VisitRulesFor): the
// ClusterRoleBindings that apply to the user, then — for a namespaced request — the
// RoleBindings of that namespace; a binding whose role is missing yields an error
// (`clusterrole.rbac.authorization.k8s.io "x" not found`) and is skipped.
import type { UserInfo } from "../../apimachinery/user.js";
import type { ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import { toPolicyRule, type PolicyRule } from "./rules.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface Binding {
  kind: "ClusterRoleBinding" | "RoleBinding";
  name: string;
  namespace: string;
  roleRef: { kind: string; name: string };
  subjects: Subject[];
}

/** Where a visited rule comes from; `describe()` is upstream's reason text. */
export interface RuleSource {
  binding: Binding;
  subject: Subject;
}

export function describeSource(s: RuleSource): string {
  const b = s.binding;
  if (b.kind === "ClusterRoleBinding") return `ClusterRoleBinding ${goQuote(b.name)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s.subject, "")}`;
  return `RoleBinding ${goQuote(`${b.name}/${b.namespace}`)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s.subject, b.namespace)}`;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** Upstream's appliesToUser; `namespace` is the RoleBinding's (a bare ServiceAccount subject defaults to it). */
export function appliesToUser(user: UserInfo, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case "User":
      return user.name === s.name;
    case "Group":
      return user.groups.includes(s.name);
    case "ServiceAccount": {
      const ns = s.namespace || namespace;
      if (!ns) return false;
      return user.name === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** How the index names missing roles: the informers' listers ("clusterrole…") or the registry ("clusterroles…"). */
export type NotFoundStyle = "lister" | "registry";

export function roleNotFound(kind: string, name: string, style: NotFoundStyle): string {
  const resource = kind === "Role" ? "role" : "clusterrole";
  return `${style === "registry" ? `${resource}s` : resource}.rbac.authorization.k8s.io ${goQuote(name)} not found`;
}

/** Visitor: return false to stop. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, err: string | undefined) => boolean;

/** Bindings of one scope indexed by subject. */
class BindingSet {
  readonly byName = new Map<string, Binding>();
  private readonly byKey = new Map<string, Set<Binding>>();

  constructor(private readonly namespace: string) {}

  private keys(b: Binding): string[] {
    const out: string[] = [];
    for (const s of b.subjects) {
      if (s.kind === "User") out.push(`u:${s.name}`);
      else if (s.kind === "Group") out.push(`g:${s.name}`);
      else if (s.kind === "ServiceAccount") {
        const ns = s.namespace || this.namespace;
        if (ns) out.push(`u:system:serviceaccount:${ns}:${s.name}`);
      }
    }
    return out;
  }

  put(b: Binding): void {
    this.remove(b.name);
    this.byName.set(b.name, b);
    for (const k of this.keys(b)) {
      let set = this.byKey.get(k);
      if (!set) this.byKey.set(k, (set = new Set()));
      set.add(b);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const k of this.keys(old)) {
      const set = this.byKey.get(k);
      set?.delete(old);
      if (set && set.size === 0) this.byKey.delete(k);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  /** The bindings naming the user (by name, a group, or as a service account), each once. */
  forUser(user: UserInfo): Binding[] {
    const out: Binding[] = [];
    const byUser = this.byKey.get(`u:${user.name}`);
    if (byUser) out.push(...byUser);
    let seen: Set<Binding> | undefined;
    for (const g of user.groups) {
      const set = this.byKey.get(`g:${g}`);
      if (!set) continue;
      seen ??= new Set(out);
      for (const b of set) {
        if (seen.has(b)) continue;
        seen.add(b);
        out.push(b);
      }
    }
    return out;
  }
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

function toBinding(o: KObject, kind: Binding["kind"]): Binding {
  const raw = o as unknown as { roleRef?: { kind?: unknown; name?: unknown }; subjects?: unknown };
  const subjects = Array.isArray(raw.subjects)
    ? raw.subjects.map((s: { kind?: unknown; name?: unknown; namespace?: unknown }) => ({ kind: str(s?.kind), name: str(s?.name), namespace: str(s?.namespace) || undefined }))
    : [];
  return {
    kind,
    name: o.metadata.name ?? "",
    namespace: kind === "RoleBinding" ? (o.metadata.namespace ?? "") : "",
    roleRef: { kind: str(raw.roleRef?.kind), name: str(raw.roleRef?.name) },
    subjects,
  };
}

const rulesOf = (o: KObject): PolicyRule[] => {
  const rules = (o as unknown as { rules?: unknown }).rules;
  return Array.isArray(rules) ? rules.map(toPolicyRule) : [];
};

export class RbacIndex {
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly roles = new Map<string, Map<string, PolicyRule[]>>();
  private readonly clusterBindings = new BindingSet("");
  private readonly roleBindings = new Map<string, BindingSet>();

  // ---- updates (from informer events, or directly in unit tests) ----

  putClusterRole(o: KObject): void {
    this.clusterRoles.set(o.metadata.name ?? "", rulesOf(o));
  }
  deleteClusterRole(o: KObject): void {
    this.clusterRoles.delete(o.metadata.name ?? "");
  }
  putRole(o: KObject): void {
    const ns = o.metadata.namespace ?? "";
    let m = this.roles.get(ns);
    if (!m) this.roles.set(ns, (m = new Map()));
    m.set(o.metadata.name ?? "", rulesOf(o));
  }
  deleteRole(o: KObject): void {
    const ns = o.metadata.namespace ?? "";
    const m = this.roles.get(ns);
    m?.delete(o.metadata.name ?? "");
    if (m && m.size === 0) this.roles.delete(ns);
  }
  putClusterRoleBinding(o: KObject): void {
    this.clusterBindings.put(toBinding(o, "ClusterRoleBinding"));
  }
  deleteClusterRoleBinding(o: KObject): void {
    this.clusterBindings.remove(o.metadata.name ?? "");
  }
  putRoleBinding(o: KObject): void {
    const ns = o.metadata.namespace ?? "";
    let set = this.roleBindings.get(ns);
    if (!set) this.roleBindings.set(ns, (set = new BindingSet(ns)));
    set.put(toBinding(o, "RoleBinding"));
  }
  deleteRoleBinding(o: KObject): void {
    const ns = o.metadata.namespace ?? "";
    const set = this.roleBindings.get(ns);
    set?.remove(o.metadata.name ?? "");
    if (set && set.size === 0) this.roleBindings.delete(ns);
  }

  // ---- reads ----

  /** The rules a roleRef grants in `bindingNamespace` ("" for a ClusterRoleBinding), or an error text. */
  roleReferenceRules(ref: { kind: string; name: string }, bindingNamespace: string, style: NotFoundStyle = "lister"): { rules: PolicyRule[] } | { error: string } {
    if (ref.kind === "Role") {
      const rules = this.roles.get(bindingNamespace)?.get(ref.name);
      return rules ? { rules } : { error: roleNotFound("Role", ref.name, style) };
    }
    if (ref.kind === "ClusterRole") {
      const rules = this.clusterRoles.get(ref.name);
      return rules ? { rules } : { error: roleNotFound("ClusterRole", ref.name, style) };
    }
    return { error: `unsupported role reference kind: ${goQuote(ref.kind)}` };
  }

  /** Calls `visit` for every rule that applies to `user` in `namespace`, and every resolution error. */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor, style: NotFoundStyle = "lister"): void {
    const scopes: Array<[BindingSet, string]> = [[this.clusterBindings, ""]];
    if (namespace) {
      const set = this.roleBindings.get(namespace);
      if (set) scopes.push([set, namespace]);
    }
    for (const [set, ns] of scopes) {
      for (const b of set.forUser(user)) {
        const subject = b.subjects.find((s) => appliesToUser(user, s, ns));
        if (!subject) continue;
        const resolved = this.roleReferenceRules(b.roleRef, ns, style);
        if ("error" in resolved) {
          if (!visit(undefined, undefined, resolved.error)) return;
          continue;
        }
        const source: RuleSource = { binding: b, subject };
        for (const rule of resolved.rules) if (!visit(source, rule, undefined)) return;
      }
    }
  }

  /** Every rule for `user` in `namespace`, and the resolution errors (upstream RulesFor). */
  rulesFor(user: UserInfo, namespace: string, style: NotFoundStyle = "lister"): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(
      user,
      namespace,
      (_s, rule, err) => {
        if (rule) rules.push(rule);
        if (err) errors.push(err);
        return true;
      },
      style,
    );
    return { rules, errors };
  }

  /** Counts, for tests and the benchmark. */
  stats(): { clusterRoles: number; roles: number; clusterRoleBindings: number; roleBindings: number } {
    let roles = 0;
    for (const m of this.roles.values()) roles += m.size;
    let roleBindings = 0;
    for (const s of this.roleBindings.values()) roleBindings += s.size;
    return { clusterRoles: this.clusterRoles.size, roles, clusterRoleBindings: this.clusterBindings.size, roleBindings };
  }
}

/** Upstream's utilerrors.NewAggregate message: one error as is, several as "[a, b]", duplicates once. */
export function aggregateMessage(errors: readonly string[]): string {
  const seen = [...new Set(errors)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(", ")}]`;
}

/** The four informers (one absent when its type is not served: nothing of it is indexed). */
export interface RbacInformers {
  roles?: ObjectInformer;
  clusterRoles?: ObjectInformer;
  roleBindings?: ObjectInformer;
  clusterRoleBindings?: ObjectInformer;
}

/**
 * Feeds `index` from the four informers; resolves once every object present at registration
 * has reached the index. Returns the remover of the handlers.
 */
export function followInformers(index: RbacIndex, inf: RbacInformers): { ready: Promise<void>; stop: () => void } {
  const pairs: Array<[ObjectInformer | undefined, (o: KObject) => void, (o: KObject) => void]> = [
    [inf.clusterRoles, (o) => index.putClusterRole(o), (o) => index.deleteClusterRole(o)],
    [inf.roles, (o) => index.putRole(o), (o) => index.deleteRole(o)],
    [inf.clusterRoleBindings, (o) => index.putClusterRoleBinding(o), (o) => index.deleteClusterRoleBinding(o)],
    [inf.roleBindings, (o) => index.putRoleBinding(o), (o) => index.deleteRoleBinding(o)],
  ];
  const removers: Array<() => void> = [];
  const waits: Promise<void>[] = [];
  for (const [informer, put, del] of pairs) {
    if (!informer) continue;
    // A handler added to a synced informer is first given the objects already there: wait for
    // that many `added` calls; otherwise the informer's `synced` covers this handler.
    const alreadySynced = informer.hasSynced();
    let pending = alreadySynced ? informer.size : 0;
    let done!: () => void;
    const initial = new Promise<void>((r) => (done = r));
    if (pending === 0) done();
    removers.push(
      informer.addHandler({
        added: (o) => {
          put(o);
          if (pending > 0 && --pending === 0) done();
        },
        updated: (old, o) => {
          if (old.metadata.name !== o.metadata.name || old.metadata.namespace !== o.metadata.namespace) del(old);
          put(o);
        },
        deleted: (o) => del(o),
      }),
    );
    waits.push(alreadySynced ? initial : informer.synced);
  }
  return { ready: Promise.all(waits).then(() => undefined), stop: () => removers.forEach((r) => r()) };
}
