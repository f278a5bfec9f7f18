// The checker over types made from a CRD schema: escaped property names, resource roots, maps
// and lists of objects, as a CRD validation rule sees `self`.
import { describe, expect, it } from "vitest";
import type { Expr } from "../ast.js";
import { schemaToCelType, type StructuralSchema } from "../schema/index.js";
import { CelCompileError } from "../source.js";
import { optionalLibrary, standardLibrary } from "../stdlib/index.js";
import type { CelType } from "../types.js";
import { check, createCheckerEnv } from "./index.js";
import { formatCheckerType } from "./types.js";
import { AstBuilder } from "./ast-builder.testkit.js";

const schema: StructuralSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        namespace: { type: "string" },
        "image-name": { type: "string" },
        "example.com/x": { type: "integer" },
        quota: { "x-kubernetes-int-or-string": true },
        ports: { type: "array", items: { type: "object", properties: { port: { type: "integer" } } } },
        env: { type: "object", additionalProperties: { type: "string" } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        until: { type: "string", format: "date-time" },
      },
    },
  },
};
const self = schemaToCelType(schema, { isResourceRoot: true, typeName: "selfType1" })!;
const env = createCheckerEnv({ variables: { self, oldSelf: self }, libraries: [standardLibrary, optionalLibrary] });

function outcome(build: (b: AstBuilder) => Expr): string {
  const b = new AstBuilder();
  try {
    return formatCheckerType(check(b.parsed(build(b)), env).resultType);
  } catch (e) {
    if (e instanceof CelCompileError) return e.issues.map((i) => i.message).join("; ");
    throw e;
  }
}

describe("checking rules against a CRD schema", () => {
  const cases: [string, (b: AstBuilder) => Expr, string][] = [
    ["metadata.name at the root", (b) => b.path("self.metadata.name"), "string"],
    ["apiVersion at the root", (b) => b.path("self.apiVersion"), "string"],
    ["metadata.labels is not declared", (b) => b.path("self.metadata.labels"), "undefined field 'labels'"],
    ["keyword property escaped", (b) => b.path("self.spec.__namespace__"), "string"],
    ["keyword property unescaped", (b) => b.path("self.spec.namespace"), "undefined field 'namespace'"],
    ["dash property", (b) => b.path("self.spec.image__dash__name"), "string"],
    ["dot and slash property", (b) => b.path("self.spec.example__dot__com__slash__x"), "int"],
    ["int-or-string is dyn", (b) => b.path("self.spec.quota"), "dyn"],
    ["list of objects", (b) => b.path("self.spec.ports"), "list(selfType1.spec.ports.@idx)"],
    ["map of strings", (b) => b.sel(b.path("self.spec.env"), "HOME"), "string"],
    ["preserve-unknown-fields object hides unknown fields", (b) => b.path("self.spec.free.x"), "undefined field 'x'"],
    ["date-time", (b) => b.path("self.spec.until"), "timestamp"],
    [
      "ports.all(p, p.port > 0)",
      (b) => b.all(b.path("self.spec.ports"), ["p"], (b) => b.call("_>_", [b.sel(b.i("p"), "port"), b.c(0n)])),
      "bool",
    ],
    [
      "transition rule",
      (b) => b.call("_==_", [b.path("self.spec.__namespace__"), b.path("oldSelf.spec.__namespace__")]),
      "bool",
    ],
    ["has() on an escaped field", (b) => b.has(b.path("self.spec"), "image__dash__name"), "bool"],
    ["object compared with int", (b) => b.call("_==_", [b.path("self.spec"), b.c(1n)]), "found no matching overload for '_==_' applied to '(selfType1.spec, int)'"],
  ];
  it.each(cases)("%s", (_name, build, expected) => {
    expect(outcome(build)).toBe(expected);
  });

  it("rewrites escaped names in has() and nested selects", () => {
    const b = new AstBuilder();
    const e = b.call("_&&_", [b.has(b.path("self.spec"), "image__dash__name"), b.call("_==_", [b.path("self.spec.image__dash__name"), b.c("x")])]);
    const checked = check(b.parsed(e), env);
    const text = JSON.stringify(checked.expr, (_k, v) => (typeof v === "bigint" ? String(v) : v));
    expect(text).not.toContain("__dash__");
    expect(text.match(/image-name/g)).toHaveLength(2);
  });

  it("records the references to self and oldSelf", () => {
    const b = new AstBuilder();
    const e = b.call("_==_", [b.path("self.spec.__namespace__"), b.path("oldSelf.spec.__namespace__")]);
    const refs = [...check(b.parsed(e), env).references.values()].sort();
    expect(refs).toEqual(["oldSelf", "self"]);
  });

  it("object types of the schema are constructible by name", () => {
    const b = new AstBuilder();
    const e = b.struct("selfType1.spec.ports.@idx", [["port", b.c(80n)]]);
    const t: CelType = check(b.parsed(e), env).resultType;
    expect(formatCheckerType(t)).toBe("selfType1.spec.ports.@idx");
  });
});
