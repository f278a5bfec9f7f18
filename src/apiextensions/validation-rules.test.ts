// x-kubernetes-validations as apiextensions-apiserver 1.34 checks them when a CRD is written and
// evaluates them on custom objects; texts as upstream's.
import { describe, expect, it } from "vitest";
import { formatFieldError, type FieldError } from "../apimachinery/validation.js";
import { RuntimeCostBudget } from "../cel/budget.js";
import { compileValidationRules, validFieldPath, type RulesSchema, type ValidationRule } from "./validation-rules.js";

const P = "spec.versions[0].schema.openAPIV3Schema";
const texts = (errs: readonly FieldError[]): string[] => errs.map(formatFieldError);
const compileErrors = (schema: RulesSchema): string[] => texts(compileValidationRules(schema, { path: P }).errors);

/** A CRD root whose `spec` carries `rules` and `props`. */
const specWith = (rules: ValidationRule[], props: Record<string, RulesSchema> = {}, extra: Partial<RulesSchema> = {}): RulesSchema => ({
  type: "object",
  properties: { spec: { type: "object", properties: props, "x-kubernetes-validations": rules, ...extra } },
});
const SPEC = `${P}.properties[spec]`;
const goRule = (rule: string, extra = ""): string =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:${extra}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

describe("write time: rules and their fields", () => {
  const props = { x: { type: "integer" }, s: { type: "string", maxLength: 10 }, m: { type: "object", additionalProperties: { type: "string", maxLength: 5 }, maxProperties: 5 } };
  const cases: [string, ValidationRule, string[]][] = [
    ["compiles", { rule: "self.x > 1 && self.s.startsWith('a')" }, []],
    [
      "undefined field",
      { rule: "self.y > 1" },
      [`${SPEC}.x-kubernetes-validations[0].rule: Invalid value: ${goRule("self.y > 1", '""')}: compilation failed: ERROR: <input>:1:5: undefined field 'y'\n | self.y > 1\n | ....^`],
    ],
    [
      "syntax error",
      { rule: "self.x >" },
      [
        `${SPEC}.x-kubernetes-validations[0].rule: Invalid value: ${goRule("self.x >", '""')}: compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.x >\n | ........^`,
      ],
    ],
    ["not a bool", { rule: "self.x" }, [`${SPEC}.x-kubernetes-validations[0].rule: Invalid value: ${goRule("self.x", '""')}: cel expression must evaluate to a bool`]],
    ["empty rule", { rule: "  " }, [`${SPEC}.x-kubernetes-validations[0].rule: Required value: rule is not specified`]],
    ["blank message", { rule: "true", message: " " }, [`${SPEC}.x-kubernetes-validations[0].message: Invalid value: " ": message must be non-empty if specified`]],
    ["message with a line break", { rule: "true", message: "a\nb" }, [`${SPEC}.x-kubernetes-validations[0].message: Invalid value: "a\\nb": message must not contain line breaks`]],
    [
      "multi-line rule without message",
      { rule: "true &&\ntrue" },
      [`${SPEC}.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks`],
    ],
    ["blank messageExpression", { rule: "true", messageExpression: " " }, [`${SPEC}.x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified`]],
    [
      "messageExpression not a string",
      { rule: "true", messageExpression: "self.x" },
      [`${SPEC}.x-kubernetes-validations[0].messageExpression: Invalid value: ${goRule("true", '"self.x"')}: messageExpression must evaluate to a string`],
    ],
    [
      "messageExpression does not compile",
      { rule: "true", messageExpression: "self.nope" },
      [
        `${SPEC}.x-kubernetes-validations[0].messageExpression: Invalid value: ${goRule("true", '"self.nope"')}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^`,
      ],
    ],
    ["messageExpression with a bounded string", { rule: "true", messageExpression: "'s is ' + self.s" }, []],
    [
      "unsupported reason",
      { rule: "true", reason: "FieldValueBad" },
      [`${SPEC}.x-kubernetes-validations[0].reason: Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`],
    ],
    ["supported reason and fieldPath", { rule: "true", reason: "FieldValueForbidden", fieldPath: ".m['a.b']" }, []],
    ["fieldPath to a missing field", { rule: "true", fieldPath: ".a.c" }, [`${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: ".a.c": fieldPath must be a valid path: does not refer to a valid field`]],
    ["fieldPath with an index", { rule: "true", fieldPath: ".s[0]" }, [`${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: ".s[0]": fieldPath must be a valid path: expected single quoted string but got 0`]],
    [
      "blank fieldPath",
      { rule: "true", fieldPath: "   " },
      [
        `${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: "   ": fieldPath must be non-empty if specified`,
        `${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: "   ": fieldPath must be a valid path: expected [ or . but got:    `,
      ],
    ],
    ["fieldPath '.'", { rule: "true", fieldPath: "." }, [`${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: ".": fieldPath must be a valid path: unexpected end of JSON path`]],
    ["fieldPath '..'", { rule: "true", fieldPath: ".." }, [`${SPEC}.x-kubernetes-validations[0].fieldPath: Invalid value: "..": fieldPath must be a valid path: does not refer to a valid field`]],
  ];
  it.each(cases)("%s", (_name, rule, expected) => {
    expect(compileErrors(specWith([rule], props))).toEqual(expected);
  });

  it("reports schema mistakes without compiling the rules (as upstream skips CEL then)", () => {
    expect(compileErrors(specWith([{ rule: "self.nope", reason: "Bad" }], props))).toEqual([
      `${SPEC}.x-kubernetes-validations[0].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    ]);
  });

  it("types the root as a resource root: metadata.name and apiVersion are there", () => {
    expect(compileErrors({ type: "object", "x-kubernetes-validations": [{ rule: "self.metadata.name.size() < 20 && self.apiVersion != ''" }] })).toEqual([]);
  });

  it("refuses oldSelf under a list that cannot correlate items; a list-type map can", () => {
    const rule = { rule: "self.v == oldSelf.v" };
    const item = { type: "object", properties: { k: { type: "string", maxLength: 5 }, v: { type: "integer" } }, required: ["k"], "x-kubernetes-validations": [rule] };
    expect(compileErrors(specWith([], { l: { type: "array", maxItems: 5, items: item } }))).toEqual([
      `${SPEC}.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self.v == oldSelf.v": oldSelf cannot be used on the uncorrelatable portion of the schema within ${SPEC}.properties[l].items`,
    ]);
    expect(
      compileErrors(specWith([], { l: { type: "array", maxItems: 5, items: item, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"] } })),
    ).toEqual([]);
  });
});

describe("write time: estimated cost", () => {
  const nested = "self.all(x, self.all(y, x != y))";
  it("rejects a rule over an unbounded list, and the schema total with it", () => {
    expect(compileErrors(specWith([], { l: { type: "array", items: { type: "string" }, "x-kubernetes-validations": [{ rule: nested }] } }))).toEqual([
      `${SPEC}.properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${SPEC}.properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  it("accepts it once maxItems and maxLength bound the list", () => {
    expect(
      compileErrors(specWith([], { l: { type: "array", maxItems: 100, items: { type: "string", maxLength: 64 }, "x-kubernetes-validations": [{ rule: nested }] } })),
    ).toEqual([]);
  });

  it("multiplies a rule's cost by how often its node can occur (maxItems above it, else the request size)", () => {
    const item = (maxItems?: number): RulesSchema => ({
      type: "array",
      ...(maxItems !== undefined ? { maxItems } : {}),
      items: {
        type: "object",
        properties: { s: { type: "array", maxItems: 100, items: { type: "string", maxLength: 64 }, "x-kubernetes-validations": [{ rule: nested }] } },
      },
    });
    expect(compileErrors(specWith([], { l: item(10) }))).toEqual([]);
    const unbounded = compileErrors(specWith([], { l: item() }));
    expect(unbounded[0]).toMatch(/^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[l\]\.items\.properties\[s\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of/);
  });

  it("rejects rules that are each affordable but together over the per-CRD limit", () => {
    // Each rule ~ 500 × 500 compares of 64-char strings: under 10,000,000, but 20 of them are over 100,000,000.
    const l = { type: "array", maxItems: 500, items: { type: "string", maxLength: 64 } };
    const rules = Array.from({ length: 20 }, (_, i) => ({ rule: `self.l.all(x, self.l.all(y, x != y || ${i} == ${i}))` }));
    const r = compileValidationRules(specWith(rules, { l }), { path: P });
    expect(texts(r.errors)).toEqual([
      ...[0, 1, 2, 3].map(
        (i) => `${SPEC}.x-kubernetes-validations[${i}].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      ),
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.6x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  it("compiles once per schema object", () => {
    const s = specWith([{ rule: "self.x > 0" }], { x: { type: "integer" } });
    expect(compileValidationRules(s, { path: P })).toBe(compileValidationRules(s, { path: P }));
  });
});

describe("runtime", () => {
  const validatorOf = (schema: RulesSchema) => {
    const r = compileValidationRules(schema, { path: P });
    expect(texts(r.errors)).toEqual([]);
    return r.validator;
  };
  const run = (schema: RulesSchema, obj: unknown, old?: unknown, warnings?: string[]) => texts(validatorOf(schema).validate(obj, old, { warnings }));
  /** The validator of a schema CRD validation would refuse (too costly): objects of a CRD stored before still run it. */
  const anyway = (schema: RulesSchema) => compileValidationRules(schema, { path: P }).validator;

  it("reports failed rules with message, else `failed rule: <rule>`; the value for scalars, the type for objects", () => {
    const s = specWith([{ rule: "self.x > 1", message: "x must be above 1 " }, { rule: " self.x < 10 " }], {
      x: { type: "integer", "x-kubernetes-validations": [{ rule: "self % 2 == 0" }] },
      name: { type: "string", "x-kubernetes-validations": [{ rule: "self.startsWith('a')" }] },
    });
    expect(run(s, { spec: { x: 1, name: "b" } })).toEqual([
      'spec: Invalid value: "object": x must be above 1',
      "spec.x: Invalid value: 1: failed rule: self % 2 == 0",
      `spec.name: Invalid value: "b": failed rule: self.startsWith('a')`,
    ]);
    expect(run(s, { spec: { x: 12, name: "a" } })).toEqual(['spec: Invalid value: "object": failed rule: self.x < 10']);
  });

  it("rules on the root are reported at <nil>, as upstream's nil root path prints", () => {
    const s: RulesSchema = { type: "object", "x-kubernetes-validations": [{ rule: "self.metadata.name.startsWith('a')" }], properties: { spec: { type: "object" } } };
    expect(run(s, { apiVersion: "x/v1", kind: "X", metadata: { name: "b" }, spec: {} })).toEqual([
      `<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('a')`,
    ]);
  });

  it("walks items, additionalProperties and list-type maps", () => {
    const s = specWith([], {
      l: { type: "array", items: { type: "integer", "x-kubernetes-validations": [{ rule: "self >= 0" }] } },
      m: { type: "object", additionalProperties: { type: "string", "x-kubernetes-validations": [{ rule: "self != ''", message: "empty" }] } },
    });
    expect(run(s, { spec: { l: [1, -1], m: { a: "x", "b.c": "" } } })).toEqual([
      "spec.l[1]: Invalid value: -1: failed rule: self >= 0",
      'spec.m[b.c]: Invalid value: "": empty',
    ]);
  });

  it("runs transition rules only with an old value", () => {
    const s = specWith([{ rule: "self.x >= oldSelf.x", message: "x may not shrink" }], { x: { type: "integer" } });
    expect(run(s, { spec: { x: 1 } })).toEqual([]);
    expect(run(s, { spec: { x: 1 } }, { spec: { x: 2 } })).toEqual(['spec: Invalid value: "object": x may not shrink']);
    expect(run(s, { spec: { x: 3 } }, { spec: { x: 2 } })).toEqual([]);
    // spec absent before: no old value for the rule on spec.
    expect(run(s, { spec: { x: 1 } }, {})).toEqual([]);
  });

  it("correlates list-type map items by key for oldSelf", () => {
    const s = specWith([], {
      l: {
        type: "array",
        maxItems: 10,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["k"],
        items: {
          type: "object",
          required: ["k"],
          properties: { k: { type: "string", maxLength: 5 }, v: { type: "integer" } },
          "x-kubernetes-validations": [{ rule: "self.v == oldSelf.v", message: "v is immutable" }],
        },
      },
    });
    const old = { spec: { l: [{ k: "a", v: 1 }, { k: "b", v: 2 }] } };
    expect(run(s, { spec: { l: [{ k: "b", v: 2 }, { k: "a", v: 1 }, { k: "c", v: 9 }] } }, old)).toEqual([]);
    expect(run(s, { spec: { l: [{ k: "b", v: 3 }] } }, old)).toEqual(['spec.l[0]: Invalid value: "object": v is immutable']);
  });

  it("optionalOldSelf: the rule runs on create with oldSelf none", () => {
    const s = specWith(
      [{ rule: "oldSelf.hasValue() ? self.x >= oldSelf.value().x : self.x == 0", optionalOldSelf: true, message: "starts at 0, never shrinks" }],
      { x: { type: "integer" } },
    );
    expect(run(s, { spec: { x: 1 } })).toEqual(['spec: Invalid value: "object": starts at 0, never shrinks']);
    expect(run(s, { spec: { x: 0 } })).toEqual([]);
    expect(run(s, { spec: { x: 1 } }, { spec: { x: 2 } })).toEqual(['spec: Invalid value: "object": starts at 0, never shrinks']);
    expect(run(s, { spec: { x: 3 } }, { spec: { x: 2 } })).toEqual([]);
  });

  it("messageExpression gives the message; an empty, failing or multi-line one falls back", () => {
    const props = { x: { type: "integer" }, s: { type: "string", maxLength: 20 } };
    const s = specWith(
      [
        { rule: "self.x < 10", messageExpression: "'x is too big: ' + self.s" },
        { rule: "self.x < 20", messageExpression: "''", message: "x under 20" },
        { rule: "self.x < 30", messageExpression: "self.s + '\\n'" },
        { rule: "self.x < 40", messageExpression: "self.s.substring(100)" },
      ],
      props,
    );
    expect(run(s, { spec: { x: 50, s: "fifty" } })).toEqual([
      'spec: Invalid value: "object": x is too big: fifty',
      'spec: Invalid value: "object": x under 20',
      'spec: Invalid value: "object": fifty',
      'spec: Invalid value: "object": failed rule: self.x < 40',
    ]);
  });

  it("reason and fieldPath change the error type and path", () => {
    const s = specWith(
      [
        { rule: "self.x < 10", reason: "FieldValueForbidden", fieldPath: ".x", message: "too big" },
        { rule: "has(self.s)", reason: "FieldValueRequired", fieldPath: ".s", message: "s is required" },
        { rule: "self.x != 12", reason: "FieldValueDuplicate" },
        { rule: "self.x != 12", reason: "FieldValueInvalid", fieldPath: ".m['a.b']" },
      ],
      { x: { type: "integer" }, s: { type: "string" }, m: { type: "object", additionalProperties: { type: "string" } } },
    );
    expect(run(s, { spec: { x: 12 } })).toEqual([
      "spec.x: Forbidden: too big",
      "spec.s: Required value: s is required",
      'spec: Duplicate value: "object"',
      'spec.m[a.b]: Invalid value: "object": failed rule: self.x != 12',
    ]);
  });

  it("reports evaluation errors with the rule", () => {
    const s = specWith([{ rule: "self.m['k'] == 'v'" }, { rule: "self.x / self.y > 0", message: "ratio" }], {
      m: { type: "object", additionalProperties: { type: "string" } },
      x: { type: "integer" },
      y: { type: "integer" },
    });
    expect(run(s, { spec: { m: {}, x: 1, y: 0 } })).toEqual([
      "spec: Invalid value: \"object\": no such key: k evaluating rule: self.m['k'] == 'v'",
      'spec: Invalid value: "object": division by zero evaluating rule: ratio',
    ]);
  });

  it("stops at the per-call limit", () => {
    const s = specWith([{ rule: "self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))" }, { rule: "false" }], {
      l: { type: "array", maxItems: 1000, items: { type: "integer" } },
    });
    const l = Array.from({ length: 200 }, (_, i) => i);
    expect(texts(anyway(s).validate({ spec: { l } }, undefined))).toEqual([
      `spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))`,
    ]);
  });

  it("stops when the object's runtime budget is spent", () => {
    const s = specWith([], {
      l: { type: "array", maxItems: 1000, items: { type: "array", maxItems: 1000, items: { type: "integer" }, "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x + y >= 0))" }] } },
    });
    const inner = Array.from({ length: 300 }, (_, i) => i);
    const errs = texts(anyway(s).validate({ spec: { l: Array.from({ length: 200 }, () => inner) } }, undefined));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.l\[\d+\]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run$/);
    // A smaller budget runs out sooner.
    const v = anyway(s);
    const small = texts(v.validate({ spec: { l: [inner, inner] } }, undefined, { budget: new RuntimeCostBudget(100) }));
    expect(small).toEqual(['spec.l[0]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run']);
  });

  it("ratchets: an unchanged value whose rule failed before is a warning on update, a changed one an error", () => {
    const s = specWith([], {
      a: { type: "string", "x-kubernetes-validations": [{ rule: "self.size() < 3", message: "too long" }] },
      b: { type: "string", "x-kubernetes-validations": [{ rule: "self.size() < 3", message: "too long" }] },
      c: { type: "integer", "x-kubernetes-validations": [{ rule: "self >= oldSelf", message: "may not shrink" }] },
    });
    const warnings: string[] = [];
    expect(run(s, { spec: { a: "long", b: "longer", c: 1 } }, { spec: { a: "long", b: "long", c: 1 } }, warnings)).toEqual([
      'spec.b: Invalid value: "longer": too long',
    ]);
    expect(warnings).toEqual(['spec.a: Invalid value: "long": too long']);
    // Create: nothing to ratchet against.
    expect(run(s, { spec: { a: "long" } })).toEqual(['spec.a: Invalid value: "long": too long']);
    // Transition rules are never ratcheted (they pass on unchanged values anyway).
    expect(run(s, { spec: { c: 0 } }, { spec: { c: 1 } })).toEqual(['spec.c: Invalid value: 0: may not shrink']);
  });

  it("ratchets list-type map items by key, so reordering keeps old failures tolerated", () => {
    const s = specWith([], {
      l: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["k"],
        items: {
          type: "object",
          properties: { k: { type: "string" }, v: { type: "integer", "x-kubernetes-validations": [{ rule: "self > 0" }] } },
        },
      },
    });
    const old = { spec: { l: [{ k: "a", v: 0 }, { k: "b", v: 1 }] } };
    expect(run(s, { spec: { l: [{ k: "b", v: 1 }, { k: "a", v: 0 }] } }, old, [])).toEqual([]);
    expect(run(s, { spec: { l: [{ k: "b", v: 0 }, { k: "a", v: 0 }] } }, old, [])).toEqual(["spec.l[0].v: Invalid value: 0: failed rule: self > 0"]);
  });

  it("evaluates rules of allOf at the node", () => {
    const s = specWith([], { x: { type: "integer", allOf: [{ "x-kubernetes-validations": [{ rule: "self < 5" }] }] } as RulesSchema });
    expect(run(s, { spec: { x: 7 } })).toEqual(["spec.x: Invalid value: 7: failed rule: self < 5"]);
  });

  it("has no rules to run when the schema has none", () => {
    const v = compileValidationRules({ type: "object", properties: { spec: { type: "object" } } }, { path: P }).validator;
    expect(v.hasRules).toBe(false);
    expect(v.validate({ spec: {} }, undefined)).toEqual([]);
  });
});

describe("validFieldPath", () => {
  const schema: RulesSchema = {
    type: "object",
    properties: { a: { type: "object", properties: { "b.c": { type: "string" } } }, m: { type: "object", additionalProperties: { type: "object", properties: { z: { type: "integer" } } } } },
  };
  const cases: [string, string | undefined, string | undefined][] = [
    [".a", "a", undefined],
    [".a['b.c']", "a.b.c", undefined],
    [".m['k'].z", "m[k].z", undefined],
    [".m.k", "m[k]", undefined],
    [".a['x\\'y']", undefined, "does not refer to a valid field"],
    [".a['\\q']", undefined, "invalid string literal: invalid escape char \\q"],
    [".a[", undefined, "unexpected end of JSON path"],
    [".a['b.c'", undefined, "unexpected end of JSON path"],
    ["a", undefined, "expected [ or . but got: a"],
  ];
  it.each(cases)("%s", (p, path, error) => {
    const r = validFieldPath(p, schema);
    expect(r.path).toBe(path);
    expect(r.error).toBe(error);
  });
});
