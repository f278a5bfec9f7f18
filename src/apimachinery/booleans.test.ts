import { describe, expect, it } from "vitest";
import { optionalQueryBool, parseGoBool, queryBool } from "./booleans.js";

describe("query booleans", () => {
  const read = (query: string) => optionalQueryBool(new URLSearchParams(query), "force");

  it("are unset when absent and false only for 0 or false in any case", () => {
    expect(read("")).toBeUndefined();
    for (const no of ["force=false", "force=False", "force=FALSE", "force=fAlSe", "force=0"]) expect(read(no), no).toBe(false);
  });

  it("are true for anything else, the empty value and Python's True included", () => {
    for (const yes of ["force", "force=", "force=True", "force=true", "force=1", "force=yes", "force=no", "force=00"]) expect(read(yes), yes).toBe(true);
  });

  it("read the first occurrence", () => {
    expect(read("force=false&force=true")).toBe(false);
    expect(read("force=True&force=false")).toBe(true);
  });

  it("default to false where absence means false", () => {
    expect(queryBool(new URLSearchParams(""), "watch")).toBe(false);
    expect(queryBool(new URLSearchParams("watch"), "watch")).toBe(true);
  });
});

describe("parseGoBool", () => {
  it("takes Go's spellings and nothing else", () => {
    for (const t of ["1", "t", "T", "true", "TRUE", "True"]) expect(parseGoBool(t), t).toBe(true);
    for (const f of ["0", "f", "F", "false", "FALSE", "False"]) expect(parseGoBool(f), f).toBe(false);
    for (const bad of ["", "yes", "tRue", "2"]) expect(parseGoBool(bad), bad).toBeUndefined();
  });
});
