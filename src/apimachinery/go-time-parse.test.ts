import { describe, expect, it } from "vitest";
import { goTimeParseError } from "./go-time-parse.js";

const as = (v: string, rest: string, element: string, layout = "2006-01-02T15:04:05Z07:00") => `parsing time "${v}" as "${layout}": cannot parse "${rest}" as "${element}"`;

describe("goTimeParseError (time.Parse with RFC 3339)", () => {
  it("takes what Go takes: a fraction the layout does not name, a one-digit hour, offsets", () => {
    for (const ok of ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.123456789Z", "2024-01-01T00:00:00,5Z", "2024-01-01T1:02:03Z", "2024-02-29T23:59:59+24:00", "0000-01-01T00:00:00-00:30"]) {
      expect(goTimeParseError(ok), ok).toBeUndefined();
    }
  });

  it("names the element that does not parse and what was left", () => {
    expect(goTimeParseError("garbage")).toBe(as("garbage", "garbage", "2006"));
    expect(goTimeParseError("")).toBe(as("", "", "2006"));
    expect(goTimeParseError("2024-01-01")).toBe(as("2024-01-01", "", "T"));
    expect(goTimeParseError("2024-01-01 00:00:00Z")).toBe(as("2024-01-01 00:00:00Z", " 00:00:00Z", "T"));
    expect(goTimeParseError("2024-1-01T00:00:00Z")).toBe(as("2024-1-01T00:00:00Z", "1-01T00:00:00Z", "01"));
    expect(goTimeParseError("2024-01-01T00:00:00")).toBe(as("2024-01-01T00:00:00", "", "Z07:00"));
    expect(goTimeParseError("2024-01-01T00:00:00+0100")).toBe(as("2024-01-01T00:00:00+0100", "+0100", "Z07:00"));
  });

  it("says which field is out of range, and what follows the layout", () => {
    expect(goTimeParseError("2024-13-01T00:00:00Z")).toBe('parsing time "2024-13-01T00:00:00Z": month out of range');
    expect(goTimeParseError("2023-02-29T00:00:00Z")).toBe('parsing time "2023-02-29T00:00:00Z": day out of range');
    expect(goTimeParseError("2024-01-01T24:00:00Z")).toBe('parsing time "2024-01-01T24:00:00Z": hour out of range');
    expect(goTimeParseError("2024-01-01T00:60:00Z")).toBe('parsing time "2024-01-01T00:60:00Z": minute out of range');
    expect(goTimeParseError("2024-01-01T00:00:00+25:00")).toBe('parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range');
    expect(goTimeParseError("2024-01-01T00:00:00Zjunk")).toBe('parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"');
  });

  it("quotes as Go's time package does: bytes past ASCII as \\x escapes", () => {
    expect(goTimeParseError("é")).toBe('parsing time "\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "2006"');
  });

  it("MicroTime's layout wants exactly six fractional digits", () => {
    const micro = "2006-01-02T15:04:05.000000Z07:00";
    expect(goTimeParseError("2024-01-01T00:00:00.123456Z", true)).toBeUndefined();
    expect(goTimeParseError("2024-01-01T00:00:00Z", true)).toBe(as("2024-01-01T00:00:00Z", "Z", ".000000", micro));
    expect(goTimeParseError("2024-01-01T00:00:00.000Z", true)).toBe(as("2024-01-01T00:00:00.000Z", ".000Z", ".000000", micro));
  });
});
