// Kubernetes' compile-time validators that belong to libraries: ext strings' format validation
// (constant format string, list literal arguments) and the regex library's constant find/findAll
// patterns (compiled when cel-go creates the program).
import { describe, expect, it } from "vitest";
import { kubernetesLibraries } from "../libraries.js";
import { memberOverload, type CelLibrary } from "../library.js";
import { plan } from "../interpreter/index.js";
import { parse } from "../parser/index.js";
import { CelCompileError, CelProgramError } from "../source.js";
import { optionalLibrary, standardLibrary } from "../stdlib/index.js";
import { DynType, IntType, StringType, listOf, mapOf, optionalOf, type CelType, type ObjectType } from "../types.js";
import { check, createCheckerEnv } from "./index.js";

const item: ObjectType = { kind: "object", name: "selfType.item", fields: new Map([["name", { type: StringType, required: false }]]) };
const variables: Record<string, CelType> = {
  s: StringType,
  i: IntType,
  l: listOf(IntType),
  m: mapOf(StringType, IntType),
  d: DynType,
  o: optionalOf(IntType),
  obj: item,
  objs: listOf(item),
};
const env = createCheckerEnv({ variables, libraries: kubernetesLibraries });
const stdEnv = createCheckerEnv({ variables, libraries: [standardLibrary, optionalLibrary] });

/** `line:column: message` of each issue. */
function issues(text: string, e = env): string[] {
  try {
    check(parse(text), e);
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err;
    return err.issues.map((i) => {
      const { line, column } = err.source.location(i.offset);
      return `${line}:${column}: ${i.message}`;
    });
  }
  return [];
}

describe("ext strings format validation (cel-go stringFormatValidator)", () => {
  it.each<[string, string[]]>([
    ["'%s %s'.format(['abc'])", ["1:15: index 1 out of range"]],
    ["'%s %s'.format(['abc', 'def', 'ghi'])", ["1:15: too many arguments supplied to string.format (expected 2, got 3)"]],
    ["'filler %'.format([])", ["1:18: unexpected end of string"]],
    ["'%j'.format([123])", ['1:12: could not parse formatting clause: unrecognized formatting clause "j"']],
    ["'%.'.format([1.0])", ['1:12: could not parse formatting clause: error while parsing precision: could not find end of precision specifier']],
    // A type problem is reported at the argument.
    ["'int is %d'.format([1.0])", ["1:21: error during formatting: decimal clause can only be used on integers, was given double"]],
    ["'%d and %f'.format([1, 'x', 2])", ["1:19: too many arguments supplied to string.format (expected 2, got 3)"]],
    ["'%x'.format([l])", ["1:14: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given list"]],
    ["'%b'.format([s])", ["1:14: error during formatting: only integers and bools can be formatted as binary, was given string"]],
    ["'%o'.format([o])", ["1:14: error during formatting: octal clause can only be used on integers, was given optional_type"]],
    ["'%e'.format([timestamp('2024-01-01T00:00:00Z')])", [
      "1:23: error during formatting: scientific clause can only be used on doubles, was given google.protobuf.Timestamp",
    ]],
    ["'%s'.format([obj])", [
      "1:14: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given selfType.item",
    ]],
    // %s looks into list and map literals (at the offending element), not into other lists' types.
    ["'%s'.format([[1, [obj]]])", [
      "1:19: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given selfType.item",
    ]],
    ["'%s'.format([{'a': o}])", [
      "1:20: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type",
    ]],
    ["'%s'.format([objs])", []],
    ["'%s %d %f %e %b %x %X %o %%'.format([m, 1u, '1.0', 2.0, true, b'a', 'z', i])", []],
    ["'%d %s'.format([d, null])", []],
    // Only a constant format string with one list literal.
    ["s.format([1.0])", []],
    ["'%d'.format(l)", []],
    ["'%d'.format(['x'].map(x, x))", []],
  ])("%s", (text, want) => {
    expect(issues(text)).toEqual(want);
  });

  it("runs only where a library declares string_format", () => {
    expect(issues("'%d'.format([1.0])", stdEnv)).toEqual(["1:12: undeclared reference to 'format' (in container '')"]);
    const other: CelLibrary = {
      name: "other",
      functions: [{ name: "format", overloads: [memberOverload("other_format", [StringType, listOf(DynType)], StringType)] }],
    };
    const otherEnv = createCheckerEnv({ variables, libraries: [standardLibrary, other] });
    expect(issues("'%d'.format([1.0])", otherEnv)).toEqual([]);
  });
});

describe("constant find / findAll patterns (compiled when the program is created)", () => {
  const programError = (text: string) => check(parse(text), env).programError;

  it.each<[string, string | undefined]>([
    ["s.find(')') == ''", "error parsing regexp: unexpected ): `)`"],
    ["s.findAll(')') == []", "error parsing regexp: unexpected ): `)`"],
    ["s.findAll(')', 1) == []", "error parsing regexp: unexpected ): `)`"],
    ["s.find('[0-9]+') == ''", undefined],
    ["s.find(s) == ''", undefined],
    ["s.find('(' + ')') == ''", undefined],
    // The first one cel-go plans: operands before the call, left to right.
    ["s.find('(').find('[') == s.find(')')", "error parsing regexp: missing closing ): `(`"],
    ["[s].all(x, x.find('x++') != '')", "error parsing regexp: invalid nested repetition operator: `++`"],
  ])("%s", (text, want) => {
    expect(programError(text)).toBe(want);
  });

  it("plan refuses the checked expression with CelProgramError", () => {
    const checked = check(parse("s.find(')') == ''"), env);
    expect(() => plan(checked, kubernetesLibraries)).toThrow(CelProgramError);
    expect(() => plan(checked, kubernetesLibraries)).toThrow("error parsing regexp: unexpected ): `)`");
    expect(plan(check(parse("s.find('b+')"), env), kubernetesLibraries).eval({ s: "abbc" }).value).toBe("bb");
  });

  it("compile errors come first; matches keeps its compile-time literal check", () => {
    expect(issues("s.find('(') + 1")).toEqual(["1:13: found no matching overload for '_+_' applied to '(string, int)'"]);
    expect(issues("s.matches('(')")).toEqual(["1:11: invalid matches argument"]);
  });
});
