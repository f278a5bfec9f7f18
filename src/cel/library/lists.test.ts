import { describe, expect, it } from "vitest";
import { compileCel } from "../program.js";
import { celInput, celLiteral } from "../values.js";

const env = { name: "lists-test", variables: ["self"] };
const run = (expr: string, self: unknown = null) => celLiteral(compileCel(expr, env).eval({ self: celInput(self) }));

// One row per function: a typical case, an edge case, and the error case with upstream's text.
describe("Kubernetes list library", () => {
  it.each([
    ["[1, 2, 3].isSorted()", "true"],
    ["['a', 'b', 'a'].isSorted()", "false"],
    ["[].isSorted()", "true"],
    ["[1, 2.5, 3u].isSorted()", "true"], // cross-type numeric comparison
    ["[1, 2, 3].sum()", "6"],
    ["[1.5, 2.0].sum()", "3.5"],
    ["[].sum()", "0"],
    ["[3, 1, 2].min()", "1"],
    ["['b', 'a', 'c'].max()", '"c"'],
    ["[1, 2, 1].indexOf(1)", "0"],
    ["[1, 2, 1].lastIndexOf(1)", "2"],
    ["['a'].indexOf('z')", "-1"],
    ["[1, 2].indexOf(2.0)", "1"],
    ["[[1], [2]].indexOf([2])", "1"],
    ["self.ports.sum() <= 1024", "true"],
    ["'abc'.indexOf('c') + [1].indexOf(1)", "2"], // the strings library's indexOf still serves strings
  ])("%s → %s", (expr, want) => {
    expect(run(expr, { ports: [80, 443] })).toBe(want);
  });

  it.each([
    ["[].min()", "min called on empty list"],
    ["[].max()", "max called on empty list"],
    ["[1, 'a'].isSorted()", "no such overload"],
    ["[9223372036854775807, 1].sum()", "int overflow"],
  ])("%s fails: %s", (expr, message) => {
    expect(() => run(expr)).toThrow(message);
  });
});
