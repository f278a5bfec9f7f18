import { describe, expect, it } from "vitest";
import { compactJSON } from "./audit-request.js";

describe("compactJSON", () => {
  it("drops the whitespace between tokens, keeping strings (escaped quotes included), numbers and key order", () => {
    expect(compactJSON(' {\n\t"b" : 1.50 ,\r\n "2": [ "a b", "q\\" x" ], "e": "\\\\" } ')).toBe('{"b":1.50,"2":["a b","q\\" x"],"e":"\\\\"}');
  });
});
