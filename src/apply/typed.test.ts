import { describe, expect, it } from "vitest";
import { getDefinition } from "../encoding/schema/schema-facts.js";
import { FieldSet, fieldElement as f, pathString } from "./fieldpath.js";
import { SchemaContext } from "./schema.js";
import { compare, ensureNamedFieldsAreMembers, merge, reconcileFieldSetWithSchema, removeItems, toFieldSet } from "./typed.js";

const ctx = new SchemaContext(getDefinition);
const DEPLOYMENT = { $ref: "io.k8s.api.apps.v1.Deployment" };
const paths = (s: FieldSet) => s.paths().map(pathString);

const pod = (containers: unknown[]) => ({ spec: { template: { spec: { containers } } } });

describe("toFieldSet", () => {
  it("records leaves, list items (with their key fields) and atomic values as leaves", () => {
    const obj = {
      metadata: { labels: { app: "x" }, finalizers: ["a"] },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "x" } },
        strategy: {},
        ...pod([{ name: "c", image: "i", args: ["-v"], ports: [{ containerPort: 8080 }] }]).spec,
      },
    };
    expect(paths(toFieldSet(ctx, obj, DEPLOYMENT))).toEqual([
      ".metadata.finalizers[=\"a\"]",
      ".metadata.labels.app",
      ".spec.replicas",
      ".spec.selector",
      ".spec.strategy",
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].args',
      '.spec.template.spec.containers[name="c"].image',
      '.spec.template.spec.containers[name="c"].name',
      '.spec.template.spec.containers[name="c"].ports[containerPort=8080,protocol="TCP"]',
      '.spec.template.spec.containers[name="c"].ports[containerPort=8080,protocol="TCP"].containerPort',
    ]);
  });

  it("int-or-string and quantities are scalars; resources maps are granular", () => {
    const obj = {
      spec: {
        strategy: { rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
        ...pod([{ name: "c", resources: { limits: { cpu: "1" } } }]).spec,
      },
    };
    expect(paths(toFieldSet(ctx, obj, DEPLOYMENT))).toEqual([
      ".spec.strategy.rollingUpdate.maxSurge",
      ".spec.strategy.rollingUpdate.maxUnavailable",
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].name',
      '.spec.template.spec.containers[name="c"].resources.limits.cpu',
    ]);
  });
});

describe("compare", () => {
  it("splits changes into added (with new parents), modified and removed", () => {
    const a = { spec: { replicas: 1, paused: false, ...pod([{ name: "c", image: "1" }]).spec } };
    const b = { metadata: { labels: { x: "y" } }, spec: { replicas: 2, ...pod([{ name: "c", image: "1" }, { name: "d" }]).spec } };
    const c = compare(ctx, a, b, DEPLOYMENT);
    expect(paths(c.added)).toEqual([
      ".metadata",
      ".metadata.labels",
      ".metadata.labels.x",
      '.spec.template.spec.containers[name="d"]',
      '.spec.template.spec.containers[name="d"].name',
    ]);
    expect(paths(c.modified)).toEqual([".spec.replicas"]);
    expect(paths(c.removed)).toEqual([".spec.paused"]);
  });

  it("compares lists of at most one item each side as it compares longer ones", () => {
    // The longer lists hold one more item, unchanged: it adds no path, so both must agree.
    const withSpare = (items: unknown[]) => [...items, { name: "spare", image: "s" }];
    const finalizers = (items: string[]) => ({ metadata: { finalizers: items } });
    const cases: [unknown[], unknown[]][] = [
      [[], [{ name: "c", image: "1", ports: [{ containerPort: 80 }] }]],
      [[{ name: "c", image: "1", ports: [{ containerPort: 80 }] }], []],
      [[{ name: "c", image: "1" }], [{ name: "c", image: "2", args: ["-v"] }]],
      [[{ name: "c", image: "1" }], [{ name: "d", image: "1" }]],
      [[{ name: "c", image: "1" }], [{ name: "c", image: "1" }]],
    ];
    for (const [l, r] of cases) {
      const short = compare(ctx, pod(l), pod(r), DEPLOYMENT);
      const long = compare(ctx, pod(withSpare(l)), pod(withSpare(r)), DEPLOYMENT);
      for (const k of ["added", "modified", "removed"] as const) expect(paths(short[k]), `${k} ${JSON.stringify([l, r])}`).toEqual(paths(long[k]));
    }
    for (const [l, r] of [[[], ["a"]], [["a"], []], [["a"], ["b"]], [["a"], ["a"]]] as [string[], string[]][]) {
      const short = compare(ctx, finalizers(l), finalizers(r), DEPLOYMENT);
      const long = compare(ctx, finalizers([...l, "z"]), finalizers([...r, "z"]), DEPLOYMENT);
      for (const k of ["added", "modified", "removed"] as const) expect(paths(short[k]), `${k} ${JSON.stringify([l, r])}`).toEqual(paths(long[k]));
    }
    expect(paths(compare(ctx, pod([{ name: "c", image: "1" }]), pod([{ name: "d" }]), DEPLOYMENT).removed)).toEqual([
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].image',
      '.spec.template.spec.containers[name="c"].name',
    ]);
    // An item without its key fields is refused either way.
    expect(() => compare(ctx, pod([]), pod([{ image: "1" }]), DEPLOYMENT)).toThrow(/element 0: associative list with keys has an element that omits all key fields/);
  });

  it("atomic values change as a whole", () => {
    const c = compare(ctx, { spec: { selector: { matchLabels: { a: "1" } } } }, { spec: { selector: { matchLabels: { a: "2" } } } }, DEPLOYMENT);
    expect(paths(c.modified)).toEqual([".spec.selector"]);
  });
});

describe("merge and removeItems", () => {
  it("keeps live order and appends new list-map items", () => {
    const live = pod([{ name: "a", image: "1" }, { name: "b", image: "1" }]);
    const cfg = pod([{ name: "c" }, { name: "a", image: "2" }]);
    const out = merge(ctx, live, cfg, DEPLOYMENT) as ReturnType<typeof pod>;
    expect(out.spec.template.spec.containers).toEqual([{ name: "c" }, { name: "a", image: "2" }, { name: "b", image: "1" }]);
  });

  it("removes fields, items and entries; emptied maps become null", () => {
    const obj = { metadata: { labels: { a: "1" }, finalizers: ["x", "y"] }, spec: { replicas: 1 } };
    const set = FieldSet.of([f("metadata"), f("labels"), f("a")], [f("metadata"), f("finalizers"), { kind: "value", value: "x" }]);
    expect(removeItems(ctx, obj, set, DEPLOYMENT)).toEqual({ metadata: { labels: null, finalizers: ["y"] }, spec: { replicas: 1 } });
  });

  it("ensureNamedFieldsAreMembers adds declared struct fields above owned leaves", () => {
    const s = FieldSet.of([f("spec"), f("replicas")], [f("metadata"), f("labels"), f("a")]);
    expect(paths(ensureNamedFieldsAreMembers(ctx, s, DEPLOYMENT))).toEqual([".metadata", ".spec", ".metadata.labels", ".metadata.labels.a", ".spec.replicas"]);
  });

  it("reconciles sets with atomic types: owning part of an atomic value means owning it all", () => {
    const s = FieldSet.of([f("spec"), f("selector"), f("matchLabels"), f("a")], [f("spec"), f("replicas")]);
    expect(paths(reconcileFieldSetWithSchema(ctx, s, DEPLOYMENT)!)).toEqual([".spec.replicas", ".spec.selector"]);
    expect(reconcileFieldSetWithSchema(ctx, FieldSet.of([f("spec"), f("selector")]), DEPLOYMENT)).toBeUndefined();
  });
});
