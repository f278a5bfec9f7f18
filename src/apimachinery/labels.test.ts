import { describe, expect, it } from "vitest";
import {
  LabelSelector,
  SelectorParseError,
  labelSelectorFromObject,
  parseLabelSelector,
  validateLabelSelector,
} from "./labels.js";
import { formatFieldError } from "./validation.js";

const VALUE_REGEX_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function parseError(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

describe("parseLabelSelector: round trip (upstream TestSelectorParse)", () => {
  it.each([
    "",
    "x=a",
    "x=a,y=b,z=c",
    "x!=a,y=b",
    "x=",
    "x= ",
    "x=,z= ",
    "x= ,z= ",
    "!x",
    "x>1",
    "x>1,z<5",
  ])("%j", (s) => {
    expect(parseLabelSelector(s).toString()).toBe(s.replace(/ /g, ""));
  });

  it("is deterministic (sorted by key)", () => {
    expect(parseLabelSelector("x=a,a=x").toString()).toBe(parseLabelSelector("a=x,x=a").toString());
    expect(parseLabelSelector("x=a,a=x").toString()).toBe("a=x,x=a");
  });

  it.each<[string, string]>([
    ["\rx", "x"],
    ["this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"],
    ["this-is-another-dns.domain.com/key-with-dash in (so,what)", "this-is-another-dns.domain.com/key-with-dash in (so,what)"],
    ["0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"],
    ["foo  in\t (abc)", "foo in (abc)"],
    ["x notin\n (abc)", "x notin (abc)"],
    ["x  notin\t\t(abc,def)", "x notin (abc,def)"],
    ["x in (def,abc)", "x in (abc,def)"],
    ["x in (abc,)", "x in (,abc)"],
    ["x in ()", "x in ()"],
    ["x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"],
    ["x notin ( )", "x notin ()"],
    ["x notin (, a)", "x notin (,a)"],
    ["a ", "a"],
    ["a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"],
    ["x in (b,a,b)", "x in (a,b)"],
    ["x==a", "x==a"],
    ["in=notin", "in=notin"],
    ["x<7", "x<7"],
    ["x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"],
    ["   ", ""],
  ])("%j → %j", (input, out) => {
    expect(parseLabelSelector(input).toString()).toBe(out);
  });
});

describe("parseLabelSelector: errors", () => {
  it.each<[string, string]>([
    ["x==a==b", "found '==', expected: ',' or 'end of string'"],
    ["!x=a", "found '=', expected: ',' or 'end of string'"],
    ["x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ["x>", "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ["x>1.5", "unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ["x,,y", "found ',', expected: identifier after ','"],
    [",x,y", "found ',', expected: !, identifier, or 'end of string'"],
    ["x,", "found '', expected: identifier after ','"],
    ["x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
    ["a in (xyz),", "found '', expected: identifier after ','"],
    ["a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"],
    ["a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ["a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ["a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ["(", "found '(', expected: !, identifier, or 'end of string'"],
    ["x in", "unable to parse requirement: found '' expected: '('"],
    ["x in a", "unable to parse requirement: found 'a' expected: '('"],
    ["!", "unable to parse requirement: found '', expected: identifier"],
    ["x=(", "unable to parse requirement: found '(', expected: identifier"],
    // release 1.34: the second comma of ",," is consumed, so a trailing ",," fails
    ["x in (a,,)", "unable to parse requirement: found ')', expected: ',', or identifier"],
    ["x=a$", `unable to parse requirement: values[0][x]: Invalid value: "a$": ${VALUE_REGEX_MSG}`],
    ["x=a||y=b", `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${VALUE_REGEX_MSG}`],
    ["k$", `unable to parse requirement: <nil>: Invalid value: "k$": ${NAME_PART_MSG}`],
    [
      "a/b/c",
      "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ],
    [
      "/a=b",
      'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty',
    ],
    // negative numbers are not valid label values, so `x>-3` cannot be written
    ["x>-3", `unable to parse requirement: values[0][x]: Invalid value: "-3": ${VALUE_REGEX_MSG}`],
    [
      `x=${"a".repeat(64)}`,
      `unable to parse requirement: values[0][x]: Invalid value: "${"a".repeat(64)}": must be no more than 63 characters`,
    ],
    [
      `x>${"a".repeat(64)}`,
      `unable to parse requirement: [values[0]: Invalid value: "${"a".repeat(64)}": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "${"a".repeat(64)}": must be no more than 63 characters]`,
    ],
    [
      `${"a".repeat(64)}=b`,
      `unable to parse requirement: <nil>: Invalid value: "${"a".repeat(64)}": name part must be no more than 63 characters`,
    ],
    [
      "Ab_/x",
      "unable to parse requirement: <nil>: Invalid value: \"Ab_/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
  ])("%j", (input, msg) => {
    expect(parseError(input)).toBe(msg);
  });

  it("uses the given path for key errors", () => {
    expect(() => parseLabelSelector("k$", { path: "spec.selector" })).toThrow(
      `unable to parse requirement: spec.selector: Invalid value: "k$": ${NAME_PART_MSG}`,
    );
    expect(() => parseLabelSelector("x=a$", { path: "p" })).toThrow(
      `unable to parse requirement: p.values[0][x]: Invalid value: "a$": ${VALUE_REGEX_MSG}`,
    );
  });

  it("carries the field errors", () => {
    try {
      parseLabelSelector("x=a$");
    } catch (e) {
      const fe = (e as SelectorParseError).fieldErrors;
      expect(fe).toHaveLength(1);
      expect(fe[0]).toMatchObject({ type: "FieldValueInvalid", field: "values[0][x]", badValue: "a$" });
    }
  });
});

describe("LabelSelector.matches (upstream TestSelectorMatches)", () => {
  const yes: [string, Record<string, string> | undefined][] = [
    ["", { x: "y" }],
    ["", undefined],
    ["x=y", { x: "y" }],
    ["x==y", { x: "y" }],
    ["x=y,z=w", { x: "y", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "a" }],
    ["notin=in", { notin: "in" }],
    ["x", { x: "z" }],
    ["!x", { y: "z" }],
    ["!x", undefined],
    ["x>1", { x: "2" }],
    ["x<1", { x: "0" }],
    ["x<1", { x: "-5" }],
    ["x>1", { x: "+2" }],
    ["x>9223372036854775806", { x: "9223372036854775807" }],
    ["x!=y", {}],
    ["x notin (a)", {}],
    ["x in (a,b)", { x: "b" }],
    ["x notin ()", { x: "a" }],
    ["x in ()", { x: "" }],
    ["x=", { x: "" }],
    ["foo=bar,baz=blah", { foo: "bar", baz: "blah" }],
  ];
  it.each(yes)("%j matches %j", (s, labels) => {
    expect(parseLabelSelector(s).matches(labels)).toBe(true);
  });

  const no: [string, Record<string, string> | undefined][] = [
    ["x=z", {}],
    ["x=z", undefined],
    ["x=y", { x: "z" }],
    ["x=y,z=w", { x: "w", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "w" }],
    ["x", { y: "z" }],
    ["!x", { x: "z" }],
    ["x>1", { x: "0" }],
    ["x<1", { x: "2" }],
    ["x>1", { x: "v2" }],
    ["x>1", {}],
    ["x>1", { x: "99999999999999999999" }],
    ["x in (a)", { x: "b" }],
    ["x notin (a)", { x: "a" }],
    ["x in ()", { y: "" }],
    ["x=", {}],
    ["foo=blah", { foo: "bar", baz: "blah" }],
  ];
  it.each(no)("%j does not match %j", (s, labels) => {
    expect(parseLabelSelector(s).matches(labels)).toBe(false);
  });

  it("does not see prototype properties as labels", () => {
    expect(parseLabelSelector("toString").matches({})).toBe(false);
  });
});

describe("LabelSelector misc", () => {
  it("isEmpty", () => {
    expect(parseLabelSelector("").isEmpty()).toBe(true);
    expect(parseLabelSelector(" ").isEmpty()).toBe(true);
    expect(parseLabelSelector("x").isEmpty()).toBe(false);
    expect(LabelSelector.everything().isEmpty()).toBe(true);
    expect(LabelSelector.nothing().isEmpty()).toBe(false);
    expect(LabelSelector.nothing().matches({})).toBe(false);
  });

  it("requirements and requiresExactMatch", () => {
    const s = parseLabelSelector("b in (y,x),a=1,c");
    expect(s.requirements()).toEqual([
      { key: "a", operator: "=", values: ["1"] },
      { key: "b", operator: "in", values: ["x", "y"] },
      { key: "c", operator: "exists", values: [] },
    ]);
    expect(s.requiresExactMatch("a")).toBe("1");
    expect(s.requiresExactMatch("b")).toBeUndefined();
    expect(parseLabelSelector("b in (x)").requiresExactMatch("b")).toBe("x");
    expect(parseLabelSelector("!b").requirements()).toEqual([{ key: "b", operator: "!", values: [] }]);
    expect(parseLabelSelector("b>3").requirements()).toEqual([{ key: "b", operator: "gt", values: ["3"] }]);
  });

  it("toString (upstream TestToString)", () => {
    expect(parseLabelSelector("x in (abc,def),y notin (jkl),z").toString()).toBe("x in (abc,def),y notin (jkl),z");
    expect(parseLabelSelector("x notin (abc,def),y!=jkl,!z").toString()).toBe("x notin (abc,def),y!=jkl,!z");
    expect(parseLabelSelector("x notin (abc),y in (jkl,mno),z notin ()").toString()).toBe(
      "x notin (abc),y in (jkl,mno),z notin ()",
    );
    expect(parseLabelSelector("x>2,y<8,z").toString()).toBe("x>2,y<8,z");
  });
});

describe("labelSelectorFromObject", () => {
  it("nil → nothing, empty → everything", () => {
    expect(labelSelectorFromObject(undefined).matches({ a: "b" })).toBe(false);
    expect(labelSelectorFromObject(null).isEmpty()).toBe(false);
    expect(labelSelectorFromObject({}).isEmpty()).toBe(true);
    expect(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).matches({ a: "b" })).toBe(true);
  });

  it("converts matchLabels and expressions", () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["b", "a"] },
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "track", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist", values: [] },
      ],
    });
    expect(s.toString()).toBe("app=web,env notin (prod),!legacy,tier in (a,b),track");
    expect(s.matches({ app: "web", tier: "a", track: "x" })).toBe(true);
    expect(s.matches({ app: "web", tier: "a", track: "x", env: "prod" })).toBe(false);
    expect(s.matches({ app: "web", tier: "c", track: "x" })).toBe(false);
    expect(s.matches({ app: "web", tier: "a", track: "x", legacy: "" })).toBe(false);
  });

  it.each<[unknown, string]>([
    [
      { matchExpressions: [{ key: "a", operator: "In" }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: "a", operator: "NotIn", values: [] }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] },
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    ],
    [{ matchExpressions: [{ key: "a", operator: "Foo" }] }, '"Foo" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: "a", operator: "in", values: ["x"] }] }, '"in" is not a valid label selector operator'],
    [
      { matchLabels: { "a b": "c d" } },
      `[key: Invalid value: "a b": ${NAME_PART_MSG}, values[0][a b]: Invalid value: "c d": ${VALUE_REGEX_MSG}]`,
    ],
    [{ matchLabels: { a: "b$" } }, `values[0][a]: Invalid value: "b$": ${VALUE_REGEX_MSG}`],
  ])("%j throws", (obj, msg) => {
    expect(() => labelSelectorFromObject(obj as never)).toThrow(SelectorParseError);
    expect(() => labelSelectorFromObject(obj as never)).toThrow(msg);
    try {
      labelSelectorFromObject(obj as never);
    } catch (e) {
      expect((e as Error).message).toBe(msg);
    }
  });
});

describe("validateLabelSelector", () => {
  it("reports upstream field errors", () => {
    const errs = validateLabelSelector(
      {
        matchLabels: { "bad key": "v" },
        matchExpressions: [
          { key: "a", operator: "In" },
          { key: "b", operator: "Exists", values: ["x"] },
          { key: "c", operator: "Bogus" },
          { key: "d", operator: "In", values: ["ok", "not ok"] },
        ],
      },
      "spec.selector",
    ).map(formatFieldError);
    expect(errs).toEqual([
      `spec.selector.matchLabels: Invalid value: "bad key": ${NAME_PART_MSG}`,
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Bogus": not a valid selector operator',
      `spec.selector.matchExpressions[3].values[1]: Invalid value: "not ok": ${VALUE_REGEX_MSG}`,
    ]);
  });

  it("accepts valid selectors and honours options", () => {
    expect(validateLabelSelector({ matchLabels: { a: "b" } }, "spec.selector")).toEqual([]);
    expect(validateLabelSelector(undefined, "spec.selector")).toEqual([]);
    expect(
      validateLabelSelector({ matchExpressions: [{ key: "a", operator: "X", values: ["$"] }] }, "s", {
        allowUnknownOperatorInRequirement: true,
        allowInvalidLabelValueInSelector: true,
      }),
    ).toEqual([]);
  });
});
