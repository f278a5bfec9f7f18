import { describe, expect, it } from "vitest";
import { decodeContinue, encodeContinue } from "./continue-token.js";

const prefix = "/registry/configmaps/";
const token = (json: string) => Buffer.from(json).toString("base64url");
/** The message of the 400 decodeContinue throws for `t`. */
function refusal(t: string): string {
  try {
    decodeContinue(t, prefix);
  } catch (e) {
    expect((e as { code?: number }).code).toBe(400);
    return (e as Error).message;
  }
  throw new Error(`token ${t} was taken`);
}
const notValid = "invalid continue token: continue key is not valid";

describe("decodeContinue", () => {
  it("reads back what encodeContinue wrote", () => {
    expect(decodeContinue(encodeContinue(42, `${prefix}default/a`, prefix), prefix)).toEqual({ rv: 42, after: `${prefix}default/a` });
    expect(decodeContinue(encodeContinue(-1, `${prefix}default/a`, prefix), prefix).rv).toBe(-1);
  });

  it("refuses what RawURLEncoding does not decode, where Go's decoder stops", () => {
    expect(refusal("ab+c")).toBe(`${notValid}: illegal base64 data at input byte 2`);
    expect(refusal("ab/c")).toBe(`${notValid}: illegal base64 data at input byte 2`);
    expect(refusal("abc=")).toBe(`${notValid}: illegal base64 data at input byte 3`);
    // A last quantum of one symbol, reported where the input ends (line breaks skipped).
    expect(refusal("abcde")).toBe(`${notValid}: illegal base64 data at input byte 4`);
    expect(refusal("abcde\n")).toBe(`${notValid}: illegal base64 data at input byte 5`);
    expect(refusal("ab é")).toBe(`${notValid}: illegal base64 data at input byte 2`);
  });

  it("answers bytes that are not JSON in the words of Go's scanner", () => {
    // "garbage" decodes to 0x81 0xaa 0xdb 0x6a 0xb7.
    expect(refusal("garbage")).toBe(`${notValid}: invalid character '\\u0081' looking for beginning of value`);
    expect(refusal(token('{"v":"meta.k8s.io/v1"'))).toBe(`${notValid}: unexpected end of JSON input`);
    expect(refusal(token("{} x"))).toBe(`${notValid}: invalid character 'x' after top-level value`);
    expect(refusal("")).toBe(`${notValid}: unexpected end of JSON input`);
  });

  it("answers members of the wrong kind as Go's decoder does, the first one found", () => {
    const field = (what: string, f: string, type: string) => `${notValid}: json: cannot unmarshal ${what} into Go struct field continueToken.${f} of type ${type}`;
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":"5","start":"a\\u0000"}'))).toBe(field("string", "rv", "int64"));
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":1.5,"start":"a\\u0000"}'))).toBe(field("number 1.5", "rv", "int64"));
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":1e3,"start":"a\\u0000"}'))).toBe(field("number 1e3", "rv", "int64"));
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":9223372036854775808,"start":"a\\u0000"}'))).toBe(field("number 9223372036854775808", "rv", "int64"));
    expect(refusal(token('{"v":7,"rv":true,"start":"a\\u0000"}'))).toBe(field("number", "v", "string"));
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":5,"start":["a"]}'))).toBe(field("array", "start", "string"));
    expect(refusal(token('{"v":{},"rv":5}'))).toBe(field("object", "v", "string"));
    expect(refusal(token("[]"))).toBe(`${notValid}: json: cannot unmarshal array into Go value of type storage.continueToken`);
    expect(refusal(token('"x"'))).toBe(`${notValid}: json: cannot unmarshal string into Go value of type storage.continueToken`);
    expect(refusal(token("12"))).toBe(`${notValid}: json: cannot unmarshal number into Go value of type storage.continueToken`);
  });

  it("reads members as Go does: names in any case, unknown ones skipped, null leaving a field unset, the last duplicate winning", () => {
    expect(decodeContinue(token('{"V":"meta.k8s.io/v1","Rv":7,"START":"default/a\\u0000","x":[[{"y":"]"}]]}'), prefix)).toEqual({ rv: 7, after: `${prefix}default/a` });
    expect(decodeContinue(token('{"v":"meta.k8s.io/v1","rv":3,"rv":9,"start":null,"start":"b\\u0000"}'), prefix)).toEqual({ rv: 9, after: `${prefix}b` });
    // null decodes into nothing: every field keeps its zero value.
    expect(refusal(token("null"))).toBe(`${notValid}: server does not recognize this encoded version `);
  });

  it("checks the version, the revision and the start key as upstream", () => {
    expect(refusal(token('{"v":"meta.k8s.io/v2","rv":5,"start":"a\\u0000"}'))).toBe(`${notValid}: server does not recognize this encoded version meta.k8s.io/v2`);
    expect(refusal(token('{"v":"meta.k8s.io/v1","start":"a\\u0000"}'))).toBe(`${notValid}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":5}'))).toBe(`${notValid}: encoded start key empty (version meta.k8s.io/v1)`);
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/a\\u0000"}'))).toBe(`${notValid}: ../secrets/a\u0000`);
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":5,"start":"a//b\\u0000"}'))).toBe(`${notValid}: a//b\u0000`);
    expect(refusal(token('{"v":"meta.k8s.io/v1","rv":5,"start":"a/"}'))).toBe(`${notValid}: a/`);
  });
});
