import { describe, expect, it } from "vitest";
import { tabwrite } from "./tabwriter.js";

describe("tabwrite (Go text/tabwriter with minwidth 8, padding 1)", () => {
  it("pads each column to its widest cell plus one, at least 8", () => {
    expect(tabwrite("PriorityLevelName,\tActiveQueues,\tIsIdle\nexempt,\t0,\ttrue\n")).toBe(
      "PriorityLevelName, ActiveQueues, IsIdle\n" + "exempt,            0,            true\n",
    );
  });
  it("keeps short columns at the minimum width", () => {
    expect(tabwrite("a\tb\tc\n")).toBe("a       b       c\n");
  });
  it("aligns a column block only over the lines that have the column", () => {
    expect(tabwrite("aaaaaaaaaa\tb\nc\n\td\n")).toBe("aaaaaaaaaa b\nc\n        d\n");
  });
});
