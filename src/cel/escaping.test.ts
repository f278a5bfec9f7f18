import { describe, expect, it } from "vitest";
import { escapePropertyName, unescapePropertyName } from "./escaping.js";

// Upstream's table (k8s.io/apiserver/pkg/cel/escaping_test.go): name → escaped, or undefined.
const cases: [string, string | undefined][] = [
  ["a.a", "a__dot__a"],
  ["a-a", "a__dash__a"],
  ["a__a", "a__underscores__a"],
  ["a.-/__a", "a__dot____dash____slash____underscores__a"],
  ["a._a", "a__dot___a"],
  ["a__.__a", "a__underscores____dot____underscores__a"],
  ["a___a", "a__underscores___a"],
  ["a____a", "a__underscores____underscores__a"],
  ["a__dot__a", "a__underscores__dot__underscores__a"],
  ["a__underscores__a", "a__underscores__underscores__underscores__a"],
  ...["true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"].map(
    (w): [string, string] => [w, `__${w}__`],
  ),
  ["@", undefined],
  ["1up", undefined],
  ["👑", undefined],
  ["", undefined],
  ["/👑", undefined],
  ["a b", undefined],
  ...["has", "all", "exists", "exists_one", "filter", "size", "contains", "startsWith", "endsWith", "matches", "duration", "timestamp", "getDate", "int", "self"].map(
    (w): [string, string] => [w, w],
  ),
  ["_if", "_if"],
  ["_has", "_has"],
  ["_int", "_int"],
  ["_anything", "_anything"],
  ["x-kubernetes-foo", "x__dash__kubernetes__dash__foo"],
  ["example.com/label", "example__dot__com__slash__label"],
  [".a", "__dot__a"],
];

describe("escapePropertyName", () => {
  it.each(cases)("%s → %s", (name, escaped) => {
    expect(escapePropertyName(name)).toBe(escaped);
    if (escaped !== undefined) {
      expect(escaped).toMatch(/^[a-zA-Z_][a-zA-Z0-9_]*$/);
      expect(unescapePropertyName(escaped)).toBe(name);
    }
  });
});

describe("unescapePropertyName", () => {
  it.each([
    ["__int__extra", undefined],
    ["__illegal__", undefined],
    ["x__namespace__", undefined],
    ["plain", "plain"],
    ["__namespace__", "namespace"],
  ])("%s → %s", (escaped, name) => {
    expect(unescapePropertyName(escaped)).toBe(name);
  });

  it("round-trips random names", () => {
    const alphabet = "ab_.-/1Z";
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      let s = "";
      const len = 1 + (i % 9);
      for (let j = 0; j < len; j++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        s += alphabet[seed % alphabet.length];
      }
      const e = escapePropertyName(s);
      if (e === undefined) continue;
      expect(e).toMatch(/^[a-zA-Z_][a-zA-Z0-9_]*$/);
      expect(unescapePropertyName(e)).toBe(s);
    }
  });
});
