import { describe, expect, test } from "vitest";
import { tests as celGoParsing } from "@bufbuild/cel-spec/testdata/parsing.js";
import { tests as conformance } from "@bufbuild/cel-spec/testdata/conformance.js";
import type { Expr, ParsedExpr } from "../ast.js";
import { CelCompileError } from "../source.js";
import { CelUint } from "../value.js";
import { formatExpr, kindAdorner, kindAndIdAdorner, parse, standardMacros, type ParseOptions } from "./index.js";

/** Compact one-line rendering with ids: `_+_(1#1, 2#3)#2`. */
function show(e: Expr): string {
  return formatExpr(e, (n, entry) => (entry ? `#${n.id}` : `#${n.id}`)).replace(/\n\s*/g, " ");
}

/** cel-go's location adorner: `^#id[line,column0]#`. */
function located(p: ParsedExpr): string {
  return formatExpr(p.expr, (n) => {
    const off = p.positions.get(n.id);
    if (off === undefined) return `^#${n.id}[?]#`;
    const { line, column } = p.source.location(off);
    return `^#${n.id}[${line},${column - 1}]#`;
  }).replace(/\n\s*/g, " ");
}

/** The `ERROR: <input>:l:c: message` lines of a failed parse (no snippets). */
function errorLines(text: string, options?: ParseOptions): string[] {
  try {
    parse(text, options);
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    return e.issues.map((i) => {
      if (i.offset < 0) return `-1:0: ${i.message}`;
      const { line, column } = e.source.location(i.offset);
      return `${line}:${column}: ${i.message}`;
    });
  }
  throw new Error(`no error for ${text}`);
}

function* walk(s: { tests?: any[]; suites?: any[] }): Generator<any> {
  for (const t of s.tests ?? []) yield t;
  for (const c of s.suites ?? []) yield* walk(c);
}

const PRIMARY =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

describe("constructs (ids in cel-go's order)", () => {
  test.each([
    ["a", "a#1"],
    [".a.b", ".a#1.b#2"],
    ["a.b.c", "a#1.b#2.c#3"],
    ["a?b:c", "_?_:_( a#1, b#3, c#4 )#2"],
    ["a ? b : c ? d : e", "_?_:_( a#1, b#3, _?_:_( c#4, d#6, e#7 )#5 )#2"],
    ["a || b", "_||_( a#1, b#2 )#3"],
    ["a && b || c", "_||_( _&&_( a#1, b#2 )#3, c#4 )#5"],
    ["a || b || c || d", "_||_( _||_( a#1, b#2 )#3, _||_( c#4, d#6 )#7 )#5"],
    ["1 + 2 * 3 - 4", "_-_( _+_( 1#1, _*_( 2#3, 3#5 )#4 )#2, 4#7 )#6"],
    ["a < b == c", "_==_( _<_( a#1, b#3 )#2, c#5 )#4"],
    ["a in b", "@in( a#1, b#3 )#2"],
    ["x % 2 != 0", "_!=_( _%_( x#1, 2#3 )#2, 0#5 )#4"],
    ["!a", "!_( a#2 )#1"],
    ["!!a", "a#1"],
    ["!!!a", "!_( a#2 )#1"],
    ["-a", "-_( a#2 )#1"],
    ["-1", "-1#1"],
    ["--1", "1#1"],
    ["---1", "-_( 1#2 )#1"],
    ["-(1)", "-_( 1#2 )#1"],
    ["-1.5", "-1.5#1"],
    ["-.5", "-0.5#1"],
    ["-1u", "-_( 1u#2 )#1"],
    ["4--4", "_-_( 4#1, -4#3 )#2"],
    ["-9223372036854775808", "-9223372036854775808#1"],
    ["a.b(c)", "a#1.b( c#3 )#2"],
    ["f()", "f()#1"],
    ["f(a, b)", "f( a#2, b#3 )#1"],
    [".f(a)", ".f( a#2 )#1"],
    ["a[0]", "_[_]( a#1, 0#3 )#2"],
    ["a[?0]", "_[?_]( a#1, 0#3 )#2"],
    ["a.?b", '_?._( a#1, "b"#2 )#3'],
    ["a.?b.c", '_?._( a#1, "b"#2 )#3.c#4'],
    ["a.`b-c`", "a#1.b-c#2"],
    ["a.`b.c`.`d/e f`", "a#1.b.c#2.d/e f#3"],
    ["[]", "[]#1"],
    ["[,]", "[]#1"],
    ["[1, 2,]", "[ 1#2, 2#3 ]#1"],
    ["[?a, b]", "[ ?a#2, b#3 ]#1"],
    ["{}", "{}#1"],
    ["{a: 1, ?b: 2,}", "{ a#3:1#4#2, ?b#6:2#7#5 }#1"],
    ["A{}", "A{}#1"],
    ["a.b.C{f: 1, ?g: 2}", "a.b.C{ f:1#3#2, ?g:2#5#4 }#1"],
    [".a.B{`f-g`: 1}", ".a.B{ f-g:1#3#2 }#1"],
    ["(a)", "a#1"],
    ["((a + b))", "_+_( a#1, b#3 )#2"],
    ["true && false || null == null", "_||_( _&&_( true#1, false#2 )#3, _==_( null#4, null#6 )#5 )#7"],
  ])("%s", (text, want) => {
    expect(show(parse(text).expr)).toBe(want);
  });
});

describe("positions (cel-go's location adorner)", () => {
  test.each([
    ["a.b(c)", "a^#1[1,0]#.b( c^#3[1,4]# )^#2[1,3]#"],
    ["has(m.f)", "m^#2[1,4]#.f~test-only~^#4[1,3]#"],
    ["a + b", "_+_( a^#1[1,0]#, b^#3[1,4]# )^#2[1,2]#"],
    ["a\n  .b", "a^#1[1,0]#.b^#2[2,2]#"],
    ["-1", "-1^#1[1,0]#"],
    ["f(x)", "f( x^#2[1,2]# )^#1[1,1]#"],
    ["'😁' + x", '_+_( "😁"^#1[1,0]#, x^#3[1,6]# )^#2[1,4]#'],
  ])("%s", (text, want) => {
    expect(located(parse(text))).toBe(want);
  });

  test("every node id has a position and nextId is the next free id", () => {
    const p = parse("[1, 2].map(x, x * 2).filter(y, y > 2).size() == {'a': cel.bind(z, 1, z)}.size()");
    const ids: number[] = [];
    const visit = (e: Expr): void => {
      ids.push(e.id);
      switch (e.kind) {
        case "select":
          return visit(e.operand);
        case "call":
          if (e.target) visit(e.target);
          return e.args.forEach(visit);
        case "list":
          return e.elements.forEach(visit);
        case "map":
          return e.entries.forEach((en) => (ids.push(en.id), visit(en.key), visit(en.value)));
        case "struct":
          return e.fields.forEach((f) => (ids.push(f.id), visit(f.value)));
        case "comprehension":
          [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result].forEach(visit);
      }
    };
    visit(p.expr);
    for (const id of ids) expect(p.positions.has(id), `id ${id}`).toBe(true);
    expect(new Set(ids).size).toBeLessThanOrEqual(ids.length);
    expect(Math.max(...ids)).toBeLessThan(p.nextId);
  });
});

describe("literals", () => {
  const value = (text: string) => {
    const e = parse(text).expr;
    if (e.kind !== "const") throw new Error(`not a constant: ${text}`);
    return e.value;
  };
  test.each<[string, unknown]>([
    ["0", 0n],
    ["42", 42n],
    ["0xF", 15n],
    ["0x7fffffffffffffff", 9223372036854775807n],
    ["-0x8000000000000000", -9223372036854775808n],
    ["9223372036854775807", 9223372036854775807n],
    ["1.5", 1.5],
    ["1e3", 1000],
    ["1.5E-3", 0.0015],
    [".5", 0.5],
    ["1e+2", 100],
    ["true", true],
    ["false", false],
    ["null", null],
    ['"A"', "A"],
    ["'a\"b'", 'a"b'],
    ['"""a\n"b"\n"""', 'a\n"b"\n'],
    ["'''x''y'''", "x''y"],
    ['r"a\\n"', "a\\n"],
    ["R'\\x'", "\\x"],
    ['r"""\\"""', "\\"],
    ['"\\a\\b\\f\\n\\r\\t\\v\\\\\\\'\\"\\`\\?"', "\x07\b\f\n\r\t\v\\'\"`?"],
    ['"\\x41\\X42\\u0043\\U00000044\\105"', "ABCDE"],
    ['"\\xC3\\XBF"', "Ã¿"],
    ['"\\303\\277"', "Ã¿"],
    ['"\\u263A\\U0001F600"', "☺😀"],
    ['"a\r\nb"'.replace('"a\r\nb"', '"""a\r\nb"""'), "a\nb"],
  ])("%s", (text, want) => {
    expect(value(text)).toEqual(want);
  });

  test("uint", () => {
    expect(value("1u")).toEqual(new CelUint(1n));
    expect(value("0xFU")).toEqual(new CelUint(15n));
    expect(value("18446744073709551615u")).toEqual(new CelUint(18446744073709551615n));
  });

  test.each<[string, number[]]>([
    ['b"abc"', [97, 98, 99]],
    ["B'ÿ'", [0xc3, 0xbf]],
    ['b"\\xff\\377\\x00"', [255, 255, 0]],
    ['br"\\xff"', [92, 120, 102, 102]],
    ['b"""\\n"""', [10]],
  ])("bytes %s", (text, want) => {
    expect(Array.from(value(text) as Uint8Array)).toEqual(want);
  });

  test.each([
    ["9223372036854775808", "1:1: invalid int literal"],
    ["-9223372036854775809", "1:1: invalid int literal"],
    ["0xFFFFFFFFFFFFFFFFF", "1:1: invalid int literal"],
    ["18446744073709551616u", "1:1: invalid uint literal"],
    ["0xFFFFFFFFFFFFFFFFFu", "1:1: invalid uint literal"],
    ["1.99e90000009", "1:1: invalid double literal"],
    ["-(9223372036854775808)", "1:3: invalid int literal"],
    ["'\\udead'", "1:1: invalid unicode code point"],
    ["'\\U00110000'", "1:1: invalid unicode code point"],
    ['b"\\u0041"', "1:1: unable to unescape string"],
    ["x + b'\\U00000041'", "1:5: unable to unescape string"],
  ])("%s", (text, want) => {
    expect(errorLines(text)).toEqual([want]);
  });
});

describe("macros", () => {
  test("all / exists / exists_one / map / filter / has expand as cel-go (ids included)", () => {
    expect(show(parse("m.all(v, f)").expr)).toBe(
      "__comprehension__( // Variable v, // Target m#1, // Accumulator @result, // Init true#5, // LoopCondition @not_strictly_false( @result#6 )#7, // LoopStep _&&_( @result#8, f#4 )#9, // Result @result#10)#11",
    );
    expect(show(parse("m.exists(v, f)").expr)).toBe(
      "__comprehension__( // Variable v, // Target m#1, // Accumulator @result, // Init false#5, // LoopCondition @not_strictly_false( !_( @result#6 )#7 )#8, // LoopStep _||_( @result#9, f#4 )#10, // Result @result#11)#12",
    );
    for (const name of ["exists_one", "existsOne"]) {
      expect(show(parse(`m.${name}(v, f)`).expr)).toBe(
        "__comprehension__( // Variable v, // Target m#1, // Accumulator @result, // Init 0#5, // LoopCondition true#6, // LoopStep _?_:_( f#4, _+_( @result#7, 1#8 )#9, @result#10 )#11, // Result _==_( @result#12, 1#13 )#14)#15",
      );
    }
    expect(show(parse("m.map(v, f)").expr)).toBe(
      "__comprehension__( // Variable v, // Target m#1, // Accumulator @result, // Init []#5, // LoopCondition true#6, // LoopStep _+_( @result#7, [ f#4 ]#8 )#9, // Result @result#10)#11",
    );
    expect(show(parse("m.map(v, p, f)").expr)).toBe(
      "__comprehension__( // Variable v, // Target m#1, // Accumulator @result, // Init []#6, // LoopCondition true#7, // LoopStep _?_:_( p#4, _+_( @result#8, [ f#5 ]#9 )#10, @result#11 )#12, // Result @result#13)#14",
    );
    expect(show(parse("m.filter(v, p)").expr)).toBe(
      "__comprehension__( // Variable v, // Target m#1, // Accumulator @result, // Init []#5, // LoopCondition true#6, // LoopStep _?_:_( p#4, _+_( @result#7, [ v#3 ]#8 )#9, @result#10 )#11, // Result @result#12)#13",
    );
    expect(show(parse("has(a.b.c)").expr)).toBe("a#2.b#3.c~test-only~#5");
  });

  test("two-variable comprehensions set iterVar2", () => {
    const e = parse("m.all(k, v, k < v)").expr;
    expect(e.kind === "comprehension" && [e.iterVar, e.iterVar2, e.accuVar]).toEqual(["k", "v", "@result"]);
    expect(show(parse("m.transformList(i, v, v * 2)").expr)).toBe(
      "__comprehension__( // Variable i, v, // Target m#1, // Accumulator @result, // Init []#11, // LoopCondition true#12, // LoopStep _+_( @result#8, [ _*_( v#5, 2#7 )#6 ]#9 )#10, // Result @result#13)#14",
    );
    expect(show(parse("m.transformList(i, v, i > 0, v)").expr)).toContain(
      "// LoopStep _?_:_( _>_( i#5, 0#7 )#6, _+_( @result#9, [ v#8 ]#10 )#11, @result#12 )#13",
    );
    expect(show(parse("m.transformMap(k, v, v + 1)").expr)).toContain(
      "// Init {}#11, // LoopCondition true#12, // LoopStep cel.@mapInsert( @result#8, k#9, _+_( v#5, 1#7 )#6 )#10",
    );
    expect(show(parse("m.transformMapEntry(k, v, {k: v})").expr)).toContain(
      "// LoopStep cel.@mapInsert( @result#9, { k#7:v#8#6 }#5 )#10",
    );
    expect(show(parse("m.exists_one(k, v, v)").expr)).toContain("// Variable k, v,");
  });

  test("cel.bind", () => {
    expect(show(parse("cel.bind(x, 1, x + x)").expr)).toBe(
      "__comprehension__( // Variable #unused, // Target []#8, // Accumulator x, // Init 1#4, // LoopCondition false#9, // LoopStep x#10, // Result _+_( x#5, x#7 )#6)#11",
    );
    expect(show(parse("other.bind(x, 1, x)").expr)).toBe("other#1.bind( x#3, 1#4, x#5 )#2");
  });

  test("optMap / optFlatMap (cel-go's optional library: a cel.bind of the value, target copied)", () => {
    expect(show(parse("a.optMap(x, x + 1)").expr)).toBe(
      "_?_:_( a#1.hasValue()#7, optional.of( __comprehension__( // Variable #unused, // Target []#8, // Accumulator x, // Init a#9.value()#10, // LoopCondition false#11, // LoopStep x#12, // Result _+_( x#4, 1#6 )#5)#13 )#14, optional.none()#15 )#16",
    );
    expect(show(parse("a.?b.optFlatMap(x, x.?c)").expr)).toBe(
      '_?_:_( _?._( a#1, "b"#2 )#3.hasValue()#9, __comprehension__( // Variable #unused, // Target []#10, // Accumulator x, // Init _?._( a#12, "b"#13 )#11.value()#14, // LoopCondition false#15, // LoopStep x#16, // Result _?._( x#6, "c"#7 )#8)#17, optional.none()#18 )#19',
    );
    // The copied target keeps the original nodes' positions; the new nodes sit at the call.
    expect(located(parse("a.b.optMap(x, x)"))).toBe(
      "_?_:_( a^#1[1,0]#.b^#2[1,1]#.hasValue()^#6[1,10]#, optional.of( __comprehension__( // Variable #unused, // Target []^#7[1,10]#, // Accumulator x, // Init a^#9[1,0]#.b^#8[1,1]#.value()^#10[1,10]#, // LoopCondition false^#11[1,10]#, // LoopStep x^#12[1,10]#, // Result x^#5[1,14]#)^#13[1,10]# )^#14[1,10]#, optional.none()^#15[1,10]# )^#16[1,10]#",
    );
    const p = parse("a.optMap(x, x)");
    expect(p.macroCalls.get(p.expr.id)?.fn).toBe("optMap");
    expect(show(parse("optMap(a, x, x)").expr)).toBe("optMap( a#2, x#3, x#4 )#1");
    expect(show(parse("a.optMap(x)").expr)).toBe("a#1.optMap( x#3 )#2");
  });

  test("sortBy (ext lists: binds @__sortBy_input__, sorts by the mapped keys)", () => {
    expect(show(parse("a.b.sortBy(e, e.x)").expr)).toBe(
      "__comprehension__( // Variable #unused, // Target []#18, // Accumulator @__sortBy_input__, // Init a#1.b#2, // LoopCondition false#19, // LoopStep @__sortBy_input__#7, // Result @__sortBy_input__#16.@sortByAssociatedKeys( __comprehension__( // Variable e, // Target @__sortBy_input__#8, // Accumulator @result, // Init []#9, // LoopCondition true#10, // LoopStep _+_( @result#11, [ e#5.x#6 ]#12 )#13, // Result @result#14)#15 )#17)#20",
    );
    for (const target of ["[3, 1]", "l", "l.f", "f(l)", "l.map(x, x)"]) {
      const e = parse(`${target}.sortBy(e, -e)`).expr;
      expect(e.kind === "comprehension" && [e.accuVar, e.iterVar, e.loopStep.kind]).toEqual(["@__sortBy_input__", "#unused", "ident"]);
    }
    expect(show(parse("l.sortBy(e)").expr)).toBe("l#1.sortBy( e#3 )#2");
  });

  test("only matching call style and argument count expand", () => {
    expect(show(parse("all(x, p)").expr)).toBe("all( x#2, p#3 )#1");
    expect(show(parse("m.has(x)").expr)).toBe("m#1.has( x#3 )#2");
    expect(show(parse("m.map(x)").expr)).toBe("m#1.map( x#3 )#2");
    expect(show(parse("m.filter(x, y, z)").expr)).toBe("m#1.filter( x#3, y#4, z#5 )#2");
    expect(show(parse("m.transformList(i, v)").expr)).toBe("m#1.transformList( i#3, v#4 )#2");
    expect(show(parse("m.all(k, v, p)", { macros: standardMacros }).expr)).toBe("m#1.all( k#3, v#4, p#5 )#2");
  });

  test("macroCalls records each expansion by the expansion's id", () => {
    const p = parse("[1].all(x, [x].exists(y, has(y.z)))");
    expect(p.expr.kind).toBe("comprehension");
    const outer = p.macroCalls.get(p.expr.id)!;
    expect(outer.fn).toBe("all");
    expect(outer.target?.kind).toBe("list");
    expect(outer.args.map((a) => a.kind)).toEqual(["ident", "comprehension"]);
    const inner = p.macroCalls.get(outer.args[1]!.id)!;
    expect(inner.fn).toBe("exists");
    expect(inner.args[1]!.kind).toBe("select");
    expect(p.macroCalls.get(inner.args[1]!.id)?.fn).toBe("has");
    expect(p.macroCalls.size).toBe(3);
  });

  test.each([
    ["has(m)", ["1:5: invalid argument to has() macro"]],
    ["has(m.?f)", ["1:6: invalid argument to has() macro"]],
    ["1.all(2, 3)", ["1:7: argument must be a simple name"]],
    ["m.map(a.b, 1)", ["1:8: argument is not an identifier"]],
    ["m.filter(a.b, false)", ["1:11: argument is not an identifier"]],
    ["m.map(@x, 1)", ["1:7: Syntax error: token recognition error at: '@'"]],
    ["[].existsOne(__result__, __result__)", ["1:14: iteration variable overwrites accumulator variable"]],
    ["m.map(__result__, __result__)", ["1:7: iteration variable overwrites accumulator variable"]],
    ["m.all(k, k, true)", ["1:10: duplicate variable name: k"]],
    ["m.transformList(1, v, v)", ["1:17: argument must be a simple name"]],
    ["m.transformMap(k, v.w, v)", ["1:20: argument must be a simple name"]],
    ["m.exists(k, __result__, true)", ["1:13: iteration variable overwrites accumulator variable"]],
    ["cel.bind(a.b, 1, 2)", ["1:11: cel.bind() variable names must be simple identifiers"]],
    ["x.optMap(y.z, y.z + 1)", ["1:11: optMap() variable name must be a simple identifier"]],
    ["x.optFlatMap(1, 2)", ["1:14: optFlatMap() variable name must be a simple identifier"]],
    ["1.sortBy(e, e)", ["1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression"]],
    ["{'a': 1}.sortBy(e, e)", ["1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression"]],
    ["l.sortBy(e.f, e)", ["1:11: argument is not an identifier"]],
    ["l.sortBy(__result__, 1)", ["1:10: iteration variable overwrites accumulator variable"]],
    [
      "[1, 2, 3].map(var, var * var)",
      [
        "1:15: reserved identifier: var",
        "1:15: argument is not an identifier",
        "1:20: reserved identifier: var",
        "1:26: reserved identifier: var",
      ],
    ],
  ])("%s", (text, want) => {
    expect(errorLines(text)).toEqual(want);
  });
});

describe("syntax errors", () => {
  test.each([
    ["", [`1:1: Syntax error: mismatched input '<EOF>' expecting ${PRIMARY}`]],
    ["1 + ", [`1:5: Syntax error: mismatched input '<EOF>' expecting ${PRIMARY}`]],
    ["*@a | b", [
      `1:1: Syntax error: extraneous input '*' expecting ${PRIMARY}`,
      "1:2: Syntax error: token recognition error at: '@'",
      "1:5: Syntax error: token recognition error at: '| '",
      "1:7: Syntax error: extraneous input 'b' expecting <EOF>",
    ]],
    ["a | b", ["1:3: Syntax error: token recognition error at: '| '", "1:5: Syntax error: extraneous input 'b' expecting <EOF>"]],
    ["a & b", ["1:3: Syntax error: token recognition error at: '& '", "1:5: Syntax error: extraneous input 'b' expecting <EOF>"]],
    ["1 + $", ["1:5: Syntax error: token recognition error at: '$'", `1:6: Syntax error: mismatched input '<EOF>' expecting ${PRIMARY}`]],
    ["1 + 2\n3 +", ["2:1: Syntax error: mismatched input '3' expecting <EOF>"]],
    ["{", [`1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`]],
    ["{a}", ["1:3: Syntax error: mismatched input '}' expecting ':'"]],
    ["{:a}", [`1:2: Syntax error: extraneous input ':' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`, "1:4: Syntax error: mismatched input '}' expecting ':'"]],
    ["ind[a{b}]", ["1:8: Syntax error: mismatched input '}' expecting ':'"]],
    ["x{.", ["1:3: Syntax error: mismatched input '.' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}"]],
    ["msg{:a}", ["1:5: Syntax error: extraneous input ':' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}", "1:7: Syntax error: mismatched input '}' expecting ':'"]],
    ["TestAllTypes(){}", ["1:15: Syntax error: mismatched input '{' expecting <EOF>"]],
    ["TestAllTypes{}()", ["1:15: Syntax error: mismatched input '(' expecting <EOF>"]],
    ['{"a": 1}."a"', [`1:10: Syntax error: no viable alternative at input '."a"'`]],
    ["self.true == 1", ["1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER"]],
    ["a.", ["1:3: Syntax error: no viable alternative at input '.'"]],
    ['"\\xFh"', [
      `1:1: Syntax error: token recognition error at: '"\\xFh'`,
      `1:6: Syntax error: token recognition error at: '"'`,
      `1:7: Syntax error: mismatched input '<EOF>' expecting ${PRIMARY}`,
    ]],
    ["'abc", ["1:1: Syntax error: token recognition error at: ''abc'", `1:5: Syntax error: mismatched input '<EOF>' expecting ${PRIMARY}`]],
    // The lexer resumes after the offending newline: `b` alone is a valid expression.
    ["'a\nb'", ["1:1: Syntax error: token recognition error at: ''a\\n'", "2:2: Syntax error: token recognition error at: '''"]],
    ["(1 + 2", ["1:7: Syntax error: missing ')' at '<EOF>'"]],
    ["f(1 2)", ["1:5: Syntax error: extraneous input '2' expecting ')'"]],
    ["[1 2]", ["1:4: Syntax error: extraneous input '2' expecting {']', ','}"]],
    ["`b-c`", [`1:1: Syntax error: mismatched input '\`b-c\`' expecting ${PRIMARY}`]],
    ["a.`$b`", ["1:3: Syntax error: token recognition error at: '`$'", "1:6: Syntax error: token recognition error at: '`'"]],
    ["as", ["1:1: reserved identifier: as"]],
    ["while(1)", ["1:1: reserved identifier: while"]],
    ["a.?b && a[?b]", ["1:2: unsupported syntax '.?'", "1:10: unsupported syntax '[?'"], { enableOptionalSyntax: false }],
    ["[?a, ?b]", ["1:2: unsupported syntax '?'", "1:6: unsupported syntax '?'"], { enableOptionalSyntax: false }],
    ["Msg{?field: value} && {?'key': value}", ["1:5: unsupported syntax '?'", "1:24: unsupported syntax '?'"], { enableOptionalSyntax: false }],
    ["a.`b-c`", ["1:3: unsupported syntax: '`'"], { enableIdentEscapeSyntax: false }],
  ] as [string, string[], ParseOptions?][])("%s", (text, want, options) => {
    const got = errorLines(text, options);
    expect([...got].sort()).toEqual([...want].sort());
  });

  test("errors are sorted by position", () => {
    expect(errorLines("*@a | b")).toEqual([
      `1:1: Syntax error: extraneous input '*' expecting ${PRIMARY}`,
      "1:2: Syntax error: token recognition error at: '@'",
      "1:5: Syntax error: token recognition error at: '| '",
      "1:7: Syntax error: extraneous input 'b' expecting <EOF>",
    ]);
  });

  test("recovery stops after the configured number of attempts", () => {
    const lines = errorLines("1 2 3 + 4", { errorRecoveryLimit: 1 });
    expect(lines).toEqual(["1:3: Syntax error: mismatched input '2' expecting <EOF>"]);
  });
});

describe("limits", () => {
  test("code points", () => {
    expect(errorLines("foo", { maxCodePoints: 2 })).toEqual([
      "-1:0: expression code point size exceeds limit: size: 3, limit 2",
    ]);
    expect(errorLines("'😁😁'", { maxCodePoints: 3 })).toEqual([
      "-1:0: expression code point size exceeds limit: size: 4, limit 3",
    ]);
    expect(() => parse("x".repeat(100_001))).toThrow("size: 100001, limit 100000");
    expect(parse("x".repeat(100_000)).expr.kind).toBe("ident");
  });

  test.each([
    ["[".repeat(32) + "'not fine'" + "]".repeat(32), "expression recursion limit exceeded: 32"],
    ["(".repeat(32) + "7" + ")".repeat(32), "expression recursion limit exceeded: 32"],
    ["a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F.G.H", "max recursion depth exceeded"],
    [Array.from({ length: 34 }, (_, i) => i + 1).join(" + "), "max recursion depth exceeded"],
    ["a" + Array.from({ length: 33 }, (_, i) => `[${i}]`).join(""), "max recursion depth exceeded"],
    ["a" + " < 1".repeat(33), "max recursion depth exceeded"],
  ])("depth 32: %s", (text, want) => {
    expect(errorLines(text, { maxRecursionDepth: 32 })).toEqual([`-1:0: ${want}`]);
  });

  test("within depth 32", () => {
    expect(() => parse("(".repeat(31) + "7" + ")".repeat(31), { maxRecursionDepth: 32 })).not.toThrow();
    expect(() => parse("a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F", { maxRecursionDepth: 32 })).not.toThrow();
    // && / || chains are balanced, not nested.
    expect(() => parse(Array.from({ length: 200 }, (_, i) => `x${i}`).join(" && "), { maxRecursionDepth: 32 })).not.toThrow();
  });

  test.each([
    ["(".repeat(10_000), "expression recursion limit exceeded: 250"],
    ["[".repeat(10_000) + "]".repeat(10_000), "expression recursion limit exceeded: 250"],
    ["-(".repeat(10_000), "expression recursion limit exceeded: 250"],
    ["a" + ".b".repeat(30_000), "max recursion depth exceeded"],
    ["1" + "+1".repeat(30_000), "max recursion depth exceeded"],
    ["x ? y : ".repeat(1000) + "z", "expression recursion limit exceeded: 250"],
  ])("default limits, no stack overflow: %#", (text, want) => {
    expect(errorLines(text)).toContain(`-1:0: ${want}`);
  });

  test("no limit does not crash on deep input", () => {
    expect(() => parse("(".repeat(50_000) + "1" + ")".repeat(50_000), { maxRecursionDepth: -1 })).toThrow(CelCompileError);
  });

  test("large inputs parse in linear time", () => {
    const text = Array.from({ length: 2000 }, (_, i) => `a${i}.b.c[${i}] == 'x${i}'`).join(" || ");
    const start = performance.now();
    const p = parse(text);
    expect(p.expr.kind).toBe("call");
    expect(performance.now() - start).toBeLessThan(1000);
    const garbage = "@#$%^".repeat(10_000);
    expect(() => parse(garbage)).toThrow(/More than 100 syntax errors/);
  });
});

describe("cel-go's parser tests (as recorded in @bufbuild/cel-spec)", () => {
  const cases = [...walk(celGoParsing)];
  test.each(cases.filter((t) => t.ast).map((t) => [t.original.expr, t.ast]))("%s", (text, ast) => {
    expect(formatExpr(parse(text, { macros: standardMacros }).expr, kindAdorner)).toBe(ast);
  });

  // cel-go's tests run with MaxRecursionDepth(32), ErrorRecoveryLimit(4), and some with optional
  // syntax or escaped identifiers disabled.
  const knownDifferences = new Set([
    "1 + +", // cel-go also reports the '<EOF>' after recovering
    "in",
    "?",
    "a ? b ((?))",
    "func{{a}}",
    "--", // cel-go adds "no viable alternative at input '-'"
    "      '😁' in ['😁', '😑', '😦']\n\t\t\t&& in.😁", // '<EOF>' after '.': cel-go "no viable alternative"
    "x{?.", // cel-go adds "error recovery attempt limit exceeded: 4"
    "a.`b.c`()", // cel-go reports both errors
  ]);
  const errorCases = cases.filter((t) => !t.ast && t.error);
  test.each(errorCases.map((t) => [t.original.expr, t.error]))("error: %s", (text, error) => {
    const options: ParseOptions = {
      maxRecursionDepth: 32,
      errorRecoveryLimit: 4,
      enableOptionalSyntax: !/unsupported syntax '/.test(error),
      enableIdentEscapeSyntax: !/unsupported syntax: '`'/.test(error),
    };
    const got = errorLines(text, options);
    const want = (error as string)
      .split("\n")
      .filter((l) => l.startsWith("ERROR: "))
      .map((l) => l.replace(/^ERROR: [^:]*:/, ""));
    if (want.some((l) => l.includes("lookahead limit"))) {
      // cel-go gives up fetching tokens there; we lex the whole input and report more.
      expect(got.length).toBeGreaterThan(0);
    } else if (knownDifferences.has(text)) {
      // We report a subset of cel-go's errors (fewer follow-on errors after recovery).
      expect(got.length).toBeGreaterThan(0);
      for (const line of got) expect(want).toContain(line);
    } else if (want[0]!.startsWith("-1:0: expression recursion limit") && want.length > 1) {
      expect(got).toContain(want[0]);
    } else expect(got).toEqual(want);
  });
});

describe("cel-spec conformance expressions", () => {
  const cases = [...walk(conformance)];

  test("every expression cel-go parsed gives cel-go's AST (standard macros)", () => {
    let same = 0;
    const diffs: string[] = [];
    for (const t of cases) {
      if (!t.ast) continue;
      const got = formatExpr(parse(t.original.expr, { macros: standardMacros }).expr, kindAdorner);
      if (got === t.ast) same++;
      else diffs.push(t.original.expr);
    }
    expect(diffs).toEqual([]);
    expect(same).toBeGreaterThan(2200);
  });

  // cel.block tests use the optimizer's cel.iterVar(…) as macro variables, which cel-go's parser
  // refuses too (they have no recorded AST); every other expression must parse, including those
  // the recording parser refused for its options (optional syntax, escaped names, depth 32).
  test("every conformance expression parses with kapi's defaults", () => {
    const failed: string[] = [];
    let parsed = 0;
    for (const t of cases) {
      try {
        parse(t.original.expr);
        parsed++;
      } catch (e) {
        failed.push(t.original.expr);
        expect((e as Error).message).toMatch(/argument (must be a simple name|is not an identifier)/);
        expect(t.original.expr).toContain("cel.iterVar(");
      }
    }
    expect(failed.length).toBe(8);
    expect(parsed).toBe(cases.length - 8);
    console.log(`conformance: ${parsed} of ${cases.length} expressions parsed (${cases.filter((t) => t.ast).length} compared with cel-go's AST)`);
  });
});
