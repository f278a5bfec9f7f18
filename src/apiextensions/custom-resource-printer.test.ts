import { describe, expect, it } from "vitest";
import { customResourcePrinter, findValues, parseJsonPath } from "./custom-resource-printer.js";
import { compareKubeVersions } from "./custom-resource-type.js";

describe("printer column JSONPath", () => {
  const obj = { metadata: { name: "a", labels: { "app.kubernetes.io/name": "x" } }, spec: { list: [{ n: 1 }, { n: 2 }], flag: true, ratio: 0.5 } };
  it.each([
    [".spec.list[1].n", [2]],
    ["{.spec.list[*].n}", [1, 2]],
    [".metadata.labels['app.kubernetes.io/name']", ["x"]],
    [".spec.missing", []],
    [".spec.list[-1].n", [2]],
  ])("%s", (path, want) => expect(findValues(obj, parseJsonPath(path))).toEqual(want));

  it("shapes cells by type and defaults to Name/Age", () => {
    const now = new Date("2026-01-01T00:10:00Z");
    const p = customResourcePrinter([
      { name: "N", type: "integer", jsonPath: ".spec.list[0].n" },
      { name: "F", type: "boolean", jsonPath: ".spec.flag" },
      { name: "R", type: "number", jsonPath: ".spec.ratio" },
      { name: "S", type: "string", jsonPath: ".spec.list" },
      { name: "Missing", type: "string", jsonPath: ".spec.nope" },
    ]);
    expect(p.columns.map((c) => c.name)).toEqual(["Name", "N", "F", "R", "S", "Missing"]);
    expect(p.cells(obj, now)).toEqual(["a", 1, true, 0.5, '[{"n":1},{"n":2}]', null]);
    const d = customResourcePrinter(undefined);
    expect(d.columns.map((c) => `${c.name}/${c.type}`)).toEqual(["Name/string", "Age/date"]);
    expect(d.cells({ metadata: { name: "b", creationTimestamp: "2026-01-01T00:00:00Z" } }, now)).toEqual(["b", "10m"]);
  });
});

describe("kube-aware version order", () => {
  it("sorts GA > beta > alpha > other", () => {
    expect(["v1alpha1", "foo", "v1beta2", "v2", "v1", "v1beta1", "bar", "v10"].sort(compareKubeVersions)).toEqual(["v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo"]);
  });
});
