import { describe, expect, it } from "vitest";
import { goJsonSyntaxError, maxNestingDepth, mayNestTooDeep, quoteChar } from "./go-json-syntax.js";

const verdict = (text: string | Uint8Array) => goJsonSyntaxError(typeof text === "string" ? Buffer.from(text) : text);

describe("goJsonSyntaxError: Go's scanner's words", () => {
  it.each([
    ["", "unexpected end of JSON input"],
    ["   ", "unexpected end of JSON input"],
    ["{", "unexpected end of JSON input"],
    ['{"apiVersion":"v1",', "unexpected end of JSON input"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['{"a":1} x', "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ["[1 2]", "invalid character '2' after array element"],
    ["{1:2}", "invalid character '1' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["[,]", "invalid character ',' looking for beginning of value"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["nulx", "invalid character 'x' in literal null (expecting 'l')"],
    ["fals3", "invalid character '3' in literal false (expecting 'e')"],
    ["\\", "invalid character '\\\\' looking for beginning of value"],
    ["\u007f", "invalid character '\\x7f' looking for beginning of value"],
  ])("%j → %s", (text, message) => {
    expect(verdict(text)).toBe(message);
  });

  it("names a byte past ASCII as the rune of its value, escaping what Go does not print", () => {
    // "é" is C3 A9 in UTF-8: Go reads the byte C3 and prints U+00C3.
    expect(verdict("é")).toBe("invalid character 'Ã' looking for beginning of value");
    expect(verdict(Buffer.from([0xa0]))).toBe("invalid character '\\u00a0' looking for beginning of value");
    expect(verdict(Buffer.from([0x85]))).toBe("invalid character '\\u0085' looking for beginning of value");
    expect([quoteChar(0xad), quoteChar(0xff), quoteChar(0x22), quoteChar(0x0b)]).toEqual(["'\\u00ad'", "'ÿ'", `'"'`, "'\\v'"]);
  });

  it("accepts what Go accepts, up to 10,000 levels of nesting", () => {
    for (const ok of ['{"a":[1,-0.5E-3,1e+5,true,false,null,"\\u00e9\\n\\/"]}', " 0 ", '""', "{}", "[]", '{"a":{}}']) expect(verdict(ok), ok).toBeUndefined();
    const deepest = "[".repeat(maxNestingDepth) + "]".repeat(maxNestingDepth);
    expect(verdict(deepest)).toBeUndefined();
    expect(verdict("[" + deepest + "]")).toBe("invalid character '[' exceeded max depth");
    expect(verdict('{"a":'.repeat(maxNestingDepth + 1))).toBe("invalid character '{' exceeded max depth");
    expect(verdict('{"a":'.repeat(maxNestingDepth) + "1" + "}".repeat(maxNestingDepth))).toBeUndefined();
  });

  it("agrees with JSON.parse on what is JSON, over mutations of a pod", () => {
    const pod = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x", ports: [{ containerPort: 80 }] }], priority: -1.5e3, hostNetwork: false, nodeName: null } });
    const alphabet = ' {}[]":,.-+eE01\\ntfu';
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let k = 0; k < 3000; k++) {
      let text = pod;
      for (let m = 0; m <= rand(3); m++) {
        const at = rand(text.length + 1);
        const op = rand(3);
        const ch = alphabet[rand(alphabet.length)]!;
        text = op === 0 ? text.slice(0, at) + text.slice(at + 1) : op === 1 ? text.slice(0, at) + ch + text.slice(at) : text.slice(0, at) + ch + text.slice(at + 1);
      }
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      expect(verdict(text) === undefined, text).toBe(parses);
    }
  });
});

describe("mayNestTooDeep", () => {
  it("rules out short texts and texts with few brackets, and not the rest", () => {
    expect(mayNestTooDeep("[".repeat(maxNestingDepth))).toBe(false);
    expect(mayNestTooDeep(`{"data":"${"x".repeat(100_000)}"}`)).toBe(false);
    expect(mayNestTooDeep("[".repeat(maxNestingDepth + 1) + "]".repeat(maxNestingDepth + 1))).toBe(true);
    // Brackets inside strings count: the scan that follows tells.
    expect(mayNestTooDeep(`"${"{".repeat(maxNestingDepth + 1)}${" ".repeat(maxNestingDepth)}"`)).toBe(true);
  });
});
