import { describe, expect, it } from "vitest";
import { duplicateJsonKeys, JsonSyntaxError, parseJson } from "./json.js";

describe("duplicateJsonKeys", () => {
  it("finds duplicates at any depth with upstream's path notation", () => {
    const text = '{"a":1,"spec":{"replicas":1,"replicas":2,"list":[{"n":"x","n":"y"},{"q":"\\"}"}]},"a":3}';
    expect(JSON.parse(text)).toBeTruthy();
    expect(duplicateJsonKeys(text)).toEqual(["spec.replicas", "spec.list[0].n", "a"]);
  });

  it("reports none for clean documents and escapes", () => {
    expect(duplicateJsonKeys('{"k\\u0041":1,"kA":2}')).toEqual(["kA"]);
    expect(duplicateJsonKeys(' { "x" : [ 1 , 2 , { } , [ ] ] , "y" : "a,b}" } ')).toEqual([]);
  });
});

describe("duplicateJsonKeys with the parsed text", () => {
  const both = (text: string) => [duplicateJsonKeys(text), duplicateJsonKeys(text, JSON.parse(text))];

  it("answers as the scan does, with or without duplicates, whatever the strings hold", () => {
    const texts = [
      '{"a":1,"spec":{"replicas":1,"replicas":2,"list":[{"n":"x","n":"y"},{"q":"\\"}"}]},"a":3}',
      '{"k\\u0041":1,"kA":2}',
      ' { "x" : [ 1 , 2 , { } , [ ] ] , "y" : "a,b}" } ',
      // Colons, quotes and backslashes inside strings and keys are not keys.
      '{"a:b":"c:d","e":"\\\\","f\\"g:":"\\":","h":["i:j",{"k":"l\\\\\\":"}]}',
      '{"x":"\\\\\\\\","x":1}',
      '{"__proto__":{"a":1},"b":[{"c":{"d":{"e":null}}}]}',
      '{"__proto__":1,"__proto__":2}',
      '[{"a":1},{"a":1,"a":2},"s:t",3]',
      '"just a string: with a colon"',
      "42",
      "{}",
    ];
    for (const t of texts) {
      const [scanned, counted] = both(t);
      expect(counted, t).toEqual(scanned);
    }
    expect(both('{"x":"\\\\\\\\","x":1}')[1]).toEqual(["x"]);
    expect(both('{"__proto__":1,"__proto__":2}')[1]).toEqual(["__proto__"]);
  });
});

describe("JSON bodies as deep as Go takes them", () => {
  it("scans 10,000 levels without recursing, duplicates at the bottom included", () => {
    const depth = 9_998; // with the outer and inner objects: 10,000 levels
    const text = `{"x":${"[".repeat(depth)}{"k":1,"k":2}${"]".repeat(depth)}}`;
    const parsed = parseJson(text);
    expect(duplicateJsonKeys(text, parsed)).toEqual([`x${"[0]".repeat(depth)}.k`]);
    const clean = `{"x":${"[".repeat(depth)}{"k":1}${"]".repeat(depth)}}`;
    expect(duplicateJsonKeys(clean, parseJson(clean))).toEqual([]);
  });

  it("refuses a body past Go's depth or not JSON at all in Go's words", () => {
    expect(() => parseJson(`{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`)).toThrow(new JsonSyntaxError("invalid character '[' exceeded max depth"));
    expect(() => parseJson(Buffer.from('{"a":1}}'))).toThrow(new JsonSyntaxError("invalid character '}' after top-level value"));
  });
});
