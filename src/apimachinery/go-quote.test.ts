import { describe, expect, it } from "vitest";
import { goQuote, goQuoteList, goQuoteRune, isGoPrintable } from "./go-quote.js";

describe("Go's %q", () => {
  it("quotes as strconv.Quote: printable text as is, Go's escapes for the rest", () => {
    expect(goQuote('a "b" \\ ü')).toBe('"a \\"b\\" \\\\ ü"');
    expect(goQuote("\x00\x07\x0b\x7f\u2028")).toBe('"\\x00\\a\\v\\x7f\\u2028"');
    expect(goQuoteList(["a", "b"])).toBe('["a" "b"]');
  });
  it("quotes one character as encoding/json's syntax errors do", () => {
    expect(goQuoteRune("x")).toBe("'x'");
    expect(goQuoteRune("'")).toBe("'\\''");
    expect(goQuoteRune('"')).toBe("'\"'");
    expect(goQuoteRune("\n")).toBe("'\\n'");
    expect(goQuoteRune("\x01")).toBe("'\\x01'");
  });
  it("answers ASCII without the Unicode classes as the classes would (the fast path agrees)", () => {
    const classes = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      expect([c, isGoPrintable(ch)]).toEqual([c, ch === " " || classes.test(ch)]);
    }
    expect(isGoPrintable("ü")).toBe(true);
    expect(isGoPrintable("\u2028")).toBe(false);
  });
});
