import { describe } from "vitest";
import { compileErr, evalErr, table } from "./e2e.testkit.js";

describe("kubernetes.regex end to end", () => {
  table([
    ["'abc 123'.find('[0-9]+')", "123"],
    ["'abc 123'.find('xyz')", ""],
    ["''.find('a*')", ""],
    ["'abc'.find(dyn('['))", evalErr("Illegal regex: error parsing regexp: missing closing ]: `[`")],
    ["'abc'.find(1)", compileErr("found no matching overload for 'find' applied to 'string.(int)'")],
    ["'123 abc 456'.findAll('[0-9]+')", ["123", "456"]],
    ["'123 abc 456'.findAll('xyz')", []],
    ["'123 abc 456'.findAll('[0-9]+', 1)", ["123"]],
    ["'123 abc 456'.findAll('[0-9]+', 0)", []],
    ["'123 abc 456'.findAll('[0-9]+', -1)", ["123", "456"]],
    // Go's FindAllString: empty matches right after a match are dropped
    ["'a1b2'.findAll('[0-9]*')", ["", "1", "2"]],
    ["'abc'.findAll(dyn('('))", evalErr("Illegal regex: error parsing regexp: missing closing ): `(`")],
    // A constant pattern is compiled when the program is made (cel.OptimizeRegex): see program.test.ts.
    ["'abc'.findAll('a', 'b')", compileErr("found no matching overload for 'findAll' applied to 'string.(string, string)'")],
    // matches (standard library) uses the same RE2 engine
    ["'abc'.matches('^a.c$')", true],
    ["'abc'.matches('[')", compileErr("invalid matches argument")],
    ["'abc'.matches(dyn('['))", evalErr("error parsing regexp: missing closing ]: `[`")],
  ]);
});
