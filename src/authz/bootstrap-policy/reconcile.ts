// Reconciliation of the default RBAC objects at start (upstream: pkg/registry/rbac/reconciliation
// and the "rbac/bootstrap-roles" post-start hook). Each default object is created when missing;
// when present, its missing rules and subjects are added back and labels/annotations merged (what
// it has beyond the defaults is kept), unless it is annotated autoupdate "false". Aggregated
// ClusterRoles only get their aggregationRule reconciled: their rules are the aggregation
// controller's. A binding whose roleRef changed is deleted and created again (roleRef is
// immutable). All reads are four range reads; the missing objects are created in one transaction.
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { WriteOptions } from "../../registry/store.js";
import type { Stores } from "../../registry/stores.js";
import type { StoredIdentity } from "../../registry/reconciled-batches.js";
import { covers } from "./covers.js";
import { autoUpdateAnnotation, rbacGroup, type BindingObject, type PolicyRule, type RoleObject, type Subject } from "./rules.js";

export interface TypeLookup {
  get(group: string, version: string, resource: string): ResourceType | undefined;
}

export interface ReconcileDeps {
  stores: Stores;
  types: TypeLookup;
  log: (msg: string) => void;
}

export interface DefaultObjects {
  clusterRoles: RoleObject[];
  clusterRoleBindings: BindingObject[];
  roles: RoleObject[];
  roleBindings: BindingObject[];
}

export interface ReconcileSummary {
  created: number;
  updated: number;
  recreated: number;
  protected: number;
  unchanged: number;
}

type Outcome = { op: "none" } | { op: "create"; obj: KObject } | { op: "update"; obj: KObject } | { op: "recreate"; obj: KObject } | { op: "protected"; what: string };

const isProtected = (o: KObject) => o.metadata.annotations?.[autoUpdateAnnotation] === "false";
const json = (x: unknown) => JSON.stringify(x);

/** Expected first, existing on top (the existing object's values win), as upstream merges. */
function mergeMaps(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!expected && !existing) return undefined;
  return { ...(expected ?? {}), ...(existing ?? {}) };
}

/** Labels and annotations after the merge, or undefined when the existing ones already hold the expected. */
function reconciledMeta(expected: KObject, existing: KObject): { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined {
  let out: { labels?: Record<string, string>; annotations?: Record<string, string> } | undefined;
  for (const key of ["labels", "annotations"] as const) {
    const want = expected.metadata[key] as Record<string, string> | undefined;
    const have = existing.metadata[key] as Record<string, string> | undefined;
    if (want && Object.keys(want).some((k) => have?.[k] === undefined)) (out ??= {})[key] = mergeMaps(want, have);
  }
  return out;
}

function reconcileMeta(expected: KObject, existing: KObject, out: KObject): boolean {
  const merged = reconciledMeta(expected, existing);
  if (merged) Object.assign(out.metadata, merged);
  return merged !== undefined;
}

/** The reconciled role for `existing`, or undefined when nothing needs writing. */
export function reconcileRole(expected: RoleObject, existing: RoleObject): { role?: RoleObject; missing: PolicyRule[]; protected: boolean } {
  const meta = reconciledMeta(expected, existing);
  let aggregationRule: RoleObject["aggregationRule"];
  if (expected.aggregationRule) {
    const want = expected.aggregationRule.clusterRoleSelectors;
    const have = existing.aggregationRule?.clusterRoleSelectors;
    if (!have) aggregationRule = structuredClone(expected.aggregationRule);
    else {
      const add = want.filter((w) => !have.some((h) => json(h) === json(w)));
      if (add.length) aggregationRule = { clusterRoleSelectors: [...have, ...structuredClone(add)] };
    }
  }
  // An aggregated role expects no rules of its own: nothing is missing from it.
  const { missing } = covers(existing.rules ?? [], expected.rules ?? []);
  const prot = isProtected(existing);
  if (!meta && !aggregationRule && missing.length === 0) return { missing, protected: prot };
  const out = structuredClone(existing) as RoleObject;
  if (meta) Object.assign(out.metadata, meta);
  if (aggregationRule) out.aggregationRule = aggregationRule;
  if (missing.length) out.rules = [...(existing.rules ?? []), ...missing];
  return { role: out, missing, protected: prot };
}

const subjectKey = (s: Subject) => json([s.kind, s.apiGroup ?? (s.kind === "ServiceAccount" ? "" : rbacGroup), s.name, s.namespace ?? ""]);

export function reconcileBinding(expected: BindingObject, existing: BindingObject): { binding?: BindingObject; recreate: boolean; missing: Subject[]; protected: boolean } {
  const prot = isProtected(existing);
  if (json(expected.roleRef) !== json({ apiGroup: existing.roleRef?.apiGroup, kind: existing.roleRef?.kind, name: existing.roleRef?.name })) {
    // roleRef cannot change: the expected binding replaces it, keeping its labels and annotations
    const out = structuredClone(expected);
    reconcileMeta(expected, existing, out);
    return { binding: out, recreate: true, missing: expected.subjects ?? [], protected: prot };
  }
  const meta = reconciledMeta(expected, existing);
  const have = new Set((existing.subjects ?? []).map(subjectKey));
  const missing = (expected.subjects ?? []).filter((s) => !have.has(subjectKey(s)));
  if (!meta && missing.length === 0) return { recreate: false, missing, protected: prot };
  const out = structuredClone(existing) as BindingObject;
  if (meta) Object.assign(out.metadata, meta);
  if (missing.length) out.subjects = [...(existing.subjects ?? []), ...structuredClone(missing)];
  return { binding: out, recreate: false, missing, protected: prot };
}

const kindLabel = (t: ResourceType) => `${t.resource}.${t.group}`;
const keyOf = (o: KObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

async function existingObjects(stores: Stores, t: ResourceType): Promise<Map<string, KObject>> {
  const { items } = await stores.for(t).listStored("");
  const out = new Map<string, KObject>();
  for (const { object } of items) out.set(keyOf(object), object);
  return out;
}

/** The four kinds of default objects, each with its type (undefined: not served) and shape. */
function groupsOf(types: TypeLookup, objects: DefaultObjects): [ResourceType | undefined, KObject[], "role" | "binding"][] {
  return [
    [types.get(rbacGroup, "v1", "clusterroles"), objects.clusterRoles, "role"],
    [types.get(rbacGroup, "v1", "clusterrolebindings"), objects.clusterRoleBindings, "binding"],
    [types.get(rbacGroup, "v1", "roles"), objects.roles, "role"],
    [types.get(rbacGroup, "v1", "rolebindings"), objects.roleBindings, "binding"],
  ];
}

const served = (groups: [ResourceType | undefined, KObject[], "role" | "binding"][]) => groups.filter((g): g is [ResourceType, KObject[], "role" | "binding"] => g[0] !== undefined);

/**
 * Creates or reconciles every default object; throws when a write fails (a start-up error, as
 * upstream's hook). `objects` may be given as the function that builds them, with the name of
 * their batch: when none of them is stored yet (a first start), they are created as one batch
 * (Stores.createBatch), which a start from kept forms writes without building them.
 */
export async function reconcileObjects(deps: ReconcileDeps, objects: DefaultObjects | { batch: string; build: () => DefaultObjects }): Promise<ReconcileSummary> {
  const { stores, types, log } = deps;
  const summary: ReconcileSummary = { created: 0, updated: 0, recreated: 0, protected: 0, unchanged: 0 };
  // The types are known without the objects: an empty list stands in for them until built.
  const none: DefaultObjects = { clusterRoles: [], clusterRoleBindings: [], roles: [], roleBindings: [] };
  const lazy = "batch" in objects ? objects : undefined;
  const typed = served(groupsOf(types, lazy ? none : (objects as DefaultObjects)));
  let existing = await Promise.all(typed.map(([t]) => existingObjects(stores, t)));
  const opts: WriteOptions = { dryRun: false };
  if (lazy && existing.every((m) => m.size === 0)) {
    // Each object its own copy, in the order the general path writes them: the stages change it in place.
    const creates = () => served(groupsOf(types, lazy.build())).flatMap(([type, list]) => list.map((o) => ({ type, namespace: o.metadata.namespace ?? "", object: structuredClone(o) })));
    const created = await stores.createBatch(lazy.batch, creates, opts).catch(() => undefined);
    if (created !== undefined) return { ...summary, created };
    // Another replica wrote some meanwhile: reconciled against what is stored now, as below.
    existing = await Promise.all(typed.map(([t]) => existingObjects(stores, t)));
  }
  // A restart whose batch is stored as a reconciliation that had nothing to do left it: nothing to do again.
  const reconciled = lazy ? stores.reconciledBatches : undefined;
  const kept = reconciled?.unchanged(lazy!.batch, (resource, key) => existing[typed.findIndex(([t]) => t.resource === resource)]?.get(key)?.metadata);
  if (kept !== undefined) return { ...summary, unchanged: kept };
  const all = lazy ? lazy.build() : (objects as DefaultObjects);
  const writes: Promise<unknown>[] = [];
  const failures: string[] = [];
  // Missing objects (every one, on a first start) go in one transaction; changes one by one.
  const creates: { type: ResourceType; namespace: string; object: KObject; expected: KObject; what: string; one: ObjectWrites }[] = [];
  served(groupsOf(types, all)).forEach(([t, expectedList, shape], i) => {
    for (const expected of expectedList) {
      const ns = expected.metadata.namespace ?? "";
      const name = expected.metadata.name!;
      const current = existing[i].get(keyOf(expected));
      const outcome = decide(shape, expected, current);
      const what = `${kindLabel(t)}/${ns ? `${ns}/` : ""}${name}`;
      const one = objectWrites(stores, t, shape, expected, opts);
      if (outcome.op === "none") summary.unchanged++;
      else if (outcome.op === "protected") {
        summary.protected++;
        log(`kapi: skipped reconcile-protected ${what} (${outcome.what})`);
      } else if (outcome.op === "create") {
        creates.push({ type: t, namespace: ns, object: outcome.obj, expected, what, one });
      } else {
        const write = async () => {
          if (outcome.op === "recreate") {
            // Only the object read: one another replica recreated already is left alone.
            const replaced = await stores.for(t).delete(ns, name, { dryRun: false, preconditions: { uid: current!.metadata.uid } }).then(
              () => true,
              (e) => (isReason(e, "NotFound") ? true : isReason(e, "Conflict") ? false : Promise.reject(e)),
            );
            if (replaced && (await one.create(outcome.obj))) summary.recreated++;
          } else {
            await one.update();
            summary.updated++;
          }
        };
        writes.push(write().catch((e: Error) => void failures.push(`${what}: ${e?.message ?? String(e)}`)));
      }
    }
  });
  if (creates.length) {
    writes.push(
      // Each object is decide's own copy: the create's stages may change it in place.
      stores.createAll(creates.map(({ type, namespace, object }) => ({ type, namespace, object })), opts).then(
        () => void (summary.created += creates.length),
        // A replica starting at the same time created some of them first: one by one then, each
        // one another replica made reconciled as it is. (A first start's objects are more than
        // one etcd commit takes: those of a commit that went through are found as made.)
        () =>
          Promise.all(
            creates.map((c) =>
              c.one.create(structuredClone(c.expected)).then(
                (made) => void (made && summary.created++),
                (e: Error) => void failures.push(`${c.what}: ${e?.message ?? String(e)}`),
              ),
            ),
          ),
      ),
    );
  }
  await Promise.all(writes);
  if (failures.length) throw new Error(`unable to initialize RBAC bootstrap policy: ${failures.join("; ")}`);
  // Nothing written and nothing protected (whose log line every start repeats, as upstream's): recorded for the next start.
  if (reconciled && writes.length === 0 && creates.length === 0 && summary.protected === 0) {
    const stored: StoredIdentity[] = [];
    served(groupsOf(types, all)).forEach(([t, expectedList], i) => {
      for (const expected of expectedList) {
        const key = keyOf(expected);
        const m = existing[i].get(key)?.metadata;
        if (!m?.uid || !m.resourceVersion) return;
        stored.push([t.resource, key, m.uid, m.resourceVersion]);
      }
    });
    if (stored.length === summary.unchanged) reconciled.record(lazy!.batch, stored);
  }
  return summary;
}

const isReason = (e: unknown, reason: string) => (e as { reason?: string })?.reason === reason;

interface ObjectWrites {
  /** Brings the stored object in line (recomputed from it after a lost race; created when gone). */
  update(): Promise<unknown>;
  /** True when this replica created it; false when another had, and it was reconciled instead. */
  create(obj: KObject): Promise<boolean>;
}

/** One default object's writes, safe when replicas reconcile at once (upstream retries its reconcile). */
function objectWrites(stores: Stores, t: ResourceType, shape: "role" | "binding", expected: KObject, opts: WriteOptions): ObjectWrites {
  const ns = expected.metadata.namespace ?? "";
  const name = expected.metadata.name!;
  const update = () =>
    stores.for(t).update(ns, name, {
      subresource: "",
      createIfMissing: true,
      desired: (cur) => {
        if (!cur) return structuredClone(expected);
        const again = decide(shape, expected, cur);
        return again.op === "update" ? again.obj : cur;
      },
    }, opts);
  return {
    update,
    create: (obj) =>
      stores.for(t).create(ns, obj, opts).then(
        () => true,
        (e) => (isReason(e, "AlreadyExists") ? update().then(() => false) : Promise.reject(e)),
      ),
  };
}

function decide(shape: "role" | "binding", expected: KObject, current: KObject | undefined): Outcome {
  if (!current) return { op: "create", obj: structuredClone(expected) };
  if (shape === "role") {
    const r = reconcileRole(expected as RoleObject, current as RoleObject);
    if (!r.role) return { op: "none" };
    if (r.protected) return { op: "protected", what: r.missing.length ? `missing ${r.missing.length} permission(s)` : "labels, annotations or aggregation differ" };
    return { op: "update", obj: r.role };
  }
  const b = reconcileBinding(expected as BindingObject, current as BindingObject);
  if (!b.binding) return { op: "none" };
  if (b.protected) return { op: "protected", what: b.recreate ? "roleRef differs" : `missing ${b.missing.length} subject(s)` };
  return b.recreate ? { op: "recreate", obj: b.binding } : { op: "update", obj: b.binding };
}
