// Message construction for MutatingAdmissionPolicy: `Object{...}` / `Object.spec{...}` with any
// field names, `JSONPatch{...}` with its four typed fields, and `jsonpatch.escapeKey`.
import { describe, expect, it } from "vitest";
import { fromCel, toCel } from "./convert.js";
import { admissionPolicyEnvironment, withMutationTypes } from "./environments.js";
import { compileCel } from "./program.js";
import { formatType } from "./types.js";
import { CelObject } from "./value.js";

const env = withMutationTypes(admissionPolicyEnvironment({ hasParams: false, hasAuthorizer: false }));
const object = toCel({ metadata: { name: "d", labels: { a: "b" } }, spec: { replicas: 2 } });
const run = (expr: string) => compileCel(expr, env).eval({ object, oldObject: null, request: null, namespaceObject: null });

describe("mutation types", () => {
  it("constructs Object values typed by their path, with optional fields", () => {
    const p = compileCel("Object{metadata: Object.metadata{labels: {'x': object.metadata.name}}, spec: Object.spec{replicas: object.spec.replicas + 1, ?paused: optional.none()}}", env);
    expect(formatType(p.resultType)).toBe("Object");
    const v = p.eval({ object, oldObject: null, request: null, namespaceObject: null }).value;
    expect(v).toBeInstanceOf(CelObject);
    expect((v as CelObject).typeName).toBe("Object");
    expect(((v as CelObject).get("spec") as CelObject).typeName).toBe("Object.spec");
    expect(fromCel(v)).toEqual({ metadata: { labels: { x: "d" } }, spec: { replicas: 3 } });
  });

  it("JSONPatch has typed fields; escapeKey escapes ~ and /", () => {
    const v = run("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b~c'), value: 'x'}]").value;
    expect(fromCel(v)).toEqual([{ op: "add", path: "/metadata/labels/a~1b~0c", value: "x" }]);
    expect(() => compileCel("JSONPatch{op: 1}", env)).toThrow(/expected type of field 'op' is 'string' but provided type is 'int'/);
    expect(() => compileCel("JSONPatch{nope: 'x'}", env)).toThrow(/undefined field 'nope'/);
  });

  it("other type names are undeclared, and environments without mutation types construct nothing", () => {
    expect(() => compileCel("Thing{a: 1}", env)).toThrow(/undeclared reference to 'Thing'/);
    expect(() => compileCel("Object{a: 1}", admissionPolicyEnvironment({ hasParams: false, hasAuthorizer: false }))).toThrow(/undeclared reference to 'Object'/);
  });
});
