import { describe, expect, it } from "vitest";
import { CelCompileError, CelEvalError, compileCel } from "./program.js";
import { celInput, celLiteral } from "./values.js";

const env = { name: "test", variables: ["self", "oldSelf"] };
const run = (expr: string, self: unknown) => celLiteral(compileCel(expr, env).eval({ self: celInput(self) }));

describe("compileCel", () => {
  it.each([
    ["self.replicas <= self.maxReplicas", { replicas: 3, maxReplicas: 5 }, "true"],
    ["self.name.startsWith('app-') && size(self.name) < 64", { name: "app-web" }, "true"],
    ["self.items.all(i, i.port > 0 && i.port < 65536)", { items: [{ port: 80 }, { port: 70000 }] }, "false"],
    ["has(self.tls) ? self.tls.secretName != '' : true", {}, "true"],
    ["self.labels.exists(k, k == 'tier')", { labels: { tier: "web" } }, "true"],
    ["self.items.map(i, i.port * 2)", { items: [{ port: 1 }, { port: 2 }] }, "[2, 4]"],
    ["self.s.split(',').size()", { s: "a,b,c" }, "3"],
    ["self.x / 2.0", { x: 3 }, "error"],
    ["double(self.x) / 2.0", { x: 3 }, "1.5"],
  ])("%s", (expr, self, want) => {
    if (want === "error") expect(() => run(expr, self)).toThrow(CelEvalError);
    else expect(run(expr, self)).toBe(want);
  });

  it("refuses a syntax error at compile time, naming the position with a caret", () => {
    const e = (() => {
      try {
        compileCel("self.a +", env);
      } catch (x) {
        return x as Error;
      }
    })();
    expect(e).toBeInstanceOf(CelCompileError);
    expect(e!.message).toMatch(/^ERROR: <input>:1:8: /);
    expect(e!.message.split("\n").slice(1)).toEqual([" | self.a +", " | .......^"]);
  });

  it("refuses an undeclared reference at compile time, as upstream's checker does", () => {
    expect(() => compileCel("self.a == other", env)).toThrow("ERROR: <input>:1:11: undeclared reference to 'other' (in container '')");
    // Comprehension variables are bound inside their comprehension only.
    expect(() => compileCel("self.all(x, x > 0) && x > 0", env)).toThrow("undeclared reference to 'x'");
    expect(() => compileCel("self.all(x, x > 0)", env)).not.toThrow();
  });

  it("reports runtime errors (overflow, division by zero, missing field) as evaluation errors", () => {
    expect(() => run("self.big + 1", { big: 9223372036854775807n })).toThrow("int overflow");
    expect(() => run("self.a / 0", { a: 1 })).toThrow("divide by zero");
    expect(() => run("self.missing == 1", {})).toThrow(CelEvalError);
  });

  it("compiles an expression once per environment", () => {
    expect(compileCel("self == 1", env)).toBe(compileCel("self == 1", env));
    expect(compileCel("self == 1", { name: "other", variables: ["self"] })).not.toBe(compileCel("self == 1", env));
  });
});
