import { describe, expect, it } from "vitest";
import { mergeTolerations } from "./tolerations.js";

describe("toleration merging", () => {
  it("merges tolerations keeping only the broadest", () => {
    const exists = { key: "k", operator: "Exists" };
    const equal = { key: "k", operator: "Equal", value: "v" };
    expect(mergeTolerations([equal], [exists])).toEqual([exists]);
    expect(mergeTolerations([exists, exists], [])).toEqual([exists]);
    const short = { key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 };
    const long = { key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 100 };
    expect(mergeTolerations([short], [long])).toEqual([long]);
  });
});
