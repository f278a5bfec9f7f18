// The engine as its users drive it: compile once per (expression, environment), evaluate under a
// cost budget, schema-typed variables, escaped property names, and bad input that must end in a
// compile or evaluation error — never a crash or a hang.
import { describe, expect, it } from "vitest";
import { toCel } from "./convert.js";
import { perCallLimit, staticEstimatedCostLimit } from "./cost/constants.js";
import { ruleCostExceeded } from "./cost/messages.js";
import { crdRuleEnvironment } from "./environments.js";
import { CelCompileError, CelEvalError, CelProgramError, compileCel, type CelEnvironment } from "./program.js";
import { selfTypeOf, type StructuralSchema } from "./schema/index.js";
import { DynType, IntType, StringType, listOf, formatType } from "./types.js";

function crdEnv(schema: StructuralSchema): CelEnvironment {
  return crdRuleEnvironment(selfTypeOf(schema, { isRoot: false })!);
}

function compileError(expression: string, env: CelEnvironment): string {
  try {
    compileCel(expression, env);
  } catch (e) {
    if (e instanceof CelCompileError) return e.message;
    throw e;
  }
  throw new Error(`compiled: ${expression}`);
}

const dynEnv: CelEnvironment = { name: "dyn", variables: { self: DynType } };

describe("compileCel", () => {
  it("compiles once per environment and expression", () => {
    const env: CelEnvironment = { name: "x", variables: { self: IntType } };
    expect(compileCel("self + 1", env)).toBe(compileCel("self + 1", env));
    // Same name, other variables: another program (the cache is keyed by the environment object).
    const other: CelEnvironment = { name: "x", variables: { self: DynType } };
    expect(compileCel("self + 1", other)).not.toBe(compileCel("self + 1", env));
    expect(compileCel("self + 1", env).resultType).toEqual(IntType);
  });

  it("types self from the schema and reports errors with the position", () => {
    const env = crdEnv({
      type: "object",
      properties: { replicas: { type: "integer" }, name: { type: "string", maxLength: 63 } },
    });
    expect(compileCel("self.replicas > 1 && self.name.startsWith('a')", env).resultType.kind).toBe("bool");
    expect(compileError("self.replicas + self.name", env)).toBe(
      "ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'\n | self.replicas + self.name\n | ..............^",
    );
    expect(compileError("self.replica > 1", env)).toContain("ERROR: <input>:1:5: undefined field 'replica'");
    expect(compileError("other > 1", env)).toContain("undeclared reference to 'other' (in container '')");
  });

  it("reaches escaped property names and not the unescaped ones", () => {
    const env = crdEnv({
      type: "object",
      properties: {
        "x-y": { type: "integer" },
        "a.b": { type: "integer" },
        "k8s.io/name": { type: "string" },
        namespace: { type: "string" },
        "some__thing": { type: "integer" },
      },
    });
    const self = toCel({ "x-y": 1, "a.b": 2, "k8s.io/name": "n", namespace: "ns", some__thing: 3 });
    const ev = (e: string) => compileCel(e, env).eval({ self, oldSelf: self }).value;
    expect(ev("self.x__dash__y")).toBe(1n);
    expect(ev("self.a__dot__b")).toBe(2n);
    expect(ev("self.k8s__dot__io__slash__name")).toBe("n");
    expect(ev("self.__namespace__")).toBe("ns");
    expect(ev("self.some__underscores__thing")).toBe(3n);
    expect(ev("has(self.x__dash__y)")).toBe(true);
    expect(compileError("self.namespace == ''", env)).toContain("undefined field 'namespace'");
  });

  it("rejects by estimate a rule over an unbounded list, accepts it once the list is bounded", () => {
    const schema = (maxItems?: number): StructuralSchema => ({
      type: "object",
      properties: { items: { type: "array", items: { type: "string", maxLength: 10 }, ...(maxItems ? { maxItems } : {}) } },
    });
    const rule = "self.items.all(a, self.items.all(b, a != b || a == b))";
    const unbounded = compileCel(rule, crdEnv(schema()));
    expect(unbounded.estimatedCost.max).toBeGreaterThan(staticEstimatedCostLimit);
    expect(ruleCostExceeded(unbounded.estimatedCost.max)).toMatch(/^estimated rule cost exceeds budget by factor of (more than 100x|[\d.]+x) \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/);
    const bounded = compileCel(rule, crdEnv(schema(10)));
    expect(bounded.estimatedCost.max).toBeLessThan(staticEstimatedCostLimit);
  });

  it("stops a runaway comprehension at the runtime budget", () => {
    const env: CelEnvironment = { name: "budget", variables: { self: listOf(IntType) } };
    const program = compileCel("self.all(a, self.all(b, self.all(c, a + b + c >= 0)))", env);
    const self = toCel(Array.from({ length: 200 }, (_, i) => i));
    const started = Date.now();
    expect(() => program.eval({ self })).toThrow(CelEvalError);
    expect(() => program.eval({ self })).toThrow("operation cancelled: actual cost limit exceeded");
    expect(Date.now() - started).toBeLessThan(5_000);
    // A smaller input fits the budget and reports what it cost.
    const small = program.eval({ self: toCel([1, 2, 3]) });
    expect(small.value).toBe(true);
    expect(small.cost).toBeGreaterThan(0);
    expect(small.cost).toBeLessThan(perCallLimit);
    expect(() => program.eval({ self: toCel([1, 2, 3]) }, { costLimit: small.cost - 1 })).toThrow("actual cost limit exceeded");
  });

  it("counts comparison as 1 and a list literal with its base cost", () => {
    const env: CelEnvironment = { name: "costs", variables: { self: IntType } };
    // self (1) + comparison (1)
    expect(compileCel("self < 3", env).eval({ self: 1n }).cost).toBe(2);
    // a list literal of constants: the base cost of creating a list (40 by kapi's spec) + `in` over 3 items
    const inList = compileCel("self in [1, 2, 3]", env).eval({ self: 1n }).cost;
    expect(inList).toBe(1 + 40 + 3);
  });
});

describe("bad input ends in an error, never a crash or a hang", () => {
  const cases: [string, RegExp][] = [
    ["", /Syntax error/],
    ["1 +", /Syntax error/],
    ["'unterminated", /Syntax error/],
    ["a.b.", /Syntax error/],
    ["#", /token recognition error/],
    ["self.all(1, true)", /argument must be a simple name/],
    ["(".repeat(10_000) + "1" + ")".repeat(10_000), /recursion/],
    ["1" + " + 1".repeat(200_000), /code point size exceeds limit|max recursion depth exceeded/],
    ["1 + 'a'", /found no matching overload for '_\+_' applied to '\(int, string\)'/],
    ["[1, 'a']", /expected type 'int' but found 'string'/],
    ["'x'.matches('(')", /invalid matches argument/],
    ["duration('1 hour')", /invalid duration argument/],
    ["9223372036854775808", /invalid int literal/],
  ];
  for (const [expression, message] of cases) {
    it(`compile: ${expression.length > 40 ? expression.slice(0, 40) + "…" : JSON.stringify(expression)}`, () => {
      expect(compileError(expression, dynEnv)).toMatch(message);
    });
  }

  it("a bad constant find/findAll pattern fails when the program is made, with RE2's message", () => {
    expect(() => compileCel("self.find('(')", { name: "regex", variables: { self: StringType } })).toThrow(
      new CelProgramError("error parsing regexp: missing closing ): `(`"),
    );
  });

  const runtime: [string, unknown, string][] = [
    ["self / 0", 1, "division by zero"],
    ["self + 1", 9223372036854775807n, "integer overflow"],
    ["self.missing", {}, "no such key: missing"],
    ["self[5]", [1], "index out of bounds: 5"],
    ["int(self)", "x", "type conversion error from 'string' to 'int'"],
    ["self.matches('a')", 1, "no such overload"],
  ];
  for (const [expression, self, message] of runtime) {
    it(`eval: ${expression}`, () => {
      const program = compileCel(expression, dynEnv);
      expect(() => program.eval({ self: toCel(self) })).toThrow(CelEvalError);
      try {
        program.eval({ self: toCel(self) });
      } catch (e) {
        expect((e as Error).message).toContain(message);
      }
    });
  }

  it("a huge input is evaluated within the budget or stopped by it", () => {
    const program = compileCel("self.map(x, x * 2).filter(x, x % 3 == 0).size()", dynEnv);
    const big = toCel(Array.from({ length: 300_000 }, (_, i) => i));
    expect(() => program.eval({ self: big })).toThrow("actual cost limit exceeded");
    expect(formatType(program.resultType)).toBe("int");
  });
});
